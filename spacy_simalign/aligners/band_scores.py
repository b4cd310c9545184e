"""Bead scores remembered over the band of the bead decoder (bead_dp.py), so that its passes
score each bead once."""

from typing import Dict, Tuple

import numpy as np


class BandScores:
    """`score` (a bead_scorer) remembered per bead type and end row, over the row's columns of
    the band: the decoder asks for the same beads up to four times (the first pass, the
    backward pass and the candidate search of bead_units.py, the second pass's 1:1 beads), and
    scoring is most of its time. Columns outside the band (the backward pass's bead ends can
    lie there) are scored directly. Each value is the dot products `score` computes for them."""

    def __init__(self, score, lo: np.ndarray, hi: np.ndarray):
        self.score, self.lo, self.hi = score, lo, hi
        self.rows: Dict[Tuple[int, int, int], Tuple[int, np.ndarray]] = {}

    def __call__(self, a: int, b: int, i: int, cols: np.ndarray) -> np.ndarray:
        key = (a, b, i)
        row = self.rows.get(key)
        if row is None:
            start = max(int(self.lo[i]), b)
            band = np.arange(start, int(self.hi[i]) + 1)
            row = self.rows[key] = (start, self.score(a, b, i, band) if len(band) else np.zeros(0))
        start, values = row
        first, last = (cols[0], cols[-1]) if len(cols) else (start, start)
        if min(first, last) >= start and max(first, last) < start + len(values):  # cols are monotone
            return values[cols - start]
        return self.score(a, b, i, cols)
