"""Similarities of two text lists read block by block, so that an aligner that only needs
each row's and each column's best match never holds the whole [len(a), len(b)] matrix: 20,000
x 20,000 sentences are 1.6 GB in float32, and numpy's temporaries made the TF-IDF aligner
peak at 8.5 GB. A backend that can compute any block on its own (word and character TF-IDF:
a sparse product of the rows' and columns' vectors) gives such blocks; any other backend's
dense matrix is computed once and read in blocks (pair_scores)."""

from typing import Sequence

import numpy as np

# cells of one block: 4 Mi float32 cells are 16 MiB, plus the sparse product that makes them
BLOCK_CELLS = 1 << 22


class DenseScores:
    """A backend's dense similarity matrix, read in blocks."""

    def __init__(self, matrix):
        self.matrix = np.asarray(matrix)

    def block(self, rows: Sequence[int], cols: Sequence[int]) -> np.ndarray:
        return self.matrix[np.ix_(list(rows), list(cols))]


class SparseCosineScores:
    """Cosines of L2-normalised sparse vectors (CSR rows), each block a sparse product of the
    rows' and columns' vectors: the same bits as the whole product's cells (scipy sums each
    cell over the row's stored entries in their order, whichever columns are asked for),
    clipped to [0, 1] and float32 as TfidfSimilarity.matrix gives them."""

    def __init__(self, xa, xb):
        self.xa, self.xb = xa, xb

    def block(self, rows: Sequence[int], cols: Sequence[int]) -> np.ndarray:
        if self.xa is None:  # empty vocabulary: only punctuation or stop characters
            return np.zeros((len(rows), len(cols)), dtype=np.float32)
        sims = (self.xa[list(rows)] @ self.xb[list(cols)].T).toarray()
        return np.clip(sims, 0.0, 1.0).astype(np.float32)


def pair_scores(similarity, a: Sequence[str], b: Sequence[str], lang_a: str, lang_b: str):
    """The blocks of `similarity` over a x b: its own `scores` when it has one, else its
    dense matrix (a third-party backend need only implement `matrix`)."""
    own = getattr(similarity, "scores", None)
    if own is not None:
        return own(a, b, lang_a, lang_b)
    return DenseScores(similarity.matrix(a, b, lang_a, lang_b))


def column_chunks(n_rows: int, cols: Sequence[int]):
    """`cols` in consecutive chunks of at most BLOCK_CELLS cells with `n_rows` rows."""
    width = max(1, BLOCK_CELLS // max(n_rows, 1))
    cols = list(cols)
    for start in range(0, len(cols), width):
        yield cols[start : start + width]
