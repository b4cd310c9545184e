"""Threshold calibration on gold document pairs, as in 20min-XD (Tables 2 and 4): sweep the
threshold over 0..100 in steps of 0.5, and per strategy keep the threshold of best F1 (the
middle one when several tie). The result is written into the matcher config, section
[docmatch.thresholds], which `match-docs --threshold auto` reads."""
import dataclasses
import random
from dataclasses import dataclass
from typing import Dict, Iterable, List, Sequence, Set, Tuple

import numpy as np

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
    from ..formats.jsonl import atomic_output

    section = config["docmatch"]
    section["thresholds"] = {r.strategy: r.threshold for r in results}
    chosen = {r.strategy: r.threshold for r in results}.get(section.get("strategy", "intersection"))
    if chosen is not None:
        section["threshold"] = chosen
    with atomic_output(path) as handle:
        handle.write(config.to_str())


def _subset(docs, ids):
    return [d for d in docs if d.id in ids]


def held_out(matcher, source, target, gold, folds: int, seed: int = 0):
    """Cross-validation by document pair: thresholds from the other folds, scored on this one."""
    # embed every document once; the folds reuse the vectors
    source = [dataclasses.replace(d, embedding=v) for d, v in zip(source, matcher.embed(source))]
    target = [dataclasses.replace(d, embedding=v) for d, v in zip(target, matcher.embed(target))]
    pairs = sorted(gold)
    random.Random(seed).shuffle(pairs)
    parts = [pairs[k::folds] for k in range(folds)]
    totals = {}
    for k, test in enumerate(parts):
        train = {p for j, part in enumerate(parts) if j != k for p in part}
        results = {}
        for name, subset in (("train", train), ("test", set(test))):
            src = _subset(source, {s for s, _ in subset})
            tgt = _subset(target, {t for _, t in subset})
            cands = matcher.candidates(src, tgt)
            results[name] = (cands, [d.id for d in src], [d.id for d in tgt], subset)
        calibrated = {r.strategy: r.threshold for r in calibrate(*results["train"])}
        for r in evaluate_at(*results["test"], calibrated):
            tp = r.precision * r.predicted
            acc = totals.setdefault(r.strategy, [0.0, 0, 0, []])
            acc[0] += tp
            acc[1] += r.predicted
            acc[2] += len(test)
            acc[3].append(r.threshold)
    return [StrategyResult(s, sum(v[3]) / len(v[3]), *prf(round(v[0]), v[1], v[2]), v[1]) for s, v in totals.items()]
