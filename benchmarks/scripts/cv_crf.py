"""5-fold cross-validation by document of the CRF aligner on DEplain-web dev: link F1 and
bead-text F1 per fold and mean, beside lexical baselines and the published figures.

    cd benchmarks && SPACY_SIMALIGN_CACHE=../.cache/emb spacy project run cv-crf
    SPACY_SIMALIGN_CACHE=.cache/emb PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/cv_crf.py [--folds 5] [--epochs N] \
        [--set top_k=8] [--set training.learn_rate=0.01] [--extra PATH] [--train-seed 1]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from gold_folds import folds_of, read_gold_pairs
from script_output import add_output_option, add_set_option, run_main, write_json
from training_runs import split_settings

from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
from spacy_simalign.aligners.crf.identical import MODES as IDENTICAL_MODES
from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.core.structures import TrainingPair, beads_from_links

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
PUBLISHED = [
    ("MASSAlign (published)", 0.822, 0.864),
    ("CATS C3G closest (published)", 0.817, 0.696),
    ("Sent-LaBSE 0.9 1:1 (published)", 0.705, 0.809),
    ("BERTalign (published)", 0.694, 0.798),
    ("VecAlign (published)", 0.606, 0.704),
]


def lexical_baseline(pair: TrainingPair, backend, threshold: float):
    """Each simple sentence to its most similar complex sentence if above threshold (CATS-style closest)."""
    sims = backend.matrix(pair.simple.sentences, pair.complex.sentences)
    links = [
        (int(sims[i].argmax()), i) for i in range(len(pair.simple)) if sims.shape[1] and sims[i].max() >= threshold
    ]
    return beads_from_links(links)


def score(pairs, preds):
    scorer = AlignmentScorer()
    for p, beads in zip(pairs, preds):
        scorer.add(p.gold, beads, p.complex.sentences, p.simple.sentences)
    s = scorer.scores()
    return s["link"]["f"], s["bead_text"]["f"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument(
        "--extra",
        action="append",
        default=[],
        metavar="PATH",
        help="pair JSONL added to every fold's training as ordinary gold (as project/train_crf.py --data); "
        "scored nowhere",
    )
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument(
        "--epochs",
        type=int,
        default=None,
        help="CRF training epochs (default: the training default, TrainingSettings.epochs)",
    )
    ap.add_argument("--seed", type=int, default=0, help="the folds' seed (and the training seed, by default)")
    ap.add_argument("--train-seed", type=int, default=None, help="the training seed, on the same folds")
    ap.add_argument("--config", default=None, help="JSON object of CRFAligner config overrides")
    add_set_option(
        ap,
        "an aligner setting (top_k=8) or, as training.KEY, a training setting (training.learn_rate=0.01)",
    )
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    ap.add_argument("--predictions", default=None, help="write the held-out alignments (alignment JSONL) here")
    add_output_option(ap)
    args = ap.parse_args(argv)
    if args.epochs is None:
        args.epochs = TrainingSettings().epochs
    overrides, training = split_settings(args.set)
    config = {**(json.loads(args.config) if args.config else {}), **overrides}
    corpus_of, pairs = read_gold_pairs(args.data)
    extra = [pair for path in args.extra for pair in read_gold_pairs(path)[1]]
    held_out = [None] * len(pairs)
    t0 = time.time()
    probe = CRFAligner(config)
    pool = pairs + extra
    train_inputs = featurize_all(probe, pool, with_gold=True)
    test_inputs = featurize_all(probe, pairs, with_gold=False)
    results = {"folds": []}
    combos = ("union", "intersection", "learned")
    per = {c: [] for c in combos}
    modes = [m for m in IDENTICAL_MODES if m != probe.config["identical"]]
    per_identical = {m: [] for m in modes}
    for f, test in enumerate(folds_of(len(pairs), args.folds, args.seed)):
        train = [i for i in range(len(pool)) if i not in set(test)]
        settings = TrainingSettings(**{**training, "seed": args.seed if args.train_seed is None else args.train_seed})
        aligner = train_aligner(
            [pool[i] for i in train],
            config,
            epochs=args.epochs,
            settings=settings,
            encoder=probe.encoder,
            inputs=[train_inputs[i] for i in train],
        )
        tp = [pairs[i] for i in test]
        for c in combos:
            preds = [aligner.align_input(test_inputs[i], combination=c) for i in test]
            per[c].append(score(tp, preds))
            if c == aligner.config["combination"]:
                for i, beads in zip(test, preds):
                    held_out[i] = beads
        for m in modes:
            aligner.config["identical"] = m
            per_identical[m].append(score(tp, [aligner.align_input(test_inputs[i]) for i in test]))
        aligner.config["identical"] = probe.config["identical"]
        lf, bf = per[aligner.config["combination"]][-1]
        print(f"fold {f + 1}: {len(test)} docs  link F1 {lf:.3f}  bead-text F1 {bf:.3f}", flush=True)
        results["folds"].append({"docs": len(test), "link_f1": lf, "bead_text_f1": bf})
    from spacy_simalign.similarity.backends import TfidfSimilarity

    print(f"\n{'method':34s} {'link F1':>8s} {'bead-text F1':>13s}")
    main_c = probe.config["combination"]
    for f, (lf, bf) in enumerate(per[main_c]):
        print(f"{'CRF (' + main_c + ') fold ' + str(f + 1):34s} {lf:8.3f} {bf:13.3f}")
    for c in combos:
        lf, bf = np.mean([x[0] for x in per[c]]), np.mean([x[1] for x in per[c]])
        results[f"mean_{c}"] = {"link_f1": lf, "bead_text_f1": bf}
        print(f"{'CRF (' + c + ') mean of folds':34s} {lf:8.3f} {bf:13.3f}")
    for m in modes:
        lf, bf = np.mean([x[0] for x in per_identical[m]]), np.mean([x[1] for x in per_identical[m]])
        results[f"mean_identical_{m}"] = {"link_f1": lf, "bead_text_f1": bf}
        print(f"{'CRF, identical = ' + m + ', mean':34s} {lf:8.3f} {bf:13.3f}")
    for name, backend, thr in (
        ("C3G closest >= 0.3 (ours)", TfidfSimilarity("char", 3), 0.3),
        ("word TF-IDF closest >= 0.3 (ours)", TfidfSimilarity("word", 1), 0.3),
    ):
        lf, bf = score(pairs, [lexical_baseline(p, backend, thr) for p in pairs])
        print(f"{name:34s} {lf:8.3f} {bf:13.3f}")
    for name, lf, bf in PUBLISHED:
        print(f"{name:34s} {lf:8.3f} {bf:13.3f}")
    corpora = sorted(set(corpus_of))
    if len(corpora) > 1:
        print()
        for corpus in corpora:
            idx = [i for i, c in enumerate(corpus_of) if c == corpus]
            lf, bf = score([pairs[i] for i in idx], [held_out[i] for i in idx])
            print(f"{'  held out, ' + corpus:34s} {lf:8.3f} {bf:13.3f}  ({len(idx)} docs)")
    if args.predictions:
        from spacy_simalign.formats.alignments import alignment_record
        from spacy_simalign.formats.jsonl import atomic_output, dump_line

        with atomic_output(args.predictions) as handle:
            for p, beads in zip(pairs, held_out):
                handle.write(dump_line(alignment_record(p.id, beads)))
    added = f", {len(extra)} documents added to every fold's training" if extra else ""
    print(
        f"\n{len(pairs)} documents, {args.folds} folds by document{added}, seed {args.seed}"
        + ("" if args.train_seed is None else f", training seed {args.train_seed}")
        + f", {time.time() - t0:.0f} s"
        f"\nconfig {json.dumps(config, sort_keys=True)}  training {json.dumps(training, sort_keys=True)}"
    )
    write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
