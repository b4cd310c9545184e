"""Rule-based paragraph and sentence splitting for de, nl, fr and en, on plain text.

Pure functions on strings that return character offsets, so that they work the
same inside the spaCy component and on lists of strings. A candidate boundary is
a run of final punctuation (".", "?", "!", "…", "?!", "...") with the quotes and
brackets that close it; it becomes a boundary unless the next word starts in
lower case or the word before the period is an abbreviation, an initial, an
ordinal ("3. Oktober", "am 1. Mai", "der 2. Weltkrieg") or a list number.
Offsets exclude surrounding whitespace; a piece of text that shows nothing (only white space
and invisible characters such as a zero-width space) is no sentence.
"""

import bisect
import re
import unicodedata
from functools import lru_cache
from typing import FrozenSet, Iterable, List, NamedTuple, Optional, Tuple

from . import abbreviations as abbr

Offsets = Tuple[int, int]

PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")
TERMINAL = re.compile(r"[.!?…]+(?:[\"'“”‘’«»‹›)\]}]+[.!?…]*)*")
CLOSERS = "\"'“”‘’«»‹›)]}"
OPENERS = "\"'„“‘‚«»‹›([{¿¡–—-*•"
NEXT_WORD = re.compile(rf"[\s{re.escape(OPENERS)}]*(\S*)")
ROMAN = re.compile(rf"^{abbr.ROMAN_NUMERAL}$")
NUMBER_RANGE = re.compile(r"^(?:\d{1,3}\.[/–-])?(\d+)$")
HYPHENATED_INITIALS = re.compile(r"^(?:[^\W\d_]\.-)+[^\W\d_]$")
DOTTED_ABBREVIATION = re.compile(r"^(?:[^\W\d_]{1,3}\.)+[^\W\d_]{1,3}$")
SPACED_GUILLEMET = re.compile(r"\s+[»”]+(?=\s|$)")
COLON_BOUNDARY = re.compile(r":\s+(?=[^\W\d_])")
COLON_MIN_WORDS = 5  # chosen by 5-fold cross-validation over DEplain documents


class Lexicon(NamedTuple):
    """The word lists one language needs, with any user-added abbreviations."""

    lang: str
    non_final: FrozenSet[str]
    final: FrozenSet[str]
    months: FrozenSet[str]
    month_abbreviations: FrozenSet[str]
    starters: Optional[FrozenSet[str]]
    ordinal_context: FrozenSet[str]
    ordinal_heads: FrozenSet[str]
    speech_verbs: FrozenSet[str]


@lru_cache(maxsize=32)
def lexicon(lang: str, extra_non_final: Tuple[str, ...] = (), extra_final: Tuple[str, ...] = ()) -> Lexicon:
    """The word lists for `lang`; extra abbreviations are normalised ("z. B" -> "z.B.")."""
    months = abbr.MONTHS.get(lang, frozenset())
    month_abbreviations = abbr.month_abbreviations(lang)
    return Lexicon(
        lang,
        abbr.non_final(lang) | abbr._forms(abbr.normalise(a) for a in extra_non_final),
        abbr.final(lang) | abbr._forms(abbr.normalise(a) for a in extra_final),
        months,
        month_abbreviations,
        abbr.SENTENCE_STARTERS.get(lang),
        abbr.ORDINAL_CONTEXT.get(lang, frozenset()),
        abbr.ORDINAL_HEADS.get(lang, frozenset()),
        abbr.SPEECH_VERBS.get(lang, frozenset()),
    )


INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")  # fillers that are letters or symbols by category
INVISIBLE_CATEGORIES = ("Cc", "Cf", "Zs", "Zl", "Zp")  # controls, format characters, separators


def is_blank(text: str) -> bool:
    """True when `text` shows nothing: white space, control and format characters (zero-width
    space and joiners, byte order mark, word joiner, direction marks, soft hyphen) and the
    Hangul and braille blank fillers. Such a sentence is empty: an error when given, skipped
    when the segmenter would cut it from raw text."""
    return all(c.isspace() or c in INVISIBLE_LETTERS or unicodedata.category(c) in INVISIBLE_CATEGORIES for c in text)


