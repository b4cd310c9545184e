"""`pairs COMPLEX SIMPLE OUTPUT.jsonl --lang LANG [--lang-simple LANG] [--one-sentence-per-line]`:
two text files, or two folders of them paired by stem, as pair JSONL (FORMATS.md): the pairs that
`align COMPLEX SIMPLE OUTPUT` aligns, in a file every other command reads."""

import argparse
import sys

from ..core.errors import InputError
from ..core.output_paths import Paths
from ..core.terminal_text import say
from ..formats.pair_jsonl import write_pairs
from ..formats.text_files import TextOptions, read_text_pairs, text_options

NAME = "pairs"
HELP = "Write two text files, or two folders of them paired by stem, as pair JSONL."


def add_text_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of reading two text files or folders (also `align`'s, in its three-path form)."""
    parser.add_argument(
        "--lang-simple",
        default=None,
        metavar="LANG",
        help="language of SIMPLE when it differs from --lang's (a translation)",
    )
    parser.add_argument(
        "--one-sentence-per-line",
        action="store_true",
        help="each line is a sentence, kept exactly, and blank lines end paragraphs (hunalign's, vecalign's "
        "and Bleualign's input); by default a file is raw text: paragraphs at blank lines, sentences by "
        "the segmenter",
    )


def options_of(args: argparse.Namespace) -> TextOptions:
    return text_options(args.lang, args.lang_simple, args.one_sentence_per_line)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("complex", help="the complex (or source) side: a text file, or a folder of them")
    parser.add_argument("simple", help="the simple (or target) side: a text file, or a folder whose files pair by stem")
    parser.add_argument("output", help="pair JSONL to write")
    parser.add_argument("--lang", default=None, help="language of COMPLEX (de, nl, fr, en); required")
    add_text_arguments(parser)


def paths(args: argparse.Namespace) -> Paths:
    """Two files, or two folders whose every file is a document: no output in them."""
    return Paths(
        inputs=[args.complex, args.simple], outputs=[args.output], document_folders=[args.complex, args.simple]
    )


def run(args: argparse.Namespace) -> int:
    options = options_of(args)
    if "-" in (args.complex, args.simple):
        raise InputError("COMPLEX and SIMPLE are files or folders, not standard input")
    count = write_pairs(
        args.output, read_text_pairs(args.complex, args.simple, options, lambda m: print(m, file=sys.stderr))
    )
    say(f"wrote {count} pair{'s' if count != 1 else ''} to {args.output}", err=True)
    return 0
