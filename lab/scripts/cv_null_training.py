"""DEplain-web dev 5-fold CV by document (benchmarks/scripts/cv_crf.py's folds, seed 0) of a CRF trained with
synthetic no-counterpart documents (null_augment.py) made from the training folds only: link and
bead-text F1, mean of folds, with the DEplain-web CRF alone (wide = false).

    python lab/scripts/cv_null_training.py [--drop 0.4] [--mode add] [--set key=value]"""

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
from gold_folds import folds_of
from null_augment import augmented
from script_output import add_output_option, run_main

from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
from spacy_simalign.aligners.crf.training_settings import TrainingSettings
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.formats.pair_jsonl import read_training_pairs

ROOT = Path(__file__).resolve().parents[2]
DEPLAIN = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--drop", type=float, default=0.0)
    ap.add_argument("--drop-simple", type=float, default=0.0)
    ap.add_argument("--mode", default="add", choices=("add", "replace"))
    ap.add_argument("--set", action="append", default=[], help="key=value,key=value: one more setting row")
    ap.add_argument("--relative-null", action="store_true")
    add_output_option(ap)
    a = ap.parse_args(argv)
    if a.relative_null:
        from null_augment import use_relative_null

        use_relative_null()
    rows = [{}] + [{k: json.loads(v) for k, v in (kv.split("=", 1) for kv in row.split(","))} for row in a.set]
    pairs = list(read_training_pairs(str(DEPLAIN)))
    probe = CRFAligner({})
    tests = [probe.featurize(p.complex, p.simple) for p in pairs]
    figs = {i: [] for i in range(len(rows))}
    t0 = time.time()
    for f, test in enumerate(folds_of(len(pairs), 5, 0)):
        train = [pairs[i] for i in range(len(pairs)) if i not in set(test)]
        if a.drop or a.drop_simple:
            rng = random.Random(f)
            syn = [augmented(p, rng, a.drop, 0.0, 0.0, (), a.drop_simple) for p in train]
            train = [x for pair in zip(train, syn) for x in pair] if a.mode == "add" else syn
        aligner = train_aligner(train, {}, settings=TrainingSettings(), encoder=probe.encoder)
        base = dict(aligner.config)
        for r, overrides in enumerate(rows):
            aligner.config = dict(base, **overrides)
            scorer = AlignmentScorer()
            for i in test:
                beads = aligner.align_input(tests[i])
                scorer.add(pairs[i].gold, beads, pairs[i].complex.sentences, pairs[i].simple.sentences)
            s = scorer.scores()
            figs[r].append((s["link"]["f"], s["bead_text"]["f"]))
            print(f"fold {f + 1} {overrides}: link {figs[r][-1][0]:.3f} bead-text {figs[r][-1][1]:.3f}", flush=True)
    for r, overrides in enumerate(rows):
        lf, bf = np.mean(figs[r], axis=0)
        print(
            f"drop {a.drop} drop_simple {a.drop_simple} mode {a.mode} {overrides}: CV mean link {lf:.3f} bead-text {bf:.3f} ({time.time() - t0:.0f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
