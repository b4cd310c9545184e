"""Bead decoding: splits and merges scored as units.

The two CRF directions give each sentence one label, so an n:m bead is only the connected
component of several one-label decisions, and a long split is lost when one of its sentences
falls below the link threshold. Here candidate beads (one complex sentence with a run of
consecutive simple sentences, a run of complex sentences with one simple sentence, small n:m
blocks) are built around the links the CRF finds likely, and each is scored as a whole by a
logistic model from bead features: how much of each member's marginal mass (both directions
and the learned combination) stays inside the bead, how much leaks to the sentences just
outside it, the members' null marginals, the length ratio against the pair's own, the shape.
The decoded beads are the monotone chain of non-overlapping candidates with the highest total
(probability - threshold); the link-level beads that overlap none of them are kept as well.

The scorer is fitted on CRF outputs for documents that CRF did not train on (crf/train.py).
Everything is vectorised over the candidates; there is no encoder call and nothing
language-specific. What was tried beside it is in docs/crf-experiments.md."""

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...core.structures import Bead, Link
from .combine import DirectionOutput

BEAD_FEATURE_NAMES = (
    "bias",
    "one_one",
    "split",
    "merge",
    "many_many",
    "log_n_complex",
    "log_n_simple",
    "in_s2c_mean",
    "in_s2c_min",
    "in_c2s_mean",
    "in_c2s_min",
    "comb_s_mean",
    "comb_s_min",
    "comb_c_mean",
    "comb_c_min",
    "leak_simple",
    "leak_complex",
    "null_s2c_mean",
    "null_c2s_mean",
    "len_dev",
    "len_dev_abs",
    "cross_lingual",
    "in_viterbi",
)
N_BEAD_FEATURES = len(BEAD_FEATURE_NAMES)
# defaults of CRFAligner's bead_candidate_floor, bead_max_split, bead_max_merge, bead_max_block
CANDIDATE_FLOOR = 0.05  # a link either direction or the combination gives this much can bound a candidate
MAX_SPLIT, MAX_MERGE, MAX_BLOCK = 10, 3, 3  # simple sentences of a 1:n, complex of an n:1, each side of an n:m
BEAD_C, BEAD_MAX_ITER = 1.0, 5000  # the bead scorer's logistic regression (TrainingSettings)


class _Sparse:
    """Link values (complex, simple) -> float, for vectorised look-ups and range sums along one axis."""

    def __init__(self, links: Dict[Link, float], n_complex: int, n_simple: int):
        self.nc, self.ns = n_complex, n_simple
        if links:
            arr = np.array(list(links.keys()), dtype=np.int64).reshape(-1, 2)
            val = np.fromiter(links.values(), dtype=np.float64, count=len(links))
        else:
            arr, val = np.zeros((0, 2), dtype=np.int64), np.zeros(0)
        c, s = arr[:, 0], arr[:, 1]
        key = c * (n_simple + 1) + s  # by complex, then simple: sums over a simple range
        order = np.argsort(key, kind="stable")
        self.key_cs, self.val_cs = key[order], val[order]
        self.cum_cs = np.concatenate([[0.0], np.cumsum(self.val_cs)])
        key = s * (n_complex + 1) + c  # by simple, then complex: sums over a complex range
        order = np.argsort(key, kind="stable")
        self.key_sc, self.cum_sc = key[order], np.concatenate([[0.0], np.cumsum(val[order])])

    def get(self, c: np.ndarray, s: np.ndarray) -> np.ndarray:
        if not len(self.key_cs):
            return np.zeros(len(c))
        key = c * (self.ns + 1) + s
        pos = np.minimum(np.searchsorted(self.key_cs, key), len(self.key_cs) - 1)
        return np.where(self.key_cs[pos] == key, self.val_cs[pos], 0.0)

    def sum_over_simple(self, c: np.ndarray, s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
        """Sum of the values (c, s) for s in s0..s1."""
        base = c * (self.ns + 1)
        return (
            self.cum_cs[np.searchsorted(self.key_cs, base + s1, "right")]
            - self.cum_cs[np.searchsorted(self.key_cs, base + s0, "left")]
        )

    def sum_over_complex(self, s: np.ndarray, c0: np.ndarray, c1: np.ndarray) -> np.ndarray:
        """Sum of the values (c, s) for c in c0..c1."""
        base = s * (self.nc + 1)
        return (
            self.cum_sc[np.searchsorted(self.key_sc, base + c1, "right")]
            - self.cum_sc[np.searchsorted(self.key_sc, base + c0, "left")]
        )


def _prefix(x: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum(np.asarray(x, dtype=np.float64))])


