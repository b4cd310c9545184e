"""Pair JSONL (FORMATS.md, version 1): two versions of one document per line. Reading with
validation that names file and line, the record the rest of the package works on, and the
writer."""

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from ..core.errors import InputError
from ..core.structures import SUPPORTED_LANGS, Bead, Side, TrainingPair
from ..core.terminal_text import safe
from ..segmentation.rules import is_blank
from .bead_parser import SIDES, check_raw_text_gold, parse_beads
from .jsonl import UniqueIds, check_unicode, iter_lines, parse_json_line, write_jsonl


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

    def side_input(self, name: str) -> Union[str, List[List[str]]]:
        """The side as given: a list of paragraphs (lists of sentences) or a raw text string."""
        return self.given_paragraphs(name) if self.is_presegmented(name) else self.given_text(name)

    def given_text(self, name: str) -> str:
        """A raw-text side's text as given."""
        return (self.complex if name == "complex" else self.simple)["text"]

    def given_paragraphs(self, name: str) -> List[List[str]]:
        """A pre-segmented side's paragraphs (lists of sentences) as given."""
        return (self.complex if name == "complex" else self.simple)["paragraphs"]

    def is_presegmented(self, name: str) -> bool:
        return "paragraphs" in (self.complex if name == "complex" else self.simple)

    def side_lang(self, name: str) -> str:
        return self.lang if name == "complex" else self.lang_simple

    def side(self, name: str) -> Side:
        """The side as a Side: given paragraphs as they are, raw text segmented by the
        project's rules (segmentation.sides, the one way from text to sentences)."""
        if not self.is_presegmented(name):
            from ..segmentation.sides import side_from_text

            return side_from_text(self.given_text(name), self.side_lang(name))
        return Side.from_paragraphs(self.given_paragraphs(name), self.side_lang(name))

    def side_text(self, name: str) -> str:
        """The side's text: raw text as given, or the given paragraphs joined (blank line between
        paragraphs, a space between sentences)."""
        if self.is_presegmented(name):
            return "\n\n".join(" ".join(para) for para in self.given_paragraphs(name))
        return self.given_text(name)

    def training_pair(self, path: str = "<input>") -> TrainingPair:
        """The record as training data: both sides and the gold beads (which it needs). Gold on a
        raw-text side is checked against the sentences the segmenter splits it into."""
        if self.gold is None:
            raise InputError(f"pair '{self.id}' has no 'gold'", path, self.line)
        sides = [self.side(name) for name in SIDES]
        check_raw_text_gold(self.gold, [len(side) for side in sides], "as the segmenter splits it", path, self.line)
        return TrainingPair(sides[0], sides[1], list(self.gold), id=self.id)


def check_side(obj: Dict, name: str, path: Optional[str], number: Optional[int]) -> int:
    """Validate one side and return its number of sentences (raw text: -1, not yet known); the
    one check of a side, from a pair file or given to make_pair."""
    side = obj.get(name)
    if side is None:
        raise InputError(f"missing side '{name}'", path, number)
    if not isinstance(side, dict):
        raise InputError(f"side '{name}' must be an object with 'paragraphs' or 'text'", path, number)
    if "paragraphs" in side and "text" in side:
        raise InputError(f"side '{name}' has both 'paragraphs' and 'text': give one of them", path, number)
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
                    raise InputError(
                        f"'{name}.paragraphs[{k}][{j}]' must be a string, got {type(sent).__name__}", path, number
                    )
                if is_blank(sent):
                    raise InputError(
                        f"'{name}.paragraphs[{k}][{j}]' is an empty sentence"
                        + (" (only invisible characters)" if sent.strip() else ""),
                        path,
                        number,
                    )
            count += len(para)
        return count
    if "text" in side:
        if not isinstance(side["text"], str):
            raise InputError(f"'{name}.text' must be a string, got {type(side['text']).__name__}", path, number)
        return -1
    raise InputError(f"side '{name}' has no sentences: it needs 'paragraphs' or 'text'", path, number)


def check_lang(value, key: str, path: str = "<input>", number: int = 0) -> str:
    """A supported language code, or a located error."""
    if not isinstance(value, str):
        raise InputError(f"'{key}' must be a string, got {type(value).__name__}", path, number)
    if value not in SUPPORTED_LANGS:
        raise InputError(
            f"unknown language '{value}' in '{key}' (supported: {', '.join(SUPPORTED_LANGS)})", path, number
        )
    return value


