"""Combining the two directions into n:m beads: simple->complex links give splits (1:n),
complex->simple links give merges (n:1); union, intersection, or a learned logistic
combination of both directions' Viterbi choices and marginals (with the split fill). Beads are
the connected components of the kept links; a bead's score is the mean probability of its links.
These link-level beads are what the bead-level second stage (bead_decoder.py) starts from."""

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...core.structures import Bead, Link, beads_from_links

COMBINATIONS = ("union", "intersection", "learned")
LINK_FLOOR = 0.01  # a direction keeps the probability of a link above this (CRFAligner's link_floor)
# fitting the learned combination (TrainingSettings): the logistic regression's inverse
# regularisation and iterations, and the weights taken when the gold holds one class only
COMBINATION_C, COMBINATION_MAX_ITER = 10.0, 2000
COMBINATION_FALLBACK = (0.0, 0.0, 0.0, 2.0, 2.0, 0.0, -1.0)


@dataclass
class DirectionOutput:
    """Viterbi links and marginal link probabilities of one direction, in (complex, simple) order,
    and each source sentence's marginal probability of being unaligned."""

    links: List[Link]
    probs: Dict[Link, float]
    null: Optional[np.ndarray] = None


def direction_output(
    best: np.ndarray, marg: np.ndarray, cand: np.ndarray, src_is_complex: bool, floor: float = LINK_FLOOR
) -> DirectionOutput:
    """Links and link probabilities (above `floor`) of one direction from its decoded arrays:
    best target per source sentence (-1 = none), marginals [n, K+1], candidates [n, K]."""

    def orient(i, j):
        return (i, j) if src_is_complex else (j, i)

    links = [orient(i, j) for i, j in enumerate(np.asarray(best).tolist()) if j >= 0]
    probs: Dict[Link, float] = {}
    if cand.size:
        rows, ks = np.nonzero(cand >= 0)
        p = np.asarray(marg)[rows, ks + 1]
        keep = p > floor
        rows, ks = rows[keep], ks[keep]
        for i, j, q in zip(rows.tolist(), cand[rows, ks].tolist(), p[keep].tolist()):
            probs[orient(i, j)] = q
    return DirectionOutput(links, probs, np.asarray(marg, dtype=np.float64)[:, 0])


def link_features(link: Link, s2c: DirectionOutput, c2s: DirectionOutput, v1: set, v2: set) -> List[float]:
    p1, p2 = s2c.probs.get(link, 0.0), c2s.probs.get(link, 0.0)
    return [p1, p2, p1 * p2, float(link in v1), float(link in v2), max(p1, p2), 1.0]


N_LINK_FEATURES = 7


def link_rows(s2c: DirectionOutput, c2s: DirectionOutput) -> Tuple[List[Link], np.ndarray]:
    """(every link either direction finds possible, sorted; its combination features [L, 7])."""
    v1, v2 = set(s2c.links), set(c2s.links)
    pool = sorted(v1 | v2 | set(s2c.probs) | set(c2s.probs))
    x = np.array([link_features(k, s2c, c2s, v1, v2) for k in pool], dtype=np.float64).reshape(-1, N_LINK_FEATURES)
    return pool, x


def link_probs(s2c: DirectionOutput, c2s: DirectionOutput, weights: np.ndarray) -> Dict[Link, float]:
    """The learned combination's probability of every link either direction finds possible."""
    pool, x = link_rows(s2c, c2s)
    if not pool:
        return {}
    prob = 1.0 / (1.0 + np.exp(-(x @ np.asarray(weights, dtype=np.float64))))
    return dict(zip(pool, prob.tolist()))


def kept_links(
    probs: Dict[Link, float], s2c: DirectionOutput, threshold: float, split_fill: Optional[float]
) -> Dict[Link, float]:
    """The links of the learned combination's probabilities `probs` at or above `threshold`,
    with the split fill."""
    return fill_splits({k: p for k, p in probs.items() if p >= threshold}, s2c, split_fill)


def link_beads(scores: Dict[Link, float]) -> List[Bead]:
    """The beads (connected components) of the kept links, their scores clipped to [0, 1]."""
    return beads_from_links(sorted(scores), {k: float(min(1.0, max(0.0, s))) for k, s in scores.items()})


def fill_splits(kept: Dict[Link, float], s2c: DirectionOutput, split_fill: Optional[float]) -> Dict[Link, float]:
    """`kept` plus the simple->complex Viterbi link of each simple sentence that has no kept
    link, where its marginal is at least `split_fill` (None: none added). The combination,
    fitted mostly on near-copies, asks for both directions' support; a split part that only the
    simple->complex direction finds is dropped, although that direction is the one made for
    splits (docs/crf-experiments.md)."""
    if split_fill is None:
        return kept
    linked = {s for _, s in kept}
    out = dict(kept)
    for link in s2c.links:
        p = s2c.probs.get(link, 0.0)
        if link[1] not in linked and p >= split_fill:
            out[link] = p
    return out


def combine(
    s2c: DirectionOutput,
    c2s: DirectionOutput,
    method: str = "union",
    weights: Optional[np.ndarray] = None,
    threshold: float = 0.5,
    split_fill: Optional[float] = None,
) -> List[Bead]:
    """Beads from the two directions (`split_fill`: see fill_splits, learned combination only)."""
    v1, v2 = set(s2c.links), set(c2s.links)
    if method == "intersection":
        scores = {k: min(s2c.probs.get(k, 0.0), c2s.probs.get(k, 0.0)) for k in v1 & v2}
    elif method == "union":
        scores = {k: max(s2c.probs.get(k, 0.0), c2s.probs.get(k, 0.0)) for k in v1 | v2}
    elif method == "learned":
        if weights is None:
            raise ValueError("the learned combination needs trained weights")
        scores = kept_links(link_probs(s2c, c2s, weights), s2c, threshold, split_fill)
    else:
        raise ValueError(f"unknown combination {method!r}: choose one of {', '.join(COMBINATIONS)}")
    return link_beads(scores)


def fit_combination(
    examples: List[Tuple[DirectionOutput, DirectionOutput, set]],
    seed: int = 0,
    c: float = COMBINATION_C,
    max_iter: int = COMBINATION_MAX_ITER,
    fallback: Sequence[float] = COMBINATION_FALLBACK,
) -> np.ndarray:
    """Logistic regression weights for the learned combination, from (s2c, c2s, gold links)
    examples; `fallback` when the gold holds one class only."""
    from sklearn.linear_model import LogisticRegression

    xs: List[np.ndarray] = []
    ys: List[int] = []
    for s2c, c2s, gold in examples:
        pool, x = link_rows(s2c, c2s)
        xs.append(x)
        ys.extend(int(link in gold) for link in pool)
    if len(set(ys)) < 2:
        return np.array(fallback, dtype=np.float64)
    clf = LogisticRegression(C=c, fit_intercept=False, max_iter=max_iter, random_state=seed)
    clf.fit(np.concatenate(xs), np.array(ys))
    return clf.coef_[0]
