"""DocMatcher: which documents of two collections correspond. Configured by one spaCy config
section ([docmatch], DEFAULT_CONFIG_STR); calibration writes what it chose back into it (see
calibration.py), so `--threshold auto` and `DocMatcher.from_config(path)` reuse it.

Two stages. The first finds candidates without an n x m matrix: each document's nearest
neighbours by the cosine of its title + lead embedding within a date window, optionally mixed
with a lexical signal. The second (`rerank = "sentences"`) re-scores those candidates by
sentence-level evidence (evidence.py). What helps depends on the languages:
full-text TF-IDF helps within a language and only adds noise across languages, and the
sentence evidence alone separates near-duplicate stories across languages. So the signals,
their weights and the threshold come from a *profile* per language pair: `same` and `cross`
by default, or one calibrate-docs wrote for the exact pair ("de-fr")."""

import functools
import inspect
import json
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence

import numpy as np
from confection import Config
from spacy.util import registry

from ..core.config_sections import read_config, resolve_section
from ..core.errors import InputError
from ..formats.document_fields import DEFAULT_FIELDS, check_fields, field_text
from ..formats.documents import Document, check_collection
from ..formats.matches import match_object
from .evidence import NO_RERANK, get_reranker
from .index import candidates, day_numbers, doc_index
from .lexical_signals import LEXICAL_SIGNALS, LEXICAL_WEIGHT, LexicalScorer
from .strategies import DEFAULT_STRATEGY, check_strategy, select


@dataclass
class Profile:
    """The signals of one language pair: the lexical signal mixed into the first stage and its
    weight, the weight of the sentence evidence in the final score (0: first stage only), the
    threshold of the configured strategy, and calibrated thresholds per strategy."""

    lexical: str = "none"
    lexical_weight: float = 0.0
    rerank_weight: float = 1.0
    threshold: float = 32.5
    thresholds: Dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_config(cls, name: str, values: Dict) -> "Profile":
        unknown = set(values) - {"lexical", "lexical_weight", "rerank_weight", "threshold", "thresholds"}
        if unknown:
            raise InputError(f"profile '{name}': unknown setting(s) {', '.join(sorted(unknown))}")
        profile = cls(
            **{k: v for k, v in values.items() if k != "thresholds"},
            thresholds={check_strategy(k): float(v) for k, v in dict(values.get("thresholds") or {}).items()},
        )
        if profile.lexical not in LEXICAL_SIGNALS:
            raise InputError(
                f"profile '{name}': unknown lexical signal '{profile.lexical}' "
                f"(choose from: {', '.join(LEXICAL_SIGNALS)})"
            )
        for key in ("lexical_weight", "rerank_weight"):
            if not 0.0 <= float(getattr(profile, key)) <= 1.0:
                raise InputError(f"profile '{name}': {key} must be in [0, 1], got {getattr(profile, key)}")
        return profile

    def to_config(self) -> Dict:
        out = {
            "lexical": self.lexical,
            "lexical_weight": float(self.lexical_weight),
            "rerank_weight": float(self.rerank_weight),
            "threshold": float(self.threshold),
        }
        if self.thresholds:
            out["thresholds"] = dict(self.thresholds)
        return out


DEFAULT_PROFILES = {  # how they were chosen: docs/document-matching.md
    "same": Profile(
        "tfidf", LEXICAL_WEIGHT, 0.0, 15.0
    ),  # on Klexikon (de-de): the sentence evidence adds nothing there
    "cross": Profile(),  # the field defaults; on the de-fr sets of tests/data (in-sample)
}


def _profiles_section(profiles: Dict[str, Profile]) -> str:
    """The [docmatch.profiles] section of a config with these profiles (their to_config values)."""
    out = ["[docmatch.profiles]"]
    for name, profile in profiles.items():
        out += ["", f"[docmatch.profiles.{name}]"] + [f"{k} = {json.dumps(v)}" for k, v in profile.to_config().items()]
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class Match:
    """A matched pair; `similarity` is on the 0-100 scale, `score` the same in [0, 1]."""

    source: str
    target: str
    similarity: float

    @property
    def score(self) -> float:
        return max(0.0, min(1.0, self.similarity / 100.0))

    def to_json(self) -> Dict:
        return match_object(self.source, self.target, self.score)


