"""Evidence about a translation bead that does not come from the sentence encoder: lengths in
characters (a Gale-Church likelihood), numbers, names and cognates seen on both sides,
punctuation and quote marks, heading-like short lines, paragraph boundaries, and the bead's
shape. One row of features per bead, computed only for the beads the decoder weighs; the
learned bead score (bead_score.py) weighs them beside the embedding cosine.

Tokens are compared across the languages after accent folding and lower-casing; only tokens
that occur on both sides of the pair count (a word of one language only cannot be shared)."""

import math
import re
import unicodedata
from typing import Dict, List, Sequence, Tuple

import numpy as np
from scipy.special import log_ndtr

from ..structures import Side

FEATURES = (
    "cosine",  # the bead's embedding cosine, less the margin of its neighbours
    "cosine_length",  # the same times the length agreement (the unlearned decoder's score)
    "gale_church",  # log likelihood of the two character lengths, a tenth
    "number_dice",
    "number_unmatched",  # log(1 + numbers of either side missing on the other)
    "name_dice",
    "cognate_dice",
    "punct_shared",  # log(1 + marks ? ! : ; quotes ( seen on both sides)
    "punct_unmatched",  # log(1 + marks on one side only)
    "heading_unmatched",  # short unpunctuated lines on one side more than the other
    "paragraph_inside",  # paragraph boundaries inside either side of the bead
    "paragraph_start_unmatched",  # one side starts a paragraph there, the other not
    "extra_sentences",  # sentences beyond one a side
)
SHAPES = ((1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2), (1, 4), (4, 1))
"""Bead shapes with their own bias; any other shape shares the last column."""
NAMES = FEATURES + tuple(f"shape_{a}_{b}" for a, b in SHAPES) + ("shape_other",)

PUNCT_CLASSES = (("?",), ("!",), (":",), (";",), ('"', "«", "»", "“", "”", "„", "‘", "’", "‹", "›"), ("(", ")"))
_DIGITS = re.compile(r"\d+")
_WORD = re.compile(r"\w+")
GALE_CHURCH_VARIANCE = 6.8  # characters: Gale and Church (1993)


def fold(text: str) -> str:
    """Lower case without accents (é -> e, ß kept)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))


def sentence_tokens(sentence: str) -> Tuple[List[str], List[str], List[str]]:
    """(numbers, names, cognate prefixes) of a sentence: digit runs; capitalised words after the
    first, folded; the first four folded letters of words of four letters or more."""
    words = _WORD.findall(sentence)
    numbers = _DIGITS.findall(sentence)
    names = [fold(w) for w in words[1:] if w[0].isupper() and not w.isdigit() and len(w) > 1]
    cognates = [fold(w)[:4] for w in words if len(w) >= 4 and not any(c.isdigit() for c in w)]
    return numbers, names, cognates


def is_heading(sentence: str) -> bool:
    """A short line without a sentence end: a title, "Eröffnung :", a route's data."""
    text = sentence.strip()
    return len(text.split()) <= 4 and not text.endswith((".", "?", "!", '"', "»", "”"))


