"""Calibration on gold document pairs, as in 20min-XD (Tables 2 and 4) and one step further: for
the collections' language pair, choose the signals (lexical signal and weight, weight of the
sentence evidence) and the threshold of best F1 for the matcher's strategy, then each
strategy's best threshold with those signals. The threshold is swept over 0..100 in steps of
0.5; among thresholds of equal F1 the middle one is kept, and among signal settings of equal F1
the one whose best F1 holds over the widest range of thresholds (the most robust). The result
is written into the matcher config as the pair's profile ([docmatch.profiles.<src>-<tgt>]),
which `match-docs` uses for that language pair (and `--threshold auto` for other strategies)."""

import dataclasses
import random
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy as np

from ..aligners.scoring import PRF
from .lexical_signals import LEXICAL_SIGNALS
from .matcher import Profile, is_v1, mix, pair_key
from .strategies import get_strategy, select, strategy_names

THRESHOLDS = np.round(np.arange(0.0, 100.0 + 1e-9, 0.5), 1)
LEXICAL_WEIGHTS = (0.25, 0.5)
RERANK_WEIGHTS = (0.0, 0.5, 1.0)


@dataclass
class StrategyResult:
    strategy: str
    threshold: float
    precision: float
    recall: float
    f1: float
    predicted: int


@dataclass
class Signals:
    """The signals of every candidate pair, to mix under any profile without recomputing them."""

    source: np.ndarray
    target: np.ndarray
    cosine: np.ndarray
    lexical: Dict[str, np.ndarray]
    evidence: Optional[np.ndarray]

    def similarity(self, profile: Profile) -> np.ndarray:
        return mix(profile, self.cosine, self.lexical.get(profile.lexical), self.evidence)


def prf(tp: int, predicted: int, gold: int) -> Tuple[float, float, float]:
    scores = PRF(tp, predicted, gold)
    return scores.p, scores.r, scores.f


def signals(matcher, source, target, evidence: bool = True, kinds: Sequence[str] = LEXICAL_SIGNALS) -> Signals:
    """The signals the profiles may mix, on the matcher's candidates: the lexical signals of
    `kinds`, and the sentence evidence only when asked for (it costs the encoding of the
    candidates' sentences)."""
    src, tgt, cos = matcher.first_stage(source, target)
    lexical = {kind: matcher.lexical_scores(kind, source, target, src, tgt) for kind in kinds if kind != "none"}
    return Signals(src, tgt, cos, lexical, matcher.evidence(source, target, src, tgt) if evidence else None)


def sweep(
    strategy: str,
    src: np.ndarray,
    tgt: np.ndarray,
    sim: np.ndarray,
    correct: np.ndarray,
    n_gold: int,
    thresholds: np.ndarray = THRESHOLDS,
) -> np.ndarray:
    """[len(thresholds), 4] of precision, recall, F1 and number predicted at each threshold."""
    out = np.zeros((len(thresholds), 4))
    chosen = get_strategy(strategy)
    if not hasattr(chosen, "pick"):  # what it keeps changes with the threshold (the assignment)
        for row, t in enumerate(thresholds):
            keep = chosen(src, tgt, sim, t)
            out[row, :3] = prf(int(correct[keep].sum()), int(keep.sum()), n_gold)
            out[row, 3] = keep.sum()
        return out
    keep = chosen.pick(src, tgt, sim)
    kept_sim, kept_ok = sim[keep], correct[keep]
    order = np.argsort(kept_sim)
    kept_sim, kept_ok = kept_sim[order], kept_ok[order]
    ok_from = np.concatenate([np.cumsum(kept_ok[::-1])[::-1], [0]])  # correct among scores >= position
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


def _correct(sig: Signals, source_ids, target_ids, gold) -> np.ndarray:
    return np.array([(source_ids[s], target_ids[t]) in gold for s, t in zip(sig.source, sig.target)], dtype=bool)


def candidate_profiles(start: Profile, with_evidence: bool) -> List[Profile]:
    """The profiles the search tries, `start` (the configured one) first."""
    out = [start]
    for lexical in LEXICAL_SIGNALS:
        for weight in (0.0,) if lexical == "none" else LEXICAL_WEIGHTS:
            for rerank in RERANK_WEIGHTS if with_evidence else (0.0,):
                candidate = Profile(lexical, weight, rerank, start.threshold)
                if all((c.lexical, c.lexical_weight, c.rerank_weight) != (lexical, weight, rerank) for c in out):
                    out.append(candidate)
    return out


def choose_profile(
    sig: Signals, correct: np.ndarray, n_gold: int, strategy: str, start: Profile, search: bool = True
) -> Tuple[Profile, List[Tuple[Profile, float, float, int]]]:
    """The profile of best F1 for `strategy` (ties: the widest plateau of best F1, then the
    earlier in candidate_profiles), with its best threshold; and every profile's (profile, F1,
    threshold, plateau width in steps) for the report. `correct`: which candidates are gold
    pairs (see _correct)."""
    tried = []
    for profile in candidate_profiles(start, sig.evidence is not None) if search else [start]:
        table = sweep(strategy, sig.source, sig.target, sig.similarity(profile), correct, n_gold)
        row = best_threshold(table)
        f1 = np.round(table[:, 2], 10)
        tried.append((profile, float(table[row, 2]), float(THRESHOLDS[row]), int((f1 == f1.max()).sum())))
    best = max(range(len(tried)), key=lambda k: (round(tried[k][1], 10), tried[k][3], -k))
    profile, _, threshold, _ = tried[best]
    return dataclasses.replace(profile, threshold=threshold, thresholds={}), tried


