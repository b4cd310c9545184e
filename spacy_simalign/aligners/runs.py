"""Sentence runs scored as units: the joined text of consecutive sentences, embedded as one text.

A run's vector is the encoder's vector of its sentences joined by single spaces, as bertalign
embeds its candidate beads, not a sum of the sentence vectors (a short sentence moves a sum
hardly at all). The encoder's own per-text cache keeps the work bounded: a run met again (the
same run in another candidate, another direction) is encoded once, and a one-sentence run is the
sentence itself, already encoded. Callers choose which runs to embed: only candidates that can
matter (bead_units.py for translations, crf/joined.py for simplification splits)."""

from typing import Sequence

import numpy as np


def run_text(sentences: Sequence[str], first: int, last: int) -> str:
    """The sentences first..last (inclusive) joined by single spaces."""
    return " ".join(sentences[first : last + 1])


def embed_runs(encoder, sentences: Sequence[str], firsts: Sequence[int], lasts: Sequence[int], lang: str) -> np.ndarray:
    """[N, dim] normalised vectors of the runs firsts[k]..lasts[k] of `sentences` (one encoder call)."""
    texts = [run_text(sentences, int(a), int(b)) for a, b in zip(firsts, lasts)]
    return np.asarray(encoder.encode(texts, lang), dtype=np.float32)
