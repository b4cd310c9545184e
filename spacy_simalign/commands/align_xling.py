"""`align-xling`: sentence alignment inside matched cross-lingual document pairs, after the
post-processing filters (same language, near-identical, error page); see xling_corpus. Input
is pair JSONL, or matches JSONL from match-docs together with --source/--target documents
JSONL. Output is alignment JSONL, one line per kept pair, always with both sides' sentences;
dropped pairs are counted on stderr and written with their reasons to --dropped."""

from dataclasses import fields

from ..core.errors import InputError
from ..core.output_paths import Paths
from ..core.terminal_text import say
from ..corpus.xling_filters import PairFilters

NAME = "align-xling"
HELP = "align sentences of matched cross-lingual document pairs (20min-XD intersection or CRF), with filters"
METHODS = ("intersection", "crf")


def add_arguments(parser):
    parser.add_argument("input", help="pair JSONL, or matches JSONL when --source and --target are given")
    parser.add_argument("output", help="alignment JSONL to write")
    parser.add_argument("--source", default=None, help="source documents JSONL (input is then matches JSONL)")
    parser.add_argument("--target", default=None, help="target documents JSONL")
    parser.add_argument(
        "--method", choices=METHODS, default="intersection", help="intersection (20min-XD, default) or crf"
    )
    parser.add_argument("--config", default=None, metavar="FILE", help="an [aligner] config instead of --method")
    parser.add_argument(
        "--threshold",
        type=float,
        default=None,
        help="sentence similarity threshold x100 for intersection (default: its config's, 40)",
    )
    parser.add_argument("--model", default=None, help="CRF weights folder (method crf; default: shipped weights)")
    parser.add_argument("--no-filter", action="store_true", help="keep every pair (no post-processing)")
    parser.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change a filter setting (repeatable): "
        + ", ".join(f"{f.name} (default {f.default})" for f in fields(PairFilters)),
    )
    parser.add_argument("--dropped", default=None, help="write dropped pairs with their reasons here (JSONL)")
    parser.add_argument("--allow-mixed-languages", action="store_true", help="see match-docs")


def paths(args) -> Paths:
    return Paths(
        inputs=[args.input, args.source, args.target, args.config, args.model], outputs=[args.output, args.dropped]
    )


def build(args):
    """(aligner, name for the output's `method` field) from --method/--config/--threshold/--model."""
    from ..aligners.methods import build_aligner, load_aligner_config, method_config

    if args.config:
        config, path, name = load_aligner_config(args.config), args.config, "config"
    else:
        config, path, name = method_config(args.method), None, args.method
    if args.threshold is not None:
        if args.method != "intersection" or args.config:
            raise InputError("--threshold goes with --method intersection")
        config["aligner"]["threshold"] = args.threshold
    if args.model:
        if args.method != "crf" or args.config:
            raise InputError("--model goes with --method crf")
        config["aligner"]["weights"] = args.model
    return build_aligner(config, path), name


def run(args) -> int:
    from ..corpus.xling_align import align_xling_pairs, pairs_from_matches, pairs_from_pair_file

    if (args.source is None) != (args.target is None):
        raise InputError("give both --source and --target (with matches JSONL as input), or neither")
    aligner, name = build(args)
    pairs = (
        pairs_from_matches(args.input, args.source, args.target, args.allow_mixed_languages)
        if args.source
        else pairs_from_pair_file(args.input)
    )
    filters = None if args.no_filter else PairFilters().with_settings(args.filter)
    result = align_xling_pairs(pairs, aligner, args.output, name, args.dropped, filters)
    say(f"{result.kept} pairs aligned, {result.dropped} dropped by the filters -> {args.output}", err=True)
    return 0
