"""Read a DEplain "simplification plan" CSV (one document pair, manually aligned) into a
pair dict of FORMATS.md with gold beads, so the published DEplain-web test data can be
used as it is distributed.

A plan row aligns one or more complex sentence ids with one or more simple sentence ids.
An id is `pairid-level-paragraph-sentence` (level 1 = complex, 0 = simple; sentence -1 is
a title; `pairid-level-x-x` is an empty side). Several ids joined by `|` make an n:m row
whose text is the sentences joined by single spaces. Given DEplain's document-level CSV
(`read_documents`), such a row is cut into the document's own sentences, as the published
pairs.jsonl was made; without it, we split the text back at likely sentence ends.
A row with both sides non-empty is a gold bead, whatever its `alignment` label says (the
labels are noisy: some rows labelled `addition` or `deletion` align two identical
sentences, see `read_plan`)."""

import glob
import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..core.errors import InputError
from .csvfile import field_limit, read_csv_rows
from .utf8 import read_utf8

REQUIRED_COLUMNS = ("original", "simplification", "original_id", "simplification_id", "pair_id")
GOLD_LABELS = ("identical", "identical (removed)", "aligned", "deletion", "addition")
_ID = re.compile(r"^(?P<pair>[^-|]+)-(?P<level>[01])-(?:(?P<para>\d+)-(?P<sent>-1|\d+)|x-x)$")
_SPACE = re.compile(r"\s+")
_ABBREVIATION = re.compile(
    r"(?:\b(?:Dr|Prof|ca|bzw|z\.B|usw|etc|Nr|St|v|Chr|Jh|Mio|Mrd|vgl|ggf|inkl|evtl|e|e\. V)|\d)\.$"
)
_UPPER_START = re.compile(r"^[„“\"«»(\[A-ZÄÖÜ0-9]")
# a sentence of the document CSV that is only punctuation (at most two characters): not in the plans
_FRAGMENT = re.compile(r"^\W{0,2}$")
DOCUMENT_COLUMNS = ("pair_id", "original", "simplification")
Documents = Dict[str, Tuple[List[str], List[str]]]


class DocumentMismatch(InputError):
    """A plan whose sentences the document CSV cannot give: a document to leave out, not a broken file."""


def cut_strength(before: str, after: str) -> float:
    """How likely a space between `before` and `after` ends a sentence (0 = any space)."""
    if before.endswith(("…",)) or after.startswith("…"):
        return 1.0
    upper = bool(_UPPER_START.match(after))
    if before.endswith((".", "!", "?")):
        if before.endswith(".") and _ABBREVIATION.search(before[-10:]):
            return 0.5 if upper else 0.0
        return 4.0 if upper else 1.5
    if before.endswith(("“", "”", '"', "»", ")")) and before.rstrip('“”"»)').endswith((".", "!", "?")):
        return 3.5 if upper else 1.0
    if before.endswith((":", ";")):
        return 2.0 if upper else 1.0
    return 0.0


@dataclass(frozen=True)
class SentenceId:
    """A parsed plan id; `para` and `sent` are None for an empty side (`x-x`)."""

    pair: str
    level: int
    para: Optional[int]
    sent: Optional[int]

    @property
    def empty(self) -> bool:
        return self.para is None

    @property
    def key(self) -> Tuple[int, int]:
        """(paragraph, sentence): where the sentence is; parse_ids gives no empty id a key."""
        if self.para is None or self.sent is None:
            raise ValueError(f"the empty side {self.pair}-{self.level}-x-x has no sentence")
        return (self.para, self.sent)


def parse_ids(field: str, path: str, line: int, column: str) -> List[SentenceId]:
    """The ids of one cell (`|`-joined); an empty side gives an empty list."""
    out = []
    for part in field.strip().split("|"):
        match = _ID.match(part.strip())
        if not match:
            raise InputError(
                f"bad sentence id '{part}' in column '{column}' "
                "(expected pairid-level-paragraph-sentence or pairid-level-x-x)",
                path,
                line,
            )
        if match.group("para") is None:
            out.append(SentenceId(match.group("pair"), int(match.group("level")), None, None))
        else:
            out.append(
                SentenceId(
                    match.group("pair"), int(match.group("level")), int(match.group("para")), int(match.group("sent"))
                )
            )
    if any(i.empty for i in out):
        if len(out) > 1:
            raise InputError(f"empty side 'x-x' joined with other ids in column '{column}'", path, line)
        return []
    return out