def expand_ranges(start: np.ndarray, stop: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(owner, index) of every index in start[k]..stop[k] (inclusive), for all k."""
    size = stop - start + 1
    owner = np.repeat(np.arange(len(start)), size)
    first = np.repeat(np.cumsum(size) - size, size)
    return owner, start[owner] + np.arange(int(size.sum())) - first


def mean_min(owner: np.ndarray, values: np.ndarray, n: int) -> Tuple[np.ndarray, np.ndarray]:
    """(mean, min) of values per owner (owners 0..n-1 in order, each with at least one value)."""
    count = np.bincount(owner, minlength=n)
    mean = np.bincount(owner, weights=values, minlength=n) / np.maximum(count, 1)
    starts = np.concatenate([[0], np.cumsum(count)[:-1]])
    return mean, (np.minimum.reduceat(values, starts) if len(values) else np.zeros(n))


class BeadContext:
    """What the bead features of one decoded pair need, computed once per pair, with the
    bounds of its candidates (`floor`, `max_split`, `max_merge`, `max_block`: see above)."""

    def __init__(
        self,
        s2c: DirectionOutput,
        c2s: DirectionOutput,
        combo: Dict[Link, float],
        complex_len: np.ndarray,
        simple_len: np.ndarray,
        cross_lingual: bool,
        floor: float = CANDIDATE_FLOOR,
        max_split: int = MAX_SPLIT,
        max_merge: int = MAX_MERGE,
        max_block: int = MAX_BLOCK,
    ):
        nc, ns = len(complex_len), len(simple_len)
        self.nc, self.ns = nc, ns
        self.max_split, self.max_merge, self.max_block = max_split, max_merge, max_block
        self.p1, self.p2 = _Sparse(s2c.probs, nc, ns), _Sparse(c2s.probs, nc, ns)
        self.combo_links = combo
        self.combo = _Sparse(combo, nc, ns)
        viterbi = set(s2c.links) | set(c2s.links)
        self.viterbi = _Sparse(dict.fromkeys(viterbi, 1.0), nc, ns)
        pool = {k for probs in (combo, s2c.probs, c2s.probs) for k, p in probs.items() if p >= floor}
        self.pool = np.array(sorted(pool | viterbi), dtype=np.int64).reshape(-1, 2)
        self.null1 = _prefix(s2c.null if s2c.null is not None else np.zeros(ns))
        self.null2 = _prefix(c2s.null if c2s.null is not None else np.zeros(nc))
        self.lc, self.ls = _prefix(complex_len), _prefix(simple_len)
        self.cross = float(cross_lingual)
        self.len_ref = float(np.log((self.lc[-1] / nc) / (self.ls[-1] / ns))) if nc and ns else 0.0

    def link_mean(self, c0: int, c1: int, s0: int, s1: int) -> float:
        """Mean combination probability of a block's links (the bead's reported score)."""
        return float(np.mean([self.combo_links.get((c, s), 0.0) for c in range(c0, c1 + 1) for s in range(s0, s1 + 1)]))

    def features(self, cands: np.ndarray) -> np.ndarray:
        """[N, N_BEAD_FEATURES] features of candidate blocks [N, 4] = (c0, c1, s0, s1), inclusive."""
        c0, c1, s0, s1 = cands.T
        n = len(cands)
        nc, ns = c1 - c0 + 1, s1 - s0 + 1
        out = np.zeros((n, N_BEAD_FEATURES))
        out[:, 0] = 1.0
        out[:, 1] = (nc == 1) & (ns == 1)
        out[:, 2] = (nc == 1) & (ns > 1)
        out[:, 3] = (nc > 1) & (ns == 1)
        out[:, 4] = (nc > 1) & (ns > 1)
        out[:, 5], out[:, 6] = np.log(nc), np.log(ns)
        own_s, s_idx = expand_ranges(s0, s1)  # every (candidate, simple member)
        own_c, c_idx = expand_ranges(c0, c1)  # every (candidate, complex member)
        out[:, 7], out[:, 8] = mean_min(own_s, self.p1.sum_over_complex(s_idx, c0[own_s], c1[own_s]), n)
        out[:, 9], out[:, 10] = mean_min(own_c, self.p2.sum_over_simple(c_idx, s0[own_c], s1[own_c]), n)
        comb_s = np.zeros(len(s_idx))
        for d in range(int(nc.max(initial=1))):
            ok = c0[own_s] + d <= c1[own_s]
            comb_s = np.maximum(comb_s, np.where(ok, self.combo.get(c0[own_s] + d, s_idx), 0.0))
        comb_c, in_v = np.zeros(len(c_idx)), np.zeros(n)
        for d in range(int(ns.max(initial=1))):
            ok = s0[own_c] + d <= s1[own_c]
            comb_c = np.maximum(comb_c, np.where(ok, self.combo.get(c_idx, s0[own_c] + d), 0.0))
            in_v += np.bincount(own_c, weights=np.where(ok, self.viterbi.get(c_idx, s0[own_c] + d), 0.0), minlength=n)
        out[:, 11], out[:, 12] = mean_min(own_s, comb_s, n)
        out[:, 13], out[:, 14] = mean_min(own_c, comb_c, n)
        out[:, 15] = np.maximum(  # s2c mass of the simple sentences just outside the run
            np.where(s0 > 0, self.p1.sum_over_complex(np.maximum(s0 - 1, 0), c0, c1), 0.0),
            np.where(s1 + 1 < self.ns, self.p1.sum_over_complex(np.minimum(s1 + 1, self.ns - 1), c0, c1), 0.0),
        )
        out[:, 16] = np.maximum(  # c2s mass of the complex sentences just outside
            np.where(c0 > 0, self.p2.sum_over_simple(np.maximum(c0 - 1, 0), s0, s1), 0.0),
            np.where(c1 + 1 < self.nc, self.p2.sum_over_simple(np.minimum(c1 + 1, self.nc - 1), s0, s1), 0.0),
        )
        out[:, 17] = (self.null1[s1 + 1] - self.null1[s0]) / ns
        out[:, 18] = (self.null2[c1 + 1] - self.null2[c0]) / nc
        dev = np.log((self.lc[c1 + 1] - self.lc[c0]) / (self.ls[s1 + 1] - self.ls[s0])) - self.len_ref
        out[:, 19], out[:, 20] = dev, np.abs(dev)
        out[:, 21] = self.cross
        out[:, 22] = in_v / (nc * ns)
        return out


def block_of(bead: Bead):
    """(c0, c1, s0, s1) of a bead whose sentences are consecutive on both sides, else None."""
    c, s = bead.complex, bead.simple
    if c and s and c[-1] - c[0] + 1 == len(c) and s[-1] - s[0] + 1 == len(s):
        return (c[0], c[-1], s[0], s[-1])
    return None


def _runs(a: np.ndarray, b: np.ndarray, max_len: int) -> np.ndarray:
    """From links (a, b) sorted by (a, b): every (a, b_first, b_last), b_first <= b_last both
    linked to a, b_last - b_first < max_len."""
    outs = []
    for k in range(len(a)):
        same = a[k:] == a[: len(a) - k]
        ok = same & (b[k:] - b[: len(b) - k] < max_len)
        if not ok.any():
            break
        idx = np.flatnonzero(ok)
        outs.append(np.stack([a[idx], b[idx], b[idx + k]], axis=1))
    return np.concatenate(outs) if outs else np.zeros((0, 3), dtype=np.int64)


def candidate_beads(ctx: BeadContext, extra: Sequence[Bead] = ()) -> np.ndarray:
    """[N, 4] candidate blocks (c0, c1, s0, s1), unique and sorted: one complex sentence with a
    run of simple sentences whose two ends are likely links, a run of complex sentences with one
    simple sentence likewise, n:m blocks whose two corners are likely links, and the contiguous
    beads of `extra` (the link-level beads)."""
    parts = [np.zeros((0, 4), dtype=np.int64)]
    if len(ctx.pool):
        c, s = ctx.pool[:, 0], ctx.pool[:, 1]
        r = _runs(c, s, ctx.max_split)
        parts.append(np.stack([r[:, 0], r[:, 0], r[:, 1], r[:, 2]], axis=1))
        order = np.lexsort((c, s))
        r = _runs(s[order], c[order], ctx.max_merge)
        r = r[r[:, 2] > r[:, 1]]
        parts.append(np.stack([r[:, 1], r[:, 2], r[:, 0], r[:, 0]], axis=1))
        keys = c * (ctx.ns + 1) + s
        for dc in range(1, ctx.max_block):
            for ds in range(1, ctx.max_block):
                hit = np.isin((c + dc) * (ctx.ns + 1) + s + ds, keys)
                parts.append(np.stack([c[hit], c[hit] + dc, s[hit], s[hit] + ds], axis=1))
    blocks = [block for block in map(block_of, extra) if block is not None]
    if blocks:
        parts.append(np.array(blocks, dtype=np.int64))
    cands = np.unique(np.concatenate(parts).astype(np.int64), axis=0)
    return cands[(cands[:, 1] < ctx.nc) & (cands[:, 3] < ctx.ns)]


def monotone_chain(cands: np.ndarray, gain: np.ndarray) -> List[int]:
    """Indices of the chain of candidates, each strictly after the previous on both sides, with
    the highest total gain (candidates of gain <= 0 never help): a maximum-weight chain in the
    2-D order, O(N log N) with a prefix-maximum Fenwick tree over the simple side."""
    keep = np.flatnonzero(gain > 0).tolist()
    if not keep:
        return []
    rows = cands.tolist()
    size = int(cands[keep, 3].max()) + 2
    tree_val, tree_arg = [0.0] * (size + 1), [-1] * (size + 1)

    def update(pos: int, val: float, arg: int) -> None:
        pos += 1
        while pos <= size:
            if val > tree_val[pos]:
                tree_val[pos], tree_arg[pos] = val, arg
            pos += pos & -pos

    def query(pos: int) -> Tuple[float, int]:  # the best chain ending before simple position `pos`
        best, arg = 0.0, -1
        while pos > 0:
            if tree_val[pos] > best:
                best, arg = tree_val[pos], tree_arg[pos]
            pos -= pos & -pos
        return best, arg

    by_start = sorted(keep, key=lambda k: (rows[k][0], k))
    by_end = sorted(keep, key=lambda k: (rows[k][1], k))
    score: Dict[int, float] = {}  # the best chain's score ending in each row
    back: Dict[int, int] = {}  # the row before it in that chain
    e = 0
    for k in by_start:
        while e < len(by_end) and rows[by_end[e]][1] < rows[k][0]:  # chains ending before k's complex start
            j = by_end[e]
            update(rows[j][3] + 1, score[j], j)
            e += 1
        prev_score, back[k] = query(rows[k][2] + 1)
        score[k] = prev_score + float(gain[k])
    k = max(keep, key=lambda j: (score[j], -j))
    chain = []
    while k >= 0:
        chain.append(k)
        k = back[k]
    return chain[::-1]


def decode_beads(ctx: BeadContext, weights: Sequence[float], threshold: float, base: Sequence[Bead]) -> List[Bead]:
    """The monotone chain of candidates by logistic probability above `threshold`, plus the
    `base` (link-level) beads that overlap none of them."""
    cands = candidate_beads(ctx, base)
    prob = np.zeros(0)
    if len(cands):
        prob = 1.0 / (1.0 + np.exp(-(ctx.features(cands) @ np.asarray(weights, dtype=np.float64))))
    return chosen_beads(ctx, cands, prob, threshold, base)


def chosen_beads(
    ctx: BeadContext, cands: np.ndarray, prob: np.ndarray, threshold: float, base: Sequence[Bead]
) -> List[Bead]:
    """The monotone chain of candidate blocks `cands` by probability `prob` above `threshold`,
    plus the `base` beads that overlap none of them."""
    chosen: List[Bead] = []
    if len(cands):
        for k in monotone_chain(cands, prob - threshold):
            c0, c1, s0, s1 = (int(v) for v in cands[k])
            chosen.append(Bead(tuple(range(c0, c1 + 1)), tuple(range(s0, s1 + 1)), ctx.link_mean(c0, c1, s0, s1)))
    used_c = {c for b in chosen for c in b.complex}
    used_s = {s for b in chosen for s in b.simple}
    chosen += [b for b in base if used_c.isdisjoint(b.complex) and used_s.isdisjoint(b.simple)]
    return sorted(chosen, key=lambda b: (b.complex[0], b.simple[0]))


def bead_examples(ctx: BeadContext, gold: Sequence[Bead], base: Sequence[Bead]) -> Tuple[np.ndarray, np.ndarray]:
    """(features, 1 where the candidate is exactly a gold bead) of a decoded training pair."""
    cands = candidate_beads(ctx, base)
    wanted = set(map(block_of, gold)) - {None}  # a gold bead with a gap is no candidate block
    y = np.array([tuple(row) in wanted for row in cands.tolist()], dtype=np.int64)
    return ctx.features(cands), y


def fit_bead_scorer(
    xs: Sequence[np.ndarray], ys: Sequence[np.ndarray], seed: int = 0, c: float = BEAD_C, max_iter: int = BEAD_MAX_ITER
) -> Optional[List[float]]:
    """Logistic regression weights (no intercept: feature 0 is the bias) from bead examples;
    None when the examples hold one class only (no bead stage then)."""
    from sklearn.linear_model import LogisticRegression

    x = np.concatenate(xs) if xs else np.zeros((0, N_BEAD_FEATURES))
    y = np.concatenate(ys) if ys else np.zeros(0, dtype=np.int64)
    if len(set(y.tolist())) < 2:
        return None
    clf = LogisticRegression(C=c, fit_intercept=False, max_iter=max_iter, random_state=seed)
    clf.fit(x, y)
    return [round(float(w), 6) for w in clf.coef_[0]]
