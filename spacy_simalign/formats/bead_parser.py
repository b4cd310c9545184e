"""The one bead parser: every reader of gold beads or predicted alignments (align, evaluate,
stats, export, render, review, training) checks beads with the same rule.

A bead is [[complex indices], [simple indices]] or {"complex": [...], "simple": [...],
"score": x}. Every index is an integer (not a bool) naming a sentence of its side (`sizes`:
the sides' sentence counts, -1 where not yet known); a bead names each sentence once and
has at least one sentence on each side; the same bead twice is an error; a score is a
finite number. A sentence may stand in two beads (DEplain's gold has one such case; some
methods document n:m overlap).

`strict` (gold) refuses a bead with an empty side; lenient (predictions of other tools)
drops it, since a sentence in no bead already says "deleted" or "added"."""

import math
from typing import Dict, Iterator, List, Sequence, Tuple

from ..core.errors import InputError
from ..core.structures import Bead

SIDES = ("complex", "simple")


def shown(i: int) -> str:
    """An index as a message shows it: a number of thousands of digits in a few characters."""
    if abs(i) < 10**12:
        return str(i)
    return f"{'-' if i < 0 else ''}{str(abs(i))[:6]}... ({len(str(abs(i)))} digits)"


def is_integer(value) -> bool:
    """An integer of JSON: an int, not a bool (which Python counts as one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_finite_number(value) -> bool:
    """A score of JSON: an int or float, not a bool, not NaN or infinite."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _indices(value, side: str, size: int, where: str, path, number) -> Tuple[int, ...]:
    if not isinstance(value, list) or not all(is_integer(i) for i in value):
        raise InputError(f"{where} {side} indices must be a list of integers", path, number)
    for i in value:
        if i < 0:
            raise InputError(f"{where} {side} index {shown(i)} is negative", path, number)
        if size >= 0 and i >= size:
            raise InputError(
                f"{where} {side} index {shown(i)} is out of range (side has {size} sentences)", path, number
            )
    if len(set(value)) != len(value):
        raise InputError(f"{where} repeats a {side} index", path, number)
    return tuple(sorted(value))


def parse_bead(
    bead, sizes: Sequence[int], where: str, path=None, number=None
) -> Tuple[Tuple[int, ...], Tuple[int, ...], float]:
    """(complex indices, simple indices, score) of one JSON bead, checked (sides may be empty here)."""
    if isinstance(bead, dict):
        parts = [bead.get("complex"), bead.get("simple")]
        score = bead.get("score", 1.0)
        if not is_finite_number(score):
            raise InputError(f"{where} score must be a number (finite)", path, number)
    elif isinstance(bead, list) and len(bead) == 2:
        parts, score = bead, 1.0
    else:
        raise InputError(
            f"{where} must be [[complex indices], [simple indices]] or "
            '{"complex": [...], "simple": [...], "score": x}',
            path,
            number,
        )
    complex_idx, simple_idx = (
        _indices(idx, side, size, where, path, number) for side, idx, size in zip(SIDES, parts, sizes)
    )
    return complex_idx, simple_idx, float(score)


def parse_beads(beads, sizes: Sequence[int], key: str, path=None, number=None, strict: bool = True) -> List[Bead]:
    """Beads from JSON, checked by the rule above; `key` names the field in messages."""
    if not isinstance(beads, list):
        raise InputError(f"'{key}' must be a list of beads [[complex indices], [simple indices]]", path, number)
    out: List[Bead] = []
    seen: Dict[Tuple[Tuple[int, ...], Tuple[int, ...]], int] = {}
    for b, bead in enumerate(beads):
        where = f"'{key}[{b}]'"
        complex_idx, simple_idx, score = parse_bead(bead, sizes, where, path, number)
        if not complex_idx or not simple_idx:
            if strict:
                empty = "complex" if not complex_idx else "simple"
                raise InputError(
                    f"{where} has no {empty} sentence (a sentence in no bead is deleted or added: leave it out)",
                    path,
                    number,
                )
            continue
        if (complex_idx, simple_idx) in seen:
            raise InputError(f"{where} repeats bead {seen[complex_idx, simple_idx]}", path, number)
        seen[complex_idx, simple_idx] = b
        out.append(Bead(complex_idx, simple_idx, score))
    return out


def out_of_range(beads: Sequence[Bead], sizes: Sequence[int]) -> Iterator[Tuple[int, str, List[int], int]]:
    """(bead number, side, the indices that name no sentence, the side's size) of each bead side
    with such indices, in order: for beads checked against sides known only later (a raw-text
    side split for the prediction, beads handed over in Python). A size of -1 is unknown."""
    for b, bead in enumerate(beads):
        for name, idx, size in zip(SIDES, (bead.complex, bead.simple), sizes):
            bad = [i for i in idx if i < 0 or 0 <= size <= i]
            if bad:
                yield b, name, bad, size


def check_raw_text_gold(gold: Sequence[Bead], sizes: Sequence[int], split: str, path, number) -> None:
    """Gold beads against the sentence counts of sides given as raw text once they are split (`split`
    says how, for the message): an index that names no sentence is a located InputError."""
    for b, name, bad, size in out_of_range(gold, sizes):
        raise InputError(
            f"'gold[{b}]' {name} index {shown(max(bad))} is out of range: the raw-text side has {size} "
            f"sentences {split}",
            path,
            number,
        )


def beads_to_json(beads: Sequence[Bead], with_scores: bool = True) -> list:
    """Beads as JSON: {"complex", "simple", "score"} objects, or [[c], [s]] pairs (gold)."""
    if with_scores:
        return [b.to_json() for b in beads]
    return [[list(b.complex), list(b.simple)] for b in beads]
