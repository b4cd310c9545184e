"""The 20min-XD sentence aligner: cosine of multilingual sentence embeddings x100, Intersection (each
sentence's best partner must choose it back), kept above a threshold; 1:1 beads; registered as
`spacy-simalign.XlingIntersection.v1`."""

from typing import List, Tuple

import numpy as np

from ..core.registries import aligner_registry
from ..core.setting_checks import Range, ranges
from ..core.structures import Bead, Side
from .protocol import SentenceAlignerBase


def intersection_links(sim: np.ndarray, threshold: float) -> List[Tuple[int, int]]:
    """Mutual-best (i, j) of a similarity matrix (x100) scoring at least `threshold`."""
    if not sim.size:
        return []
    best_j = sim.argmax(axis=1)
    best_i = sim.argmax(axis=0)
    return [(i, int(j)) for i, j in enumerate(best_j) if best_i[j] == i and sim[i, j] >= threshold]


def align_intersection(source: Side, target: Side, embedder, threshold: float) -> List[Bead]:
    """20min-XD sentence alignment: 1:1 beads of mutually most similar sentences above threshold (x100)."""
    if not len(source) or not len(target):
        return []
    sim = 100.0 * (embedder.encode(source.sentences, source.lang) @ embedder.encode(target.sentences, target.lang).T)
    return [
        Bead((i,), (j,), float(np.clip(sim[i, j] / 100.0, 0.0, 1.0))) for i, j in intersection_links(sim, threshold)
    ]


class IntersectionAligner(SentenceAlignerBase):
    """The 20min-XD sentence aligner with its encoder and threshold (x100)."""

    def __init__(self, similarity, threshold: float):
        if similarity is None:
            from ..similarity.backends import make_use_similarity

            similarity = make_use_similarity()
        self.similarity, self.threshold = similarity, float(threshold)

    def encoders(self) -> List:
        return [self.similarity]

    def align(self, complex: Side, simple: Side, paragraph_links=None) -> List[Bead]:
        return align_intersection(complex, simple, self.similarity, self.threshold)


@aligner_registry("spacy-simalign.XlingIntersection.v1")
@ranges(threshold=Range(-100, 100))  # a cosine x 100
def make_intersection_aligner(similarity=None, threshold: float = 40.0) -> IntersectionAligner:
    """20min-XD: 1:1 beads of mutually most similar sentences whose cosine x100 reaches
    `threshold` (40: the best link F1 of this method with USE on DEplain-web dev, flat over
    20..50); default similarity multilingual USE."""
    return IntersectionAligner(similarity, threshold)
