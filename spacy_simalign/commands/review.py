"""`review PAIRS.jsonl [ALIGNMENTS.jsonl] [--order RANKED] --port N`: correct alignments in a local web
page, the pairs listed in `rank`'s order when given."""

import webbrowser

from ..core.errors import InputError
from ..core.extras import require
from ..core.output_paths import Paths
from ..core.terminal_text import say

NAME = "review"
HELP = (
    "Serve a page on 127.0.0.1 to walk through the pairs, add and remove links with the mouse or keyboard, "
    "and save them as the pairs' gold (starting from ALIGNMENTS.jsonl where a pair has no gold yet)"
)


def add_arguments(parser) -> None:
    parser.add_argument("pairs", metavar="PAIRS.jsonl", help="pair JSONL; saving rewrites its 'gold' fields")
    parser.add_argument(
        "alignments",
        nargs="?",
        default=None,
        metavar="ALIGNMENTS.jsonl",
        help="alignment JSONL from `align`, shown for pairs that have no gold yet",
    )
    parser.add_argument(
        "--order",
        default=None,
        metavar="RANKED",
        help="list the pairs in this order (the output of `rank --output`: id, tab, score per line; most "
        "unsure first), the pairs it does not name after them in file order",
    )
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port; default 8765)")
    parser.add_argument("--open", action="store_true", help="open the page in the default web browser")


def paths(args) -> Paths:
    """Saves rewrite PAIRS.jsonl in place: its folder must be writable from the start (a save
    must not be the first to find out), and it must not be the alignments file it reads."""
    return Paths(inputs=[args.alignments, args.order], outputs=[args.pairs])


def run(args) -> int:
    require("review", "flask", "the review page")
    from ..review.app import ReviewServer

    if not 0 <= args.port <= 65535:
        raise InputError(f"--port must be between 0 and 65535, got {args.port}")
    try:
        server = ReviewServer(args.pairs, args.alignments, args.port, order_path=args.order)
    except OSError as err:
        raise InputError(f"cannot listen on 127.0.0.1:{args.port}: {err.strerror}") from None
    say(
        f"Reviewing {len(server.app.config['STORE'].ids)} pairs of {args.pairs} at {server.url} "
        "(127.0.0.1 only; Ctrl+C to stop)",
        flush=True,
    )
    if args.open:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server.server_close()
    return 0
