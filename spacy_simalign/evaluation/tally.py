"""Link, bead-text and strict bead P/R/F1 of CRF predictions pooled over documents, with the error
analysis of the CRF experiments (benchmarks/scripts/eval_crf_domains.py, eval_crf_adaptation.py): recall per
gold bead shape, and which wrong links touch an added or a deleted sentence."""

from typing import Dict, Sequence

from ..aligners.scoring import PRF, AlignmentScorer, identical_links, links_of
from ..core.structures import Bead, TrainingPair

SHAPES = ("1:1", "1:2", "1:3+", "n:m n>=2")


def shape_of(bead: Bead) -> str:
    """The shape class of a gold bead: n:m with n >= 2 complex sentences, else by its simple side."""
    if len(bead.complex) >= 2:
        return "n:m n>=2"
    return {1: "1:1", 2: "1:2"}.get(len(bead.simple), "1:3+")


class Tally:
    """Link and bead-text P/R/F1 plus the error analysis, pooled over documents. `exclude_identical`:
    every link figure (link P/R/F1, link recall per shape, the wrong links) by the Task 1 protocol,
    identical links left out on both sides (scoring.identical_links)."""

    def __init__(self, exclude_identical: bool = False):
        self.exclude_identical = exclude_identical
        self.scorer = AlignmentScorer(exclude_identical)
        self.strict = PRF()
        self.shape_links = {s: [0, 0] for s in SHAPES}  # [found, total] links of gold beads of a shape
        self.shape_beads = {s: [0, 0] for s in SHAPES}  # [exactly predicted, total] beads
        self.wrong = self.wrong_added = self.wrong_deleted = 0

    def add(self, pair: TrainingPair, pred: Sequence[Bead]) -> None:
        self.scorer.add(pair.gold, list(pred), pair.complex.sentences, pair.simple.sentences)
        gold_beads = {(b.complex, b.simple) for b in pair.gold}
        pred_beads = {(b.complex, b.simple) for b in pred}
        self.strict.add(len(gold_beads & pred_beads), len(pred_beads), len(gold_beads))
        pred_links = links_of(pred)
        gold_links = pair.links
        same = set()
        if self.exclude_identical:
            texts = (pair.complex.sentences, pair.simple.sentences)
            same = identical_links(pred_links | gold_links, *texts)
            pred_links, gold_links = pred_links - same, gold_links - same
        for b in pair.gold:
            shape = shape_of(b)
            links = [link for link in b.links() if link not in same]
            self.shape_links[shape][0] += sum(link in pred_links for link in links)
            self.shape_links[shape][1] += len(links)
            self.shape_beads[shape][0] += int((b.complex, b.simple) in pred_beads)
            self.shape_beads[shape][1] += 1
        in_gold_c = {c for c, _ in gold_links}
        in_gold_s = {s for _, s in gold_links}
        for c, s in pred_links - gold_links:
            self.wrong += 1
            self.wrong_added += int(s not in in_gold_s)
            self.wrong_deleted += int(c not in in_gold_c)

    def figures(self) -> Dict:
        s = self.scorer.scores()
        out = {"docs": s["docs"], "link": s["link"], "bead_text": s["bead_text"], "strict": self.strict.to_dict()}
        out["shapes"] = {
            k: {
                "beads": self.shape_beads[k][1],
                "link_recall": self.shape_links[k][0] / max(self.shape_links[k][1], 1),
                "exact_recall": self.shape_beads[k][0] / max(self.shape_beads[k][1], 1),
            }
            for k in SHAPES
        }
        out["wrong_links"] = self.wrong
        out["wrong_share_added"] = self.wrong_added / max(self.wrong, 1)
        out["wrong_share_deleted"] = self.wrong_deleted / max(self.wrong, 1)
        return out
