"""Anchors a sentence encoder does not see: numbers and the marks ? ! and quote marks that a
translation carries over. The bead decoder (bead_dp.py) adds a weight for each anchor a bead's
two sides share, so that a bead that keeps a number, a question or a quoted turn together with its
translation beats one that splits them (years and altitudes in a yearbook, dialogue in a novel:
the encoder's vectors barely move with a number or a quote mark). Counted as a multiset: a bead
shares min(count on one side, count on the other) of each anchor; only anchors found on both
sides of the pair are kept. The end of a bead is evidence too: a sentence that ends on a colon or a
semicolon goes on in the next one, so a bead whose last sentence ends so on one side and not on the
other is likely cut in the wrong place (a list, a reference or a turn the two languages split
differently); such a bead takes the weight of one anchor."""

import re
from typing import Dict, List, Sequence

import numpy as np

NUMBER = re.compile(r"\d+")
MARKS = {"?": "?", "!": "!"}
QUOTE_MARKS = '«»"“”„'
for _mark in QUOTE_MARKS:
    MARKS[_mark] = '"'  # one anchor: languages quote with different marks
OPEN_ENDS = (":", ";")  # a sentence ending on one of these goes on in the next
CHUNK = 4096  # bead cells counted at once (each holds a row per anchor kept)


def ends_open(text: str) -> bool:
    """Whether a sentence ends on a colon or a semicolon (its thought goes on in the next one)."""
    return text.rstrip().endswith(OPEN_ENDS)


def sentence_anchors(text: str) -> List[str]:
    """The anchors of one sentence: its digit runs (leading zeros dropped) and its marks."""
    found = [digits.lstrip("0") or "0" for digits in NUMBER.findall(text)]
    found += [MARKS[c] for c in text if c in MARKS]
    return found


class SharedAnchors:
    """How many anchors the runs of a pair's two sides share, and whether their ends differ. Asked
    for the a:b beads ending at (rows[k], cols[k]) (1-based ends), as the bead scorer is called:
    `evidence` is what the bead decoder adds up (shared anchors less a differing end)."""

    def __init__(self, complex_sentences: Sequence[str], simple_sentences: Sequence[str]):
        found = [[self.anchors_of(s) for s in side] for side in (complex_sentences, simple_sentences)]
        both = set.intersection(*(set(a for anchors in side for a in anchors) for side in found))
        column: Dict[str, int] = {a: k for k, a in enumerate(sorted(both))}
        self.cumulative = []  # per side: [sentences + 1, anchors] counts up to each sentence
        for side in found:
            counts = np.zeros((len(side) + 1, len(column)), dtype=np.int32)
            for i, anchors in enumerate(side):
                for a in anchors:
                    if a in column:
                        counts[i + 1, column[a]] += 1
            self.cumulative.append(np.cumsum(counts, axis=0))
        self.totals = [c.sum(axis=1) for c in self.cumulative]
        self.open_ends = [
            np.array([ends_open(s) for s in side], dtype=bool) for side in (complex_sentences, simple_sentences)
        ]

    @staticmethod
    def anchors_of(text: str) -> List[str]:
        """The anchors of one sentence (sentence_anchors)."""
        return sentence_anchors(text)

    def shared(self, a: int, b: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Anchors shared by each a:b bead ending at (rows[k], cols[k])."""
        out = np.zeros(len(rows))
        (src, tgt), (src_total, tgt_total) = self.cumulative, self.totals
        if not src.shape[1]:
            return out
        # only beads with an anchor on both sides can share one
        both = np.flatnonzero((src_total[rows] > src_total[rows - a]) & (tgt_total[cols] > tgt_total[cols - b]))
        for start in range(0, len(both), CHUNK):
            k = both[start : start + CHUNK]
            r, c = rows[k], cols[k]
            out[k] = np.minimum(src[r] - src[r - a], tgt[c] - tgt[c - b]).sum(axis=1)
        return out

    def ends_differ(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """1.0 where the bead ending at (rows[k], cols[k]) ends open (ends_open) on one side only."""
        return (self.open_ends[0][rows - 1] != self.open_ends[1][cols - 1]).astype(np.float64)

    def evidence(self, a: int, b: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """The anchors each a:b bead shares, less 1 where its ends differ (one anchor's worth)."""
        return self.shared(a, b, rows, cols) - self.ends_differ(rows, cols)