def split_joined(text: str, parts: int, known: Sequence[Optional[str]] = ()) -> Optional[List[str]]:
    """Split the text of an n-id cell back into `parts` sentences.

    Sentences whose text is known from another row are used first; the rest is split at
    likely sentence ends (strong boundaries, then weak ones), keeping the split points
    that leave the most balanced pieces when there are more candidates than needed.
    Returns None when the text cannot be split into that many pieces."""
    text = " ".join(text.split())
    if parts == 1:
        return [text]
    known = list(known) + [None] * (parts - len(known))
    given = [k for k in known if k is not None]
    if len(given) == len(known) and " ".join(given) == text:
        return given
    # Peel known sentences from both ends.
    if known[0] is not None and text.startswith(known[0] + " "):
        rest = split_joined(text[len(known[0]) + 1 :], parts - 1, known[1:])
        if rest is not None:
            return [known[0]] + rest
    if known[-1] is not None and text.endswith(" " + known[-1]):
        rest = split_joined(text[: -len(known[-1]) - 1], parts - 1, known[:-1])
        if rest is not None:
            return rest + [known[-1]]
    cuts = [(m.start(), m.end()) for m in _SPACE.finditer(text)]
    if len(cuts) < parts - 1:
        return None
    pieces, start = [], 0
    for a, b in _best_cuts(text, cuts, parts - 1):
        pieces.append(text[start:a])
        start = b
    pieces.append(text[start:])
    return pieces


def _best_cuts(text: str, cuts: List[Tuple[int, int]], need: int) -> List[Tuple[int, int]]:
    """Choose `need` cuts (in order): the strongest sentence ends first, then the most
    balanced pieces (largest shortest piece) among equally strong choices."""
    from itertools import combinations
    from math import comb

    strength = {c: cut_strength(text[: c[0]], text[c[1] :]) for c in cuts}
    candidates = sorted(cuts, key=lambda c: -strength[c])
    # Keep the cuts that can matter: all cuts as strong as the need-th strongest one.
    floor = strength[candidates[need - 1]]
    strong = [c for c in cuts if strength[c] >= floor]
    if comb(len(strong), need) > 20000:
        return sorted(candidates[:need])

    def key(combo):
        bounds = [0] + [x for c in combo for x in c] + [len(text)]
        shortest = min(bounds[k + 1] - bounds[k] for k in range(0, len(bounds), 2))
        return (sum(strength[c] for c in combo), shortest)

    return list(max(combinations(strong, need), key=key))


