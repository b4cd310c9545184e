"""Candidate labels for the CRF: for each source sentence, the few target sentences worth
scoring (top-k by embedding cosine, top-k by word TF-IDF, a band around the diagonal, the
best matches of its neighbours). The CRF then costs O(n K^2) instead of O(n m^2).

The similarity matrices are computed in row chunks and never held whole, so memory grows
linearly with the number of sentences."""
from dataclasses import dataclass
from typing import Dict, Optional, Set

import numpy as np
import torch


@dataclass
class Candidates:
    cand: np.ndarray        # [n, K] int64 target indices, ascending, -1 padded
    row_max: np.ndarray     # [n] best embedding cosine of each source sentence
    row_second: np.ndarray  # [n] second best
    col_max: np.ndarray     # [m] best embedding cosine of each target sentence


def matmul_t(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b.T through torch, which keeps to the caller's thread setting: multi-threaded BLAS on
    many small products is slow on a busy machine."""
    if not a.size or not b.size:
        return np.zeros((len(a), len(b)), dtype=np.float32)
    return (torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
            @ torch.from_numpy(np.ascontiguousarray(b, dtype=np.float32)).T).numpy()


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    k = min(k, scores.shape[1])
    if k <= 0:
        return np.zeros((scores.shape[0], 0), dtype=np.int64)
    return torch.topk(torch.from_numpy(np.ascontiguousarray(scores)), k, dim=1, sorted=False).indices.numpy()


def pair_cosines(e_src: np.ndarray, e_tgt: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                 chunk: int = 16384) -> np.ndarray:
    """e_src[rows[p]] . e_tgt[cols[p]] for each p, in chunks (never all candidate vectors at once)."""
    out = np.zeros(len(rows), dtype=np.float32)
    a, b = torch.from_numpy(np.ascontiguousarray(e_src)), torch.from_numpy(np.ascontiguousarray(e_tgt))
    for start in range(0, len(rows), chunk):
        r = torch.from_numpy(rows[start:start + chunk])
        c = torch.from_numpy(cols[start:start + chunk])
        out[start:start + chunk] = (a[r] * b[c]).sum(dim=1).numpy()
    return out


def candidate_sets(e_src: np.ndarray, e_tgt: np.ndarray, tfidf=None, src_offset: int = 0, tgt_offset: int = 0,
                   top_k: int = 6, top_k_lexical: int = 4, band: int = 3, neighbours: int = 2, chunk: int = 512,
                   force: Optional[Dict[int, Set[int]]] = None) -> Candidates:
    """Candidates of each source row. `tfidf` is an optional normalised sparse matrix whose
    rows `src_offset + i` / `tgt_offset + j` hold the source / target sentences."""
    n, m = len(e_src), len(e_tgt)
    row_max = np.zeros(n, dtype=np.float32)
    row_second = np.zeros(n, dtype=np.float32)
    col_max = np.full(m, -1.0, dtype=np.float32)
    picks = [set() for _ in range(n)]
    best = np.zeros(n, dtype=np.int64)
    x_tgt = tfidf[tgt_offset:tgt_offset + m].T.tocsc() if tfidf is not None else None
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        sims = matmul_t(e_src[start:stop], e_tgt)
        np.maximum(col_max, sims.max(axis=0), out=col_max)
        top = _top(sims, max(top_k, 2))
        top_vals = np.take_along_axis(sims, top, axis=1)
        order = np.argsort(-top_vals, axis=1)
        top, top_vals = np.take_along_axis(top, order, 1), np.take_along_axis(top_vals, order, 1)
        row_max[start:stop] = top_vals[:, 0]
        row_second[start:stop] = top_vals[:, 1] if top_vals.shape[1] > 1 else top_vals[:, 0]
        best[start:stop] = top[:, 0]
        lex = None
        if x_tgt is not None and top_k_lexical > 0:
            lex_scores = (tfidf[src_offset + start:src_offset + stop] @ x_tgt).toarray()
            lex = _top(lex_scores, top_k_lexical)
            lex_ok = np.take_along_axis(lex_scores, lex, axis=1) > 0
        for r in range(stop - start):
            pick = picks[start + r]
            pick.update(top[r, :top_k].tolist())
            if lex is not None:
                pick.update(lex[r][lex_ok[r]].tolist())
    for i in range(n):
        centre = int(round((i + 0.5) * m / n - 0.5))
        picks[i].update(range(max(0, centre - band), min(m, centre + band + 1)))
        for nb in range(i - neighbours, i + neighbours + 1):
            if nb != i and 0 <= nb < n:
                j = int(best[nb])
                picks[i].update(t for t in (j - 1, j, j + 1) if 0 <= t < m)
        if force and i in force:
            picks[i].update(force[i])
    width = max((len(p) for p in picks), default=0)
    cand = np.full((n, width), -1, dtype=np.int64)
    for i, pick in enumerate(picks):
        vals = sorted(pick)
        cand[i, :len(vals)] = vals
    return Candidates(cand, row_max, row_second, col_max)