def calibrate_strategies(
    sig: Signals, profile: Profile, correct: np.ndarray, n_gold: int, strategies: Optional[Iterable[str]] = None
) -> List[StrategyResult]:
    """Best threshold and its P/R/F1 per strategy (default: every registered one), with the profile's signals."""
    sim = sig.similarity(profile)
    results = []
    for strategy in strategy_names() if strategies is None else strategies:
        table = sweep(strategy, sig.source, sig.target, sim, correct, n_gold)
        row = best_threshold(table)
        precision, recall, f1 = (float(v) for v in table[row, :3])
        results.append(StrategyResult(strategy, float(THRESHOLDS[row]), precision, recall, f1, int(table[row, 3])))
    return results


def calibrate(matcher, source, target, gold: Set[Tuple[str, str]], search: bool = True):
    """(key "src-tgt", chosen profile with every strategy's threshold, per-strategy results, the
    profiles tried) for the collections' language pair."""
    start = matcher.profile(source, target)
    sig = signals(
        matcher,
        source,
        target,
        evidence=search or start.rerank_weight > 0,
        kinds=LEXICAL_SIGNALS if search else (start.lexical,),
    )
    correct = _correct(sig, [d.id for d in source], [d.id for d in target], gold)
    profile, tried = choose_profile(sig, correct, len(gold), matcher.strategy, start, search)
    results = calibrate_strategies(sig, profile, correct, len(gold))
    profile.thresholds = {r.strategy: r.threshold for r in results}
    return pair_key(source, target), profile, results, tried


def evaluate_at(matcher, source, target, gold, profile: Profile) -> List[StrategyResult]:
    """P/R/F1 of each strategy at the profile's thresholds (for held-out folds)."""
    sig = signals(matcher, source, target, evidence=profile.rerank_weight > 0, kinds=(profile.lexical,))
    sim = sig.similarity(profile)
    out = []
    for strategy, t in profile.thresholds.items():
        s, g, _ = select(strategy, sig.source, sig.target, sim, t)
        pred = {(source[i].id, target[j].id) for i, j in zip(s, g)}
        out.append(StrategyResult(strategy, t, *prf(len(pred & gold), len(pred), len(gold)), len(pred)))
    return out


def format_table(results: Sequence[StrategyResult], title: str = "") -> str:
    lines = [title] if title else []
    lines.append(f"| {'strategy':<16} | threshold | {'P':>6} | {'R':>6} | {'F1':>6} | pairs |")
    lines.append("|" + "-" * 18 + "|-----------|--------|--------|--------|-------|")
    for r in results:
        lines.append(
            f"| {r.strategy:<16} | {r.threshold:9.1f} | {r.precision:6.3f} | {r.recall:6.3f} | "
            f"{r.f1:6.3f} | {r.predicted:5d} |"
        )
    return "\n".join(lines)


def format_profiles(tried, strategy: str, chosen: Profile) -> str:
    lines = [
        f"Signals tried for {strategy} (best F1 over thresholds; plateau: thresholds at that F1):",
        "| lexical | lexical weight | evidence weight | F1 | threshold | plateau |",
        "|---|---|---|---|---|---|",
    ]
    for profile, f1, threshold, width in tried:
        mark = (
            " **chosen**"
            if (profile.lexical, profile.lexical_weight, profile.rerank_weight)
            == (chosen.lexical, chosen.lexical_weight, chosen.rerank_weight)
            else ""
        )
        lines.append(
            f"| {profile.lexical} | {profile.lexical_weight:g} | {profile.rerank_weight:g} | {f1:.3f} | "
            f"{threshold:.1f} | {0.5 * width:.1f}{mark} |"
        )
    return "\n".join(lines)


def write_config(config, key: str, profile: Profile, path: str) -> None:
    """Store the language pair's profile in [docmatch.profiles.<key>] (a v1 config has one set of
    signals for every pair: its top-level settings); written atomically."""
    from ..formats.jsonl import atomic_output

    if is_v1(config):  # v1 has no second stage, so the profile's evidence weight is 0
        config["docmatch"].update({k: v for k, v in profile.to_config().items() if k != "rerank_weight"})
    else:
        config["docmatch"].setdefault("profiles", {})[key] = profile.to_config()
    with atomic_output(path) as handle:
        handle.write(config.to_str())


def _subset(docs, ids):
    return [d for d in docs if d.id in ids]


def held_out(matcher, source, target, gold, folds: int, seed: int = 0, search: bool = True) -> List[StrategyResult]:
    """Cross-validation by document pair: signals and thresholds chosen on the other folds, scored
    on this one (each fold's pools hold only its own pairs' documents)."""
    # embed every document once; the folds reuse the vectors
    source = [dataclasses.replace(d, embedding=v) for d, v in zip(source, matcher.embed(source))]
    target = [dataclasses.replace(d, embedding=v) for d, v in zip(target, matcher.embed(target))]
    pairs = sorted(gold)
    random.Random(seed).shuffle(pairs)
    parts = [pairs[k::folds] for k in range(folds)]
    totals: Dict[str, list] = {}
    for k, test in enumerate(parts):
        train = {p for j, part in enumerate(parts) if j != k for p in part}
        src, tgt = _subset(source, {s for s, _ in train}), _subset(target, {t for _, t in train})
        _, profile, _, _ = calibrate(matcher, src, tgt, train, search)
        src, tgt = _subset(source, {s for s, _ in test}), _subset(target, {t for _, t in test})
        for r in evaluate_at(matcher, src, tgt, set(test), profile):
            acc = totals.setdefault(r.strategy, [0.0, 0, 0, []])
            acc[0] += r.precision * r.predicted
            acc[1] += r.predicted
            acc[2] += len(test)
            acc[3].append(r.threshold)
    return [StrategyResult(s, sum(v[3]) / len(v[3]), *prf(round(v[0]), v[1], v[2]), v[1]) for s, v in totals.items()]
