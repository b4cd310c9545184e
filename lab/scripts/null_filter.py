"""A relative no-counterpart filter after the shipped choice (own + wide CRF at margin 0.1): a
simple sentence loses its links when its best similarity (cosine, char 3-gram or word TF-IDF, the
CRF's null features) is more than `delta` below the document's own level (the median or the 75th
percentile of its simple sentences' bests). Read-only evidence, no training: Wiki-Manual dev Task 1
with the shipped weights, and leave one domain out over the 8 German domains with the models that
`null_choice.py lodo --models DIR` trained (bead-text F1; the 6 websites pooled).

    python lab/scripts/null_filter.py --models DIR [--deltas 0.1,0.2,0.3]"""

import argparse
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np
from null_choice import WM, Scored, choose_by, held_out_domains, lone
from script_output import add_output_option, run_main
from task1 import prf, task1_links

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.choice import WIDE_FOLDER
from spacy_simalign.aligners.crf.features import NULL_FEATURE_NAMES
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.core.structures import Bead
from spacy_simalign.formats.pair_jsonl import read_pairs

FEATURES = ("best_cos", "best_c3g", "best_word")
LEVELS = {"median": 50, "p75": 75}


def filtered(beads: Sequence[Bead], best: np.ndarray, threshold: Optional[float]) -> List[Bead]:
    """The beads without the simple sentences whose best similarity is below `threshold`; a bead
    left with no simple sentence goes (its complex sentences become unaligned)."""
    if threshold is None:
        return list(beads)
    out = []
    for b in beads:
        kept = tuple(s for s in b.simple if best[s] >= threshold)
        if kept:
            out.append(Bead(b.complex, kept, b.score))
    return out


def variants(pair, deltas):
    """(key, best per simple sentence, threshold) of every filter; key None: no filter."""
    yield None, None, None
    for feat in FEATURES:
        best = np.asarray(pair.s2c.null_feats[:, NULL_FEATURE_NAMES.index(feat)], dtype=float)
        for level, q in LEVELS.items():
            ref = float(np.percentile(best, q)) if len(best) else 0.0
            for d in deltas:
                yield (feat, level, d), best, ref - d


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", required=True, help="the folder of null_choice.py lodo's models")
    ap.add_argument("--deltas", default="0.1,0.15,0.2,0.25,0.3,0.4")
    add_output_option(ap)
    a = ap.parse_args(argv)
    deltas = [float(d) for d in a.deltas.split(",")]
    own = CRFAligner.default()
    wm: Dict = {}
    cands = {"own": lone(own), "wide": lone(CRFAligner.load(str(Path(own.weights) / WIDE_FOLDER)))}
    for rec in read_pairs(WM, default_lang="en"):
        tp = rec.training_pair(WM)
        pair = own.featurize(tp.complex, tp.simple)
        doc = Scored(pair, cands)
        beads = doc.beads(choose_by(doc.score, {"wide": 0.1}))
        gold = task1_links(rec.raw, [[list(b.complex), list(b.simple)] for b in tp.gold])
        for key, best, threshold in variants(pair, deltas):
            pred = task1_links(rec.raw, [[list(b.complex), list(b.simple)] for b in filtered(beads, best, threshold)])
            c = wm.setdefault(key, [0, 0, 0])
            c[0], c[1], c[2] = c[0] + len(gold & pred), c[1] + len(pred), c[2] + len(gold)
    held: Dict = {}
    web: Dict = {}
    for d, is_website, test, cands in held_out_domains(Path(a.models), own.encoder):
        scorers: Dict = {}
        for tp in test:
            pair = own.featurize(tp.complex, tp.simple)
            doc = Scored(pair, cands)
            beads = doc.beads(choose_by(doc.score, {"wide": 0.1}))
            for k, best, threshold in variants(pair, deltas):
                fb = filtered(beads, best, threshold)
                targets = [scorers.setdefault(k, AlignmentScorer())]
                if is_website:
                    targets.append(web.setdefault(k, AlignmentScorer()))
                for sc in targets:
                    sc.add(tp.gold, fb, tp.complex.sentences, tp.simple.sentences)
        for k, sc in scorers.items():
            held.setdefault(k, {})[d] = sc.scores()["bead_text"]["f"]
    print("| filter (feature, level, delta) | WM Task 1 P / R / F1 | 8-domain mean | websites pooled |")
    for k, counts in wm.items():
        p, r, f = prf(*counts)
        mean = np.mean(list(held[k].values()))
        label = "none (the shipped choice)" if k is None else f"{k[0]}, {k[1]}, {k[2]:g}"
        print(f"| {label} | {p:.3f} / {r:.3f} / {f:.3f} | {mean:.3f} | {web[k].scores()['bead_text']['f']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
