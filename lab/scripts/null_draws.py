"""How much the synthetic-data CRF (null_augment.py: add-mode copies of DEplain-web dev without the
complex side of a share of their beads) depends on which beads the copies drop: one CRF per draw
seed (training seed 0, the shipped recipe otherwise), each asked first for Wiki-Manual documents
whose complex side has at least 2.5 times the simple side's sentences (null_gate.py's rule: margin 0,
then the shipped wide CRF at 0.1), Task 1 pooled over the 49 articles. `--copies N` makes N copies of
each document, each its own draw. The models are saved in DIR (kept when there).

    python lab/scripts/null_draws.py --models DIR [--drop 0.2] [--seeds 0,1,2,3] [--copies 1]"""

import argparse
import random
import sys
from pathlib import Path

from null_augment import augmented
from null_choice import DEPLAIN, WM, Scored, choose_by, lone
from null_gate import rule
from script_output import add_output_option, run_main
from task1 import prf, task1_links

from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
from spacy_simalign.aligners.crf.choice import WIDE_FOLDER
from spacy_simalign.aligners.crf.training_settings import TrainingSettings
from spacy_simalign.formats.pair_jsonl import read_pairs, read_training_pairs

GATE = 2.5


def trained(folder: Path, drop: float, seed: int, copies: int, encoder) -> CRFAligner:
    """The synthetic-data CRF of one draw seed (saved in `folder`, or loaded from it)."""
    if not (folder / "config.json").exists():
        pairs = list(read_training_pairs(str(DEPLAIN)))
        rng = random.Random(seed)
        mixed = [x for p in pairs for x in [p] + [augmented(p, rng, drop, 0.0, 0.0, (), 0.0) for _ in range(copies)]]
        train_aligner(mixed, {}, settings=TrainingSettings(), encoder=encoder).save(str(folder))
    return CRFAligner.load(str(folder), encoder=encoder)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", required=True)
    ap.add_argument("--drop", type=float, default=0.2)
    ap.add_argument("--seeds", default="0,1,2,3")
    ap.add_argument("--copies", type=int, default=1)
    add_output_option(ap)
    a = ap.parse_args(argv)
    own = CRFAligner.default()
    wide = CRFAligner.load(str(Path(own.weights) / WIDE_FOLDER), encoder=own.encoder)
    records = list(read_pairs(WM, default_lang="en"))
    docs = [(rec, rec.training_pair(WM)) for rec in records]
    inputs = [own.featurize(tp.complex, tp.simple) for _, tp in docs]
    print(f"| draw seed (drop {a.drop:g}, {a.copies} copies) | WM Task 1 P / R / F1 | articles to the synthetic CRF |")
    print("|---|---|---|")
    for seed in [int(s) for s in a.seeds.split(",")]:
        folder = Path(a.models) / f"drop{a.drop:g}-copies{a.copies}-seed{seed}"
        cands = {
            "own": lone(own),
            "wide": lone(wide),
            "syn": lone(trained(folder, a.drop, seed, a.copies, own.encoder)),
        }
        counts, chosen = [0, 0, 0], 0
        for (rec, tp), x in zip(docs, inputs):
            doc = Scored(x, cands)
            name = choose_by(doc.score, rule(len(tp.complex) / max(1, len(tp.simple)), GATE))
            chosen += name == "syn"
            gold = task1_links(rec.raw, [[list(b.complex), list(b.simple)] for b in tp.gold])
            pred = task1_links(rec.raw, [[list(b.complex), list(b.simple)] for b in doc.beads(name)])
            for k, v in enumerate((len(gold & pred), len(pred), len(gold))):
                counts[k] += v
        print(f"| {seed} | {'%.3f / %.3f / %.3f' % prf(*counts)} | {chosen} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
