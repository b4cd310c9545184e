"""Clauses of a sentence: the sub-sentence units a simple sentence may retell one of (issue 24).

A long complex sentence is often simplified clause by clause, so a simple sentence matches one
clause of it better than the whole. A sentence is cut at commas, semicolons, colons and dashes,
and before a coordinating or subordinating conjunction of its language (de, nl, fr, en; a small
word list each); a piece shorter than `min_words` words joins its neighbour. A sentence that
yields fewer than two pieces has no clauses (it is its own only unit). Cheap and rule-based on
purpose: the CRF learns how far to trust the match (crf/features.py), and the units are embedded
by text like the runs of sentences of runs.py (units.py)."""

import re
from functools import lru_cache
from typing import List, Tuple

MIN_CLAUSE_WORDS = 3

# words a new clause begins with (lower case; a multi-word conjunction as one entry; an entry
# ending in an apostrophe is elided, as in "qu'il")
CONJUNCTIONS = {
    "de": tuple(
        "und oder aber weil dass daß wenn denn sondern obwohl damit als während sodass bevor nachdem "
        "falls ob doch jedoch seit sobald solange".split()
    ),
    "nl": tuple(
        "en of maar omdat dat als want terwijl doordat zodat hoewel wanneer nadat voordat toen sinds indien".split()
    ),
    "fr": tuple("et ou mais car que quand lorsque puisque si donc qu' lorsqu' puisqu'".split())
    + ("parce que", "bien que", "alors que", "pendant que", "afin que", "tandis que", "dès que", "depuis que"),
    "en": tuple("and or but because that when while since which although though whereas unless until if so".split()),
}
# punctuation that ends a clause: , ; : followed by a space, and a free-standing dash
_PUNCT = r"[,;:](?=\s)|\s[-\u2013\u2014]\s"


@lru_cache(maxsize=None)
def _pattern(lang: str) -> "re.Pattern":
    """Where a sentence of `lang` is cut: its punctuation, and before each conjunction that does
    not follow a word of one ("parce que", "and that": one cut, before the first)."""
    words = sorted(CONJUNCTIONS.get(lang, ()), key=len, reverse=True)
    if not words:
        return re.compile(_PUNCT)
    alternatives = [re.escape(w).replace(r"\ ", r"\s+") + ("" if w.endswith("'") else r"\b") for w in words]
    heads = sorted({part for w in words for part in w.split() if not part.endswith("'")})
    behind = "".join(rf"(?<!\b{re.escape(h)})" for h in heads)
    return re.compile(rf"{_PUNCT}|{behind}\s(?=(?:{'|'.join(alternatives)}))", re.IGNORECASE)


def clauses(sentence: str, lang: str, min_words: int = MIN_CLAUSE_WORDS) -> Tuple[str, ...]:
    """The clauses of `sentence` (two or more, each of at least `min_words` words, together all
    its words), or () when it does not split."""
    pieces = [p.strip() for p in _pattern(lang.split("-")[0].lower()).split(sentence)]
    pieces = [p for p in pieces if p]
    merged: List[str] = []
    for piece in pieces:  # a short piece joins the one before it (the first one, the next)
        if merged and min(len(piece.split()), len(merged[-1].split())) < min_words:
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return tuple(merged) if len(merged) > 1 else ()
