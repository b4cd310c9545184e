"""Candidate sentence pairs the Amsterdam way: the registered TF-IDF aligner
(spacy-simalign.Tfidf.v1) in its candidate mode, which aligns paragraphs by similarity, then
matches sentences inside each aligned paragraph pair by best match in both directions.

The result deliberately keeps duplicates and several simple versions per complex
sentence: the post-processing rules in `amsterdam.py` decide what stays."""

import inspect
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..aligners.lexical_aligners import make_tfidf_aligner
from ..core.structures import Side
from ..similarity.backends import SimilarityBackend
from .sentence_pairs import SentencePair, pairs_from_beads

_TFIDF = {name: p.default for name, p in inspect.signature(make_tfidf_aligner).parameters.items()}


@dataclass
class CandidateSettings:
    """Thresholds of the two matching steps (cosine similarities in [0, 1]); the defaults
    are those of the registered TF-IDF aligner, not tuned here."""

    paragraph_threshold: float = _TFIDF["paragraph_threshold"]
    sentence_threshold: float = _TFIDF["threshold"]
    both_directions: bool = True

    def aligner(self, similarity: Optional[SimilarityBackend] = None):
        """The TF-IDF aligner of these settings: one 1:1 bead per match, duplicates kept."""
        return make_tfidf_aligner(
            similarity,
            threshold=self.sentence_threshold,
            paragraph_threshold=self.paragraph_threshold,
            both_directions=self.both_directions,
            group=False,
        )


def candidate_pairs(
    doc_id: str,
    complex_side: Side,
    simple_side: Side,
    similarity: Optional[SimilarityBackend] = None,
    settings: Optional[CandidateSettings] = None,
) -> Tuple[List[SentencePair], int]:
    """Candidate rows of one document and the number of aligned paragraph pairs.

    Sentence similarities are computed once over the whole document (so TF-IDF's IDF is
    fitted on the document), then read inside each aligned paragraph pair."""
    aligner = (settings or CandidateSettings()).aligner(similarity)
    links = aligner.paragraph_links(complex_side, simple_side)
    beads = aligner.align(complex_side, simple_side, links)
    return pairs_from_beads(doc_id, complex_side.sentences, simple_side.sentences, beads), len(links)
