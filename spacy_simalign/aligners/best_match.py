"""Best matches of rows and columns in a similarity matrix read in column blocks
(similarity.scores): the TF-IDF sentence and paragraph aligners' memory is then that of one
block, not of the whole matrix, with the same matches in the same order as a dense argmax."""

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..similarity.scores import column_chunks


def best_matches(
    scores, rows: Sequence[int], cols: Sequence[int], threshold: float, both_directions: bool, dtype=None
) -> List[Tuple[int, int, float]]:
    """(row, column, similarity) of each column's most similar row (the first on ties) that
    reaches `threshold`, then with `both_directions` each row's most similar column (the first
    on ties): in that order, a pair found both ways twice. `scores.block(rows, cols)` gives the
    similarities, read a block of columns at a time; `dtype`: the type they are compared in
    (None: the block's own, as a dense matrix's cells would be)."""
    rows, cols = list(rows), list(cols)
    if not rows or not cols:
        return []
    by_column: List[Tuple[int, int, float]] = []
    best_value: Optional[np.ndarray] = None  # made from the first block, in its dtype
    best_col = np.zeros(len(rows), dtype=np.int64)
    for chunk in column_chunks(len(rows), cols):
        block = scores.block(rows, chunk)
        if dtype is not None:
            block = block.astype(dtype)
        for n, k in enumerate(np.argmax(block, axis=0)):
            if block[k, n] >= threshold:
                by_column.append((rows[int(k)], chunk[n], float(block[k, n])))
        if both_directions:
            left = np.argmax(block, axis=1)
            values = block[np.arange(len(rows)), left]
            if best_value is None:
                best_value = np.full(len(rows), -np.inf, dtype=block.dtype)
            better = values > best_value  # strictly: an earlier column keeps a tie
            best_value[better] = values[better]
            best_col[better] = np.asarray(chunk)[left[better]]
    if not both_directions or best_value is None:
        return by_column
    by_row = [(r, int(best_col[n]), float(best_value[n])) for n, r in enumerate(rows) if best_value[n] >= threshold]
    return by_column + by_row
