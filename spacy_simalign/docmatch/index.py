"""Candidate pairs without an n x m matrix: documents are blocked by date window, and within
a block each query keeps its top-k neighbours by inner product (cosine of normalised
embeddings), from exact numpy products for small blocks or a faiss index for large ones
(the registered indexes below: flat = exact, hnsw / ivf = approximate, auto = exact up to
20,000 documents a block, IVF above). Both directions are searched, so the candidates hold
every source's and every target's best partner, as the strategies need."""

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..core.extras import require
from ..core.registries import doc_index_registry, lookup

DENSE_LIMIT = 8_000_000  # query x base products done in one numpy block below this size
UNDATED = np.iinfo(np.int64).min


def day_numbers(dates: Sequence) -> np.ndarray:
    """Proleptic ordinal day of each date, UNDATED where a document has none."""
    return np.array([d.toordinal() if d is not None else UNDATED for d in dates], dtype=np.int64)


def _topk_dense(queries: np.ndarray, base: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
    k = min(k, base.shape[0])
    out_idx = np.empty((queries.shape[0], k), dtype=np.int64)
    out_sim = np.empty((queries.shape[0], k), dtype=np.float32)
    step = max(1, DENSE_LIMIT // max(1, base.shape[0]))
    for start in range(0, queries.shape[0], step):
        sims = queries[start : start + step] @ base.T
        if k < base.shape[0]:
            part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        else:
            part = np.tile(np.arange(base.shape[0]), (sims.shape[0], 1))
        out_idx[start : start + step] = part
        out_sim[start : start + step] = np.take_along_axis(sims, part, axis=1)
    return out_idx, out_sim


def _topk_faiss(queries: np.ndarray, index, k: int) -> Tuple[np.ndarray, np.ndarray]:
    sims, idx = index.search(np.ascontiguousarray(queries), k)
    return idx.astype(np.int64), sims


@doc_index_registry("spacy-simalign.AutoIndex.v1")
class AutoIndex:
    """Exact search up to `ivf_above` base documents in a block, IVF (its defaults) above."""

    def __init__(self, ivf_above: int = 20_000):
        self.ivf_above = ivf_above
        self.flat, self.ivf = FlatIndex(), IvfIndex()

    def __call__(self, queries: np.ndarray, base: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
        return (self.ivf if base.shape[0] > self.ivf_above else self.flat)(queries, base, k)


@doc_index_registry("spacy-simalign.FlatIndex.v1")
class FlatIndex:
    """Exact search: numpy products, or faiss's flat index for a very large block."""

    def __call__(self, queries: np.ndarray, base: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
        if queries.shape[0] * base.shape[0] <= DENSE_LIMIT * 4 or base.shape[0] <= 2 * k:
            return _topk_dense(queries, base, k)
        return self.faiss(queries, base, k)

    def faiss(self, queries: np.ndarray, base: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
        faiss = require("docmatch", "faiss", "a flat index of this size")

        index = faiss.IndexFlatIP(base.shape[1])
        index.add(np.ascontiguousarray(base))
        return _topk_faiss(queries, index, min(k, base.shape[0]))


@doc_index_registry("spacy-simalign.HnswIndex.v1")
class HnswIndex:
    """Approximate search in a faiss HNSW graph of `neighbours` links per node (exact for a small block)."""

    def __init__(self, neighbours: int = 32, ef_construction: int = 80, ef_search: int = 64):
        self.neighbours, self.ef_construction, self.ef_search = neighbours, ef_construction, ef_search

    def __call__(self, queries: np.ndarray, base: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
        if base.shape[0] <= 2 * k:
            return _topk_dense(queries, base, k)
        faiss = require("docmatch", "faiss", "the hnsw index")
        k = min(k, base.shape[0])
        index = faiss.IndexHNSWFlat(base.shape[1], self.neighbours, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = self.ef_construction
        index.hnsw.efSearch = max(self.ef_search, 2 * k)
        index.add(np.ascontiguousarray(base))
        return _topk_faiss(queries, index, k)


@doc_index_registry("spacy-simalign.IvfIndex.v1")
class IvfIndex:
    """Approximate search in a faiss IVF index: `lists_per_sqrt` x sqrt(n) inverted lists,
    trained on `sample_per_list` documents a list (a fixed draw), `nprobe` lists scanned per
    query (exact for a small block)."""

    def __init__(self, lists_per_sqrt: int = 4, nprobe: int = 16, sample_per_list: int = 40):
        self.lists_per_sqrt, self.nprobe, self.sample_per_list = lists_per_sqrt, nprobe, sample_per_list

    def __call__(self, queries: np.ndarray, base: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
        if base.shape[0] <= 2 * k:
            return _topk_dense(queries, base, k)
        faiss = require("docmatch", "faiss", "the ivf index")
        dim = base.shape[1]
        nlist = max(1, int(self.lists_per_sqrt * np.sqrt(base.shape[0])))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(0)
        sample = base[rng.choice(base.shape[0], min(base.shape[0], self.sample_per_list * nlist), replace=False)]
        index.train(np.ascontiguousarray(sample))
        index.nprobe = min(nlist, self.nprobe)
        index.add(np.ascontiguousarray(base))
        return _topk_faiss(queries, index, min(k, base.shape[0]))


def doc_index(index):
    """An index object from a short or registered name (or an index object, returned as is)."""
    return lookup(doc_index_registry, index, "index")() if isinstance(index, str) else index


def topk(queries: np.ndarray, base: np.ndarray, k: int, index="flat") -> Tuple[np.ndarray, np.ndarray]:
    """Top-k base rows of each query: (indices, similarities), each [n_queries, k'];
    index -1 marks a missing neighbour (approximate indexes may return fewer than k)."""
    if not queries.shape[0] or not base.shape[0]:
        return np.zeros((queries.shape[0], 0), np.int64), np.zeros((queries.shape[0], 0), np.float32)
    return doc_index(index)(queries, base, k)


def _windows(query_days: np.ndarray, base_days: np.ndarray, window: Optional[int]):
    """Yield (query indices, base indices) blocks: queries of one day against bases within
    `window` days (plus undated bases); undated queries against every base."""
    all_base = np.arange(len(base_days))
    if window is None or (np.all(query_days == UNDATED) and np.all(base_days == UNDATED)):
        yield np.arange(len(query_days)), all_base
        return
    dated = base_days != UNDATED
    order = all_base[dated][np.argsort(base_days[dated], kind="stable")]
    sorted_days = base_days[order]
    undated_base = all_base[~dated]
    undated_queries = np.flatnonzero(query_days == UNDATED)
    if len(undated_queries):
        yield undated_queries, all_base
    dated_queries = np.flatnonzero(query_days != UNDATED)
    days = query_days[dated_queries]
    for day in np.unique(days):
        queries = dated_queries[days == day]
        lo = np.searchsorted(sorted_days, day - window, side="left")
        hi = np.searchsorted(sorted_days, day + window, side="right")
        bases = np.concatenate([order[lo:hi], undated_base]) if len(undated_base) else order[lo:hi]
        if len(bases):
            yield queries, bases


def search_direction(
    queries: np.ndarray,
    base: np.ndarray,
    query_days: np.ndarray,
    base_days: np.ndarray,
    window: Optional[int],
    k: int,
    index,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query index, base index, similarity) of each query's top-k within its date window."""
    qs: List[np.ndarray] = []
    bs: List[np.ndarray] = []
    ss: List[np.ndarray] = []
    for q_idx, b_idx in _windows(query_days, base_days, window):
        idx, sims = topk(queries[q_idx], base[b_idx], k, index)
        valid = idx >= 0
        qs.append(np.repeat(q_idx, idx.shape[1])[valid.ravel()])
        bs.append(b_idx[idx[valid]])
        ss.append(sims[valid])
    if not qs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)
    return np.concatenate(qs), np.concatenate(bs), np.concatenate(ss).astype(np.float32)


def candidates(
    source: np.ndarray,
    target: np.ndarray,
    source_days: np.ndarray,
    target_days: np.ndarray,
    window: Optional[int] = 0,
    k: int = 10,
    kind="flat",
    threads: int = 0,
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique (source, target, cosine) candidate pairs: each source's top-k targets and each
    target's top-k sources within the window. `window=None` switches blocking off; `kind`: an
    index object or its short or registered name."""
    index = doc_index(kind)
    if threads:
        try:
            import faiss

            faiss.omp_set_num_threads(threads)
        except ImportError:
            pass
    s1, t1, c1 = search_direction(source, target, source_days, target_days, window, k, index)
    t2, s2, c2 = search_direction(target, source, target_days, source_days, window, k, index)
    src, tgt, sims = np.concatenate([s1, s2]), np.concatenate([t1, t2]), np.concatenate([c1, c2])
    if not len(src):
        return src, tgt, sims
    key = src * (len(target) + 1) + tgt
    _, first = np.unique(key, return_index=True)
    return src[first], tgt[first], sims[first]
