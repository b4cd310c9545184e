"""`stats`: statistics of an aligned cross-lingual corpus (alignment JSONL from align-xling):
AlignRatio per side, aligned-length Pearson, position Kendall per pair; their correlations
with the document similarity; a histogram of document similarities as PNG."""

import json
import math

from ..core.extras import require
from ..core.output_paths import Paths
from ..core.terminal_text import say

NAME = "stats"
HELP = "statistics of an aligned comparable corpus (AlignRatio, length Pearson, Kendall, histogram)"


def add_arguments(parser):
    parser.add_argument("input", help="alignment JSONL with complex_sentences/simple_sentences (align-xling)")
    parser.add_argument("--per-pair", default=None, help="write per-pair statistics here (JSONL)")
    parser.add_argument("--histogram", default=None, help="write the document-similarity histogram here (PNG)")
    parser.add_argument(
        "--similarity-field",
        default="doc_score",
        help="field holding the document similarity in [0, 1] (default doc_score)",
    )
    parser.add_argument("--json", action="store_true", help="print the corpus summary as JSON")


def paths(args) -> Paths:
    return Paths(inputs=[args.input], outputs=[args.per_pair, args.histogram])


def run(args) -> int:
    from ..evaluation.corpus_stats import corpus_correlations, format_summary, read_aligned, similarity_histogram
    from ..formats.jsonl import write_jsonl

    if args.histogram:  # before any output is written
        require("docmatch", "matplotlib", "--histogram")
    stats = read_aligned(args.input, args.similarity_field)
    if args.histogram:
        n = similarity_histogram(stats, args.histogram, field=args.similarity_field)
        say(f"histogram of {n} document similarities -> {args.histogram}", err=True)
    if args.per_pair:
        write_jsonl(args.per_pair, (s.to_json() for s in stats))
    if args.json:
        corr = corpus_correlations(stats)
        clean = {
            k: {kk: (None if isinstance(vv, float) and math.isnan(vv) else vv) for kk, vv in v.items()}
            for k, v in corr.items()
        }
        print(json.dumps({"pairs": len(stats), "statistics": clean}, indent=2))
    else:
        say(format_summary(stats))
    return 0
