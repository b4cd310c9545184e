"""Rule-based paragraph and sentence segmentation for de, nl, fr and en.

`rules` holds the pure functions on strings (segment, split_paragraphs,
split_sentences), `abbreviations` the per-language word lists and `sides` the Sides made from
text; the `simalign_segmenter` component is pipeline/segmenter.py and the boundary P/R/F1 helpers
evaluation/segmentation.py.
"""

from .rules import segment, split_paragraphs, split_sentences

__all__ = ["segment", "split_paragraphs", "split_sentences"]
