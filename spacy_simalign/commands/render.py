"""`render PAIRS.jsonl [ALIGNMENTS.jsonl] OUT.html`: a static HTML view of alignments."""

import os

from ..core.errors import InputError
from ..core.output_paths import Paths
from ..core.terminal_text import say
from ..formats.jsonl import atomic_output
from ..review.render import load_views, render

NAME = "render"
HELP = (
    "Write an HTML page showing each pair's two sides side by side, with aligned sentences linked and "
    "coloured by score (the pairs' gold when no ALIGNMENTS.jsonl is given)"
)


def add_arguments(parser) -> None:
    parser.usage = (
        "python -m spacy_simalign render [-h] [--ids IDS] [--limit N] PAIRS.jsonl [ALIGNMENTS.jsonl] OUT.html"
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="PAIRS.jsonl (pair JSONL), optionally ALIGNMENTS.jsonl (written by `align`; without it "
        "the pairs' gold is shown), and OUT.html, the page to write",
    )
    parser.add_argument("--ids", default=None, help="comma-separated pair ids to show (default: all)")
    parser.add_argument("--limit", type=int, default=None, help="show at most this many pairs")


def paths(args) -> Paths:
    if len(args.paths) not in (2, 3):
        raise InputError(f"expected PAIRS.jsonl [ALIGNMENTS.jsonl] OUT.html, got {len(args.paths)} paths")
    return Paths(inputs=args.paths[:-1], outputs=[args.paths[-1]])


def run(args) -> int:
    if len(args.paths) not in (2, 3):
        raise InputError(f"expected PAIRS.jsonl [ALIGNMENTS.jsonl] OUT.html, got {len(args.paths)} paths")
    pairs_path, out_path = args.paths[0], args.paths[-1]
    alignments_path = args.paths[1] if len(args.paths) == 3 else None
    if out_path.endswith(".jsonl"):
        raise InputError("the last path is the HTML file to write, not a JSONL file", out_path)
    views = load_views(pairs_path, alignments_path)
    if args.ids:
        wanted = [i.strip() for i in args.ids.split(",") if i.strip()]
        known = {v.id for v in views}
        missing = [i for i in wanted if i not in known]
        if missing:
            raise InputError(f"no pair with id {', '.join(repr(m) for m in missing)}", pairs_path)
        views = [v for v in views if v.id in set(wanted)]
    if args.limit is not None:
        views = views[: max(args.limit, 0)]
    if not views:
        raise InputError("no pairs to render", pairs_path)
    html = render(views, page=True, jupyter=False)
    with atomic_output(out_path) as out:
        out.write(html)
    say(f"wrote {len(views)} pairs to {os.path.abspath(out_path)}")
    return 0