class _Counts:
    """Cumulative per-sentence counts of the tokens shared by both sides, one column per token."""

    def __init__(self, src: List[List[str]], tgt: List[List[str]]):
        shared = sorted({t for s in src for t in s} & {t for s in tgt for t in s})
        index = {t: k for k, t in enumerate(shared)}
        self.src, self.tgt = self._cumulative(src, index), self._cumulative(tgt, index)
        self.src_all = np.concatenate([[0], np.cumsum([len(s) for s in src])])
        self.tgt_all = np.concatenate([[0], np.cumsum([len(s) for s in tgt])])

    @staticmethod
    def _cumulative(sentences: List[List[str]], index: Dict[str, int]) -> np.ndarray:
        counts = np.zeros((len(sentences) + 1, max(len(index), 1)), dtype=np.float32)
        for k, tokens in enumerate(sentences):
            for t in tokens:
                if t in index:
                    counts[k + 1, index[t]] += 1
        return np.cumsum(counts, axis=0)

    def match(self, a: int, b: int, i: int, cols: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(shared tokens, shared-vocabulary tokens of the source run, of each target run)."""
        s = self.src[i] - self.src[i - a]
        t = self.tgt[cols] - self.tgt[cols - b]
        return np.minimum(s[None, :], t).sum(1), np.full(len(cols), s.sum()), t.sum(1)

    def unmatched(self, a: int, b: int, i: int, cols: np.ndarray) -> np.ndarray:
        """Tokens of either side (any token, shared or not) without a partner on the other."""
        shared, _, _ = self.match(a, b, i, cols)
        total = (self.src_all[i] - self.src_all[i - a]) + (self.tgt_all[cols] - self.tgt_all[cols - b])
        return total - 2 * shared


def _dice(shared: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return np.where(left + right > 0, 2 * shared / np.maximum(left + right, 1), 0.0)


def _gale_church(src_chars: np.ndarray, tgt_chars: np.ndarray, ratio: float) -> np.ndarray:
    """log P(|delta| at least as large) of Gale and Church's length model, in nats, floored at -20."""
    mean = np.maximum((src_chars + tgt_chars / ratio) / 2, 1.0)
    delta = (tgt_chars - src_chars * ratio) / np.sqrt(mean * GALE_CHURCH_VARIANCE)
    return np.maximum(math.log(2) + log_ndtr(-np.abs(delta)), -20.0)


class BeadEvidence:
    """The evidence of one pair's beads; `features(a, b, i, cols, cosine, cosine_length)` gives a
    row of NAMES for each a:b bead ending at source sentence i and target sentences `cols` (1-based ends)."""

    def __init__(self, src: Side, tgt: Side):
        self.n, self.m = len(src), len(tgt)
        tokens = [[sentence_tokens(s) for s in side.sentences] for side in (src, tgt)]
        self.numbers, self.names, self.cognates = (
            _Counts([t[k] for t in tokens[0]], [t[k] for t in tokens[1]]) for k in range(3)
        )
        self.chars = [np.concatenate([[0.0], np.cumsum([len(s) for s in side.sentences])]) for side in (src, tgt)]
        self.ratio = float(self.chars[1][-1] / max(self.chars[0][-1], 1.0))
        self.punct = [self._punct(side.sentences) for side in (src, tgt)]
        self.headings = [
            np.concatenate([[0], np.cumsum([is_heading(s) for s in side.sentences])]) for side in (src, tgt)
        ]
        self.starts = [self._starts(side) for side in (src, tgt)]

    @staticmethod
    def _punct(sentences: Sequence[str]) -> np.ndarray:
        counts = np.array([[sum(s.count(c) for c in marks) for marks in PUNCT_CLASSES] for s in sentences])
        return np.vstack([np.zeros((1, len(PUNCT_CLASSES))), np.cumsum(counts.reshape(-1, len(PUNCT_CLASSES)), 0)])

    @staticmethod
    def _starts(side: Side) -> np.ndarray:
        """1 where a sentence starts a paragraph (the first sentence does), cumulative and plain."""
        first = np.zeros(len(side) + 1)
        for para in side.paragraphs:
            if para:
                first[para[0]] = 1
        first[0] = 1
        return first

    def features(self, a: int, b: int, i: int, cols: np.ndarray, cosine, cosine_length) -> np.ndarray:
        rows = np.zeros((len(cols), len(NAMES)))
        rows[:, 0], rows[:, 1] = cosine, cosine_length
        src_chars = np.full(len(cols), self.chars[0][i] - self.chars[0][i - a])
        tgt_chars = self.chars[1][cols] - self.chars[1][cols - b]
        rows[:, 2] = _gale_church(src_chars, tgt_chars, self.ratio) / 10
        rows[:, 3] = _dice(*self.numbers.match(a, b, i, cols))
        rows[:, 4] = np.log1p(self.numbers.unmatched(a, b, i, cols))
        rows[:, 5] = _dice(*self.names.match(a, b, i, cols))
        rows[:, 6] = _dice(*self.cognates.match(a, b, i, cols))
        ps = self.punct[0][i] - self.punct[0][i - a]
        pt = self.punct[1][cols] - self.punct[1][cols - b]
        rows[:, 7] = np.log1p(np.minimum(ps[None, :], pt).sum(1))
        rows[:, 8] = np.log1p(np.abs(ps[None, :] - pt).sum(1))
        hs = self.headings[0][i] - self.headings[0][i - a]
        ht = self.headings[1][cols] - self.headings[1][cols - b]
        rows[:, 9] = np.abs(hs - ht)
        starts_s, starts_t = self.starts
        inside_s = starts_s[i - a + 1 : i].sum() if a > 1 else 0.0
        inside_t = np.array([starts_t[j - b + 1 : j].sum() for j in cols]) if b > 1 else 0.0
        rows[:, 10] = inside_s + inside_t
        rows[:, 11] = np.abs(starts_s[i - a] - starts_t[cols - b])
        rows[:, 12] = a + b - 2
        shape = SHAPES.index((a, b)) if (a, b) in SHAPES else len(SHAPES)
        rows[:, len(FEATURES) + shape] = 1.0
        return rows
