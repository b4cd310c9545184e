"""The alignment components: `simalign_paragraph_aligner` and `simalign_sentence_aligner`.

Both read a Doc pair (spacy_simalign.pair) whose sides the segmenter has split, and
write plain data to its extensions: `doc._.paragraph_alignment` and `doc._.beads`."""
from typing import Callable, Dict, Iterable, List, Optional

import srsly
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from . import methods, pair
from .scoring import AlignmentScorer
from .structures import ParagraphLink

PARAGRAPH_CONFIG = """
[paragraph_aligner]
method = "jiang"
"""

SENTENCE_CONFIG = """
[sentence_aligner]
method = "crf"
use_paragraphs = true
"""


class ParagraphAligner:
    """Aligns the paragraphs of the two sides (Jiang et al. Alg. 1-4, MASSAlign, TF-IDF)."""

    def __init__(self, nlp: Language, name: str, method: str):
        self.name, self.method = name, method
        self._fn = methods.paragraph_method(method)
        pair.install_extensions()

    def __call__(self, doc: Doc) -> Doc:
        if doc._.pair_info is None:
            return doc
        links = self._fn(pair.side_of(doc, "complex"), pair.side_of(doc, "simple"))
        pair.set_paragraph_links(doc, links)
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 32):
        for doc in docs:
            yield self(doc)


class SentenceAligner:
    """Aligns the sentences of the two sides with a named method; `crf` (the default)
    uses the shipped neural CRF weights unless a trained model is loaded from disk."""

    def __init__(self, nlp: Language, name: str, method: str, use_paragraphs: bool = True,
                 weights: Optional[str] = None):
        self.name, self.method, self.use_paragraphs, self.weights = name, method, use_paragraphs, weights
        self._fn = methods.sentence_method(method, weights)
        pair.install_extensions()

    def __call__(self, doc: Doc) -> Doc:
        if doc._.pair_info is None:
            raise ValueError(f"[{self.name}] expects a Doc pair: build it with spacy_simalign.pair.make_pair(nlp, complex, simple)")
        complex_side, simple_side = pair.side_of(doc, "complex"), pair.side_of(doc, "simple")
        links = doc._.paragraph_alignment if (self.use_paragraphs and doc._.paragraph_alignment_data) else None
        beads = self._fn(complex_side, simple_side, links) if len(complex_side) and len(simple_side) else []
        pair.set_beads(doc, beads)
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 32):
        for doc in docs:
            yield self(doc)

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        return score_examples(examples)


def score_examples(examples: Iterable[Example]) -> Dict[str, float]:
    """Link, bead-text and paragraph P/R/F1 of predicted vs reference Doc pairs."""
    scorer = AlignmentScorer()
    for eg in examples:
        pred, gold = eg.predicted, eg.reference
        c, s = pair.side_of(pred, "complex"), pair.side_of(pred, "simple")
        scorer.add(gold._.beads, pred._.beads, c.sentences, s.sentences, c.paragraph_of(), s.paragraph_of())
    out = scorer.scores()
    flat = {}
    for metric in ("link", "bead_text", "paragraph"):
        for k, v in out.get(metric, {}).items():
            flat[f"align_{metric}_{k}"] = v
    return flat


@Language.factory("simalign_paragraph_aligner", default_config={"method": "jiang"})
def make_paragraph_aligner(nlp: Language, name: str, method: str) -> ParagraphAligner:
    return ParagraphAligner(nlp, name, method)


@Language.factory("simalign_sentence_aligner",
                  default_config={"method": "crf", "use_paragraphs": True, "weights": None},
                  default_score_weights={"align_link_f": 0.5, "align_bead_text_f": 0.5})
def make_sentence_aligner(nlp: Language, name: str, method: str, use_paragraphs: bool,
                          weights: Optional[str]) -> SentenceAligner:
    return SentenceAligner(nlp, name, method, use_paragraphs, weights)