def read_documents(path: str) -> Documents:
    """pair id -> (complex sentences, simple sentences) of DEplain's document-level CSV, whose
    `original` and `simplification` hold a document's sentences joined by '|||': the sentences that
    the n:m rows of a plan join. Read as Python's open() reads it (newlines translated), so that the
    sentences are the ones the published pairs.jsonl was made from, byte for byte."""
    import csv
    import io

    text = read_utf8(path)
    out: Documents = {}
    with field_limit(1 << 30):  # a field is a whole document
        reader = csv.DictReader(io.StringIO(text, newline=None))
        try:
            missing = [c for c in DOCUMENT_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise InputError(f"missing column(s) {', '.join(missing)} (expected DEplain's document CSV)", path, 1)
            for row in reader:
                if any(row.get(c) is None for c in DOCUMENT_COLUMNS):
                    raise InputError("row has fewer fields than the header", path, reader.line_num)
                out[row["pair_id"]] = (row["original"].split("|||"), row["simplification"].split("|||"))
        except csv.Error as err:
            raise InputError(f"malformed CSV ({err})", path, reader.line_num + 1) from None
    return out


def document_texts(
    texts: Dict[Tuple[int, int], str], joined: List[Tuple[List[Tuple[int, int]], str]], sentences: List[str]
) -> Optional[str]:
    """Fill `texts` (key -> sentence, from the rows of one id) for one side with the document's own
    sentences, in key order, and check every n:m row against them; the reason it cannot, or None.

    The document CSV has no titles (sentence -1) and sometimes a punctuation-only fragment more than
    the plan: fragments are dropped when the counts differ, titles skipped unless the counts are
    equal with them. Each n:m row's text must then be its sentences joined (compared word by word)."""
    keys = sorted(set(texts) | {k for row_keys, _ in joined for k in row_keys})
    if any(k not in texts for k in keys):
        if len(sentences) != len(keys):
            sentences = [t for t in sentences if not _FRAGMENT.match(t.strip())]
        body = keys if len(sentences) == len(keys) else [k for k in keys if k[1] >= 0]
        if len(sentences) != len(body):
            return f"{len(sentences)} sentences in the document CSV for {len(body)} in the plan"
        for k, sentence in zip(body, sentences):
            texts.setdefault(k, sentence)
    for row_keys, text in joined:
        if " ".join(texts.get(k, "") for k in row_keys).split() != text.split():
            return f"the document's sentences do not join into '{text[:60]}'"
    return None


def _read_rows(path: str) -> List[Tuple[int, Dict[str, str]]]:
    rows = read_csv_rows(path, REQUIRED_COLUMNS, "a DEplain plan CSV")
    if not rows:
        raise InputError("no rows: expected at least one aligned or unaligned sentence", path)
    return rows


def read_plan(
    path: str, lang: str = "de", id_prefix: str = "deplain-web-", documents: Optional[Documents] = None
) -> Dict:
    """One plan CSV as a pair dict (FORMATS.md): both sides pre-segmented in paragraphs
    (ordered by the plan's paragraph and sentence numbers, titles first) and the gold beads:
    one bead per aligned row, in row order, so a sentence that several rows share stays in
    several beads, as in DEplain's own pairs.jsonl. Extra fields: corpus, license (from the
    first row). A sentence named alone by several rows takes the last row's text.

    `documents` (read_documents): the n:m rows are cut into the document's own sentences, the
    rule the published pairs.jsonl was made by; a plan they do not fit raises DocumentMismatch.
    Without it, n:m rows are split at likely sentence ends (split_joined)."""
    rows = _read_rows(path)
    pair_id = rows[0][1]["pair_id"].strip()
    texts: List[Dict[Tuple[int, int], str]] = [{}, {}]  # per side: id key -> sentence text
    cells = []  # (line, complex keys, simple keys)
    pending = []  # (line, side, keys, joined text)
    for line, row in rows:
        keys_per_side = []
        for side, (id_col, text_col, level) in enumerate(
            (("original_id", "original", 1), ("simplification_id", "simplification", 0))
        ):
            ids = parse_ids(row[id_col], path, line, id_col)
            for i in ids:
                if i.level != level:
                    raise InputError(
                        f"id '{row[id_col]}' has level {i.level}, expected {level} in column '{id_col}'", path, line
                    )
                if i.pair != pair_id:
                    raise InputError(f"id '{row[id_col]}' belongs to pair {i.pair}, not {pair_id}", path, line)
            text = " ".join(row[text_col].split())
            if ids and not text:
                raise InputError(f"column '{text_col}' is empty but '{id_col}' names sentences", path, line)
            keys = [i.key for i in ids]
            if len(keys) == 1:
                texts[side][keys[0]] = text
            elif keys:
                pending.append((line, side, keys, text))
            keys_per_side.append(keys)
        cells.append((line, keys_per_side[0], keys_per_side[1]))
    if documents is not None:
        sentences = documents.get(rows[0][1]["pair_id"], ([], []))
        for side in (0, 1):
            reason = document_texts(texts[side], [(k, t) for _, s, k, t in pending if s == side], sentences[side])
            if reason:
                raise DocumentMismatch(f"pair {pair_id}: {reason}", path)
        pending = []
    for line, side, keys, text in pending:
        pieces = split_joined(text, len(keys), [texts[side].get(k) for k in keys])
        if pieces is None:
            raise InputError(f"cannot split '{text[:60]}...' into {len(keys)} sentences", path, line)
        for k, piece in zip(keys, pieces):
            texts[side].setdefault(k, piece)
    sides = []
    for side in (0, 1):
        order = sorted(texts[side])
        index = {k: n for n, k in enumerate(order)}
        paragraphs: List[List[str]] = []
        last_para = None
        for k in order:
            if k[0] != last_para:
                paragraphs.append([])
                last_para = k[0]
            paragraphs[-1].append(texts[side][k])
        sides.append((paragraphs, index))
    gold = [
        [sorted(sides[0][1][c] for c in cs), sorted(sides[1][1][s] for s in ss)] for _, cs, ss in cells if cs and ss
    ]
    first = rows[0][1]
    out: Dict[str, Any] = {"id": f"{id_prefix}{pair_id}", "lang": lang}
    for extra in ("corpus", "license"):
        if first.get(extra):
            out[extra] = first[extra]
    out["complex"] = {"paragraphs": sides[0][0]}
    out["simple"] = {"paragraphs": sides[1][0]}
    out["gold"] = gold
    return out


def plan_corpus(path: str) -> str:
    """The `corpus` of a plan (its first row's), to keep the plans of some corpora only."""
    return _read_rows(path)[0][1].get("corpus", "")


def plan_files(inputs: Sequence[str]) -> List[str]:
    """The plan CSV files named by `inputs` (files, or folders holding *.csv), folders' files in
    document order (plan_doc_9 before plan_doc_10); a missing path or no CSV at all is an error."""
    files: List[str] = []
    for item in inputs:
        if os.path.isdir(item):
            files.extend(
                sorted(
                    glob.glob(os.path.join(item, "*.csv")),
                    key=lambda p: (len(os.path.basename(p)), os.path.basename(p)),
                )
            )
        elif os.path.exists(item):
            files.append(item)
        else:
            raise InputError("no such file or folder", item)
    if not files:
        raise InputError("no CSV files found", " ".join(inputs))
    return files
