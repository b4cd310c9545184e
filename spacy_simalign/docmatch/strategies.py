"""Pair-selection strategies of 20min-XD over scored candidate pairs (similarity x100):
above-threshold (n:n), best-source (n:1: each source keeps its best target), best-target
(1:n: each target keeps its best source), union of the two, intersection (1:1, mutual best).
Every strategy then keeps only pairs scoring at least the threshold."""
from typing import Tuple

import numpy as np

STRATEGIES = ("above-threshold", "best-source", "best-target", "union", "intersection")
DEFAULT_STRATEGY = "intersection"


def check_strategy(name: str) -> str:
    from ..errors import InputError

    if name not in STRATEGIES:
        raise InputError(f"unknown strategy '{name}' (choose from: {', '.join(STRATEGIES)})")
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


def strategy_mask(strategy: str, src: np.ndarray, tgt: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Candidates a strategy keeps before the threshold is applied."""
    if strategy == "above-threshold":
        return np.ones(len(scores), dtype=bool)
    best_target_of_source = best_of_groups(src, scores)  # n:1
    best_source_of_target = best_of_groups(tgt, scores)  # 1:n
    if strategy == "best-source":
        return best_target_of_source
    if strategy == "best-target":
        return best_source_of_target
    if strategy == "union":
        return best_target_of_source | best_source_of_target
    if strategy == "intersection":
        return best_target_of_source & best_source_of_target
    check_strategy(strategy)
    raise AssertionError(strategy)


def select(strategy: str, src: np.ndarray, tgt: np.ndarray, scores: np.ndarray,
           threshold: float) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (source, target, score) candidates kept by `strategy` at `threshold` (x100 scale)."""
    keep = strategy_mask(strategy, src, tgt, scores) & (scores >= threshold)
    return src[keep], tgt[keep], scores[keep]
