"""Sentence-pair rows, the unit of a published simplification corpus, and their
readers: the Amsterdam CSV (`Document ID,Complex,Simple`) and alignment JSONL beads."""

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ..core.errors import InputError
from ..core.structures import Bead
from ..formats.bead_parser import is_finite_number, is_integer
from ..formats.csvfile import read_csv_rows

CSV_COLUMNS = ("Document ID", "Complex", "Simple")


@dataclass
class SentencePair:
    """One complex/simple sentence pair of a document.

    `complex_ids` / `simple_ids` are sentence indices in the document (empty when the row
    came from a file without them); `origin` says which step made the row."""

    doc_id: str
    complex: str
    simple: str
    score: Optional[float] = None
    complex_ids: Tuple[int, ...] = ()
    simple_ids: Tuple[int, ...] = ()
    origin: str = "aligned"
    extra: Dict[str, object] = field(default_factory=dict)

    def to_json(self) -> Dict[str, object]:
        out: Dict[str, object] = {"doc_id": self.doc_id, "complex": self.complex, "simple": self.simple}
        if self.score is not None:
            out["score"] = round(float(self.score), 4)
        if self.complex_ids or self.simple_ids:
            out["complex_ids"] = list(self.complex_ids)
            out["simple_ids"] = list(self.simple_ids)
        out["origin"] = self.origin
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, obj: Dict[str, Any], path: str = "<input>", line: int = 0) -> "SentencePair":
        for key in ("complex", "simple"):
            if not isinstance(obj.get(key), str):
                raise InputError(f"'{key}' must be a string sentence", path, line)
        score = obj.get("score")
        if score is not None and not is_finite_number(score):
            raise InputError(f"'score' must be a number, got {score!r}", path, line)
        for key in ("complex_ids", "simple_ids"):
            ids = obj.get(key, [])
            if not isinstance(ids, list) or not all(is_integer(i) and i >= 0 for i in ids):
                raise InputError(
                    f"'{key}' must be a list of sentence indices (integers from 0), got {ids!r}", path, line
                )
        known = {"doc_id", "id", "complex", "simple", "score", "complex_ids", "simple_ids", "origin"}
        return cls(
            str(obj.get("doc_id", obj.get("id", ""))),
            obj["complex"],
            obj["simple"],
            score,
            tuple(obj.get("complex_ids", ())),
            tuple(obj.get("simple_ids", ())),
            str(obj.get("origin", "aligned")),
            {k: v for k, v in obj.items() if k not in known},
        )


def read_amsterdam_csv(path: str) -> List[SentencePair]:
    """Rows of a CSV with the columns `Document ID,Complex,Simple` (the Amsterdam corpus), read by
    the package's CSV reader: with or without a byte-order mark, errors located by line."""
    what = f"a CSV with the columns {','.join(CSV_COLUMNS)}"
    return [
        SentencePair(
            row["Document ID"],
            row["Complex"],
            row["Simple"],
            origin="published",
            extra={k: v for k, v in row.items() if k not in CSV_COLUMNS},
        )
        for _, row in read_csv_rows(path, CSV_COLUMNS, what)
    ]


def pairs_from_beads(
    doc_id: str,
    complex_sents: Sequence[str],
    simple_sents: Sequence[str],
    beads: Iterable[Bead],
    split_simple: bool = True,
) -> List[SentencePair]:
    """Turn an aligner's beads into candidate rows.

    A 1:m bead becomes m rows (one per simple sentence) when `split_simple`, so that the
    post-processing decides whether to merge them back (the Amsterdam split rule); an n:m
    bead's complex sentences are joined with spaces. Deletions and additions give no row."""
    rows = []
    for bead in beads:
        if not bead.complex or not bead.simple:
            continue
        complex_text = " ".join(complex_sents[i] for i in bead.complex)
        groups = [(s,) for s in bead.simple] if split_simple else [tuple(bead.simple)]
        for group in groups:
            rows.append(
                SentencePair(
                    doc_id,
                    complex_text,
                    " ".join(simple_sents[i] for i in group),
                    bead.score,
                    tuple(bead.complex),
                    group,
                )
            )
    return rows
