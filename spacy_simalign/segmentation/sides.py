"""The one way from raw text to a Side: paragraphs at blank lines, sentences by the rules of
`rules.segment`, each sentence the exact slice of the text between its offsets. The Doc pair
keeps the same offsets (pair.apply_segmentation), so the aligners, the output files and the
corpus tools all see the same sentences for the same text."""

import re
from typing import List, Sequence

from ..core.structures import Side
from .rules import Offsets, segment


def side_from_offsets(text: str, paragraphs: Sequence[Sequence[Offsets]], lang: str) -> Side:
    """A Side of `text` cut at the given (start, end) offsets, paragraph by paragraph (empty ones dropped)."""
    return Side.from_paragraphs([[text[s:e] for s, e in para] for para in paragraphs if para], lang)


def side_from_text(text: str, lang: str, **options) -> Side:
    """Segment raw text (paragraphs separated by blank lines) with the project's segmenter.
    Options as rules.segment: extra_non_final, extra_final, colon_boundaries."""
    return side_from_offsets(text, segment(text, lang, **options), lang)


_BLOCK = re.compile(r"\S(?:.*?\S)?(?=\s*\n\s*\n|\s*$)", re.S)


def side_from_sentences(text: str, sentences: Sequence[str], lang: str) -> Side:
    """A raw-text side whose sentences were cut elsewhere (an alignment file written by another
    segmenter configuration or tool): each sentence goes to the blank-line paragraph of `text`
    it is found in (whitespace-insensitive, in order), so that the paragraphs can be shown."""
    squeeze = [" ".join(m.group(0).split()) for m in _BLOCK.finditer(text)]
    paragraphs: List[List[int]] = []
    block, cursor = 0, 0
    for i, sent in enumerate(sentences):
        needle = " ".join(sent.split())
        for k in range(block, len(squeeze)):
            pos = squeeze[k].find(needle, cursor if k == block else 0)
            if pos >= 0:
                block, cursor = k, pos + len(needle)
                break
        while len(paragraphs) <= block:
            paragraphs.append([])
        paragraphs[block].append(i)
    return Side(list(sentences), [p for p in paragraphs if p], lang)
