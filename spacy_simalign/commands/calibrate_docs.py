"""`calibrate-docs`: on gold document pairs, choose the signals and the threshold of best F1
for the collections' language pair, print every strategy's best threshold with them, and
write them into the matcher config as the pair's profile (default ./docmatch.cfg), which
`match-docs` then uses (`--threshold auto` for another strategy's threshold)."""

from ..core.output_paths import Paths
from ..core.terminal_text import say

NAME = "calibrate-docs"
HELP = "choose document-matching signals and thresholds on gold pairs and write them into the matcher config"


def add_arguments(parser):
    from ..docmatch.cli import DEFAULT_CONFIG_PATH, add_matcher_arguments

    parser.add_argument("source", help="source documents JSONL")
    parser.add_argument("target", help="target documents JSONL")
    parser.add_argument("gold", help='gold pairs JSONL: {"source": id, "target": id} per line')
    parser.add_argument(
        "--output-config",
        default=DEFAULT_CONFIG_PATH,
        help=f"config to write with the calibrated profile (default {DEFAULT_CONFIG_PATH})",
    )
    parser.add_argument(
        "--folds",
        type=int,
        default=0,
        help="also report held-out scores: calibrate on k-1 folds of gold pairs, test on the rest",
    )
    parser.add_argument(
        "--thresholds-only",
        action="store_true",
        help="keep the pair's signals (lexical signal and weights) and calibrate the thresholds only",
    )
    add_matcher_arguments(parser)


def paths(args) -> Paths:
    """The config read (--config) may be the one written: its thresholds are updated in place."""
    return Paths(inputs=[args.source, args.target, args.gold], outputs=[args.output_config])


def run(args) -> int:
    from ..docmatch.calibration import calibrate, format_profiles, format_table, held_out, write_config
    from ..docmatch.cli import load_matcher
    from ..docmatch.matcher import is_v1
    from ..formats.documents import read_documents
    from ..formats.matches import read_gold_pairs

    matcher, config, _ = load_matcher(args)
    source = read_documents(args.source, matcher.allow_mixed_languages)
    target = read_documents(args.target, matcher.allow_mixed_languages)
    gold = read_gold_pairs(args.gold, {d.id for d in source}, {d.id for d in target})
    search = not args.thresholds_only
    key, profile, results, tried = calibrate(matcher, source, target, gold, search)
    print(format_profiles(tried, matcher.strategy, profile))
    print()
    print(
        format_table(
            results,
            f"Calibrated on {len(gold)} gold pairs ({len(source)} x {len(target)} documents, "
            f"{key}; lexical {profile.lexical} {profile.lexical_weight:g}, evidence weight "
            f"{profile.rerank_weight:g})",
        )
    )
    if args.folds and args.folds > 1:
        print()
        print(
            format_table(
                held_out(matcher, source, target, gold, args.folds, search=search),
                f"Held out ({args.folds}-fold by document pair: signals and thresholds chosen on the other "
                "folds; threshold = mean over folds)",
            )
        )
    write_config(config, key, profile, args.output_config)
    section = "[docmatch] (a v1 config: one profile for every pair)" if is_v1(config) else f"[docmatch.profiles.{key}]"
    say(f"profile {key} written to {args.output_config} {section}", err=True)
    return 0
