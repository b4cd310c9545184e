"""`init-config NAME [--paragraph]`: print the [aligner] config of a named method, to edit and
pass back with `align --config FILE` (or to put under a component's `aligner` section)."""

from ..aligners.methods import PARAGRAPH_METHODS, SENTENCE_METHODS, method_config

NAME = "init-config"
HELP = "Print the [aligner] config of a named method (edit it, then align --config FILE)."


def add_arguments(parser):
    parser.add_argument(
        "method",
        help=f"sentence method ({', '.join(SENTENCE_METHODS)}) or, with --paragraph, "
        f"paragraph method ({', '.join(PARAGRAPH_METHODS)})",
    )
    parser.add_argument("--paragraph", action="store_true", help="a paragraph aligner's config")


def run(args) -> int:
    print(method_config(args.method, paragraph=args.paragraph).to_str())
    return 0
