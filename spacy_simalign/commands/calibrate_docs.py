"""`calibrate-docs`: sweep the document-matching threshold (0..100, step 0.5) on gold pairs,
print each strategy's best F1 and threshold, and write them into the matcher config
([docmatch.thresholds]; default ./docmatch.cfg) for `match-docs --threshold auto`."""
import sys

from ..outputs import Paths

NAME = "calibrate-docs"
HELP = "calibrate document-matching thresholds on gold pairs and write them into the matcher config"


def add_arguments(parser):
    from ..docmatch.cli import DEFAULT_CONFIG_PATH, add_matcher_arguments

    parser.add_argument("source", help="source documents JSONL")
    parser.add_argument("target", help="target documents JSONL")
    parser.add_argument("gold", help='gold pairs JSONL: {"source": id, "target": id} per line')
    parser.add_argument("--output-config", default=DEFAULT_CONFIG_PATH,
                        help=f"config to write with the calibrated thresholds (default {DEFAULT_CONFIG_PATH})")
    parser.add_argument("--folds", type=int, default=0,
                        help="also report held-out scores: calibrate on k-1 folds of gold pairs, test on the rest")
    add_matcher_arguments(parser)


def paths(args) -> Paths:
    """The config read (--config) may be the one written: its thresholds are updated in place."""
    return Paths(inputs=[args.source, args.target, args.gold], outputs=[args.output_config])


def run(args) -> int:
    from ..docmatch.calibration import calibrate, format_table, held_out, write_config
    from ..docmatch.cli import load_matcher
    from ..formats.documents import read_documents
    from ..formats.matches import read_gold_pairs

    matcher, config, _ = load_matcher(args)
    source = read_documents(args.source, matcher.allow_mixed_languages)
    target = read_documents(args.target, matcher.allow_mixed_languages)
    gold = read_gold_pairs(args.gold, {d.id for d in source}, {d.id for d in target})
    cands = matcher.candidates(source, target)
    results = calibrate(cands, [d.id for d in source], [d.id for d in target], gold)
    print(format_table(results, f"Calibrated on {len(gold)} gold pairs ({len(source)} x {len(target)} documents)"))
    if args.folds and args.folds > 1:
        print()
        print(format_table(held_out(matcher, source, target, gold, args.folds),
                           f"Held out ({args.folds}-fold by document pair; threshold = mean over folds)"))
    write_config(config, results, args.output_config)
    print(f"thresholds written to {args.output_config} [docmatch.thresholds]", file=sys.stderr)
    return 0
