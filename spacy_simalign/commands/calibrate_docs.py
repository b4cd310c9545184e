"""`calibrate-docs`: sweep the document-matching threshold (0..100, step 0.5) on gold pairs,
print each strategy's best F1 and threshold, and write them into the matcher config
([docmatch.thresholds]; default ./docmatch.cfg) for `match-docs --threshold auto`."""
import dataclasses
import random
import sys

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


def _subset(docs, ids):
    return [d for d in docs if d.id in ids]


def held_out(matcher, source, target, gold, folds: int, seed: int = 0):
    """Cross-validation by document pair: thresholds from the other folds, scored on this one."""
    from ..docmatch.calibration import StrategyResult, calibrate, evaluate_at

    # embed every document once; the folds reuse the vectors
    source = [dataclasses.replace(d, embedding=v) for d, v in zip(source, matcher.embed(source))]
    target = [dataclasses.replace(d, embedding=v) for d, v in zip(target, matcher.embed(target))]
    pairs = sorted(gold)
    random.Random(seed).shuffle(pairs)
    parts = [pairs[k::folds] for k in range(folds)]
    totals = {}
    for k, test in enumerate(parts):
        train = {p for j, part in enumerate(parts) if j != k for p in part}
        results = {}
        for name, subset in (("train", train), ("test", set(test))):
            src = _subset(source, {s for s, _ in subset})
            tgt = _subset(target, {t for _, t in subset})
            cands = matcher.candidates(src, tgt)
            results[name] = (cands, [d.id for d in src], [d.id for d in tgt], subset)
        calibrated = {r.strategy: r.threshold for r in calibrate(*results["train"])}
        for r in evaluate_at(*results["test"], calibrated):
            tp = r.precision * r.predicted
            acc = totals.setdefault(r.strategy, [0.0, 0, 0, []])
            acc[0] += tp
            acc[1] += r.predicted
            acc[2] += len(test)
            acc[3].append(r.threshold)
    from ..docmatch.calibration import prf

    return [StrategyResult(s, sum(v[3]) / len(v[3]), *prf(round(v[0]), v[1], v[2]), v[1]) for s, v in totals.items()]


def run(args) -> int:
    from ..docmatch.calibration import calibrate, format_table, read_gold_pairs, write_config
    from ..docmatch.cli import load_matcher
    from ..docmatch.documents import read_documents

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
