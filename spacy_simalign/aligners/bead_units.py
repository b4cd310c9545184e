"""n:m beads scored as units, cheaply: the bead decoder (bead_dp.py) first scores a run of
sentences by the normalised sum of its sentence vectors, which needs no encoder call beyond the
sentences; but a short piece ("Approche :", "c' est pourquoi .") barely moves that sum, so the
decoder leaves it out or splits a bead into fragments. Embedding the joined text of every run of
1..4 sentences (bertalign) sees it, at four times the encoder calls and ten times the characters.

Here only the runs that can matter are embedded: those of the n:m beads whose best complete path
(forward score to the bead's start + the bead + backward score from its end, all with the summed
vectors) comes within `gap` of the best path's total. Those beads are scored again with the
joined text's vector, less `penalty` for each sentence beyond the first on either side (a joined
text resembles each of its sentences, so unit scores favour merging: on the dev sets, without
it, 1:1 beads are merged into n:m ones), and the path is decoded again, the n:m beads
restricted to those candidates; 1:1 beads and skips keep their scores. The candidates' strings
are encoded once by text (the USE encoder composes them from its sentences' encoding,
similarity/use_runs.py); their number grows with the close alternatives, not with every run: on
Text+Berg dev 344 runs beside the 1,022 sentences (bertalign: 4,088 strings),
benchmarks/scripts/eval_translations.py."""

from typing import Callable, Dict, List, Set, Tuple

import numpy as np

from .band_scores import band_cells


class CandidateRescorer:
    """The `rescore` step of bead_dp.align_monotone for one pair: `encode_runs(spans, side)`
    returns the normalised vectors of the joined texts of the runs (first, last) of side 0
    (complex) or 1 (simple), as EmbeddingSimilarity.encode_runs."""

    def __init__(self, encode_runs: Callable, gap: float, penalty: float):
        self.encode_runs, self.gap, self.penalty = encode_runs, gap, penalty

    def candidates(self, forward, types, lo, hi, score, skip, cost) -> Dict[int, Tuple[np.ndarray, np.ndarray]]:
        """{bead type: (end rows, end columns)} of the n:m beads on a path within `gap` of the best;
        `forward` is bead_dp.forward (the same search, run on the reversed sides for the backward scores)."""
        floor = cost[-1, -1] - self.gap
        kept = {}
        for t, (rows, cols, through) in paths_through(forward, types, lo, hi, score, skip, cost).items():
            close = through >= floor
            if close.any():
                kept[t] = (rows[close], cols[close])
        return kept

    def __call__(self, forward, types, lo, hi, score, skip, cost, S, T, make_score):
        """(run vectors S, T with the candidates' joined texts, their bead scorer, the mask of allowed n:m beads)."""
        kept = self.candidates(forward, types, lo, hi, score, skip, cost)
        S, T = self.joined(kept, types, S, T)
        stride = cost.shape[1]
        cells = {t: rows * stride + cols for t, (rows, cols) in kept.items()}  # one number per cell

        def allowed(t, rows, cols):
            return np.isin(rows * stride + cols, cells.get(t, ()))

        unit = make_score(S, T)
        first_pass = score

        def score(a, b, rows, cols):
            if a == b == 1:  # single sentences keep their vectors, so their scores are the first pass's
                return first_pass(a, b, rows, cols)
            return unit(a, b, rows, cols) - self.penalty * (a + b - 2)

        return S, T, score, allowed

    def joined(self, kept, types, S: np.ndarray, T: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """The run vectors S, T with those of the runs of the `kept` beads made from their joined text."""
        src_runs: Set[Tuple[int, int]] = set()
        tgt_runs: Set[Tuple[int, int]] = set()
        for t, (rows, cols) in kept.items():
            a, b = types[t]
            if a > 1:
                src_runs.update((a, int(i)) for i in np.unique(rows))
            if b > 1:
                tgt_runs.update((b, int(j)) for j in np.unique(cols))
        return self._replace(S, sorted(src_runs), 0), self._replace(T, sorted(tgt_runs), 1)

    def _replace(self, R: np.ndarray, wanted: List[Tuple[int, int]], side: int) -> np.ndarray:
        """R with the vectors of the runs (length, end) of `wanted` made from their joined text."""
        if not wanted:
            return R
        vectors = np.asarray(self.encode_runs([(e - k, e - 1) for k, e in wanted], side), dtype=np.float32)
        R = R.copy()
        lengths, ends = zip(*wanted)
        R[np.array(lengths) - 1, np.array(ends) - 1] = vectors
        return R


class Reversed:
    """A bead scorer on the sides read backwards (the backward pass): the a:b bead ending at
    (i, j) of the reversed sides is the one ending at (n - i + a, m - j + b) of the sides."""

    def __init__(self, score, n: int, m: int):
        self.score, self.n, self.m = score, n, m

    def __call__(self, a: int, b: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        # rows increase here, so they decrease on the sides: score them in increasing order
        return self.score(a, b, (self.n - rows + a)[::-1], (self.m - cols + b)[::-1])[::-1]


def paths_through(forward, types, lo, hi, score, skip, cost) -> Dict[int, Tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """{bead type: (end rows, end columns, best total of a complete path through each bead)} of
    the n:m beads of the band on some complete path; `cost` is the forward pass's."""
    n, m = cost.shape[0] - 1, cost.shape[1] - 1
    reverse_lo, reverse_hi = m - hi[::-1], m - lo[::-1]
    backward, _ = forward(n, m, types, reverse_lo, reverse_hi, Reversed(score, n, m), skip)
    backward = backward[::-1, ::-1]  # best score from (i, j) to the end
    rows, cols, _ = band_cells(lo, hi, 1, n + 1)
    found = {}
    for t, (a, b) in enumerate(types):
        if not a or not b or a + b < 3:
            continue
        keep = (rows >= a) & (cols >= b)
        r, c = rows[keep], cols[keep]
        keep = np.isfinite(cost[r - a, c - b]) & np.isfinite(backward[r, c])
        r, c = r[keep], c[keep]
        if len(r):
            found[t] = (r, c, cost[r - a, c - b] + score(a, b, r, c) + backward[r, c])
    return found
