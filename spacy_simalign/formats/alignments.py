"""Alignment JSONL (FORMATS.md, output of `align`): per pair its beads and, for sides given as
raw text, the sentences the indices refer to. The writer, and the one reader that evaluate,
stats, export, render and review use."""

from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence

from ..core.errors import InputError
from ..core.structures import Bead
from .bead_parser import SIDES, beads_to_json, out_of_range, parse_beads, shown
from .jsonl import UniqueIds, read_jsonl


def alignment_record(
    record_id: str,
    beads: Sequence[Bead],
    complex_sentences: Optional[List[str]] = None,
    simple_sentences: Optional[List[str]] = None,
    **extra,
) -> Dict[str, Any]:
    """One line of alignment JSONL; sentences are included for sides given as raw text."""
    out: Dict[str, Any] = {"id": record_id, "alignments": beads_to_json(beads)}
    if complex_sentences is not None:
        out["complex_sentences"] = complex_sentences
    if simple_sentences is not None:
        out["simple_sentences"] = simple_sentences
    out.update(extra)
    return out


@dataclass
class AlignmentLine:
    """One line of alignment JSONL, checked: its beads and the sentences it carries (None for a
    side that was given pre-segmented: its indices refer to the pair's own sentences)."""

    id: str
    beads: List[Bead]
    complex_sentences: Optional[List[str]]
    simple_sentences: Optional[List[str]]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)
    path: str = "<input>"
    line: int = 0

    def sentences(self, name: str) -> Optional[List[str]]:
        return self.complex_sentences if name == "complex" else self.simple_sentences

    def carried(self, name: str) -> List[str]:
        """The sentences the line carries for side `name`; a located error when it carries none."""
        sents = self.sentences(name)
        if sents is None:
            raise InputError(f"alignment line needs list '{name}_sentences'", self.path, self.line)
        return sents

    def check_sizes(self, sizes: Sequence[int]) -> "AlignmentLine":
        """Every index must name a sentence of a side of `sizes` sentences (-1: unknown)."""
        for b, name, bad, size in out_of_range(self.beads, sizes):
            raise InputError(
                f"'alignments[{b}]' {name} index {shown(bad[0])} is out of range (side has {size} sentences)",
                self.path,
                self.line,
            )
        return self


def _sentences(obj: Dict[str, Any], name: str, path: str, number: int) -> Optional[List[str]]:
    value = obj.get(f"{name}_sentences")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise InputError(f"'{name}_sentences' must be a list of strings", path, number)
    return value


def parse_alignment(
    obj: Dict[str, Any],
    path: str = "<input>",
    number: int = 0,
    sizes: Sequence[int] = (-1, -1),
    need_sentences: bool = False,
) -> AlignmentLine:
    """Validate one alignment object: a string id, an 'alignments' list of beads (lenient: a
    prediction's bead with an empty side is dropped), optional sentence lists; indices are
    checked against the carried sentences, else against `sizes` where known."""
    if not isinstance(obj.get("id"), str) or not obj["id"]:
        raise InputError("missing, empty or non-string 'id'", path, number)
    if not isinstance(obj.get("alignments"), list):
        raise InputError("missing list 'alignments'", path, number)
    sentences = [_sentences(obj, name, path, number) for name in SIDES]
    if need_sentences:
        for name, sents in zip(SIDES, sentences):
            if sents is None:
                raise InputError(f"alignment line needs list '{name}_sentences'", path, number)
    sizes = [len(s) if s is not None else size for s, size in zip(sentences, sizes)]
    beads = parse_beads(obj["alignments"], sizes, "alignments", path, number, strict=False)
    return AlignmentLine(obj["id"], beads, sentences[0], sentences[1], obj, path, number)


def read_alignments(path: str, **options) -> Iterator[AlignmentLine]:
    """Stream checked alignment lines (options as parse_alignment); a repeated id is an error."""
    ids = UniqueIds(path)
    for number, obj in read_jsonl(path):
        line = parse_alignment(obj, path, number, **options)
        ids.check(line.id, number)
        yield line


def load_alignments(path: str, **options) -> Dict[str, AlignmentLine]:
    """All lines of an alignment JSONL file by id (ids must be unique)."""
    return {line.id: line for line in read_alignments(path, **options)}
