"""`export OUT_DIR (--pairs P.jsonl --alignments A.jsonl | --rows R.jsonl|R.csv)`: publish an
aligned corpus as JSONL, CSV, TSV and (with the `datasets` extra) a Hugging Face folder,
with a data card."""

from ..corpus.export import (
    FORMATS,
    CardInfo,
    export_corpus,
    export_files,
    pair_languages,
    pair_records,
    read_rows,
    row_languages,
    rows_from_alignment_file,
)
from ..errors import InputError
from ..outputs import Paths
from ..terminal import say

NAME = "export"
HELP = "Export an aligned corpus to JSONL/CSV/TSV/Hugging Face datasets with a data card."


def add_arguments(parser):
    parser.add_argument("output", help="folder to write into")
    parser.add_argument("--pairs", help="pair JSONL the alignments were made on")
    parser.add_argument("--alignments", help="alignment JSONL written by `align` for --pairs")
    parser.add_argument("--rows", help="sentence-pair rows instead: a CSV 'Document ID,Complex,Simple' or rows JSONL")
    parser.add_argument(
        "--split-simple", action="store_true", help="one row per simple sentence of a bead instead of one row per bead"
    )
    parser.add_argument("--formats", default="jsonl,csv,tsv", help=f"comma-separated, of {', '.join(FORMATS)}")
    parser.add_argument("--name", default="simplification-corpus")
    parser.add_argument("--license", default="unknown")
    parser.add_argument(
        "--lang", default=None, help="language(s) for the card, comma-separated (default: those of the data)"
    )
    parser.add_argument("--aligned-with", default=None, help="how the pairs were aligned (card text)")


def paths(args) -> Paths:
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    return Paths(
        inputs=[args.pairs, args.alignments, args.rows],
        outputs=export_files(args.output, formats),
        folders=[args.output],
    )


def run(args) -> int:
    if args.rows:
        rows = read_rows(args.rows)
        source, langs = args.rows, row_languages(rows)
    elif args.pairs and args.alignments:
        records = pair_records(args.pairs)
        rows = rows_from_alignment_file(args.pairs, args.alignments, args.split_simple, records)
        source, langs = f"{args.pairs} aligned in {args.alignments}", pair_languages(records.values())
    else:
        raise InputError("give --rows FILE, or --pairs FILE and --alignments FILE")
    if args.lang:
        langs = [x.strip() for x in args.lang.split(",") if x.strip()]
    if not langs:
        raise InputError("the rows do not say their language: give it with --lang (e.g. --lang nl)", args.rows)
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    info = CardInfo(
        args.name,
        args.license,
        langs,
        args.aligned_with or "not stated by the exporter",
        source,
    )
    written = export_corpus(rows, args.output, formats, info)
    say(f"{len(rows)} pairs from {len({r.doc_id for r in rows})} documents; wrote " + ", ".join(written))
    return 0
