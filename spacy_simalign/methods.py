"""The alignment methods by name, as plain functions over Sides: what the components and
the `align` command dispatch to. Each sentence method takes (complex, simple, paragraph
links or None) and returns beads; each paragraph method returns ParagraphLinks."""
from typing import Callable, Dict, List, Optional

from .structures import Bead, ParagraphLink, Side

SentenceMethod = Callable[[Side, Side, Optional[List[ParagraphLink]]], List[Bead]]
ParagraphMethod = Callable[[Side, Side], List[ParagraphLink]]

DEFAULT_SENTENCE_METHOD = "crf"


_CRF_CACHE: Dict[str, object] = {}


def crf_aligner(weights: Optional[str] = None):
    """The CRF aligner with the shipped weights, or with those of a folder; loaded once per process."""
    key = weights or "<default>"
    if key not in _CRF_CACHE:
        from .crf.aligner import CRFAligner

        _CRF_CACHE[key] = CRFAligner.load(weights) if weights else CRFAligner.default()
    return _CRF_CACHE[key]


def _crf(weights: Optional[str] = None) -> SentenceMethod:
    aligner = crf_aligner(weights)
    return lambda c, s, links=None: aligner.align(c, s, paragraph_links=links)


def _lexical(name: str) -> Callable[..., SentenceMethod]:
    def build(weights: Optional[str] = None) -> SentenceMethod:
        from . import lexical

        return lexical.SENTENCE_METHODS[name]
    return build


SENTENCE_METHODS: Dict[str, Callable[..., SentenceMethod]] = {
    "crf": _crf,
    "massalign": _lexical("massalign"),
    "cats-c3g": _lexical("cats-c3g"),
    "cats-c3g-seq": _lexical("cats-c3g-seq"),
    "tfidf": _lexical("tfidf"),
}


def _paragraph(name: str) -> Callable[[], ParagraphMethod]:
    def build() -> ParagraphMethod:
        from . import paragraphs

        return paragraphs.PARAGRAPH_METHODS[name]
    return build


PARAGRAPH_METHODS: Dict[str, Callable[[], ParagraphMethod]] = {
    name: _paragraph(name) for name in ("jiang", "jiang-wiki", "massalign", "tfidf")
}


def sentence_method(name: str, weights: Optional[str] = None) -> SentenceMethod:
    """The method's function; `weights` is a trained CRF folder (method crf only)."""
    if name not in SENTENCE_METHODS:
        raise KeyError(f"unknown alignment method '{name}' (known: {', '.join(SENTENCE_METHODS)})")
    return SENTENCE_METHODS[name](weights)


def paragraph_method(name: str) -> ParagraphMethod:
    if name not in PARAGRAPH_METHODS:
        raise KeyError(f"unknown paragraph method '{name}' (known: {', '.join(PARAGRAPH_METHODS)})")
    return PARAGRAPH_METHODS[name]()
