"""Monotone bead alignment by dynamic programming, after bertalign (Liu and Zhu, 2022): the
sentences of both sides are aligned in order into beads of up to `max_align` sentences in all
(1:1, 1:2, 2:1, 2:2, 1:3, ...), each bead scored as a whole, a sentence left out at a cost.

Two passes. The first links sentences 1:1 along the best increasing chain of each sentence's
`top_k` most similar sentences (an anchor path); the second searches every bead type inside a
band of `window` sentences around it. A bead's score is the cosine of its two sides (minus, with
`margin`, the mean cosine of each side with the sentences just outside the other side: a
sentence that matches its neighbours as well is no evidence), times a length agreement
log2(1 + shorter / longer) with the pair's own length ratio factored out, plus (BeadDP.v3)
`anchor_weight` for each number, ? ! or quote mark its two sides share, less as much where one
side ends on a colon or semicolon and the other does not (bead_anchors.py: evidence the encoder
does not give). A run of sentences is
represented by the normalised sum of its sentence embeddings (`concatenation = "sum"`, no extra
encoder call), by the embedding of the joined text of every run ("text", as bertalign: four
times the strings), or ("candidates", the default) by the sum first and then, for the n:m beads
that come close to the best path, by their joined text, with a penalty on each sentence beyond
one a side (bead_units.py: a few more strings, not four times). Time and memory grow with the
sentences times the band, not with n x m."""

import inspect
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..core.registries import aligner_registry
from ..core.setting_checks import AT_LEAST_0, AT_LEAST_1, EMBEDS, Choice, Range, check_settings, ranges
from ..core.structures import Bead, ParagraphLink, Side
from ..similarity.runs import joined_vectors
from .band_scores import BandScores, band_cells
from .bead_anchors import SharedAnchors
from .bead_units import CandidateRescorer
from .protocol import SentenceAlignerBase

CONCATENATIONS = ("sum", "text", "candidates")


def bead_types(max_align: int) -> List[Tuple[int, int]]:
    """(complex, simple) sentence counts of a bead: the two skips, then every a:b with a + b <= max_align."""
    return [(1, 0), (0, 1)] + [(a, b) for a in range(1, max_align) for b in range(1, max_align) if a + b <= max_align]


def runs(vectors: np.ndarray, lengths: np.ndarray, longest: int, encode_runs=None):
    """Vectors [longest, n, d] and lengths [longest, n] of the runs of 1..longest sentences
    ending at each sentence (a run that would start before the first sentence is shorter): the
    normalised sum of their sentence vectors, or `encode_runs(spans)` of their joined texts."""
    n, dim = vectors.shape
    out = np.zeros((longest, n, dim), dtype=np.float32)
    total = np.zeros((longest, n))
    cum = np.vstack([np.zeros((1, dim), dtype=np.float64), np.cumsum(vectors, axis=0, dtype=np.float64)])
    cum_len = np.concatenate([[0.0], np.cumsum(lengths, dtype=np.float64)])
    ends = np.arange(1, n + 1)
    for a in range(1, longest + 1):
        starts = np.maximum(ends - a, 0)
        total[a - 1] = cum_len[ends] - cum_len[starts]
        if encode_runs is not None and a > 1:
            spans = [(s, e - 1) for s, e in zip(starts.tolist(), ends.tolist())]
            out[a - 1] = np.asarray(encode_runs(spans), dtype=np.float32)
        else:
            out[a - 1] = cum[ends] - cum[starts]
    out /= np.maximum(np.linalg.norm(out, axis=2, keepdims=True), 1e-12)
    return out, total


