"""Sentence-boundary precision/recall/F1 of the segmenter against gold sentences.

Gold paragraphs of sentences are joined into raw text (paragraphs with a blank
line, sentences with a space), re-segmented, and the sets of boundaries compared.
A boundary is the offset where a sentence starts, other than the start of the
text; boundaries at paragraph breaks can be left out (`within_paragraphs`), as
blank lines give them away.
"""

import csv
import json
from pathlib import Path
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple

from ..aligners.scoring import PRF
from ..segmentation.rules import segment

PARAGRAPH_SEP = "\n\n"


class BoundaryCounts(NamedTuple):
    """Counts of predicted, gold and correct boundaries, summed over documents."""

    predicted: int = 0
    gold: int = 0
    correct: int = 0

    def plus(self, other: "BoundaryCounts") -> "BoundaryCounts":
        """The counts summed field by field (a tuple's `+` concatenates, so it is not that)."""
        return BoundaryCounts(*(a + b for a, b in zip(self, other)))

    @property
    def scores(self) -> PRF:
        """The counts as the one P/R/F1 of the package (aligners.scoring.PRF)."""
        return PRF(self.correct, self.predicted, self.gold)

    @property
    def precision(self) -> float:
        return self.scores.p

    @property
    def recall(self) -> float:
        return self.scores.r

    @property
    def f1(self) -> float:
        return self.scores.f


def join_gold(paragraphs: Sequence[Sequence[str]]) -> Tuple[str, List[List[Tuple[int, int]]]]:
    """Raw text of gold paragraphs and the gold sentence offsets, paragraph by paragraph."""
    parts: List[str] = []
    offsets: List[List[Tuple[int, int]]] = []
    pos = 0
    for para in paragraphs:
        sents = [" ".join(s.split()) for s in para if s.strip()]
        if not sents:
            continue
        if parts:
            parts.append(PARAGRAPH_SEP)
            pos += len(PARAGRAPH_SEP)
        offsets.append([])
        for j, sent in enumerate(sents):
            if j:
                parts.append(" ")
                pos += 1
            parts.append(sent)
            offsets[-1].append((pos, pos + len(sent)))
            pos += len(sent)
    return "".join(parts), offsets


def boundaries(paragraphs: Iterable[Sequence[Tuple[int, int]]], within_paragraphs: bool = False) -> Set[int]:
    """Sentence-start offsets other than the first; with `within_paragraphs`, only those
    that do not start a paragraph."""
    out: Set[int] = set()
    for para in paragraphs:
        starts = [s for s, _ in para]
        out.update(starts[1:] if within_paragraphs else starts)
    out.discard(0)
    return out


def score_document(
    paragraphs: Sequence[Sequence[str]], lang: str, within_paragraphs: bool = False, **options
) -> BoundaryCounts:
    """Boundary counts of the segmenter on one document given as gold paragraphs of sentences."""
    text, gold = join_gold(paragraphs)
    predicted = segment(text, lang, **options)
    gold_set = boundaries(gold, within_paragraphs)
    pred_set = boundaries(predicted, within_paragraphs)
    return BoundaryCounts(len(pred_set), len(gold_set), len(pred_set & gold_set))


def score_documents(
    documents: Iterable[Sequence[Sequence[str]]], lang: str, within_paragraphs: bool = False, **options
) -> BoundaryCounts:
    """Boundary counts summed over documents (micro-average)."""
    total = BoundaryCounts()
    for paragraphs in documents:
        total = total.plus(score_document(paragraphs, lang, within_paragraphs, **options))
    return total


Document = List[List[str]]


def deplain_documents(path: Path, corpus: Optional[str] = None) -> List[Document]:
    """Both sides of each DEplain pair (pair JSONL with pre-segmented sides) as gold documents."""
    out: List[Document] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if corpus is None or record.get("corpus") == corpus:
                out.extend(record[name]["paragraphs"] for name in ("complex", "simple"))
    return out


def amsterdam_documents(path: Path, column: str = "Complex") -> List[Document]:
    """The sentences of one column of the Amsterdam CSV, grouped by document as one
    paragraph each (rows repeated for 1:n pairs and anonymised "xxx" rows dropped)."""
    docs: Dict[str, List[str]] = {}
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            text = " ".join(row[column].split())
            sents = docs.setdefault(row["Document ID"], [])
            if text and text != "xxx xxx xxx" and (not sents or sents[-1] != text):
                sents.append(text)
    return [[sents] for sents in docs.values() if sents]


def sample_documents(path: Path) -> List[Document]:
    """Hand-written gold documents (JSONL with a `paragraphs` field)."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line)["paragraphs"] for line in handle if line.strip()]


def klexikon_documents(folder: Path) -> List[Document]:
    """Klexikon/Wikipedia articles (one sentence per line, blank lines between
    paragraphs, "== Heading" lines dropped) as documents."""
    out = []
    for path in sorted(Path(folder).glob("*.txt")):
        paragraphs = [
            [line.strip() for line in block.splitlines() if line.strip() and not line.startswith("==")]
            for block in path.read_text(encoding="utf-8").split("\n\n")
        ]
        out.append([p for p in paragraphs if p])
    return out
