"""DocMatcher: which documents of two collections correspond. Configured by one spaCy config
section ([docmatch], DEFAULT_CONFIG_STR); the calibrated thresholds are written back into it
(see calibration.py), so `--threshold auto` and `DocMatcher.from_config(path)` reuse them."""
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence

import numpy as np
from spacy.util import registry

from ..configs import read_config, resolve_section
from ..errors import InputError
from ..formats.documents import Document, check_collection
from ..formats.matches import match_object
from .fields import DEFAULT_FIELDS, check_fields, field_text
from .index import INDEXES, candidates, day_numbers
from .lexical import LEXICAL, LexicalScorer
from .strategies import DEFAULT_STRATEGY, check_strategy, select

DEFAULT_CONFIG_STR = """
[docmatch]
@misc = "spacy-simalign.DocMatcher.v1"
fields = ["title", "lead"]
strategy = "intersection"
threshold = 20.0
window_days = 0
top_k = 10
index = "auto"
lexical = "tfidf"
lexical_weight = 0.5
lexical_field = "text"
allow_mixed_languages = false
threads = 0

[docmatch.embedder]
@simalign_similarity = "spacy-simalign.USESimilarity.v1"

[docmatch.thresholds]
"""


@dataclass(frozen=True)
class Match:
    """A matched pair; `similarity` is on the paper's 0-100 scale, `score` the same in [0, 1]."""

    source: str
    target: str
    similarity: float

    @property
    def score(self) -> float:
        return max(0.0, min(1.0, self.similarity / 100.0))

    def to_json(self) -> Dict:
        return match_object(self.source, self.target, self.score)


@dataclass
class Candidates:
    """Scored candidate pairs (indices into the two collections, similarity x100)."""

    source: np.ndarray
    target: np.ndarray
    similarity: np.ndarray


def as_documents(items: Iterable) -> List[Document]:
    """Documents from Document records or spaCy Docs (see component.document_from_doc)."""
    out = []
    for item in items:
        if isinstance(item, Document):
            out.append(item)
        else:
            from .component import document_from_doc

            out.append(document_from_doc(item))
    return out


