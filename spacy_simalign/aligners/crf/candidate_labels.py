"""Candidate labels for the CRF: for each source sentence, the few target sentences worth
scoring (top-k by embedding cosine, top-k by word TF-IDF, a band around the diagonal, the
best matches of its neighbours). The CRF then costs O(n K^2) instead of O(n m^2).

The similarity matrices are computed in row chunks (twice when there are several) and never
held whole, so memory grows linearly with the number of sentences."""

from dataclasses import dataclass
from typing import Callable, Dict, Iterator, Optional, Set, Tuple

import numpy as np


@dataclass
class CandidateLabels:
    cand: np.ndarray  # [n, K] int64 target indices, ascending, -1 padded
    row_max: np.ndarray  # [n] best embedding cosine of each source sentence
    row_second: np.ndarray  # [n] second best
    col_max: np.ndarray  # [m] best embedding cosine of each target sentence
    cos: np.ndarray  # [n, K] float32 embedding cosine of each candidate, 0 where padded


def first_copies(x: np.ndarray) -> np.ndarray:
    """For each row of x, the index of the first row with the same bits (its own where none)."""
    n = len(x)
    if n < 2 or not x.size:
        return np.arange(n)
    rows = np.ascontiguousarray(x).view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return first[inverse.ravel()]


def tied_blocks(a: np.ndarray, b: np.ndarray, chunk: int) -> Iterator[Tuple[int, int, np.ndarray]]:
    """(start, stop, a[start:stop] @ b.T) in float32 for row blocks of a, with numpy's BLAS
    (whose threads the sentence encoder keeps warm). A repeated row of a or of b scores the same
    bits as its first copy, which BLAS does not promise (a product's last bits depend on its
    place in the matrix, the kernel and the threads): equal sentences then tie on every machine,
    and the tie goes to the earlier one. The other scores are BLAS's, untouched."""
    a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
    a_first, b_first = first_copies(a), first_copies(b)
    cols = np.flatnonzero(b_first != np.arange(len(b)))
    repeated = np.zeros(len(a), dtype=bool)  # first copies of rows met again
    repeated[a_first[a_first != np.arange(len(a))]] = True
    kept: Dict[int, np.ndarray] = {}  # their scores, for repeats in later blocks
    for start in range(0, len(a), chunk):
        stop = min(len(a), start + chunk)
        if not b.size:
            yield start, stop, np.zeros((stop - start, len(b)), dtype=np.float32)
            continue
        sims = a[start:stop] @ b.T
        if len(cols):
            sims[:, cols] = sims[:, b_first[cols]]
        for r in np.flatnonzero(a_first[start:stop] != np.arange(start, stop)):
            first = int(a_first[start + r])
            sims[r] = kept[first] if first < start else sims[first - start]
        for r in np.flatnonzero(repeated[start:stop]):
            kept[start + int(r)] = sims[r].copy()
        yield start, stop, sims


def matmul_t(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b.T in float32, repeated rows of a or b tied with their first copies (tied_blocks)."""
    if not len(a):
        return np.zeros((0, len(b)), dtype=np.float32)
    ((_, _, sims),) = tied_blocks(a, b, len(a))
    return sims


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    """Column indices of the k largest scores of each row, best first; equal scores (a sentence
    and its exact repeat) in column order, so that the candidates depend on nothing but the scores."""
    k = min(k, scores.shape[1])
    if k <= 0:
        return np.zeros((scores.shape[0], 0), dtype=np.int64)
    return np.argsort(-scores, axis=1, kind="stable")[:, :k].astype(np.int64, copy=False)


def _unique_rows(picks: np.ndarray, m: int) -> np.ndarray:
    """Each row's distinct values in [0, m), ascending, left-aligned and padded with -1."""
    big = np.iinfo(np.int64).max
    rows = np.where((picks >= 0) & (picks < m), picks, big)
    rows.sort(axis=1)
    rows[:, 1:][rows[:, 1:] == rows[:, :-1]] = big
    rows.sort(axis=1)
    width = int((rows < big).sum(axis=1).max()) if len(rows) else 0
    rows = rows[:, :width]
    rows[rows == big] = -1
    return rows


def candidate_sets(
    e_src: np.ndarray,
    e_tgt: np.ndarray,
    lexical: Optional[Callable[[int, int], np.ndarray]] = None,
    top_k: int = 6,
    top_k_lexical: int = 4,
    band: int = 3,
    neighbours: int = 2,
    chunk: int = 512,
    force: Optional[Dict[int, Set[int]]] = None,
) -> CandidateLabels:
    """CandidateLabels of each source row. `lexical(start, stop)`, if given, returns the word
    TF-IDF cosines of source rows start..stop with every target sentence."""
    n, m = len(e_src), len(e_tgt)
    row_max = np.zeros(n, dtype=np.float32)
    row_second = np.zeros(n, dtype=np.float32)
    col_max = np.full(m, -1.0, dtype=np.float32)
    best = np.zeros(n, dtype=np.int64)
    columns = []  # [n, c] blocks of candidate target indices, -1 where none
    sims = None
    for start, stop, sims in tied_blocks(e_src, e_tgt, chunk):
        np.maximum(col_max, sims.max(axis=0), out=col_max)
        here = np.arange(stop - start)[:, None]
        top = _top(sims, max(top_k, 2))  # by cosine, best first
        top_vals = sims[here, top]
        row_max[start:stop] = top_vals[:, 0]
        row_second[start:stop] = top_vals[:, 1] if top_vals.shape[1] > 1 else top_vals[:, 0]
        best[start:stop] = top[:, 0]
        block = [top[:, :top_k]]
        if lexical is not None and top_k_lexical > 0:
            lex_scores = np.ascontiguousarray(lexical(start, stop))
            lex = _top(lex_scores, top_k_lexical)
            block.append(np.where(lex_scores[here, lex] > 0, lex, -1))
        columns.append(np.concatenate(block, axis=1))
    picks = [np.concatenate(columns, axis=0)] if columns else []
    rows = np.arange(n)
    band, neighbours = min(band, m), min(neighbours, n)  # wider reaches past the document: no more candidates
    centre = np.round((rows + 0.5) * m / n - 0.5).astype(np.int64)
    picks.append(centre[:, None] + np.arange(-band, band + 1)[None, :])
    steps = np.array([d for d in range(-neighbours, neighbours + 1) if d], dtype=np.int64)
    if len(steps):  # next to the best matches of the neighbours
        nb = rows[:, None] + steps[None, :]
        j = np.where((nb >= 0) & (nb < n), best[np.clip(nb, 0, n - 1)], -10)
        picks.append((j[:, :, None] + np.array([-1, 0, 1])[None, None, :]).reshape(n, -1))
    if force:
        extra = np.full((n, max(len(v) for v in force.values())), -1, dtype=np.int64)
        for i, targets in force.items():
            if 0 <= i < n:
                extra[i, : len(targets)] = sorted(targets)
        picks.append(extra)
    cand = _unique_rows(np.concatenate(picks, axis=1), m)
    cos = np.zeros(cand.shape, dtype=np.float32)
    # read off the same products: the first loop's when there was one block, else recomputed
    blocks = tied_blocks(e_src, e_tgt, chunk) if n > chunk or sims is None else [(0, n, sims)]
    for start, stop, sims in blocks:
        part = cand[start:stop]
        cos[start:stop] = np.where(part >= 0, sims[np.arange(stop - start)[:, None], np.maximum(part, 0)], 0.0)
    return CandidateLabels(cand, row_max, row_second, col_max, cos)