def _strip(text: str, start: int, end: int) -> Optional[Offsets]:
    """(start, end) narrowed to exclude whitespace; None if nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def split_paragraphs(text: str) -> List[Offsets]:
    """Paragraphs of `text`: pieces separated by one or more blank lines."""
    out, pos = [], 0
    for match in PARAGRAPH_BREAK.finditer(text):
        span = _strip(text, pos, match.start())
        if span:
            out.append(span)
        pos = match.end()
    span = _strip(text, pos, len(text))
    if span:
        out.append(span)
    return out


def _skip_space_back(text: str, pos: int) -> int:
    """The offset just after the last non-space character before `pos`."""
    while pos > 0 and text[pos - 1].isspace():
        pos -= 1
    return pos


def _word_before(text: str, pos: int) -> Tuple[str, int]:
    """The non-space run ending at `pos` without its opening quotes/brackets, and its start."""
    start = pos
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    word = text[start:pos]
    stripped = word.lstrip(OPENERS)
    return stripped, start + len(word) - len(stripped)


def _word_after(text: str, pos: int) -> str:
    """The next non-space run after `pos`, without opening quotes/brackets."""
    match = NEXT_WORD.match(text, pos)
    return match.group(1) if match else ""


def _abbreviation_forms(text: str, word: str, word_start: int) -> List[str]:
    """The word with its period, and joined with up to two short period-final words
    before it, so that "z. B." and "p. ex." are found as "z.B." and "p.ex."."""
    forms = [word + "."]
    joined, pos = word + ".", word_start
    for _ in range(2):
        before, before_start = _word_before(text, _skip_space_back(text, pos))
        if not before.endswith(".") or len(before) > 4 or before_start >= pos:
            break
        joined = before + joined
        forms.append(joined)
        pos = before_start
    return forms


def _sentence_start(word: str, lex: Lexicon) -> bool:
    """Whether `word` looks like the first word of a sentence after an abbreviation."""
    if not word or not word[0].isalpha() or not word[0].isupper():
        return False
    if lex.starters is None:
        return True
    return re.split("['’]", word)[0].rstrip(",.:;!?") in lex.starters


def _is_month(word: str, lex: Lexicon) -> bool:
    bare = word.rstrip(",.;:" + CLOSERS).lower()
    return bare in lex.months or bare + "." in lex.month_abbreviations


def _ordinal_context(text: str, word_start: int, after: str, lex: Lexicon) -> bool:
    """Whether a number before "." at `word_start` reads as a German ordinal: after an
    article or preposition ("am 3.", "der 2."), before a noun that takes ordinals
    ("19. Jahrhundert"), or in a range of ordinals ("im 16. und 17. Jahrhundert")."""
    if after.rstrip(",.;:" + CLOSERS) in lex.ordinal_heads:
        return True
    previous, previous_start = _word_before(text, _skip_space_back(text, word_start))
    if previous.lower() in lex.ordinal_context:
        return True
    if previous in ("und", "oder", "bis", "-", "–"):
        before, _ = _word_before(text, _skip_space_back(text, previous_start))
        return bool(re.fullmatch(r"\d{1,3}\.", before))
    return False


def _period_is_boundary(text: str, punct_start: int, after: str, sentence_start: int, lex: Lexicon) -> bool:
    """Decide a single "." followed by a word that does not start in lower case."""
    word, word_start = _word_before(text, punct_start)
    if not word:
        return True
    forms = _abbreviation_forms(text, word, word_start)
    if any(f in lex.final for f in forms):  # "etc.": in German a capitalised noun may follow
        return _sentence_start(after, lex) if lex.lang == "de" else after[0].isupper()
    if any(f in lex.non_final for f in forms):
        return False
    pos = word_start
    while pos > sentence_start and (text[pos - 1].isspace() or text[pos - 1] in OPENERS):
        pos -= 1
    first_of_sentence = pos == sentence_start
    number = NUMBER_RANGE.match(word)  # "3", or a range of ordinals "3./4", "19.-20"
    if number:
        word = number.group(1)
        if first_of_sentence:  # "1. Einleitung": a list number
            return False
        if re.match(r"\d{1,2}\.", after) and int(word) <= 31:  # "3. 10. 2019"
            return False
        if lex.lang == "de":
            if _is_month(after, lex):
                return False
            if int(word) < 1000 and _ordinal_context(text, word_start, after, lex):
                return False
        return True
    if len(word) == 1 and word.islower() and re.search(r"\d\s*$", text[max(0, word_start - 12) : word_start]):
        return _sentence_start(after, lex)  # a unit after a number: "eine Höhe von 336 m."
    if (len(word) == 1 and word.isalpha()) or HYPHENATED_INITIALS.match(word):  # "J. R. R.", "J.-P.", "z. B."
        return False
    if lex.lang == "de" and ROMAN.match(word):  # "Wilhelm II.", "der II. Weltkrieg"
        previous, _ = _word_before(text, _skip_space_back(text, word_start))
        if previous[:1].isupper() or previous.lower() in lex.ordinal_context:
            return False
    if DOTTED_ABBREVIATION.match(word):  # an unknown "U.S."-style abbreviation
        return _sentence_start(after, lex)
    return True


def sentence_ends(
    text: str,
    lang: str,
    extra_non_final: Iterable[str] = (),
    extra_final: Iterable[str] = (),
    colon_boundaries: Optional[bool] = None,
) -> List[int]:
    """Character offsets just after the final punctuation (and closing quotes) of each
    sentence in one paragraph of `text`, in order; the end of the text is not included.
    `colon_boundaries` (default: for German only) also ends sentences at colons that
    join two main clauses, as DEplain's gold sentences do."""
    lex = lexicon(lang, tuple(extra_non_final), tuple(extra_final))
    ends: List[int] = []
    sentence_start = 0
    for match in TERMINAL.finditer(text):
        start, end = match.span()
        spaced = SPACED_GUILLEMET.match(text, end) if lang == "fr" else None
        if spaced:  # French "« Oui. » Il" closes its quote after a space
            end = spaced.end()
        if end < len(text) and not text[end].isspace():
            continue
        after = _word_after(text, end)
        if not after or after[0].islower() or after[0] in ",;:":
            continue
        punct = text[start : match.end()].rstrip(CLOSERS)
        if "?" in punct or "!" in punct:
            boundary = True
        elif punct.count(".") > 1 or "…" in punct:
            boundary = not (start and text[start - 1] in "([")
        else:
            boundary = _period_is_boundary(text, start, after, sentence_start, lex)
        if boundary:
            ends.append(end)
            sentence_start = end
    if lang == "de" if colon_boundaries is None else colon_boundaries:
        ends = sorted(set(ends) | set(_colon_ends(text, ends, lex)))
    return ends