@dataclass
class CandidatePairs:
    """Scored candidate pairs: indices into the two collections, final similarity x100."""

    source: np.ndarray
    target: np.ndarray
    similarity: np.ndarray


def mix(
    profile: Profile, cosine: np.ndarray, lexical: Optional[np.ndarray], evidence: Optional[np.ndarray]
) -> np.ndarray:
    """The final similarity x100 of candidate pairs under a profile: the embedding cosine mixed
    with the lexical signal (first stage), then with the sentence evidence (second stage); a
    signal that is None or weighted 0 is left out."""
    sim = cosine
    if lexical is not None and profile.lexical != "none" and profile.lexical_weight > 0:
        sim = (1.0 - profile.lexical_weight) * sim + profile.lexical_weight * lexical
    if evidence is not None and profile.rerank_weight > 0:
        sim = (1.0 - profile.rerank_weight) * sim + profile.rerank_weight * evidence
    return np.asarray(sim, dtype=np.float32)


def as_documents(items: Iterable) -> List[Document]:
    """Documents from Document records or spaCy Docs (see component.document_from_doc)."""
    out = []
    for item in items:
        if isinstance(item, Document):
            out.append(item)
        else:
            from ..pipeline.doc_matcher import document_from_doc

            out.append(document_from_doc(item))
    return out


def pair_key(source: Sequence[Document], target: Sequence[Document]) -> str:
    """ "de-fr": the collections' languages (the most frequent one of a mixed collection)."""

    def lang(docs):
        langs = [d.lang for d in docs]
        return max(set(langs), key=langs.count) if langs else "?"

    return f"{lang(source)}-{lang(target)}"


