"""Reading and writing the JSONL formats of ../shared/FORMATS.md (pair, alignment,
documents, matches), with validation that names file and line, and atomic writes."""
import json
import os
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .errors import InputError
from .structures import SUPPORTED_LANGS, Bead, Side

SIDES = ("complex", "simple")


@dataclass
class PairRecord:
    """One line of pair JSONL: both sides' raw input, optional gold, and the whole object."""

    id: str
    lang: str
    lang_simple: str
    complex: Dict[str, Any]
    simple: Dict[str, Any]
    gold: Optional[List[Bead]]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)
    line: int = 0

    def side_input(self, name: str):
        """The side as given: a list of paragraphs (lists of sentences) or a raw text string."""
        side = self.complex if name == "complex" else self.simple
        return side["paragraphs"] if "paragraphs" in side else side["text"]

    def is_presegmented(self, name: str) -> bool:
        return "paragraphs" in (self.complex if name == "complex" else self.simple)

    def side(self, name: str) -> Side:
        """The side as a Side: given paragraphs as they are, raw text segmented by the
        project's rules (paragraphs at blank lines, sentences as the segmenter splits them)."""
        lang = self.lang if name == "complex" else self.lang_simple
        if not self.is_presegmented(name):
            from .xling import side_from_text

            return side_from_text(self.side_input(name), lang)
        return Side.from_paragraphs(self.side_input(name), lang)


def iter_lines(path: str) -> Iterator[Tuple[int, str]]:
    """Yield (line number, decoded line) of a UTF-8 file; a line that is not UTF-8 is an InputError."""
    try:
        handle = open(path, "rb")
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror}", path) from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(f"not UTF-8 (byte {err.start})", path, number) from None
            if text.strip():
                yield number, text


def parse_json_line(text: str, path: str, number: int) -> Dict[str, Any]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON ({err.msg}, column {err.colno})", path, number) from None
    except RecursionError:
        raise InputError("invalid JSON (nested too deeply)", path, number) from None
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", path, number)
    return obj


def _check_side(obj: Dict, name: str, path: str, number: int) -> int:
    """Validate one side and return its number of sentences (raw text: -1, not yet known)."""
    side = obj.get(name)
    if side is None:
        raise InputError(f"missing side '{name}'", path, number)
    if not isinstance(side, dict):
        raise InputError(f"side '{name}' must be an object with 'paragraphs' or 'text'", path, number)
    if "paragraphs" in side:
        paragraphs = side["paragraphs"]
        if not isinstance(paragraphs, list):
            raise InputError(f"'{name}.paragraphs' must be a list of lists of sentences", path, number)
        count = 0
        for k, para in enumerate(paragraphs):
            if not isinstance(para, list):
                raise InputError(f"'{name}.paragraphs[{k}]' must be a list of sentences", path, number)
            if not para:
                raise InputError(f"'{name}.paragraphs[{k}]' has no sentences", path, number)
            for j, sent in enumerate(para):
                if not isinstance(sent, str):
                    raise InputError(f"'{name}.paragraphs[{k}][{j}]' must be a string, got {type(sent).__name__}", path, number)
                if not sent.strip():
                    raise InputError(f"'{name}.paragraphs[{k}][{j}]' is an empty sentence", path, number)
            count += len(para)
        return count
    if "text" in side:
        if not isinstance(side["text"], str):
            raise InputError(f"'{name}.text' must be a string, got {type(side['text']).__name__}", path, number)
        return -1
    raise InputError(f"side '{name}' has no sentences: it needs 'paragraphs' or 'text'", path, number)


def _check_lang(value, key: str, path: str, number: int) -> str:
    if not isinstance(value, str):
        raise InputError(f"'{key}' must be a string, got {type(value).__name__}", path, number)
    if value not in SUPPORTED_LANGS:
        raise InputError(f"unknown language '{value}' in '{key}' (supported: {', '.join(SUPPORTED_LANGS)})", path, number)
    return value


