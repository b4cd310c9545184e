"""Train CRFs on DEplain-web dev (and sgc-dev for the wide CRF) with synthetic no-counterpart
documents (null_augment.py), save the weights, and score Wiki-Manual dev's Task 1 with them.

    python lab/scripts/eval_null_training.py --out DIR [--drop 0.3] [--insert-simple 0.1] [--mode replace|add] [--wide]"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

from null_augment import augmented

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.training_settings import TrainingSettings
from spacy_simalign.formats.pair_jsonl import read_training_pairs

ROOT = Path(__file__).resolve().parents[2]
DEPLAIN = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
SHARED = ROOT.parent / "shared" / "data"  # beside the repository, as in the lab's project.yml


def with_synthetic(pairs, args, seed):
    rng = random.Random(seed)
    syn = [
        augmented(p, rng, args.drop, args.insert_simple, args.insert_complex, pairs, args.drop_simple) for p in pairs
    ]
    if args.mode == "replace":
        return syn
    if args.mode == "mix":  # each document replaced with probability share
        return [s if rng.random() < args.share else p for p, s in zip(pairs, syn)]
    # add: interleave so the hold-out split sees both kinds
    return [x for pair in zip(pairs, syn) for x in pair]


def train(args):
    pairs = list(read_training_pairs(str(DEPLAIN)))
    train_pairs = with_synthetic(pairs, args, 0) if args.drop or args.insert_simple or args.insert_complex else pairs
    wide_pairs = []
    if args.wide:
        sgc = list(read_training_pairs(str(SHARED / "sgc-dev" / "pairs.jsonl")))
        wide_pairs = with_synthetic(sgc, args, 1) if args.drop or args.insert_simple else sgc
    config = json.loads(args.config) if args.config else {}
    aligner = CRFAligner(dict(config), settings=TrainingSettings(), ready=False)
    t0 = time.time()
    aligner.initialize(lambda: train_pairs, wide_pairs=wide_pairs or None)
    aligner.fit(train_pairs)
    aligner.save(args.out)
    print(
        f"trained on {len(train_pairs)} (+{len(wide_pairs)} wide) documents in {time.time() - t0:.0f} s -> {args.out}"
    )


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--drop", type=float, default=0.0)
    ap.add_argument("--drop-simple", type=float, default=0.0)
    ap.add_argument("--insert-simple", type=float, default=0.0)
    ap.add_argument("--insert-complex", type=float, default=0.0)
    ap.add_argument("--mode", default="replace", choices=("replace", "add", "mix"))
    ap.add_argument("--share", type=float, default=0.5)
    ap.add_argument("--wide", action="store_true")
    ap.add_argument("--config", default=None)
    ap.add_argument("--relative-null", action="store_true")
    args = ap.parse_args(argv)
    if args.relative_null:
        from null_augment import use_relative_null

        use_relative_null()
    train(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
