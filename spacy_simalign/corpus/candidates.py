"""Candidate sentence pairs the Amsterdam way: align paragraphs by similarity, then
match sentences inside each aligned paragraph pair by best match in both directions.

The result deliberately keeps duplicates and several simple versions per complex
sentence: the post-processing rules in `amsterdam.py` decide what stays."""
from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ..aligners.lexical import TFIDF_THRESHOLD
from ..aligners.paragraphs import TFIDF_PARAGRAPH_THRESHOLD
from ..similarity.backends import SimilarityBackend, TfidfSimilarity
from ..structures import Side
from .pairs import SentencePair


@dataclass
class CandidateSettings:
    """Thresholds of the two matching steps (cosine similarities in [0, 1]); the defaults
    are those of the plugin's `tfidf` aligner (lexical.py, paragraphs.py), not tuned here."""

    paragraph_threshold: float = TFIDF_PARAGRAPH_THRESHOLD
    sentence_threshold: float = TFIDF_THRESHOLD
    both_directions: bool = True


def align_paragraphs(complex_side: Side, simple_side: Side, similarity: SimilarityBackend,
                     threshold: float = TFIDF_PARAGRAPH_THRESHOLD, both_directions: bool = True) -> List[Tuple[int, int, float]]:
    """(complex paragraph, simple paragraph, score): each simple paragraph's best complex
    paragraph, and (with `both_directions`) each complex paragraph's best simple one."""
    sims = similarity.matrix(complex_side.paragraph_texts(), simple_side.paragraph_texts(),
                             complex_side.lang, simple_side.lang)
    return _best_matches(sims, threshold, both_directions)


def _best_matches(sims: np.ndarray, threshold: float, both_directions: bool) -> List[Tuple[int, int, float]]:
    out = []
    if sims.size == 0:
        return out
    for j in range(sims.shape[1]):
        i = int(np.argmax(sims[:, j]))
        if sims[i, j] >= threshold:
            out.append((i, j, float(sims[i, j])))
    if both_directions:
        for i in range(sims.shape[0]):
            j = int(np.argmax(sims[i]))
            if sims[i, j] >= threshold:
                out.append((i, j, float(sims[i, j])))
    return out


def candidate_pairs(doc_id: str, complex_side: Side, simple_side: Side, similarity: Optional[SimilarityBackend] = None,
                    settings: Optional[CandidateSettings] = None) -> Tuple[List[SentencePair], int]:
    """Candidate rows of one document and the number of aligned paragraph pairs.

    Sentence similarities are computed once over the whole document (so TF-IDF's IDF is
    fitted on the document), then read inside each aligned paragraph pair."""
    similarity = similarity or TfidfSimilarity("word", 1)
    settings = settings or CandidateSettings()
    para_links = align_paragraphs(complex_side, simple_side, similarity, settings.paragraph_threshold,
                                  settings.both_directions)
    sims = similarity.matrix(complex_side.sentences, simple_side.sentences, complex_side.lang, simple_side.lang)
    rows: List[SentencePair] = []
    for cp, sp, _ in para_links:
        c_idx, s_idx = complex_side.paragraphs[cp], simple_side.paragraphs[sp]
        block = sims[np.ix_(c_idx, s_idx)]
        for i, j, score in _best_matches(block, settings.sentence_threshold, settings.both_directions):
            ci, sj = c_idx[i], s_idx[j]
            rows.append(SentencePair(doc_id, complex_side.sentences[ci], simple_side.sentences[sj], score,
                                     (ci,), (sj,)))
    return rows, len(para_links)