def parse_beads(beads, sizes: Tuple[int, int], key: str, path: str, number: int) -> List[Bead]:
    """Beads from JSON, each [[complex indices], [simple indices]] or {"complex": [...],
    "simple": [...], "score": x}: every index an integer (not a bool) naming a sentence of its
    side (`sizes`: the sides' sentence counts, -1 where unknown), the score a number."""
    if not isinstance(beads, list):
        raise InputError(f"'{key}' must be a list of beads [[complex indices], [simple indices]]", path, number)
    out = []
    for b, bead in enumerate(beads):
        if isinstance(bead, dict):
            parts = [bead.get("complex"), bead.get("simple")]
            score = bead.get("score", 1.0)
            if isinstance(score, bool) or not isinstance(score, (int, float)):
                raise InputError(f"'{key}[{b}]' score must be a number", path, number)
        elif isinstance(bead, list) and len(bead) == 2:
            parts = bead
        else:
            raise InputError(f"'{key}[{b}]' must be [[complex indices], [simple indices]] or "
                             "{\"complex\": [...], \"simple\": [...], \"score\": x}", path, number)
        for side_name, idx, size in zip(SIDES, parts, sizes):
            if not isinstance(idx, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in idx):
                raise InputError(f"'{key}[{b}]' {side_name} indices must be a list of integers", path, number)
            for i in idx:
                if i < 0 or (size >= 0 and i >= size):
                    raise InputError(f"'{key}[{b}]' {side_name} index {i} is out of range (side has {size} sentences)", path, number)
        out.append(Bead.from_json(bead))
    return out


def parse_pair(obj: Dict[str, Any], path: str = "<input>", number: int = 0, default_lang: str = None) -> PairRecord:
    """Validate one pair object (FORMATS.md, version 1) and wrap it."""
    if "id" not in obj:
        raise InputError("missing field 'id'", path, number)
    if not isinstance(obj["id"], str):
        raise InputError(f"'id' must be a string, got {type(obj['id']).__name__}", path, number)
    if "lang" not in obj and default_lang is None:
        raise InputError("missing field 'lang' (or pass --lang)", path, number)
    lang = _check_lang(obj.get("lang", default_lang), "lang", path, number)
    lang_simple = _check_lang(obj.get("lang_simple", lang), "lang_simple", path, number)
    sizes = [_check_side(obj, name, path, number) for name in SIDES]
    gold = None
    if obj.get("gold") is not None:
        gold = parse_beads(obj["gold"], sizes, "gold", path, number)
    return PairRecord(obj["id"], lang, lang_simple, obj["complex"], obj["simple"], gold, obj, number)


def read_pairs(path: str, default_lang: str = None, unique_ids: bool = True) -> Iterator[PairRecord]:
    """Stream validated pairs from a pair JSONL file; the first bad line raises InputError."""
    seen = set()
    for number, text in iter_lines(path):
        record = parse_pair(parse_json_line(text, path, number), path, number, default_lang)
        if unique_ids:
            if record.id in seen:
                raise InputError(f"duplicate id '{record.id}'", path, number)
            seen.add(record.id)
        yield record


def read_jsonl(path: str) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """Stream (line number, object) from any JSONL file, with located errors."""
    for number, text in iter_lines(path):
        yield number, parse_json_line(text, path, number)


@contextmanager
def atomic_output(path: str, mode: str = "w"):
    """Write to a temporary file beside `path` and move it into place only on success,
    so a failed run leaves no half-written output (and an existing file untouched)."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(directory):
        raise InputError(f"output folder does not exist: {directory}", path)
    if os.path.isdir(path):
        raise InputError("output path is a folder, not a file", path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.basename(path), dir=directory)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600 files: give the output the usual mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def dump_line(obj: Dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False) + "\n"


def alignment_record(record_id: str, beads: List[Bead], complex_sentences: Optional[List[str]] = None,
                     simple_sentences: Optional[List[str]] = None, **extra) -> Dict[str, Any]:
    """One line of alignment JSONL; sentences are included for sides given as raw text."""
    out: Dict[str, Any] = {"id": record_id, "alignments": [b.to_json() for b in beads]}
    if complex_sentences is not None:
        out["complex_sentences"] = complex_sentences
    if simple_sentences is not None:
        out["simple_sentences"] = simple_sentences
    out.update(extra)
    return out
