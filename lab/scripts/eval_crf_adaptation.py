"""How many gold documents of a new domain the CRF needs: train on the 71 web portal documents plus
k bible documents, test on bible documents none of those runs trained on (DEplain-web dev).

The 11 bible documents are cut into 3 test folds (the seeded shuffle of gold_folds.folds_of); for
each fold and each k, the run trains on the portal documents and the first k of the fold's other
bible documents (in a seeded order, so a larger k adds documents to a smaller one's). Pooled link
and bead-text P/R/F1 over the three folds' test documents per k; k = 0 is "the domain unseen".

    cd lab && SPACY_SIMALIGN_CACHE=../.cache/emb ../.venv/bin/python -m spacy project run eval-crf-adaptation
    cd lab && SPACY_SIMALIGN_CACHE=../.cache/emb ../.venv/bin/python scripts/eval_crf_adaptation.py \
        [--ks 0,2,4,8] [--train-seeds 0,1,2] [--epochs N] [--jobs 2] [--json out.json]

The CRF's training draws (document order, which documents are shown without lexical features)
move the bible figures a lot, so each k is trained with several seeds (--train-seeds; the folds
stay those of --seed) and the table gives the mean and the range over them. Runs are
independent and seeded; --jobs runs them in forked processes (same results)."""

import argparse
import random
import sys
import time
from pathlib import Path

from gold_folds import BIBLE, PORTAL, folds_of, read_gold_pairs
from script_output import add_output_option, run_main, write_json
from training_runs import prepare_runs, run_training

from spacy_simalign.evaluation.tally import Tally

REPO = Path(__file__).resolve().parents[2]  # the repository: the lab project is its lab/ folder
DEPLAIN = REPO / "assets" / "deplain-web-dev" / "pairs.jsonl"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ks", default="0,2,4,8", help="numbers of in-domain training documents")
    ap.add_argument("--folds", type=int, default=3, help="test folds of the bible documents")
    ap.add_argument(
        "--epochs",
        type=int,
        default=None,
        help="CRF training epochs (default: the training default, TrainingSettings.epochs)",
    )
    ap.add_argument(
        "--seed", type=int, default=0, help="seed of the test folds and of the order of the documents added"
    )
    ap.add_argument("--train-seeds", default="0", help="training seeds, each a run of its own")
    ap.add_argument("--jobs", type=int, default=1, help="training runs in parallel (forked processes)")
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    ap.add_argument("--data", default=str(DEPLAIN), help="DEplain-web dev pair JSONL")
    add_output_option(ap)
    args = ap.parse_args(argv)
    if args.epochs is None:
        from spacy_simalign.aligners.crf.train import TrainingSettings

        args.epochs = TrainingSettings().epochs
    ks = [int(k) for k in args.ks.split(",")]
    seeds = [int(v) for v in args.train_seeds.split(",")]
    t0 = time.time()
    corpus, pairs = read_gold_pairs(args.data)
    portal = [i for i, c in enumerate(corpus) if c == PORTAL]
    bible = [i for i, c in enumerate(corpus) if c == BIBLE]
    prepare_runs(pairs, {}, args.epochs, args.jobs)
    jobs = []
    for f, picks in enumerate(folds_of(len(bible), args.folds, args.seed)):
        test = [bible[j] for j in picks]
        others = [i for i in bible if i not in set(test)]
        random.Random(args.seed + f).shuffle(others)
        for k in ks:
            jobs += [((k, seed), portal + others[:k], test, seed) for seed in seeds]
    tallies = {}  # (k, seed) -> the runs of its folds, pooled
    for name, test, preds in run_training(jobs, args.jobs):
        tally = tallies.setdefault(name, Tally())
        for i, pred in zip(test, preds):
            tally.add(pairs[i], pred)
    rows = {k: {seed: tallies[k, seed].figures() for seed in seeds} for k in ks}  # k -> seed -> figures
    print(
        f"train on the {len(portal)} portal documents + k bible documents; test on the held-out bible "
        f"documents ({len(bible)}, {args.folds} folds), pooled; mean over training seeds {seeds} [min-max]\n"
    )
    print(f"{'k':>3}  {'link F1':>19}  {'bead-text F1':>19}  link P / R (mean)")
    for k, by_seed in rows.items():
        link = [fig["link"]["f"] for fig in by_seed.values()]
        bt = [fig["bead_text"]["f"] for fig in by_seed.values()]
        p = sum(fig["link"]["p"] for fig in by_seed.values()) / len(by_seed)
        r = sum(fig["link"]["r"] for fig in by_seed.values()) / len(by_seed)
        print(
            f"{k:>3}  {sum(link) / len(link):.3f} [{min(link):.3f}-{max(link):.3f}]  "
            f"{sum(bt) / len(bt):.3f} [{min(bt):.3f}-{max(bt):.3f}]  {p:.3f} / {r:.3f}"
        )
    print(f"\n{time.time() - t0:.0f} s")
    rows = {str(k): {str(sd): fig for sd, fig in v.items()} for k, v in rows.items()}
    write_json(args.json, {"ks": ks, "epochs": args.epochs, "seed": args.seed, "train_seeds": seeds, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