def _colon_ends(text: str, ends: List[int], lex: Lexicon) -> List[int]:
    """Colons that join two main clauses ("Beliebt ist das Wichteln: Man verlost ..."),
    which DEplain counts as sentence ends: both sides have at least COLON_MIN_WORDS
    words, the right one starts with a sentence-starting word, and the left one does
    not introduce speech."""
    out = []
    for match in COLON_BOUNDARY.finditer(text):
        colon = match.start() + 1
        k = bisect.bisect_left(ends, colon)
        left_start = ends[k - 1] if k else 0
        right_end = ends[k] if k < len(ends) else len(text)
        left = text[left_start:colon].split()
        right = text[match.end() : right_end].split()
        if any(w.strip(",.").lower() in lex.speech_verbs for w in left):  # "Da sagte Noomi: ..."
            continue
        if len(left) >= COLON_MIN_WORDS and len(right) >= COLON_MIN_WORDS and _sentence_start(right[0], lex):
            out.append(colon)
    return out


def split_sentences(text: str, lang: str, **options) -> List[Offsets]:
    """Sentences of one paragraph as (start, end) offsets into `text`."""
    out, pos = [], 0
    for end in sentence_ends(text, lang, **options) + [len(text)]:
        span = _strip(text, pos, end)
        if span and not is_blank(text[span[0] : span[1]]):
            out.append(span)
        pos = end
    return out


def segment(text: str, lang: str, **options) -> List[List[Offsets]]:
    """Paragraphs of sentences of `text`, as (start, end) offsets relative to `text`.
    Options: extra_non_final / extra_final abbreviations, colon_boundaries."""
    out = []
    for para_start, para_end in split_paragraphs(text):
        sents = split_sentences(text[para_start:para_end], lang, **options)
        if sents:  # (a paragraph of invisible characters only has none)
            out.append([(para_start + s, para_start + e) for s, e in sents])
    return out
