"""Aligning a cross-lingual corpus (what `align-xling` runs): matched document pairs (matches
JSONL with the two document collections, or pair JSONL), the 20min-XD post-processing
filters (xling_filters.PairFilters), then any registered sentence aligner; every kept pair is
written with both sides' sentences, dropped pairs with their reasons."""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ..aligners.protocol import align_batch
from ..core.errors import InputError
from ..core.structures import Side
from ..formats.alignments import alignment_record
from ..formats.documents import read_documents
from ..formats.jsonl import write_jsonl
from ..formats.matches import read_matches
from ..formats.pair_jsonl import read_pairs
from ..segmentation.sides import side_from_text
from .xling_filters import PairFilters


@dataclass
class XlingPair:
    """A matched pair to align: both sides, their texts (for the filters), extra output fields."""

    id: str
    source: Side
    target: Side
    source_text: str
    target_text: str
    extra: Dict[str, Any] = field(default_factory=dict)


def pairs_from_matches(
    matches_path: str, source_path: str, target_path: str, allow_mixed_languages: bool = False
) -> List[XlingPair]:
    """One XlingPair per match line; a document matched several times is segmented once."""
    source = {d.id: d for d in read_documents(source_path, allow_mixed_languages)}
    target = {d.id: d for d in read_documents(target_path, allow_mixed_languages)}
    sides: Dict = {}

    def side(role, doc):
        if (role, doc.id) not in sides:
            sides[role, doc.id] = side_from_text(doc.text, doc.lang)
        return sides[role, doc.id]

    out: List[XlingPair] = []
    seen: Dict[Tuple[str, str], int] = {}  # (source, target): line
    for match in read_matches(matches_path, source, target):
        if (match.source, match.target) in seen:
            raise InputError(
                f"duplicate match {match.source} -> {match.target} (first on line "
                f"{seen[match.source, match.target]}): it would write one output id twice",
                matches_path,
                match.line,
            )
        seen[match.source, match.target] = match.line
        s, t = source[match.source], target[match.target]
        extra: Dict[str, Any] = {"source": s.id, "target": t.id, "lang": s.lang, "lang_simple": t.lang}
        if match.score is not None:
            extra["doc_score"] = match.score
        out.append(XlingPair(f"{s.id}|{t.id}", side("source", s), side("target", t), s.text, t.text, extra))
    return out


def pairs_from_pair_file(path: str) -> List[XlingPair]:
    """One XlingPair per line of pair JSONL (other fields carried through)."""
    out = []
    for record in read_pairs(path):
        extra = {k: v for k, v in record.raw.items() if k not in ("id", "complex", "simple", "gold")}
        out.append(
            XlingPair(
                record.id,
                record.side("complex"),
                record.side("simple"),
                record.side_text("complex"),
                record.side_text("simple"),
                extra,
            )
        )
    return out


@dataclass
class XlingResult:
    kept: int
    dropped: int


def align_xling_pairs(
    pairs: List[XlingPair],
    aligner,
    output_path: str,
    method: str,
    dropped_path: Optional[str] = None,
    filters: Optional[PairFilters] = PairFilters(),
) -> XlingResult:
    """Filter (with these filter settings; None: keep every pair), align (in one batch per 32
    pairs) and write; see the module docstring."""
    kept, dropped = [], []
    for pair in pairs:
        reasons = (
            filters.problems(pair.source_text, pair.target_text, pair.source.lang, pair.target.lang)
            if filters is not None
            else []
        )
        if reasons:
            dropped.append({"id": pair.id, "reasons": reasons, **pair.extra})
        else:
            kept.append(pair)
    if hasattr(aligner, "set_pair_kind"):  # comparable documents: many sentences have no counterpart
        aligner.set_pair_kind("comparable")
    records = []
    for start in range(0, len(kept), 32):
        chunk = kept[start : start + 32]
        for pair, beads in zip(chunk, align_batch(aligner, [(p.source, p.target, None) for p in chunk])):
            records.append(
                alignment_record(
                    pair.id, beads, pair.source.sentences, pair.target.sentences, method=method, **pair.extra
                )
            )
    write_jsonl(output_path, records)
    if dropped_path:
        write_jsonl(dropped_path, dropped)
    return XlingResult(len(records), len(dropped))
