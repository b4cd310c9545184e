"""Sentence runs scored as units: the joined text of consecutive sentences, embedded as one text.

A run's vector is the encoder's vector of its sentences joined by single spaces, as bertalign
embeds its candidate beads, not a sum of the sentence vectors (a short sentence moves a sum
hardly at all). The encoder's own per-text cache keeps the work bounded: a run met again (the
same run in another candidate, another direction) is encoded once, and a one-sentence run is the
sentence itself, already encoded. Callers choose which runs to embed: only candidates that can
matter (bead_units.py, bead_dp.py)."""

from typing import Sequence


def run_text(sentences: Sequence[str], first: int, last: int) -> str:
    """The sentences first..last (inclusive) joined by single spaces."""
    return " ".join(sentences[first : last + 1])