class DocMatcher:
    """Embed documents from chosen fields, gather candidates within a date window, score them by
    the language pair's profile, and select pairs with a strategy and threshold (x100)."""

    def __init__(self, embedder=None, profiles: Optional[Dict[str, Profile]] = None, **settings):
        """`settings` are those of spacy-simalign.DocMatcher.v2 (fields, strategy, window_days, top_k,
        index, lexical_field, rerank, max_sentences, allow_mixed_languages, threads), each defaulting
        to its value in make_doc_matcher_v2's signature; the embedder defaults to multilingual USE."""
        defaults = matcher_defaults()
        unknown = sorted(set(settings) - set(defaults))
        if unknown:
            raise TypeError(f"DocMatcher: unknown setting(s) {', '.join(unknown)}")
        settings = {**defaults, **settings}
        fields, strategy, window_days = settings["fields"], settings["strategy"], settings["window_days"]
        top_k, index, lexical_field = settings["top_k"], settings["index"], settings["lexical_field"]
        rerank, max_sentences = settings["rerank"], settings["max_sentences"]
        allow_mixed_languages, threads = settings["allow_mixed_languages"], settings["threads"]
        if embedder is None:
            from ..similarity.backends import make_use_similarity

            embedder = make_use_similarity()
        self.embedder = embedder
        self.fields = tuple(check_fields(list(fields)))
        self.strategy = check_strategy(strategy)
        self.window_days = None if window_days is None or window_days < 0 else int(window_days)
        for name, value in (("top_k", top_k), ("max_sentences", max_sentences)):
            if value < 1:
                raise InputError(f"{name} must be at least 1, got {value}")
        self.top_k, self.max_sentences = int(top_k), int(max_sentences)
        self.index, self.index_search = index, doc_index(index)  # a name: one of the registered indexes
        self.rerank = rerank
        self.reranker = None if rerank == NO_RERANK else get_reranker(rerank)
        self.lexical_field = check_fields([lexical_field])[0]
        self.allow_mixed_languages = bool(allow_mixed_languages)
        self.threads = int(threads)
        self.profiles = dict(DEFAULT_PROFILES if profiles is None else profiles)
        for name in ("same", "cross"):
            self.profiles.setdefault(name, DEFAULT_PROFILES[name])

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

    def profile(self, source: Sequence[Document], target: Sequence[Document]) -> Profile:
        """The profile of the collections' language pair: its own if calibrated, else same/cross."""
        key = pair_key(source, target)
        if key in self.profiles:
            return self.profiles[key]
        src, tgt = key.split("-")
        return self.profiles["same" if src == tgt else "cross"]

    def threshold_for(
        self, source: Sequence[Document], target: Sequence[Document], strategy: Optional[str] = None, auto: bool = False
    ) -> float:
        """The profile's threshold, or with `auto` the calibrated one for the strategy."""
        profile = self.profile(source, target)
        strategy = strategy or self.strategy
        if not auto:
            return profile.threshold
        if strategy not in profile.thresholds:
            raise InputError(
                f"no calibrated threshold for strategy '{strategy}' and languages "
                f"{pair_key(source, target)}: run calibrate-docs first (it writes the thresholds "
                "into the matcher config)"
            )
        return profile.thresholds[strategy]

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
            vecs = np.asarray(
                self.embedder.encode([field_text(docs[i], self.fields) for i in rows], lang), dtype=np.float32
            )
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

    def first_stage(self, source: Sequence[Document], target: Sequence[Document]):
        """(source index, target index, embedding cosine x100) of each candidate pair."""
        emb_s, emb_t = self.embed(source), self.embed(target)
        src, tgt, cos = candidates(
            emb_s,
            emb_t,
            day_numbers([d.date for d in source]),
            day_numbers([d.date for d in target]),
            self.window_days,
            self.top_k,
            self.index_search,
            self.threads,
        )
        return src, tgt, (100.0 * cos).astype(np.float32)

    def lexical_scores(
        self, kind: str, source: Sequence[Document], target: Sequence[Document], src: np.ndarray, tgt: np.ndarray
    ) -> np.ndarray:
        """The lexical signal x100 of each candidate pair."""
        if kind == "none" or not len(src):
            return np.zeros(len(src), dtype=np.float32)
        scorer = LexicalScorer(
            kind,
            [field_text(d, [self.lexical_field]) for d in source],
            [field_text(d, [self.lexical_field]) for d in target],
        )
        return (100.0 * scorer.pairs(src, tgt)).astype(np.float32)

    def evidence(
        self, source: Sequence[Document], target: Sequence[Document], src: np.ndarray, tgt: np.ndarray
    ) -> Optional[np.ndarray]:
        """Sentence evidence x100 of each candidate pair (None when the second stage is off)."""
        if self.reranker is None:
            return None
        return self.reranker(self.embedder, self.max_sentences).score(source, target, src, tgt)

    def candidates(
        self, source: Sequence[Document], target: Sequence[Document], profile: Optional[Profile] = None
    ) -> CandidatePairs:
        """Scored candidates: first stage (cosine, mixed with the profile's lexical signal), then
        the sentence evidence with the profile's weight."""
        source, target = self._check(source, "source"), self._check(target, "target")
        profile = profile or self.profile(source, target)
        src, tgt, cos = self.first_stage(source, target)
        lexical = None
        if profile.lexical != "none" and profile.lexical_weight > 0:
            lexical = self.lexical_scores(profile.lexical, source, target, src, tgt)
        evidence = self.evidence(source, target, src, tgt) if profile.rerank_weight > 0 else None
        return CandidatePairs(src, tgt, mix(profile, cos, lexical, evidence))

    def match(
        self,
        source_docs: Sequence,
        target_docs: Sequence,
        strategy: Optional[str] = None,
        threshold: Optional[float] = None,
    ) -> List[Match]:
        """Matched (source id, target id, similarity) pairs, sorted by source then score."""
        source, target = as_documents(source_docs), as_documents(target_docs)  # candidates() checks them
        cands = self.candidates(source, target)
        profile = self.profile(source, target)
        strategy = check_strategy(strategy or self.strategy)
        threshold = profile.threshold if threshold is None else float(threshold)
        src, tgt, sim = select(strategy, cands.source, cands.target, cands.similarity, threshold)
        order = np.lexsort((-sim, src))
        return [Match(source[src[i]].id, target[tgt[i]].id, float(sim[i])) for i in order]


