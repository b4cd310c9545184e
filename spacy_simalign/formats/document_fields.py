"""Which text of a document is embedded: chosen fields joined (title + lead by default);
a missing lead falls back to the first paragraph, and a document with none of the chosen
fields is represented by its first paragraph."""

from typing import Sequence

FIELDS = ("title", "lead", "first_paragraph", "text")
DEFAULT_FIELDS = ("title", "lead")


def check_fields(fields: Sequence[str]) -> Sequence[str]:
    from ..core.errors import InputError

    if not fields:
        raise InputError("no fields to embed: choose from " + ", ".join(FIELDS))
    for name in fields:
        if name not in FIELDS:
            raise InputError(f"unknown document field '{name}' (choose from: {', '.join(FIELDS)})")
    return fields


def field_text(doc, fields: Sequence[str] = DEFAULT_FIELDS) -> str:
    """The text to embed for one Document."""
    parts = []
    for name in fields:
        if name == "title":
            value = doc.title
        elif name == "lead":
            value = doc.lead or doc.first_paragraph()
        elif name == "first_paragraph":
            value = doc.first_paragraph()
        else:
            value = doc.text
        if value and value.strip() and value.strip() not in parts:
            parts.append(value.strip())
    return "\n".join(parts) if parts else doc.first_paragraph()
