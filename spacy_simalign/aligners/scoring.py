"""Alignment metrics: link P/R/F1 (beads expanded to sentence links), bead-text P/R/F1
(the DEplain protocol: a bead counts if its joined texts equal a gold bead's) and
paragraph-pair P/R/F1 (a paragraph pair is gold if any of its sentences are linked).
Counts are pooled over documents (micro average). With `exclude_identical`, link P/R/F1 is the
Task 1 protocol of Wiki-Manual (Jiang et al., 2020): links between two sentences that are the same
string once stripped of surrounding whitespace are left out of both gold and prediction, since
copying an unchanged sentence is trivial and would otherwise dominate simplification benchmarks."""

from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..core.structures import Bead


@dataclass
class PRF:
    """Pooled true positives, predictions and gold items; the one P/R/F1 of the package. An empty
    denominator scores 0.0 (scikit-learn's zero_division=0): an empty prediction or gold is never
    reported as perfect."""

    tp: float = 0.0
    n_pred: float = 0.0
    n_gold: float = 0.0

    def add(self, tp: float, n_pred: float, n_gold: float) -> None:
        self.tp += tp
        self.n_pred += n_pred
        self.n_gold += n_gold

    @property
    def p(self) -> float:
        return self.tp / self.n_pred if self.n_pred else 0.0

    @property
    def r(self) -> float:
        return self.tp / self.n_gold if self.n_gold else 0.0

    @property
    def f(self) -> float:
        return 2 * self.p * self.r / (self.p + self.r) if self.p + self.r else 0.0

    def to_dict(self) -> Dict[str, float]:
        return {"p": round(self.p, 4), "r": round(self.r, 4), "f": round(self.f, 4)}


def links_of(beads: Iterable[Bead]) -> Set[Tuple[int, int]]:
    return {link for bead in beads for link in bead.links()}


def identical_links(
    links: Iterable[Tuple[int, int]], complex_sents: Sequence[str], simple_sents: Sequence[str]
) -> Set[Tuple[int, int]]:
    """The links whose complex and simple sentences are the same string after str.strip(): what
    the Task 1 protocol leaves out (Wiki-Manual's "identical pairs")."""
    return {(c, s) for c, s in links if complex_sents[c].strip() == simple_sents[s].strip()}


def bead_texts(beads: Iterable[Bead], complex_sents: Sequence[str], simple_sents: Sequence[str]) -> Counter:
    """Multiset of (joined complex text, joined simple text) of the beads, whitespace-normalised."""

    def join(sents, idx):
        return " ".join(" ".join(sents[i].split()) for i in sorted(idx))

    return Counter((join(complex_sents, b.complex), join(simple_sents, b.simple)) for b in beads)


def paragraph_pairs(
    links: Iterable[Tuple[int, int]], complex_para_of: Sequence[int], simple_para_of: Sequence[int]
) -> Set[Tuple[int, int]]:
    return {(complex_para_of[c], simple_para_of[s]) for c, s in links}


class AlignmentScorer:
    """Accumulates the three metrics over documents. `exclude_identical`: link P/R/F1 by the Task 1
    protocol (identical links left out of gold and prediction, counted in `left_out`); bead-text and
    paragraph figures do not change, since a bead or a paragraph pair is not one sentence pair."""

    def __init__(self, exclude_identical: bool = False):
        self.link = PRF()
        self.bead_text = PRF()
        self.paragraph = PRF()
        self.docs = 0
        self.exclude_identical = exclude_identical
        self.left_out = {"gold": 0, "predicted": 0}

    def add(
        self,
        gold: List[Bead],
        pred: List[Bead],
        complex_sents: Sequence[str],
        simple_sents: Sequence[str],
        complex_para_of: Optional[Sequence[int]] = None,
        simple_para_of: Optional[Sequence[int]] = None,
        pred_paragraph_pairs: Optional[Set[Tuple[int, int]]] = None,
    ) -> None:
        self.docs += 1
        g, p = links_of(gold), links_of(pred)
        if self.exclude_identical:
            same = identical_links(g | p, complex_sents, simple_sents)
            self.left_out["gold"] += len(g & same)
            self.left_out["predicted"] += len(p & same)
            self.link.add(len((g & p) - same), len(p - same), len(g - same))
        else:
            self.link.add(len(g & p), len(p), len(g))
        gt, pt = bead_texts(gold, complex_sents, simple_sents), bead_texts(pred, complex_sents, simple_sents)
        self.bead_text.add(sum((gt & pt).values()), sum(pt.values()), sum(gt.values()))
        if complex_para_of is not None and simple_para_of is not None:
            gp = paragraph_pairs(g, complex_para_of, simple_para_of)
            pp = (
                pred_paragraph_pairs
                if pred_paragraph_pairs is not None
                else paragraph_pairs(p, complex_para_of, simple_para_of)
            )
            self.paragraph.add(len(gp & pp), len(pp), len(gp))

    def scores(self) -> Dict[str, Any]:
        """{"docs": documents added, "link", "bead_text" (and "paragraph" when any): P/R/F1 dicts;
        with exclude_identical also "identical_links_left_out": {"gold": n, "predicted": n}}."""
        out: Dict[str, Any] = {"docs": self.docs, "link": self.link.to_dict(), "bead_text": self.bead_text.to_dict()}
        if self.exclude_identical:
            out["identical_links_left_out"] = dict(self.left_out)
        if self.paragraph.n_gold or self.paragraph.n_pred:
            out["paragraph"] = self.paragraph.to_dict()
        return out