def anchor_path(sims_of, n: int, m: int, top_k: int) -> List[Tuple[int, int]]:
    """The increasing chain of (i, j) pairs, j among the top_k targets of i, of the largest total
    cosine (positive extensions only): 1-based (sentences consumed on each side)."""
    cand = []
    for start in range(0, n, 1024):
        sims = sims_of(start, min(n, start + 1024))
        k = min(top_k, m)
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k < m else np.tile(np.arange(m), (len(sims), 1))
        for r in range(len(sims)):
            for j in top[r]:
                cand.append((start + r, int(j), float(sims[r, j])))
    # best chain ending at each candidate: a prefix maximum over targets < j of earlier sources (Fenwick tree)
    tree = np.full(m + 1, -np.inf)
    where = np.full(m + 1, -1, dtype=np.int64)
    score = np.zeros(len(cand))
    prev = np.full(len(cand), -1, dtype=np.int64)
    k = 0
    while k < len(cand):
        i = cand[k][0]
        group = []
        while k < len(cand) and cand[k][0] == i:
            group.append(k)
            k += 1
        for c in group:  # query before any update of this source: one target per source
            _, j, s = cand[c]
            best, arg, q = -np.inf, -1, j  # prefix max over targets 0..j-1
            while q > 0:
                if tree[q] > best:
                    best, arg = tree[q], where[q]
                q -= q & -q
            score[c] = s + best if best > 0 else s
            prev[c] = arg if best > 0 else -1
        for c in group:
            q = cand[c][1] + 1
            while q <= m:
                if score[c] > tree[q]:
                    tree[q], where[q] = score[c], c
                q += q & -q
    if not cand:
        return []
    c = int(np.argmax(score))
    path = []
    while c >= 0:
        path.append((cand[c][0] + 1, cand[c][1] + 1))
        c = int(prev[c])
    return path[::-1]


def band_around(path: Sequence[Tuple[int, int]], n: int, m: int, window: int) -> Tuple[np.ndarray, np.ndarray]:
    """For each row i (0..n), the columns [lo, hi] the second pass searches."""
    lo = np.zeros(n + 1, dtype=np.int64)
    hi = np.full(n + 1, m, dtype=np.int64)
    points = [(0, 0)] + list(path) + [(n, m)]
    for (i0, j0), (i1, j1) in zip(points[:-1], points[1:]):
        lo[i0 : i1 + 1] = max(0, j0 - window)
        hi[i0 : i1 + 1] = min(m, j1 + window)
    return lo, hi


def band_dots(X: np.ndarray, Y: np.ndarray, rows: np.ndarray, cols: np.ndarray, block: int = 16) -> np.ndarray:
    """X[rows] . Y[cols] for each (row, col) pair, rows in increasing order: one matrix product
    per block of rows over the columns the block's pairs reach (a band is narrow, so the
    product holds few cells it does not need), gathered dot products where it would hold many."""
    out = np.empty(len(rows), dtype=np.float64)
    if not len(rows):
        return out
    edges = np.searchsorted(rows, np.arange(rows[0], rows[-1] + 1 + block, block))
    for s, e in zip(edges[:-1], edges[1:]):
        if s == e:
            continue
        r, c = rows[s:e], cols[s:e]
        r0, c0, c1 = int(r[0]), int(c.min()), int(c.max())
        height, width = int(r[-1]) - r0 + 1, c1 - c0 + 1
        if height * width <= 4 * (e - s):
            out[s:e] = (X[r0 : r0 + height] @ Y[c0 : c1 + 1].T)[r - r0, c - c0]
        else:
            out[s:e] = np.einsum("kd,kd->k", X[r], Y[c])
    return out


