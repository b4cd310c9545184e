"""Matches JSONL (FORMATS.md, output of `match-docs`): one matched document pair per line,
{"source": id, "target": id, "score": x}. Gold document pairs for calibration are the same
lines without the score."""

from dataclasses import dataclass
from typing import Any, Collection, Dict, Iterable, Iterator, Optional, Set, Tuple

from ..core.errors import InputError
from .bead_parser import is_finite_number
from .jsonl import read_jsonl, write_jsonl


@dataclass(frozen=True)
class MatchLine:
    """One checked line: the two document ids and the score, if any."""

    source: str
    target: str
    score: Optional[float]
    line: int = 0


def match_object(source: str, target: str, score: Optional[float] = None) -> Dict[str, Any]:
    obj: Dict[str, Any] = {"source": source, "target": target}
    if score is not None:
        obj["score"] = round(float(score), 4)
    return obj


def read_matches(
    path: str,
    source_ids: Optional[Collection[str]] = None,
    target_ids: Optional[Collection[str]] = None,
    what: str = "match",
) -> Iterator[MatchLine]:
    """Stream checked lines: string ids (known ones, where the collections are given) and a
    finite numeric score when present."""
    for number, obj in read_jsonl(path):
        for key, known in (("source", source_ids), ("target", target_ids)):
            if not isinstance(obj.get(key), str):
                raise InputError(f"{what} needs string '{key}'", path, number)
            if known is not None and obj[key] not in known:
                raise InputError(f"{key} id '{obj[key]}' is not in the {key} documents", path, number)
        score = obj.get("score")
        if score is not None and not is_finite_number(score):
            raise InputError(f"{what} 'score' must be a number", path, number)
        yield MatchLine(obj["source"], obj["target"], None if score is None else float(score), number)


def read_gold_pairs(path: str, source_ids: Collection[str], target_ids: Collection[str]) -> Set[Tuple[str, str]]:
    """Gold document pairs {"source": id, "target": id}; unknown ids are errors, and so is an empty file."""
    gold = {(m.source, m.target) for m in read_matches(path, source_ids, target_ids, what="gold pair")}
    if not gold:
        raise InputError("no gold pairs", path)
    return gold


def write_matches(path: str, objects: Iterable[Dict[str, Any]]) -> int:
    """Write match objects (see match_object) as matches JSONL, atomically."""
    return write_jsonl(path, objects)