def is_v1(config) -> bool:
    """A DocMatcher.v1 config: one set of signals for every pair, no profiles, no second stage."""
    return config["docmatch"].get("@misc") == "spacy-simalign.DocMatcher.v1"


def default_config():
    return Config().from_str(_default_config_str())


@registry.misc("spacy-simalign.DocMatcher.v2")
def make_doc_matcher_v2(
    embedder=None,
    fields: Sequence[str] = DEFAULT_FIELDS,
    strategy: str = DEFAULT_STRATEGY,
    window_days: Optional[int] = 1,
    top_k: int = 10,
    index: str = "auto",
    lexical_field: str = "text",
    rerank: str = "sentences",
    max_sentences: int = 20,
    allow_mixed_languages: bool = False,
    threads: int = 0,
    profiles: Optional[Dict[str, Dict]] = None,
) -> DocMatcher:
    """Two-stage document matching with a profile of signals per language pair (see the module docstring)."""
    parsed = {name: Profile.from_config(name, dict(values)) for name, values in (profiles or {}).items()}
    return DocMatcher(
        embedder,
        parsed,
        fields=fields,
        strategy=strategy,
        window_days=window_days,
        top_k=top_k,
        index=index,
        lexical_field=lexical_field,
        rerank=rerank,
        max_sentences=max_sentences,
        allow_mixed_languages=allow_mixed_languages,
        threads=threads,
    )


def matcher_defaults() -> Dict:
    """The v2 matcher's settings and their defaults: make_doc_matcher_v2's signature, the one place
    they are written (DocMatcher() and the default config take them from there)."""
    params = inspect.signature(make_doc_matcher_v2).parameters
    return {name: p.default for name, p in params.items() if name not in ("embedder", "profiles")}


@registry.misc("spacy-simalign.DocMatcher.v1")
def make_doc_matcher(
    embedder,
    fields: Sequence[str] = DEFAULT_FIELDS,
    strategy: str = "intersection",
    threshold: float = 20.0,
    window_days: Optional[int] = 0,
    top_k: int = 10,
    index: str = "auto",
    lexical: str = "tfidf",
    lexical_weight: float = LEXICAL_WEIGHT,
    lexical_field: str = "text",
    allow_mixed_languages: bool = False,
    threads: int = 0,
    thresholds: Optional[Dict[str, float]] = None,
) -> DocMatcher:
    """The first version, kept for configs that name it: one set of signals for every language
    pair (no profiles) and no second stage."""
    profile = Profile.from_config(
        "v1",
        {
            "lexical": lexical,
            "lexical_weight": lexical_weight,
            "rerank_weight": 0.0,
            "threshold": threshold,
            "thresholds": dict(thresholds or {}),
        },
    )
    return DocMatcher(
        embedder,
        {"same": profile, "cross": profile},
        fields=fields,
        strategy=strategy,
        window_days=window_days,
        top_k=top_k,
        index=index,
        lexical_field=lexical_field,
        rerank="none",
        allow_mixed_languages=allow_mixed_languages,
        threads=threads,
    )


@functools.lru_cache(maxsize=None)
def _default_config_str() -> str:
    """The [docmatch] config of the defaults: the v2 matcher filled from its signature, with
    multilingual USE and the default profiles."""
    short = (
        '[docmatch]\n@misc = "spacy-simalign.DocMatcher.v2"\n\n[docmatch.embedder]\n'
        '@simalign_similarity = "spacy-simalign.USESimilarity.v1"\n\n' + _profiles_section(DEFAULT_PROFILES)
    )
    return registry.fill(Config().from_str(short)).to_str()


def __getattr__(name: str):
    """DEFAULT_CONFIG_STR is filled on first use, not at import (importers such as calibration
    need only Profile and pair_key)."""
    if name == "DEFAULT_CONFIG_STR":
        return _default_config_str()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
