"""Identical sentences win their own 1:1 bead. A simple sentence whose text equals a complex
sentence's (case, spacing and punctuation aside) was kept unchanged by the simplifier; the CRF
scores near-duplicate neighbours alike and would otherwise pull them into one n:1 bead."""

import unicodedata
from collections import defaultdict
from typing import Dict, List, Sequence, Tuple

from ...core.structures import Bead

MODES = ("off", "linked", "unique")
MIN_WORDS_UNLINKED = 3  # an identical pair the model did not link is taken only if this long (identical_min_words)


def normal_form(text: str) -> str:
    """The text with case, punctuation, symbols and spacing folded away (NFKC)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(ch if unicodedata.category(ch)[0] in "LN" else " " for ch in text)
    return " ".join(kept.split())


def identical_pairs(complex_texts: Sequence[str], simple_texts: Sequence[str]) -> List[Tuple[int, int, bool]]:
    """(complex index, simple index, unique) for each pair of sentences with the same normal
    form; `unique`: that form occurs once on each side."""
    by_form: Dict[str, List[int]] = defaultdict(list)
    for i, text in enumerate(complex_texts):
        form = normal_form(text)
        if form:
            by_form[form].append(i)
    simple_by_form: Dict[str, List[int]] = defaultdict(list)
    for j, text in enumerate(simple_texts):
        form = normal_form(text)
        if form in by_form:
            simple_by_form[form].append(j)
    out: List[Tuple[int, int, bool]] = []
    for form, simple in simple_by_form.items():
        unique = len(simple) == 1 and len(by_form[form]) == 1
        out.extend((i, j, unique) for i in by_form[form] for j in simple)
    return sorted(out)


def identical_beads_win(
    beads: List[Bead],
    complex_texts: Sequence[str],
    simple_texts: Sequence[str],
    mode: str = "unique",
    min_words: int = MIN_WORDS_UNLINKED,
) -> List[Bead]:
    """`beads` with each identical pair taken out into a 1:1 bead of score 1.0. "linked": only
    pairs already in one bead; "unique": also a pair the model split up, when its text occurs
    once on each side and has at least `min_words` words. The rest of a bead keeps its
    score; a rest with sentences on one side only is unaligned."""
    if mode not in MODES:
        raise ValueError(f"unknown identical-sentence mode {mode!r}: choose one of {', '.join(MODES)}")
    if mode == "off":
        return beads
    bead_of_c = {c: k for k, bead in enumerate(beads) for c in bead.complex}
    bead_of_s = {s: k for k, bead in enumerate(beads) for s in bead.simple}
    taken_c, taken_s, chosen = set(), set(), []
    for i, j, unique in identical_pairs(complex_texts, simple_texts):
        if i in taken_c or j in taken_s:
            continue
        linked = i in bead_of_c and bead_of_c[i] == bead_of_s.get(j)
        if linked or (mode == "unique" and unique and len(normal_form(simple_texts[j]).split()) >= min_words):
            taken_c.add(i)
            taken_s.add(j)
            chosen.append(Bead((i,), (j,), 1.0))
    if not chosen:
        return beads
    out = list(chosen)
    for bead in beads:
        rest_c = tuple(c for c in bead.complex if c not in taken_c)
        rest_s = tuple(s for s in bead.simple if s not in taken_s)
        if rest_c and rest_s:
            out.append(Bead(rest_c, rest_s, bead.score))
    return sorted(out, key=lambda b: (b.complex[0], b.simple[0]))
