"""Threshold calibration on gold document pairs, as in 20min-XD (Tables 2 and 4): sweep the
threshold over 0..100 in steps of 0.5, and per strategy keep the threshold of best F1 (the
middle one when several tie). The result is written into the matcher config, section
[docmatch.thresholds], which `match-docs --threshold auto` reads."""
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence, Set, Tuple

import numpy as np

from ..errors import InputError
from ..formats import read_jsonl
from ..scoring import PRF
from .strategies import STRATEGIES, strategy_mask

THRESHOLDS = np.round(np.arange(0.0, 100.0 + 1e-9, 0.5), 1)


@dataclass
class StrategyResult:
    strategy: str
    threshold: float
    precision: float
    recall: float
    f1: float
    predicted: int


def read_gold_pairs(path: str, source_ids: Set[str], target_ids: Set[str]) -> Set[Tuple[str, str]]:
    """Gold pairs JSONL: one {"source": id, "target": id} per line; unknown ids are errors."""
    gold = set()
    for number, obj in read_jsonl(path):
        for key, known in (("source", source_ids), ("target", target_ids)):
            if not isinstance(obj.get(key), str):
                raise InputError(f"gold pair needs string '{key}'", path, number)
            if obj[key] not in known:
                raise InputError(f"gold {key} id '{obj[key]}' is not in the {key} documents", path, number)
        gold.add((obj["source"], obj["target"]))
    if not gold:
        raise InputError("no gold pairs", path)
    return gold


def prf(tp: int, predicted: int, gold: int) -> Tuple[float, float, float]:
    scores = PRF(tp, predicted, gold)
    return scores.p, scores.r, scores.f


def sweep(strategy: str, src: np.ndarray, tgt: np.ndarray, sim: np.ndarray, correct: np.ndarray,
          n_gold: int, thresholds: np.ndarray = THRESHOLDS) -> np.ndarray:
    """[len(thresholds), 4] of precision, recall, F1 and number predicted at each threshold."""
    keep = strategy_mask(strategy, src, tgt, sim)
    kept_sim, kept_ok = sim[keep], correct[keep]
    order = np.argsort(kept_sim)
    kept_sim, kept_ok = kept_sim[order], kept_ok[order]
    ok_from = np.concatenate([np.cumsum(kept_ok[::-1])[::-1], [0]])  # correct among scores >= position
    out = np.zeros((len(thresholds), 4))
    for row, t in enumerate(thresholds):
        start = np.searchsorted(kept_sim, t, side="left")
        predicted = len(kept_sim) - start
        out[row, :3] = prf(int(ok_from[start]), predicted, n_gold)
        out[row, 3] = predicted
    return out


def best_threshold(table: np.ndarray) -> int:
    """Row of best F1; among ties, the middle of the tied thresholds."""
    f1 = np.round(table[:, 2], 10)
    rows = np.flatnonzero(f1 == f1.max())
    return int(rows[len(rows) // 2])


def calibrate(candidates, source_ids: Sequence[str], target_ids: Sequence[str], gold: Set[Tuple[str, str]],
              strategies: Iterable[str] = STRATEGIES) -> List[StrategyResult]:
    """Best threshold and its P/R/F1 per strategy, from the matcher's scored candidates."""
    correct = np.array([(source_ids[s], target_ids[t]) in gold
                        for s, t in zip(candidates.source, candidates.target)], dtype=bool)
    results = []
    for strategy in strategies:
        table = sweep(strategy, candidates.source, candidates.target, candidates.similarity, correct, len(gold))
        row = best_threshold(table)
        results.append(StrategyResult(strategy, float(THRESHOLDS[row]), *map(float, table[row, :3]),
                                      int(table[row, 3])))
    return results


def evaluate_at(candidates, source_ids, target_ids, gold, thresholds: Dict[str, float]) -> List[StrategyResult]:
    """P/R/F1 of each strategy at a given threshold (for held-out folds)."""
    from .strategies import select

    out = []
    for strategy, t in thresholds.items():
        s, g, _ = select(strategy, candidates.source, candidates.target, candidates.similarity, t)
        pred = {(source_ids[i], target_ids[j]) for i, j in zip(s, g)}
        out.append(StrategyResult(strategy, t, *prf(len(pred & gold), len(pred), len(gold)), len(pred)))
    return out


def format_table(results: Sequence[StrategyResult], title: str = "") -> str:
    lines = [title] if title else []
    lines.append(f"| {'strategy':<16} | threshold | {'P':>6} | {'R':>6} | {'F1':>6} | pairs |")
    lines.append("|" + "-" * 18 + "|-----------|--------|--------|--------|-------|")
    for r in results:
        lines.append(f"| {r.strategy:<16} | {r.threshold:9.1f} | {r.precision:6.3f} | {r.recall:6.3f} | "
                     f"{r.f1:6.3f} | {r.predicted:5d} |")
    return "\n".join(lines)


def write_config(config, results: Sequence[StrategyResult], path: str) -> None:
    """Store per-strategy thresholds in [docmatch.thresholds] and the configured strategy's
    threshold as [docmatch] threshold; written atomically."""
    from ..formats import atomic_output

    section = config["docmatch"]
    section["thresholds"] = {r.strategy: r.threshold for r in results}
    chosen = {r.strategy: r.threshold for r in results}.get(section.get("strategy", "intersection"))
    if chosen is not None:
        section["threshold"] = chosen
    with atomic_output(path) as handle:
        handle.write(config.to_str())
