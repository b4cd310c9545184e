"""Sentence runs scored as units: the joined text of consecutive sentences, embedded as one text.

A run's vector is the encoder's vector of its sentences joined by single spaces, as bertalign
embeds its candidate beads, not a sum of the sentence vectors (a short sentence moves a sum
hardly at all). EmbeddingSimilarity.encode_runs gives it: the USE encoder composes it from what
encoding the sentences kept (use_runs.py), another encoder encodes the joined text (its per-text
cache encodes a run met again once). Callers choose which runs to embed: only candidates that can
matter (aligners/bead_units.py, aligners/bead_dp.py)."""

from typing import Sequence, Tuple


def run_text(sentences: Sequence[str], first: int, last: int) -> str:
    """The sentences first..last (inclusive) joined by single spaces."""
    return " ".join(sentences[first : last + 1])


def joined_vectors(encoder, sentences: Sequence[str], spans: Sequence[Tuple[int, int]], lang: str):
    """`encoder.encode` of the joined texts of the runs (first, last) of `sentences`."""
    return encoder.encode([run_text(sentences, first, last) for first, last in spans], lang)
