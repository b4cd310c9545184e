"""Pair-selection strategies over scored candidate pairs (similarity x100): the five of
20min-XD, above-threshold (n:n), best-source (n:1: each source keeps its best target),
best-target (1:n: each target keeps its best source), union of the two, intersection (1:1,
mutual best), each keeping only pairs scoring at least the threshold; and assignment (1:1):
the pairs of the best one-to-one assignment, the one that maximises the summed amount by which
the chosen pairs exceed the threshold (a document whose every candidate is below it stays
unmatched). Mutual best matches lose a pair when two near-duplicate stories compete for one
partner; the assignment gives each its own.

Each is registered (registry.simalign_doc_strategies, short names as above): a strategy is
called with (source, target, score, threshold) arrays of the candidates and returns the mask of
those it keeps; one whose choice does not depend on the threshold also has `pick` (the mask
before the threshold), which lets calibration sweep thresholds in one pass."""

from typing import Callable, List, Tuple

import numpy as np

from ..core.registries import doc_strategy_registry, lookup, short_names

DEFAULT_STRATEGY = "assignment"
DENSE_ASSIGNMENT_CELLS = 4_000_000  # a connected block up to this many source x target cells is solved exactly


def strategy_names() -> List[str]:
    """The short names of the registered strategies, in the order of setup.cfg."""
    return list(short_names(doc_strategy_registry))


def get_strategy(name: str):
    """The strategy of a short or registered name; unknown names are one-line errors."""
    return lookup(doc_strategy_registry, name, "strategy")()


def check_strategy(name: str) -> str:
    get_strategy(name)
    return name


def best_of_groups(keys: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Mask of the highest-scoring candidate of each key (ties: the first candidate)."""
    mask = np.zeros(len(keys), dtype=bool)
    if not len(keys):
        return mask
    order = np.lexsort((np.arange(len(keys)), -scores, keys))
    first = np.ones(len(order), dtype=bool)
    first[1:] = keys[order][1:] != keys[order][:-1]
    mask[order[first]] = True
    return mask


class PickStrategy:
    """A strategy that picks among the candidates whatever the threshold, then keeps those at or above it."""

    def __init__(self, pick: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]):
        self.pick = pick

    def __call__(self, src: np.ndarray, tgt: np.ndarray, scores: np.ndarray, threshold: float) -> np.ndarray:
        return self.pick(src, tgt, scores) & (scores >= threshold)


@doc_strategy_registry("spacy-simalign.AboveThresholdStrategy.v1")
def make_above_threshold() -> PickStrategy:
    """n:n, every candidate at or above the threshold."""
    return PickStrategy(lambda src, tgt, scores: np.ones(len(scores), dtype=bool))


@doc_strategy_registry("spacy-simalign.BestSourceStrategy.v1")
def make_best_source() -> PickStrategy:
    """n:1, each source keeps its best target."""
    return PickStrategy(lambda src, tgt, scores: best_of_groups(src, scores))


@doc_strategy_registry("spacy-simalign.BestTargetStrategy.v1")
def make_best_target() -> PickStrategy:
    """1:n, each target keeps its best source."""
    return PickStrategy(lambda src, tgt, scores: best_of_groups(tgt, scores))


@doc_strategy_registry("spacy-simalign.UnionStrategy.v1")
def make_union() -> PickStrategy:
    """Each source's best target and each target's best source."""
    return PickStrategy(lambda src, tgt, scores: best_of_groups(src, scores) | best_of_groups(tgt, scores))


@doc_strategy_registry("spacy-simalign.IntersectionStrategy.v1")
def make_intersection() -> PickStrategy:
    """1:1, mutual best."""
    return PickStrategy(lambda src, tgt, scores: best_of_groups(src, scores) & best_of_groups(tgt, scores))


def strategy_mask(strategy: str, src: np.ndarray, tgt: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Candidates a strategy keeps before the threshold is applied."""
    pick = getattr(get_strategy(strategy), "pick", None)
    if pick is None:
        raise ValueError(f"the {strategy} strategy depends on the threshold: use select()")
    return pick(src, tgt, scores)


def assignment_mask(src: np.ndarray, tgt: np.ndarray, scores: np.ndarray, threshold: float) -> np.ndarray:
    """Candidates of the best one-to-one assignment at `threshold`. The candidates above it are
    cut into connected blocks (sources and targets linked by a candidate), each solved exactly
    (Hungarian algorithm) while it has at most DENSE_ASSIGNMENT_CELLS cells, greedily (best pair
    first) above that; blocks are small in practice (a story and its near-duplicates)."""
    from scipy.optimize import linear_sum_assignment
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    mask = np.zeros(len(scores), dtype=bool)
    live = np.flatnonzero(scores >= threshold)
    if not len(live):
        return mask
    n_src = int(src.max()) + 1
    n = n_src + int(tgt.max()) + 1
    graph = coo_matrix((np.ones(len(live)), (src[live], n_src + tgt[live])), shape=(n, n))
    _, label = connected_components(graph, directed=False)
    block = label[src[live]]
    order = live[np.argsort(block, kind="stable")]
    cuts = np.flatnonzero(np.r_[True, np.diff(label[src[order]]) != 0, True])
    single = np.diff(cuts) == 1  # a block of one candidate (most of them): it is its own assignment
    mask[order[cuts[:-1][single]]] = True
    for a, b in zip(cuts[:-1][~single], cuts[1:][~single]):
        rows = order[a:b]
        sources, si = np.unique(src[rows], return_inverse=True)
        targets, ti = np.unique(tgt[rows], return_inverse=True)
        if len(sources) * len(targets) <= DENSE_ASSIGNMENT_CELLS:
            gain = np.zeros((len(sources), len(targets)))  # a cell without a candidate: left unmatched
            pick = np.full((len(sources), len(targets)), -1, dtype=np.int64)
            gain[si, ti] = scores[rows] - threshold
            pick[si, ti] = rows
            r, c = linear_sum_assignment(gain, maximize=True)
            chosen = pick[r, c]
            mask[chosen[(chosen >= 0) & (gain[r, c] >= 0)]] = True
        else:
            taken_s, taken_t = set(), set()
            for row in rows[np.argsort(-scores[rows], kind="stable")]:
                if src[row] not in taken_s and tgt[row] not in taken_t:
                    taken_s.add(src[row])
                    taken_t.add(tgt[row])
                    mask[row] = True
    return mask


@doc_strategy_registry("spacy-simalign.AssignmentStrategy.v1")
def make_assignment() -> Callable:
    """1:1, the best one-to-one assignment at the threshold (assignment_mask)."""
    return assignment_mask


def select(
    strategy: str, src: np.ndarray, tgt: np.ndarray, scores: np.ndarray, threshold: float
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (source, target, score) candidates kept by `strategy` at `threshold` (x100 scale)."""
    keep = get_strategy(strategy)(src, tgt, scores, threshold)
    return src[keep], tgt[keep], scores[keep]
