"""The word floor of summaries (crf/summaries.py): the shipped CRFs' beads, then in documents whose
complex side has at least `ratio` times the simple side's sentences, links whose sentences' word
TF-IDF cosine is below the floor dropped. Wiki-Manual dev's Task 1 for each floor and ratio, the
floor chosen by 5 document folds (chosen on four, scored on the fifth, pooled), and what the same
floor would cost German gold were it applied to every document (DEplain-web dev and sgc-dev, both
in the shipped CRFs' training data: in-sample), with how many German documents the ratio counts
as summaries.

    python scripts/summary_floor.py [--floors 0,0.1,0.15,0.2,0.25,0.3,0.35] [--ratios 0,1.5,2,2.5,3]

Task 1 (Jiang et al. 2020): link P/R/F1 with links between identical sentences left out of gold and
prediction (AlignmentScorer(exclude_identical=True), `evaluate --exclude-identical`)."""

import argparse
import random
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from script_output import add_output_option, run_main

from spacy_simalign.aligners.crf.aligner import make_crf_aligner
from spacy_simalign.aligners.crf.summaries import is_summary, sharing_words
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.core.structures import Bead, TrainingPair
from spacy_simalign.formats.pair_jsonl import read_pairs

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
WM = SHARED / "wikimanual-dev" / "pairs.jsonl"
GERMAN = {
    "DEplain-web dev": ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl",
    "sgc-dev": SHARED / "sgc-dev" / "pairs.jsonl",
}


Decoded = Dict[Tuple[float, float], Dict[str, List[Bead]]]


def wm_beads(aligner, pairs: Sequence[TrainingPair], floors: List[float], ratios: List[float]) -> Decoded:
    """The beads of each Wiki-Manual document for each (ratio, floor)."""
    out: Decoded = {(r, f): {} for r in ratios for f in floors}
    for tp in pairs:
        beads = aligner.align(tp.complex, tp.simple)
        for f in floors:
            kept = sharing_words(beads, tp.complex.sentences, tp.simple.sentences, f)
            for r in ratios:
                out[(r, f)][tp.id] = kept if is_summary(len(tp.complex), len(tp.simple), r) else beads
    return out


def task1(pairs: Dict[str, TrainingPair], beads: Dict[str, List[Bead]], ids) -> Dict[str, float]:
    """Task 1 link P/R/F1 of the documents `ids`, pooled."""
    scorer = AlignmentScorer(exclude_identical=True)
    for d in ids:
        scorer.add(pairs[d].gold, beads[d], pairs[d].complex.sentences, pairs[d].simple.sentences)
    return scorer.scores()["link"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--floors", default="0,0.1,0.15,0.2,0.25,0.3,0.35")
    ap.add_argument("--ratios", default="0,1.5,2,2.5,3")
    add_output_option(ap)
    a = ap.parse_args(argv)
    floors = [float(x) for x in a.floors.split(",")]
    ratios = [float(x) for x in a.ratios.split(",")]
    aligner = make_crf_aligner()  # the shipped CRFs and their choice, without any floor
    pairs = {tp.id: tp for tp in (rec.training_pair(str(WM)) for rec in read_pairs(str(WM), default_lang="en"))}
    decoded = wm_beads(aligner, list(pairs.values()), floors, ratios)
    print("Wiki-Manual dev, Task 1 link P / R / F1 (ratio 0: every document)")
    print("| floor | " + " | ".join(f"ratio {r:g}" for r in ratios) + " |")
    print("|---|" + "---|" * len(ratios))
    for f in floors:
        cells = []
        for r in ratios:
            s = task1(pairs, decoded[(r, f)], pairs)
            cells.append(f"{s['p']:.3f} / {s['r']:.3f} / {s['f']:.3f}")
        print(f"| {f:g} | " + " | ".join(cells) + " |")
    ids = sorted(pairs)
    order = list(range(len(ids)))
    random.Random(0).shuffle(order)
    folds = [[ids[i] for i in order[k::5]] for k in range(5)]
    for r in ratios:
        chosen = []
        for test in folds:
            train = [d for d in ids if d not in set(test)]
            chosen.append(max(floors, key=lambda f: (task1(pairs, decoded[(r, f)], train)["f"], -f)))
        held = {d: decoded[(r, best)][d] for best, test in zip(chosen, folds) for d in test}
        s = task1(pairs, held, ids)
        print(
            f"ratio {r:g}: floors chosen on four folds {chosen}; held-out pooled P {s['p']:.3f} R {s['r']:.3f} F1 {s['f']:.3f}"
        )
    print()
    print("German gold with the floor on every document (in-sample CRFs): link F1 / bead-text F1")
    for name, path in GERMAN.items():
        pairs = [rec.training_pair(str(path)) for rec in read_pairs(str(path), default_lang="de")]
        summaries = {r: sum(is_summary(len(p.complex), len(p.simple), r) for p in pairs) for r in ratios if r}
        decoded = [(p, aligner.align(p.complex, p.simple)) for p in pairs]
        cells = []
        for f in floors:
            scorer = AlignmentScorer()
            for p, beads in decoded:
                scorer.add(
                    p.gold,
                    sharing_words(beads, p.complex.sentences, p.simple.sentences, f),
                    p.complex.sentences,
                    p.simple.sentences,
                )
            s = scorer.scores()
            cells.append(f"{f:g}: {s['link']['f']:.3f} / {s['bead_text']['f']:.3f}")
        print(f"  {name} ({len(pairs)} documents; summaries by ratio {summaries}): " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
