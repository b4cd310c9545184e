"""Rule-based paragraph and sentence segmentation for de, nl, fr and en.

`rules` holds the pure functions on strings (segment, split_paragraphs,
split_sentences), `abbreviations` the per-language word lists, `component` the
`simalign_segmenter` spaCy factory and `evaluation` the boundary P/R/F1 helpers.
"""
from .rules import segment, split_paragraphs, split_sentences

__all__ = ["segment", "split_paragraphs", "split_sentences"]
