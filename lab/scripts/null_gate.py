"""The synthetic-data CRF (null_augment.py) asked first only for documents whose complex side has at
least `ratio` times the simple side's sentences, the shipped choice (own + wide CRF at margin 0.1)
for the others. English Wikipedia articles have about 7 times their Simple English version's
sentences, and 42% of those simple sentences have no counterpart; no German dev document has more
than 2.1 times (sgc-dev's simple sides are the longer ones). Wiki-Manual dev Task 1 with the shipped
weights and the synthetic CRF in --syn, and leave one domain out over the 8 German domains with the
models of `null_choice.py lodo --models DIR` (bead-text F1; the 6 websites pooled).

    python lab/scripts/null_gate.py --syn FOLDER --models DIR [--drop 0.2] [--ratios 1.5,2,2.5,3]"""

import argparse
import sys
from pathlib import Path
from typing import Dict, Optional

import numpy as np
from null_choice import WM, Scored, choose_by, held_out_domains, lone
from script_output import add_output_option, run_main
from task1 import prf, task1_links

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.choice import WIDE_FOLDER
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.formats.pair_jsonl import read_pairs

SHIPPED = {"wide": 0.1}
SYNTHETIC_FIRST = {"syn": 0.0, "wide": 0.1, "first": True}


def rule(ratio: float, gate: Optional[float]) -> Dict:
    """The candidates of a document whose complex side has `ratio` times the simple side's sentences."""
    return SYNTHETIC_FIRST if gate is not None and ratio >= gate else SHIPPED


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--syn", required=True, help="the synthetic-data CRF trained on all of DEplain-web dev")
    ap.add_argument("--models", required=True, help="the folder of null_choice.py lodo's models")
    ap.add_argument("--drop", default="0.2", help="which of the lodo synthetic CRFs (their drop rate)")
    ap.add_argument("--ratios", default="1.5,2,2.2,2.5,2.8,3,4")
    add_output_option(ap)
    a = ap.parse_args(argv)
    gates = [None] + [float(r) for r in a.ratios.split(",")]
    own = CRFAligner.default()
    wide = CRFAligner.load(str(Path(own.weights) / WIDE_FOLDER))
    cands = {"own": lone(own), "wide": lone(wide), "syn": lone(CRFAligner.load(a.syn, encoder=own.encoder))}
    wm = {g: [0, 0, 0] for g in gates}
    wm_ratios = []
    for rec in read_pairs(WM, default_lang="en"):
        tp = rec.training_pair(WM)
        doc = Scored(own.featurize(tp.complex, tp.simple), cands)
        ratio = len(tp.complex) / max(1, len(tp.simple))
        wm_ratios.append(ratio)
        gold = task1_links(rec.raw, [[list(b.complex), list(b.simple)] for b in tp.gold])
        for g in gates:
            beads = doc.beads(choose_by(doc.score, rule(ratio, g)))
            pred = task1_links(rec.raw, [[list(b.complex), list(b.simple)] for b in beads])
            c = wm[g]
            c[0], c[1], c[2] = c[0] + len(gold & pred), c[1] + len(pred), c[2] + len(gold)
    held: Dict = {g: {} for g in gates}
    web = {g: AlignmentScorer() for g in gates}
    ratios: Dict[str, list] = {}
    for d, is_website, test, cands in held_out_domains(Path(a.models), own.encoder, [float(a.drop)]):
        cands["syn"] = cands.pop(f"syn{float(a.drop)}")
        scorers = {g: AlignmentScorer() for g in gates}
        for tp in test:
            doc = Scored(own.featurize(tp.complex, tp.simple), cands)
            ratio = len(tp.complex) / max(1, len(tp.simple))
            ratios.setdefault(d, []).append(ratio)
            for g in gates:
                beads = doc.beads(choose_by(doc.score, rule(ratio, g)))
                for sc in [scorers[g]] + ([web[g]] if is_website else []):
                    sc.add(tp.gold, beads, tp.complex.sentences, tp.simple.sentences)
        for g in gates:
            held[g][d] = scorers[g].scores()["bead_text"]["f"]
    print("complex / simple sentences per document: min, median, max")
    print(f"  Wiki-Manual dev: {min(wm_ratios):.2f}, {np.median(wm_ratios):.2f}, {max(wm_ratios):.2f}")
    for d, r in ratios.items():
        print(f"  {d} ({len(r)}): {min(r):.2f}, {np.median(r):.2f}, {max(r):.2f}")
    print("| synthetic CRF first when the ratio is at least | WM Task 1 P / R / F1 | 8-domain mean | websites pooled |")
    for g in gates:
        p, r, f = prf(*wm[g])
        mean = np.mean(list(held[g].values()))
        label = "never (the shipped choice)" if g is None else f"{g:g}"
        print(f"| {label} | {p:.3f} / {r:.3f} / {f:.3f} | {mean:.3f} | {web[g].scores()['bead_text']['f']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