def parse_pair(
    obj: Dict[str, Any], path: str = "<input>", number: int = 0, default_lang: Optional[str] = None
) -> PairRecord:
    """Validate one pair object (FORMATS.md, version 1) and wrap it."""
    if "id" not in obj:
        raise InputError("missing field 'id'", path, number)
    if not isinstance(obj["id"], str):
        raise InputError(f"'id' must be a string, got {type(obj['id']).__name__}", path, number)
    if is_blank(obj["id"]):
        raise InputError("empty 'id'", path, number)
    if "lang" not in obj and default_lang is None:
        raise InputError("missing field 'lang' (or pass --lang)", path, number)
    lang = check_lang(obj.get("lang", default_lang), "lang", path, number)
    lang_simple = check_lang(obj.get("lang_simple", lang), "lang_simple", path, number)
    sizes = [check_side(obj, name, path, number) for name in SIDES]
    gold = None
    if obj.get("gold") is not None:
        gold = parse_beads(obj["gold"], sizes, "gold", path, number, strict=True)
    return PairRecord(obj["id"], lang, lang_simple, obj["complex"], obj["simple"], gold, obj, number)


def read_pairs(path: str, default_lang: Optional[str] = None, unique_ids: bool = True) -> Iterator[PairRecord]:
    """Stream validated pairs from a pair JSONL file; the first bad line raises InputError."""
    ids = UniqueIds(path)
    for number, text in iter_lines(path):
        record = parse_pair(parse_json_line(text, path, number), path, number, default_lang)
        if unique_ids:
            ids.check(record.id, number)
        yield record


def validate_pairs(
    path: str,
    default_lang: Optional[str] = None,
    warn: Optional[Callable[[str], None]] = None,
    each: Optional[Callable[[PairRecord], None]] = None,
) -> int:
    """Read a whole pair file once before any work: every line a valid pair with a unique id,
    every string writable as UTF-8. Returns the number of pairs; `warn` gets the warning of
    lang_warning, if any; `each` gets every valid record in order (what a caller keeps of the
    input, so that it need not read it again)."""
    count = last = differ = 0
    first_differ: Optional[PairRecord] = None
    try:
        for record in read_pairs(path, default_lang=default_lang):
            check_unicode(record.raw, path, record.line)
            if each is not None:
                each(record)
            count, last = count + 1, record.line
            if overrides_lang(record, default_lang):
                first_differ, differ = first_differ or record, differ + 1
    except RecursionError:  # thousands of nested brackets inside a pair's fields
        raise InputError("invalid JSON (nested too deeply)", path, _next_content_line(path, last)) from None
    message = lang_warning(first_differ, differ, default_lang, path)
    if message and warn is not None:
        warn(message)
    return count


def overrides_lang(record: PairRecord, default_lang: Optional[str]) -> bool:
    """The line's own 'lang' contradicts `--lang` (see lang_warning)."""
    return default_lang is not None and record.raw.get("lang", default_lang) != default_lang


def lang_warning(first: Optional[PairRecord], count: int, default_lang: Optional[str], path: str) -> Optional[str]:
    """`--lang` is the language of lines without a 'lang' field; a line whose own 'lang' says
    otherwise keeps its own (it is the more specific statement), but the contradiction is worth
    a warning: one line on stderr, naming the first such line and how many there are (`count`)."""
    if first is None:
        return None
    more = f" (and {count - 1} more lines)" if count > 1 else ""
    return safe(
        f"warning: {path}:{first.line}: 'lang' is '{first.lang}' but --lang is '{default_lang}'{more}: "
        "--lang applies only to lines without 'lang'; these keep their own",
        newlines=False,
    )


def _next_content_line(path: str, after: int) -> int:
    """The number of the first non-blank line after line `after`."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number > after and raw.strip():
                return number
    return after + 1


def read_training_pairs(path: str, default_lang: str = "de") -> List[TrainingPair]:
    """Every pair of a pair JSONL file as training data (gold required)."""
    return [record.training_pair(path) for record in read_pairs(path, default_lang=default_lang)]


def pair_object(
    pair_id: str,
    complex: Union[str, Sequence[Sequence[str]]],
    simple: Union[str, Sequence[Sequence[str]]],
    lang: str,
    lang_simple: Optional[str] = None,
    gold: Optional[Sequence[Bead]] = None,
    **extra,
) -> Dict[str, Any]:
    """One line of pair JSONL: a side is raw text or a list of paragraphs (lists of sentences)."""

    def side(value):
        return {"text": value} if isinstance(value, str) else {"paragraphs": [list(p) for p in value]}

    obj: Dict[str, Any] = {"id": pair_id, "lang": lang}
    if lang_simple and lang_simple != lang:
        obj["lang_simple"] = lang_simple
    obj.update(extra)
    obj["complex"], obj["simple"] = side(complex), side(simple)
    if gold is not None:
        obj["gold"] = [[list(b.complex), list(b.simple)] for b in gold]
    return obj


def write_pairs(path: str, objects: Iterable[Dict[str, Any]]) -> int:
    """Write pair objects (see pair_object) as pair JSONL, atomically."""
    return write_jsonl(path, objects)
