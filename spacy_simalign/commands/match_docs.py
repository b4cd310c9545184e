"""`match-docs`: which documents of two collections (documents JSONL) correspond; writes
matches JSONL (FORMATS.md). `--threshold auto` takes the threshold calibrated by
calibrate-docs for the chosen strategy from the matcher config."""

from ..core.errors import InputError
from ..core.output_paths import Paths
from ..core.terminal_text import say
from ..formats.matches import write_matches

NAME = "match-docs"
HELP = "match documents across two collections (20min-XD strategies, calibrated threshold)"


def add_arguments(parser):
    from ..docmatch.cli import add_matcher_arguments

    parser.add_argument("source", help="source documents JSONL (id, lang, text; optional title, lead, date)")
    parser.add_argument("target", help="target documents JSONL")
    parser.add_argument("output", help="matches JSONL to write")
    parser.add_argument(
        "--threshold",
        default=None,
        help="minimum similarity on the 0..100 scale (default: the language pair's profile), or "
        "'auto' for the threshold calibrate-docs chose for the strategy",
    )
    add_matcher_arguments(parser)


def paths(args) -> Paths:
    return Paths(inputs=[args.source, args.target, args.config], outputs=[args.output])


def run(args) -> int:
    from ..docmatch.cli import load_matcher
    from ..formats.documents import read_documents

    matcher, _, _ = load_matcher(args)
    auto = str(args.threshold).lower() == "auto"
    threshold = None
    if args.threshold is not None and not auto:
        try:
            threshold = float(args.threshold)
        except ValueError:
            raise InputError(f"--threshold must be a number in 0..100 or 'auto', got '{args.threshold}'") from None
    source = read_documents(args.source, matcher.allow_mixed_languages, allow_empty=True)
    target = read_documents(args.target, matcher.allow_mixed_languages, allow_empty=True)
    if not source or not target:  # valid input, as an empty side is for align: nothing to match
        empty = [path for path, docs in ((args.source, source), (args.target, target)) if not docs]
        write_matches(args.output, iter(()))
        say(f"note: no documents in {' and '.join(empty)}: 0 matches -> {args.output}", err=True)
        return 0
    if threshold is None:
        threshold = matcher.threshold_for(source, target, auto=auto)
    matches = matcher.match(source, target, threshold=threshold)
    write_matches(args.output, (match.to_json() for match in matches))
    say(f"{len(matches)} matches ({matcher.strategy}, threshold {threshold:g}) -> {args.output}", err=True)
    return 0