class BeadScorer:
    """The scores of a:b beads, from run vectors S, T [longest, n, d] and run lengths SL, TL
    [longest, n] (see the module docstring: cosine, margin, length agreement, shared anchors
    and differing ends times anchor_weight when `anchors`, a SharedAnchors, is given). Called as
    score(a, b, rows, cols) for the beads ending at each (rows[k], cols[k]) (1-based ends, rows
    in increasing order): a whole band at once, as band_scores.py asks (the decoder's time is
    mostly scoring, and one call per row is slow)."""

    def __init__(self, S, T, SL, TL, ratio: float, margin: bool, length_penalty: bool, anchors=None, anchor_weight=0.0):
        self.S, self.T, self.SL, self.TL = S, T, SL, TL
        self.ratio, self.margin, self.length_penalty = ratio, margin, length_penalty
        self.anchors, self.anchor_weight = anchors, anchor_weight

    def __call__(self, a: int, b: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Scores of the a:b beads ending at (rows[k], cols[k]), rows in increasing order."""
        S, T = self.S, self.T
        n, m = S.shape[1], T.shape[1]
        value = band_dots(S[a - 1], T[b - 1], rows - 1, cols - 1)
        if self.margin:
            # the bead's source run against the target sentences just outside its target side
            near = np.zeros(len(cols))
            right, left = cols < m, cols - b - 1 >= 0
            near[right] += band_dots(S[a - 1], T[0], rows[right] - 1, cols[right])
            near[left] += band_dots(S[a - 1], T[0], rows[left] - 1, cols[left] - b - 1)
            count = right.astype(np.int64) + left
            target_side = np.where(count > 0, near / np.maximum(count, 1), 0.0)
            # and its target run against the source sentences just outside its source side
            near = np.zeros(len(cols))
            after, before = rows < n, rows - a - 1 >= 0
            near[after] += band_dots(S[0], T[b - 1], rows[after], cols[after] - 1)
            near[before] += band_dots(S[0], T[b - 1], rows[before] - a - 1, cols[before] - 1)
            count = after.astype(np.int64) + before
            source_side = np.where(count > 0, near / np.maximum(count, 1), 0.0)
            value = value - (target_side + source_side) / 2
        if self.length_penalty:
            a_len, b_len = self.SL[a - 1, rows - 1], self.TL[b - 1, cols - 1] * self.ratio
            value = value * np.log2(1 + np.minimum(a_len, b_len) / np.maximum(np.maximum(a_len, b_len), 1e-9))
        if self.anchors is not None and self.anchor_weight:
            value = value + self.anchor_weight * self.anchors.evidence(a, b, rows, cols)
        return value


def bead_scorer(
    S, T, SL, TL, ratio: float, margin: bool, length_penalty: bool, anchors=None, anchor_weight=0.0
) -> BeadScorer:
    """The bead scores of run vectors S, T and run lengths SL, TL (BeadScorer)."""
    return BeadScorer(S, T, SL, TL, ratio, margin, length_penalty, anchors, anchor_weight)


# the cells of a block of rows scored at once by the forward pass, all bead types together
BLOCK_CELLS = 1 << 20


def forward(n: int, m: int, types, lo: np.ndarray, hi: np.ndarray, score, skip: float, allowed=None):
    """The best total score of aligning the first i source and j target sentences, for every
    (i, j) of the band (-inf outside it), and the bead type that ends each best path there.
    `score(a, b, rows, cols)` gives the a:b beads ending at each (rows[k], cols[k]), rows in
    increasing order; `allowed(t, rows, cols)`, if given, masks the cells where an n:m bead type
    t may end (1:1 beads and skips are always allowed). Row by row, every bead type at once: the
    scores of a block of rows come first, in one call per type, then each row takes the best
    type of each cell (the first of equals, in the order of `types`)."""
    cost = np.full((n + 1, m + 1), -np.inf, dtype=np.float64)
    back = np.full((n + 1, m + 1), -1, dtype=np.int8)
    cost[0, 0] = 0.0
    skip_right = types.index((0, 1))
    kinds = np.array([t for t, ab in enumerate(types) if ab != (0, 1)])  # the 0:1 skip chains along the row
    A = np.array([types[t][0] for t in kinds])
    B = np.array([types[t][1] for t in kinds])
    ramp = skip * np.arange(m + 1)
    width = int((hi - lo).max()) + 1  # the widest row of the band
    block = max(1, BLOCK_CELLS // (len(kinds) * width))
    for first in range(0, n + 1, block):
        last = min(n + 1, first + block)
        rows, cols, place = band_cells(lo, hi, first, last)
        scores = np.full((len(kinds), last - first, width), -np.inf)
        for k, t in enumerate(kinds):
            a, b = types[t]
            keep = (rows >= a) & (cols >= b)
            if allowed is not None and a and b and a + b > 2:
                keep[keep] = allowed(t, rows[keep], cols[keep])
            r, c = rows[keep], cols[keep]
            if len(r):
                scores[k, r - first, place[keep]] = skip if a == 0 or b == 0 else score(a, b, r, c)
        for i in range(first, last):
            js = np.arange(lo[i], hi[i] + 1)
            # a bead type that cannot end here scores -inf, so any in-range previous cell will do
            prev = cost[np.maximum(i - A, 0)[:, None], np.maximum(js[None, :] - B[:, None], 0)]
            value = prev + scores[:, i - first, : len(js)]
            best = value.argmax(axis=0)
            top = value[best, np.arange(len(js))]
            better = top > cost[i, js]
            cost[i, js[better]] = top[better]
            back[i, js[better]] = kinds[best[better]]
            # simple sentences left out (0:1) chain along the row: max over k <= j of cost[i, k] + skip * (j - k)
            row = np.full(m + 1, -np.inf)
            row[js] = cost[i, js]
            reach = np.maximum.accumulate(row - ramp) + ramp
            gain = np.zeros(m + 1, dtype=bool)
            gain[js] = reach[js] > row[js] + 1e-12
            cost[i, gain] = reach[gain]
            back[i, gain] = skip_right
    return cost, back


def backtrace(back: np.ndarray, types) -> List[Tuple[int, int, int, int]]:
    """The beads (complex start, end, simple start, end) of the best path; skips left out."""
    i, j = back.shape[0] - 1, back.shape[1] - 1
    beads = []
    while i > 0 or j > 0:
        a, b = types[back[i, j]] if back[i, j] >= 0 else ((1, 0) if i > 0 else (0, 1))
        if a and b:
            beads.append((i - a, i, j - b, j))
        i, j = i - a, j - b
    return beads[::-1]


def align_monotone(
    src: np.ndarray,
    tgt: np.ndarray,
    src_len: np.ndarray,
    tgt_len: np.ndarray,
    max_align: int,
    top_k: int,
    window: int,
    skip: float,
    margin: bool,
    length_penalty: bool,
    src_runs=None,
    tgt_runs=None,
    rescore=None,
    anchors=None,
    anchor_weight: float = 0.0,
) -> List[Tuple[int, int, int, int, float]]:
    """Beads (complex start, complex end, simple start, simple end, cosine) of two sides given as
    normalised sentence vectors and character lengths; empty beads (skips) are left out.
    `rescore`, if given, is a bead_units.CandidateRescorer: the n:m beads near the best path
    are scored again as units. `anchors` (a SharedAnchors of the two sides) adds anchor_weight
    for each anchor a bead shares, and takes it where the bead's ends differ (SharedAnchors.evidence)."""
    n, m = len(src), len(tgt)
    if not n or not m:
        return []
    types = bead_types(max_align)
    longest = max_align - 1
    S, SL = src_runs if src_runs is not None else runs(src, src_len, longest)
    T, TL = tgt_runs if tgt_runs is not None else runs(tgt, tgt_len, longest)
    ratio = float(src_len.sum() / max(tgt_len.sum(), 1.0))
    path = anchor_path(lambda a, b: src[a:b] @ tgt.T, n, m, top_k)
    lo, hi = band_around(path, n, m, window)
    score = BandScores(bead_scorer(S, T, SL, TL, ratio, margin, length_penalty, anchors, anchor_weight), lo, hi)
    cost, back = forward(n, m, types, lo, hi, score, skip)
    if rescore is not None:
        S, T, score, allowed = rescore(
            forward,
            types,
            lo,
            hi,
            score,
            skip,
            cost,
            S,
            T,
            lambda S, T: BandScores(
                bead_scorer(S, T, SL, TL, ratio, margin, length_penalty, anchors, anchor_weight), lo, hi
            ),
        )
        cost, back = forward(n, m, types, lo, hi, score, skip, allowed)
    return [(a, b, c, d, float(S[b - a - 1, b - 1] @ T[d - c - 1, d - 1])) for a, b, c, d in backtrace(back, types)]


def encode_runs(similarity, side: Side, spans: Sequence[Tuple[int, int]]) -> np.ndarray:
    """The vectors of the joined texts of the runs (first, last) of a side's sentences: the
    similarity's encode_runs, or its encode of the joined texts (an encoder that has only `encode`)."""
    if hasattr(similarity, "encode_runs"):
        return similarity.encode_runs(side.sentences, spans, side.lang)
    return joined_vectors(similarity, side.sentences, spans, side.lang)


class BeadDPAligner(SentenceAlignerBase):
    """Monotone bead alignment on sentence embeddings (see the module docstring); paragraph
    links, if given, are ignored: the whole document is one sequence. `settings` are those of
    make_bead_dp_v3, whose signature holds their defaults (a setting not given takes it)."""

    # make_bead_dp_v3's settings, set by __init__
    max_align: int
    top_k: int
    window: int
    skip: float
    margin: bool
    length_penalty: bool
    concatenation: str
    candidate_gap: float
    candidate_penalty: float
    anchor_weight: float

    def __init__(self, similarity=None, **settings):
        unknown = set(settings) - set(SETTINGS)
        if unknown:
            raise TypeError(f"unknown BeadDP setting(s): {', '.join(sorted(unknown))}")
        settings = {**SETTINGS, **settings}
        if similarity is None:
            from ..similarity.backends import make_use_similarity

            similarity = make_use_similarity()
        check_settings(make_bead_dp_v3, {"similarity": similarity, **settings})  # a direct build too
        self.similarity = similarity
        for name, value in settings.items():
            setattr(self, name, value)

    def encoders(self) -> List:
        return [self.similarity]

    def _runs(self, side: Side):
        vectors = np.asarray(self.similarity.encode(side.sentences, side.lang), dtype=np.float32)
        lengths = np.array([len(s) for s in side.sentences], dtype=np.float64)
        joined = (lambda spans: encode_runs(self.similarity, side, spans)) if self.concatenation == "text" else None
        return vectors, lengths, runs(vectors, lengths, self.max_align - 1, joined)

    def align(
        self, complex: Side, simple: Side, paragraph_links: Optional[Sequence[ParagraphLink]] = None
    ) -> List[Bead]:
        if not len(complex) or not len(simple):
            return []
        src, src_len, src_runs = self._runs(complex)
        tgt, tgt_len, tgt_runs = self._runs(simple)
        rescore = None
        if self.concatenation == "candidates":
            sides = (complex, simple)
            rescore = CandidateRescorer(
                lambda spans, side: encode_runs(self.similarity, sides[side], spans),
                self.candidate_gap,
                self.candidate_penalty,
            )
        found = align_monotone(
            src,
            tgt,
            src_len,
            tgt_len,
            self.max_align,
            self.top_k,
            self.window,
            self.skip,
            self.margin,
            self.length_penalty,
            src_runs,
            tgt_runs,
            rescore,
            SharedAnchors(complex.sentences, simple.sentences) if self.anchor_weight else None,
            self.anchor_weight,
        )
        return [
            Bead(tuple(range(a, b)), tuple(range(c, d)), float(min(max(score, 0.0), 1.0)))
            for a, b, c, d, score in found
        ]


# top_k and window are clipped to the document; max_align sets how many bead types each step tries
RANGES = {
    "similarity": EMBEDS,
    "max_align": Range(2, 20),
    "top_k": AT_LEAST_1,
    "window": AT_LEAST_0,
    "concatenation": Choice(CONCATENATIONS),
}


@aligner_registry("spacy-simalign.BeadDP.v1")
@ranges(**RANGES)
def make_bead_dp(
    similarity=None,
    max_align: int = 5,
    top_k: int = 3,
    window: int = 5,
    skip: float = -0.1,
    margin: bool = True,
    length_penalty: bool = True,
    concatenation: str = "candidates",
    candidate_gap: float = 0.2,
    candidate_penalty: float = 0.075,
) -> BeadDPAligner:
    """Monotone bead alignment (bertalign's two passes) on sentence embeddings; default USE.
    candidate_gap and candidate_penalty are the "candidates" concatenation's (bead_units.py):
    chosen on the Text+Berg and TransRead dev sets (in-sample, benchmarks/scripts/eval_translations.py)."""
    settings = {name: value for name, value in locals().items() if name != "similarity"}  # the arguments
    return BeadDPAligner(similarity, anchor_weight=0.0, **settings)


@aligner_registry("spacy-simalign.BeadDP.v3")
@ranges(**RANGES, anchor_weight=Range(0, 1))
def make_bead_dp_v3(
    similarity=None,
    max_align: int = 5,
    top_k: int = 3,
    window: int = 5,
    skip: float = -0.1,
    margin: bool = True,
    length_penalty: bool = True,
    concatenation: str = "candidates",
    candidate_gap: float = 0.2,
    candidate_penalty: float = 0.1,
    anchor_weight: float = 0.05,
) -> BeadDPAligner:
    """The bead decoder of BeadDP.v1 with the anchors the encoder does not see: each number, ?, !
    or quote mark that a bead's two sides share adds anchor_weight, and a bead that ends on a colon
    or semicolon on one side only takes it (bead_anchors.py). candidate_penalty and anchor_weight
    were chosen on the Text+Berg, TransRead and NTREX dev sets together (in-sample; held out by
    document, docs/results.md)."""
    settings = {name: value for name, value in locals().items() if name != "similarity"}  # the arguments
    return BeadDPAligner(similarity, **settings)


def signature_defaults(factory) -> dict:
    """{setting: default} of a registered decoder's signature (the similarity aside)."""
    return {name: p.default for name, p in inspect.signature(factory).parameters.items() if name != "similarity"}


SETTINGS = signature_defaults(make_bead_dp_v3)
"""The current decoder's settings and defaults (BeadDP.v3)."""
V1_SETTINGS = signature_defaults(make_bead_dp)
"""BeadDP.v1's, which saved configs and the CRF's older translations blocks keep."""
