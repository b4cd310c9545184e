"""Bead scores remembered over the band of the bead decoder (bead_dp.py), so that its passes
score each bead once, and score a whole band at once."""

from typing import Dict, Tuple

import numpy as np


def band_cells(lo: np.ndarray, hi: np.ndarray, first: int, last: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells of rows first..last-1 of the band, row by row: (rows, cols, position of each
    cell in its row's band)."""
    widths = hi[first:last] - lo[first:last] + 1
    starts = np.concatenate([[0], np.cumsum(widths)[:-1]])
    rows = np.repeat(np.arange(first, last), widths)
    place = np.arange(int(widths.sum())) - np.repeat(starts, widths)
    return rows, lo[rows] + place, place


class BandScores:
    """`score` (a bead_dp.BeadScorer) remembered per bead type over the band's cells: the
    decoder asks for the same beads up to four times (the first pass, the backward pass and
    the candidate search of bead_units.py, the second pass's 1:1 beads), and scoring is most of
    its time. The first request for a bead type scores every cell of the band for it in one
    call (a few matrix products instead of a call per row). A row's cells are
    those of its band and those the backward pass asks for (bead ends b columns past the band of
    the bead's start row); any other cell is scored directly."""

    def __init__(self, score, lo: np.ndarray, hi: np.ndarray):
        self.score, self.lo, self.hi = score, lo, hi
        # (a, b): (first column of each row's band, offset of each row's values, the values)
        self.types: Dict[Tuple[int, int], Tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _band(self, a: int, b: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The a:b scores of the cells of rows a..n: columns max(lo, b)..hi of the row's band and
        of the start row's band shifted by b."""
        n = len(self.lo) - 1
        start_lo = np.concatenate([np.full(a, self.lo[0]), self.lo[: n + 1 - a]]) + b
        start_hi = np.concatenate([np.full(a, self.hi[0]), self.hi[: n + 1 - a]]) + b
        first = np.maximum(np.minimum(self.lo, start_lo), b)
        last = np.minimum(np.maximum(self.hi, start_hi), int(self.hi.max()))  # the band reaches the last column
        widths = np.maximum(last - first + 1, 0)
        widths[: max(a, 1)] = 0  # an a:b bead ends at row a or later
        offsets = np.concatenate([[0], np.cumsum(widths)])
        rows = np.repeat(np.arange(n + 1), widths)
        cols = np.arange(offsets[-1]) - np.repeat(offsets[:-1], widths) + np.repeat(first, widths)
        values = self.score(a, b, rows, cols) if len(rows) else np.zeros(0)
        return first, offsets, values

    def __call__(self, a: int, b: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The a:b scores of the beads ending at (rows[k], cols[k]), rows in increasing order."""
        band = self.types.get((a, b))
        if band is None:
            band = self.types[(a, b)] = self._band(a, b)
        first, offsets, values = band
        if not len(rows):
            return np.zeros(0)
        start, width = first[rows], offsets[rows + 1] - offsets[rows]
        inside = (cols >= start) & (cols < start + width)
        if inside.all():
            return values[offsets[rows] + cols - start]
        out = np.empty(len(rows))
        out[inside] = values[(offsets[rows] + cols - start)[inside]]
        out[~inside] = self.score(a, b, rows[~inside], cols[~inside])
        return out
