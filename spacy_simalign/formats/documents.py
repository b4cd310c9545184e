"""Documents JSONL (FORMATS.md, input of `match-docs`): reading with validation that names
file and line, the `Document` record the matcher works on (id, lang, text, optional title,
lead, date), and the writer."""

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ..core.errors import InputError
from ..core.structures import SUPPORTED_LANGS
from .jsonl import UniqueIds, read_jsonl, write_jsonl

_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@dataclass
class Document:
    """One article: `date` is a calendar day (time of day and zone are dropped: windows count days)."""

    id: str
    lang: str
    text: str
    title: Optional[str] = None
    lead: Optional[str] = None
    date: Optional[dt.date] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)
    line: int = 0
    embedding: Any = field(default=None, repr=False)  # precomputed (e.g. by the spaCy component)

    def paragraphs(self) -> List[str]:
        """Non-empty paragraphs of the text (separated by blank lines)."""
        return [p.strip() for p in _PARAGRAPH_BREAK.split(self.text) if p.strip()]

    def first_paragraph(self) -> str:
        paras = self.paragraphs()
        return paras[0] if paras else ""


def parse_date(value: Any, path: str = "<input>", number: int = 0) -> Optional[dt.date]:
    """ISO 8601 day (`2024-08-28`, optionally with a time); None and "" mean no date."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InputError(f"'date' must be a string YYYY-MM-DD, got {type(value).__name__}", path, number)
    match = _DATE.match(value.strip())
    if not match:
        raise InputError(f"malformed date '{value}' (expected YYYY-MM-DD)", path, number)
    try:
        return dt.date(*map(int, match.groups()))
    except ValueError as err:
        raise InputError(f"invalid date '{value}' ({err})", path, number) from None


def parse_document(obj: Dict[str, Any], path: str = "<input>", number: int = 0) -> Document:
    """Validate one line of documents JSONL: `id`, `lang`, `text` required; `title`, `lead`, `date` optional."""
    for key in ("id", "lang", "text"):
        if key not in obj:
            raise InputError(f"missing field '{key}'", path, number)
        if not isinstance(obj[key], str):
            raise InputError(f"'{key}' must be a string, got {type(obj[key]).__name__}", path, number)
    for key in ("title", "lead"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise InputError(f"'{key}' must be a string, got {type(obj[key]).__name__}", path, number)
    if not obj["id"].strip():
        raise InputError("empty 'id'", path, number)
    if obj["lang"] not in SUPPORTED_LANGS:
        raise InputError(f"unknown language '{obj['lang']}' (supported: {', '.join(SUPPORTED_LANGS)})", path, number)
    if not obj["text"].strip():
        raise InputError(f"document '{obj['id']}' has no text", path, number)
    return Document(
        obj["id"],
        obj["lang"],
        obj["text"],
        obj.get("title") or None,
        obj.get("lead") or None,
        parse_date(obj.get("date"), path, number),
        obj,
        number,
    )


def check_collection(docs: Sequence[Document], path: str = "<input>", allow_mixed: bool = False) -> List[Document]:
    """Collection-level checks: unique ids, and one language unless `allow_mixed` (a source
    or target collection is one side of a cross-lingual corpus)."""
    ids = UniqueIds(path)
    for doc in docs:
        ids.check(doc.id, doc.line)
    langs = Counter(doc.lang for doc in docs)
    if len(langs) > 1 and not allow_mixed:
        minority = min(langs, key=lambda lang: langs[lang])
        first = next(doc for doc in docs if doc.lang == minority)
        summary = ", ".join(f"{lang} ({n})" for lang, n in langs.most_common())
        raise InputError(
            f"mixed languages in one collection: {summary}; pass --allow-mixed-languages to match them anyway",
            path,
            first.line or None,
        )
    return list(docs)


def read_documents(path: str, allow_mixed: bool = False, allow_empty: bool = False) -> List[Document]:
    """All documents of a documents JSONL file, validated; an empty file is an error unless
    `allow_empty` (match-docs: an empty collection is valid input and matches nothing)."""
    docs = [parse_document(obj, path, number) for number, obj in read_jsonl(path)]
    if not docs:
        if allow_empty:
            return []
        raise InputError("no documents", path)
    return check_collection(docs, path, allow_mixed)


def document_object(
    doc_id: str,
    lang: str,
    text: str,
    title: Optional[str] = None,
    lead: Optional[str] = None,
    date: Optional[str] = None,
    **extra,
) -> Dict[str, Any]:
    """One line of documents JSONL (optional fields only when given)."""
    obj: Dict[str, Any] = {"id": doc_id, "lang": lang}
    for key, value in (("title", title), ("lead", lead), ("date", date)):
        if value is not None:
            obj[key] = value
    obj["text"] = text
    obj.update(extra)
    return obj


def write_documents(path: str, objects: Iterable[Dict[str, Any]]) -> int:
    """Write document objects (see document_object) as documents JSONL, atomically."""
    return write_jsonl(path, objects)
