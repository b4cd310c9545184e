"""Summaries: documents whose complex side has many times the simple side's sentences, where a CRF
link must also share words.

The CRF learned from gold in which nearly every simple sentence has a counterpart (DEplain-web dev:
97%), and its scores rank the candidates within a document, so it links a simple sentence that has
no counterpart to the complex sentence on the nearest topic, however far that is; no threshold of
its own tells the two apart (docs/crf-experiments.md). Where a long text is summarised (English
Wikipedia's articles have a median of 7 times the sentences of their Simple English versions, and
42% of those simple sentences have no counterpart) most of its false links are such. The words two
sentences share tell them apart at an absolute level: in a summary, a link whose sentences' word
TF-IDF cosine (over the document's sentences, as the CRF's word feature counts it) is below
`word_floor` is dropped. Texts simplified sentence by sentence rewrite more of their words
(DEplain-web's gold links: a tenth below 0.19): DEplain-web dev and the Simple German Corpus
have no summary by the ratio (at most 2.09 times the simple side's sentences); of DEplain-web's
other corpora one health page is one (3.66 times)."""

from typing import Dict, List, Sequence, Tuple

import numpy as np

from ...core.structures import Bead, beads_from_links
from .tfidf import PairProducts, _tfidf_cells

# CRFAligner.v3's defaults (docs/crf-experiments.md, "Summaries"). The ratio: above the German
# gold's 2.09, and Wiki-Manual dev's figure is flat from 1.5 to 2.5. The floor: chosen on Wiki-Manual
# dev in every document fold; it is a setting, no weight is fitted on that NonCommercial set.
SUMMARY_RATIO = 2.5
SUMMARY_WORD_FLOOR = 0.3


def is_summary(n_complex: int, n_simple: int, ratio: float) -> bool:
    """Whether a document of `n_complex` and `n_simple` sentences is a summary: its complex side
    has at least `ratio` times the simple side's sentences."""
    return n_simple > 0 and n_complex >= ratio * n_simple


def word_cosines(complex_texts: Sequence[str], simple_texts: Sequence[str], links: Sequence[Tuple[int, int]]):
    """The word TF-IDF cosine of each (complex, simple) link's sentences, the IDF counted over the
    document's sentences (crf/tfidf.py, the CRF's word feature)."""
    if not links:
        return np.zeros(0)
    texts = list(complex_texts) + list(simple_texts)
    products = PairProducts(_tfidf_cells(texts, "word"), len(complex_texts), len(texts))
    rows, cols = (np.array(side, dtype=np.int64) for side in zip(*links))
    return np.clip(products.pairs(rows, cols, True), 0.0, 1.0)


def sharing_words(
    beads: Sequence[Bead], complex_texts: Sequence[str], simple_texts: Sequence[str], word_floor: float
) -> List[Bead]:
    """The beads without their links whose sentences' word cosine is below `word_floor`; what is
    left of a bead falls into beads by its remaining links (connected), each with its bead's score."""
    links = [(c, s) for bead in beads for c in bead.complex for s in bead.simple]
    cosines = word_cosines(complex_texts, simple_texts, links)
    if not len(cosines) or cosines.min() >= word_floor:
        return list(beads)
    score: Dict[Tuple[int, int], float] = {(c, s): b.score for b in beads for c in b.complex for s in b.simple}
    kept = [link for link, cos in zip(links, cosines) if cos >= word_floor]
    return beads_from_links(kept, {link: score[link] for link in kept})
