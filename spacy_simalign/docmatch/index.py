"""Candidate pairs without an n x m matrix: documents are blocked by date window, and within
a block each query keeps its top-k neighbours by inner product (cosine of normalised
embeddings), from exact numpy products for small blocks or a faiss index for large ones
(flat = exact, hnsw / ivf = approximate; auto = exact up to 20,000 documents a block, IVF above). Both directions are searched, so the candidates
hold every source's and every target's best partner, as the strategies need."""
from typing import List, Optional, Sequence, Tuple

import numpy as np

INDEXES = ("auto", "flat", "hnsw", "ivf")
AUTO_IVF_ABOVE = 20_000  # auto: exact search up to this many base documents in a block, IVF above
DENSE_LIMIT = 8_000_000  # query x base products done in one numpy block below this size
UNDATED = np.iinfo(np.int64).min
IVF_LISTS_PER_SQRT = 4  # ivf: 4 * sqrt(n) inverted lists, IVF_NPROBE of them scanned per query
IVF_NPROBE = 16


def day_numbers(dates: Sequence) -> np.ndarray:
    """Proleptic ordinal day of each date, UNDATED where a document has none."""
    return np.array([d.toordinal() if d is not None else UNDATED for d in dates], dtype=np.int64)


def _topk_dense(queries: np.ndarray, base: np.ndarray, k: int) -> Tuple[np.ndarray, np.ndarray]:
    k = min(k, base.shape[0])
    out_idx = np.empty((queries.shape[0], k), dtype=np.int64)
    out_sim = np.empty((queries.shape[0], k), dtype=np.float32)
    step = max(1, DENSE_LIMIT // max(1, base.shape[0]))
    for start in range(0, queries.shape[0], step):
        sims = queries[start:start + step] @ base.T
        if k < base.shape[0]:
            part = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        else:
            part = np.tile(np.arange(base.shape[0]), (sims.shape[0], 1))
        out_idx[start:start + step] = part
        out_sim[start:start + step] = np.take_along_axis(sims, part, axis=1)
    return out_idx, out_sim


def _topk_faiss(queries: np.ndarray, base: np.ndarray, k: int, kind: str) -> Tuple[np.ndarray, np.ndarray]:
    import faiss

    dim = base.shape[1]
    k = min(k, base.shape[0])
    if kind == "hnsw":
        index = faiss.IndexHNSWFlat(dim, 32, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = 80
        index.hnsw.efSearch = max(64, 2 * k)
    elif kind == "ivf":
        nlist = max(1, int(IVF_LISTS_PER_SQRT * np.sqrt(base.shape[0])))
        quantizer = faiss.IndexFlatIP(dim)
        index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(0)
        sample = base[rng.choice(base.shape[0], min(base.shape[0], 40 * nlist), replace=False)]
        index.train(np.ascontiguousarray(sample))
        index.nprobe = min(nlist, IVF_NPROBE)
    else:
        index = faiss.IndexFlatIP(dim)
    index.add(np.ascontiguousarray(base))
    sims, idx = index.search(np.ascontiguousarray(queries), k)
    return idx.astype(np.int64), sims


def topk(queries: np.ndarray, base: np.ndarray, k: int, kind: str = "flat") -> Tuple[np.ndarray, np.ndarray]:
    """Top-k base rows of each query: (indices, similarities), each [n_queries, k'];
    index -1 marks a missing neighbour (approximate indexes may return fewer than k)."""
    if not queries.shape[0] or not base.shape[0]:
        return np.zeros((queries.shape[0], 0), np.int64), np.zeros((queries.shape[0], 0), np.float32)
    if kind == "auto":
        kind = "ivf" if base.shape[0] > AUTO_IVF_ABOVE else "flat"
    if kind == "flat" and queries.shape[0] * base.shape[0] <= DENSE_LIMIT * 4:
        return _topk_dense(queries, base, k)
    if base.shape[0] <= 2 * k:
        return _topk_dense(queries, base, k)
    return _topk_faiss(queries, base, k, kind)


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


def search_direction(queries: np.ndarray, base: np.ndarray, query_days: np.ndarray, base_days: np.ndarray,
                     window: Optional[int], k: int, kind: str) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(query index, base index, similarity) of each query's top-k within its date window."""
    qs: List[np.ndarray] = []
    bs: List[np.ndarray] = []
    ss: List[np.ndarray] = []
    for q_idx, b_idx in _windows(query_days, base_days, window):
        idx, sims = topk(queries[q_idx], base[b_idx], k, kind)
        valid = idx >= 0
        qs.append(np.repeat(q_idx, idx.shape[1])[valid.ravel()])
        bs.append(b_idx[idx[valid]])
        ss.append(sims[valid])
    if not qs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32)
    return np.concatenate(qs), np.concatenate(bs), np.concatenate(ss).astype(np.float32)


def candidates(source: np.ndarray, target: np.ndarray, source_days: np.ndarray, target_days: np.ndarray,
               window: Optional[int] = 0, k: int = 10, kind: str = "flat",
               threads: int = 0) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique (source, target, cosine) candidate pairs: each source's top-k targets and each
    target's top-k sources within the window. `window=None` switches blocking off."""
    if threads:
        try:
            import faiss

            faiss.omp_set_num_threads(threads)
        except ImportError:
            pass
    s1, t1, c1 = search_direction(source, target, source_days, target_days, window, k, kind)
    t2, s2, c2 = search_direction(target, source, target_days, source_days, window, k, kind)
    src, tgt, sims = np.concatenate([s1, s2]), np.concatenate([t1, t2]), np.concatenate([c1, c2])
    if not len(src):
        return src, tgt, sims
    key = src * (len(target) + 1) + tgt
    _, first = np.unique(key, return_index=True)
    return src[first], tgt[first], sims[first]