class DocMatcher:
    """Embed documents from chosen fields, gather candidates within a date window, optionally
    mix in a lexical signal, and select pairs with a strategy and threshold (x100)."""

    def __init__(self, embedder, fields: Sequence[str] = DEFAULT_FIELDS, strategy: str = DEFAULT_STRATEGY,
                 threshold: float = 20.0, window_days: Optional[int] = 0, top_k: int = 10, index: str = "auto",
                 lexical: str = "tfidf", lexical_weight: float = 0.5, lexical_field: str = "text",
                 allow_mixed_languages: bool = False, threads: int = 0,
                 thresholds: Optional[Dict[str, float]] = None):
        self.embedder = embedder
        self.fields = tuple(check_fields(list(fields)))
        self.strategy = check_strategy(strategy)
        self.threshold = float(threshold)
        self.window_days = None if window_days is None or window_days < 0 else int(window_days)
        if top_k < 1:
            raise InputError(f"top_k must be at least 1, got {top_k}")
        self.top_k = int(top_k)
        if index not in INDEXES:
            raise InputError(f"unknown index '{index}' (choose from: {', '.join(INDEXES)})")
        self.index = index
        if lexical not in LEXICAL:
            raise InputError(f"unknown lexical signal '{lexical}' (choose from: {', '.join(LEXICAL)})")
        if not 0.0 <= lexical_weight <= 1.0:
            raise InputError(f"lexical_weight must be in [0, 1], got {lexical_weight}")
        self.lexical, self.lexical_weight = lexical, float(lexical_weight)
        self.lexical_field = check_fields([lexical_field])[0]
        self.allow_mixed_languages = bool(allow_mixed_languages)
        self.threads = int(threads)
        self.thresholds = {check_strategy(k): float(v) for k, v in (thresholds or {}).items()}

    # -- configuration -------------------------------------------------------------------
    @classmethod
    def from_config(cls, config=None, overrides: Optional[Dict] = None, path: Optional[str] = None) -> "DocMatcher":
        """From a config file path, a Config, or the defaults; `overrides` uses dotted keys
        under `docmatch` (e.g. {"docmatch.strategy": "union"})."""
        if config is None:
            config = default_config()
        elif not hasattr(config, "interpolate"):
            path = str(config)
            config = read_config(path, "docmatch", "matcher")
        if "docmatch" not in config:
            raise InputError("config has no [docmatch] section", path)
        return resolve_section(config, "docmatch", path, overrides)

    def threshold_for(self, strategy: Optional[str] = None, auto: bool = False) -> float:
        """The configured threshold, or with `auto` the calibrated one for the strategy."""
        strategy = strategy or self.strategy
        if not auto:
            return self.threshold
        if strategy not in self.thresholds:
            raise InputError(f"no calibrated threshold for strategy '{strategy}': run calibrate-docs first "
                             "(it writes [docmatch.thresholds] into the matcher config)")
        return self.thresholds[strategy]

    # -- scoring ---------------------------------------------------------------------------
    def embed(self, docs: Sequence[Document]) -> np.ndarray:
        """L2-normalised embeddings [len(docs), dim] of each document's chosen fields."""
        out = None
        given = [i for i, d in enumerate(docs) if d.embedding is not None]
        if given:
            out = np.zeros((len(docs), len(docs[given[0]].embedding)), dtype=np.float32)
            out[given] = np.stack([docs[i].embedding for i in given])
        for lang in dict.fromkeys(d.lang for d in docs if d.embedding is None):
            rows = [i for i, d in enumerate(docs) if d.lang == lang and d.embedding is None]
            vecs = np.asarray(self.embedder.encode([field_text(docs[i], self.fields) for i in rows], lang),
                              dtype=np.float32)
            if out is None:
                out = np.zeros((len(docs), vecs.shape[1]), dtype=np.float32)
            out[rows] = vecs
        if out is None:
            return np.zeros((0, getattr(self.embedder, "dim", 512)), dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def _check(self, docs: Sequence, side: str) -> List[Document]:
        docs = as_documents(docs)
        return check_collection(docs, f"<{side} documents>", self.allow_mixed_languages)

    def candidates(self, source: Sequence[Document], target: Sequence[Document],
                   top_k: Optional[int] = None) -> Candidates:
        """Scored candidates: cosine of the embeddings, mixed with the lexical signal, x100."""
        source, target = self._check(source, "source"), self._check(target, "target")
        emb_s, emb_t = self.embed(source), self.embed(target)
        src, tgt, cos = candidates(emb_s, emb_t, day_numbers([d.date for d in source]),
                                   day_numbers([d.date for d in target]), self.window_days,
                                   top_k or self.top_k, self.index, self.threads)
        sim = cos.astype(np.float32)
        if self.lexical != "none" and self.lexical_weight > 0 and len(src):
            scorer = LexicalScorer(self.lexical, [field_text(d, [self.lexical_field]) for d in source],
                                   [field_text(d, [self.lexical_field]) for d in target])
            sim = (1.0 - self.lexical_weight) * sim + self.lexical_weight * scorer.pairs(src, tgt)
        return Candidates(src, tgt, (100.0 * sim).astype(np.float32))

    def match(self, source_docs: Sequence, target_docs: Sequence, strategy: Optional[str] = None,
              threshold: Optional[float] = None) -> List[Match]:
        """Matched (source id, target id, similarity) pairs, sorted by source then score."""
        source, target = as_documents(source_docs), as_documents(target_docs)
        cands = self.candidates(source, target)
        strategy = check_strategy(strategy or self.strategy)
        threshold = self.threshold if threshold is None else float(threshold)
        src, tgt, sim = select(strategy, cands.source, cands.target, cands.similarity, threshold)
        order = np.lexsort((-sim, src))
        return [Match(source[src[i]].id, target[tgt[i]].id, float(sim[i])) for i in order]


def default_config():
    from spacy.util import Config

    return Config().from_str(DEFAULT_CONFIG_STR)


@registry.misc("spacy-simalign.DocMatcher.v1")
def make_doc_matcher(embedder, fields: Sequence[str] = DEFAULT_FIELDS, strategy: str = DEFAULT_STRATEGY,
                     threshold: float = 20.0, window_days: Optional[int] = 0, top_k: int = 10,
                     index: str = "auto", lexical: str = "tfidf", lexical_weight: float = 0.5,
                     lexical_field: str = "text", allow_mixed_languages: bool = False, threads: int = 0,
                     thresholds: Optional[Dict[str, float]] = None) -> DocMatcher:
    return DocMatcher(embedder, fields, strategy, threshold, window_days, top_k, index, lexical, lexical_weight,
                      lexical_field, allow_mixed_languages, threads, dict(thresholds or {}))
