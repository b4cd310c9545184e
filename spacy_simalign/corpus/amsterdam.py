"""The Amsterdam post-processing of candidate sentence pairs (Dutch municipal corpus,
Amsterdam-AI-Team), one function per rule so that each can be tested and switched off:

1. `drop_trivial_edits`: drop pairs whose sides differ only in capitalisation or punctuation;
2. `drop_duplicates`: drop repeated (document, complex, simple) rows;
3. `add_split_merges`: where one complex sentence has several simple versions, add a row
   whose simple side merges them in document order (the complex sentence was split);
4. `keep_closest`: for every complex sentence keep the simple version with the lowest
   Levenshtein distance (rapidfuzz).
"""

import re
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from rapidfuzz.distance import Levenshtein

from .sentence_pairs import SentencePair

_SPACE = re.compile(r"\s+")


def _strip_punctuation(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def normalise(text: str, mode: str = "combined") -> str:
    """The text a trivial edit cannot change: case-folded (unless mode is "punctuation"),
    punctuation removed (unless mode is "case"), whitespace collapsed."""
    if mode not in ("combined", "case", "punctuation"):
        raise ValueError(f"unknown normalisation mode '{mode}' (combined, case, punctuation)")
    if mode != "punctuation":
        text = text.casefold()
    if mode != "case":
        text = _strip_punctuation(text)
    return _SPACE.sub(" ", text).strip()


def is_trivial_edit(complex_text: str, simple_text: str, mode: str = "combined") -> bool:
    """True when the two sides differ only in capitalisation and/or punctuation.

    `mode="combined"` (default) allows both kinds of difference in one pair; "either"
    drops a pair only when case alone or punctuation alone explains the difference."""
    if mode == "either":
        return any(normalise(complex_text, m) == normalise(simple_text, m) for m in ("case", "punctuation"))
    return normalise(complex_text, mode) == normalise(simple_text, mode)


def drop_trivial_edits(rows: Sequence[SentencePair], mode: str = "combined") -> List[SentencePair]:
    """Rule 1: keep only pairs with a real (lexical) change; identical pairs go too."""
    return [r for r in rows if not is_trivial_edit(r.complex, r.simple, mode)]


def drop_duplicates(rows: Sequence[SentencePair]) -> List[SentencePair]:
    """Rule 2: one row per (document, complex text, simple text); the first one is kept,
    with the highest score seen for it."""
    out: "OrderedDict[Tuple[str, str, str], SentencePair]" = OrderedDict()
    for row in rows:
        key = (row.doc_id, row.complex, row.simple)
        kept = out.get(key)
        if kept is None:
            out[key] = row
        elif row.score is not None and (kept.score is None or row.score > kept.score):
            out[key] = replace(kept, score=row.score)
    return list(out.values())


def _group_by_complex(rows: Iterable[SentencePair]) -> "OrderedDict[Tuple[str, str], List[SentencePair]]":
    groups: "OrderedDict[Tuple[str, str], List[SentencePair]]" = OrderedDict()
    for row in rows:
        groups.setdefault((row.doc_id, row.complex), []).append(row)
    return groups


def add_split_merges(rows: Sequence[SentencePair]) -> List[SentencePair]:
    """Rule 3: for each complex sentence with two or more distinct simple versions, add one
    row whose simple side joins them (by sentence index when known, else in input order)."""
    out = list(rows)
    for (doc_id, complex_text), group in _group_by_complex(rows).items():
        versions: Dict[str, SentencePair] = OrderedDict()  # simple text: its first row
        for row in group:
            versions.setdefault(row.simple, row)
        if len(versions) < 2:
            continue
        parts = list(versions.values())
        if all(p.simple_ids for p in parts):
            parts.sort(key=lambda p: min(p.simple_ids))
        simple_ids = tuple(sorted({i for p in parts for i in p.simple_ids}))
        scores = [p.score for p in parts if p.score is not None]
        out.append(
            SentencePair(
                doc_id,
                complex_text,
                " ".join(p.simple for p in parts),
                sum(scores) / len(scores) if scores else None,
                parts[0].complex_ids,
                simple_ids,
                "split-merge",
            )
        )
    return out


def keep_closest(rows: Sequence[SentencePair]) -> List[SentencePair]:
    """Rule 4: for every complex sentence, the simple version with the lowest Levenshtein
    distance to it (ties: the first in input order). Output keeps input order."""
    best: Dict[Tuple[str, str], Tuple[int, int]] = {}
    for k, row in enumerate(rows):
        key = (row.doc_id, row.complex)
        dist = Levenshtein.distance(row.complex, row.simple)
        if key not in best or dist < best[key][0]:
            best[key] = (dist, k)
    keep = {k for _, k in best.values()}
    return [row for k, row in enumerate(rows) if k in keep]


@dataclass
class Rule:
    name: str
    description: str
    apply: Callable[[Sequence[SentencePair]], List[SentencePair]]


RULES: Tuple[Rule, ...] = (
    Rule("trivial", "drop pairs differing only in capitalisation/punctuation", drop_trivial_edits),
    Rule("duplicates", "drop duplicate (document, complex, simple) rows", drop_duplicates),
    Rule("splits", "add a merged row where a complex sentence has several simple versions", add_split_merges),
    Rule("closest", "keep the simple version with the lowest Levenshtein distance", keep_closest),
)
RULE_NAMES = tuple(r.name for r in RULES)


@dataclass
class RuleCount:
    """Rows before and after one rule (skipped rules keep the count)."""

    rule: str
    enabled: bool
    before: int
    after: int

    @property
    def change(self) -> int:
        return self.after - self.before


def postprocess(
    rows: Sequence[SentencePair], skip: Iterable[str] = (), trivial_mode: str = "combined"
) -> Tuple[List[SentencePair], List[RuleCount]]:
    """Apply the four rules in order, skipping those named in `skip`; return the rows and
    the count of rows before and after each rule."""
    skip = set(skip)
    unknown = skip - set(RULE_NAMES)
    if unknown:
        raise ValueError(f"unknown rule(s) {', '.join(sorted(unknown))} (rules: {', '.join(RULE_NAMES)})")
    current = list(rows)
    counts = []
    for rule in RULES:
        before = len(current)
        if rule.name not in skip:
            current = drop_trivial_edits(current, trivial_mode) if rule.name == "trivial" else rule.apply(current)
        counts.append(RuleCount(rule.name, rule.name not in skip, before, len(current)))
    return current, counts


def format_counts(counts: Sequence[RuleCount], title: str = "rule") -> str:
    """A plain-text table of `postprocess` counts."""
    lines = [f"{title:<12} {'on':<4} {'before':>7} {'after':>7} {'change':>7}"]
    for c in counts:
        lines.append(f"{c.rule:<12} {'yes' if c.enabled else 'no':<4} {c.before:>7} {c.after:>7} {c.change:>+7}")
    return "\n".join(lines)


@dataclass
class BuildReport:
    """What the pipeline did: documents, aligned paragraph pairs, raw candidates, rule counts."""

    documents: int
    paragraph_pairs: int
    candidates: int
    counts: List[RuleCount]


def build_corpus(
    records,
    similarity=None,
    settings=None,
    skip: Iterable[str] = (),
    trivial_mode: str = "combined",
    alignments: Optional[Dict[str, Sequence]] = None,
    method: Optional[str] = None,
    candidates: Optional[Sequence[SentencePair]] = None,
) -> Tuple[List[SentencePair], BuildReport]:
    """The whole Amsterdam path for pair records (formats.PairRecord): candidate rows, then
    the post-processing rules. Candidates come from, in order of precedence: `alignments`
    (a pair id -> an aligner's beads, e.g. read from `align` output), `method` (a sentence
    method of this plugin: tfidf, massalign, cats-c3g, crf, ...), or by default the
    Amsterdam paragraph-then-sentence best match in both directions (amsterdam_candidates.py).
    `candidates`, when given, are ready rows (e.g. export.rows_from_alignment_file, which
    checks an alignment file against its pairs) and take precedence over all three."""
    from .amsterdam_candidates import CandidateSettings, candidate_pairs
    from .sentence_pairs import pairs_from_beads

    settings = settings or CandidateSettings()
    aligner = None
    if alignments is None and method is not None:
        from ..aligners.methods import build_aligner, method_config

        aligner = build_aligner(method_config(method))
    rows: List[SentencePair] = list(candidates or ())
    documents = paragraph_pairs = 0
    for record in records:
        documents += 1
        if candidates is not None:
            continue
        complex_side, simple_side = record.side("complex"), record.side("simple")
        if alignments is not None or aligner is not None:
            if alignments is not None:
                beads = alignments.get(record.id, ())
            elif aligner is not None:
                beads = aligner.align(complex_side, simple_side) if len(complex_side) and len(simple_side) else []
            rows.extend(pairs_from_beads(record.id, complex_side.sentences, simple_side.sentences, beads))
            continue
        doc_rows, n_links = candidate_pairs(record.id, complex_side, simple_side, similarity, settings)
        rows.extend(doc_rows)
        paragraph_pairs += n_links
    kept, counts = postprocess(rows, skip, trivial_mode)
    return kept, BuildReport(documents, paragraph_pairs, len(rows), counts)
