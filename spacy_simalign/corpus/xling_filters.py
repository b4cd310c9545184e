"""The post-processing of a cross-lingual corpus (20min-XD): drop pairs which are not real cross-lingual
pairs, as the 20min-XD authors did by hand: pairs whose two sides are in one language, whose texts
are near-identical, or where one side is an error page (PairFilters holds their settings)."""

import re
from collections import Counter
from dataclasses import dataclass, fields, replace
from typing import Dict, Iterable, List, Optional

from ..core.errors import InputError

# -- post-processing filters --------------------------------------------------------------

STOPWORDS: Dict[str, frozenset] = {
    "de": frozenset(
        "der die das und ist nicht ein eine einen dem den des mit von zu auf für sich auch im wird "
        "werden wurde hat haben sind war als wie aber oder nach bei noch nur so dass über".split()
    ),
    "fr": frozenset(
        "le la les et est une un des du de en dans pour que qui pas sur au aux avec ce cette il elle "
        "ont sont été par plus ne se son sa ses leur nous vous".split()
    ),
    "nl": frozenset(
        "de het een en is niet van op te dat die voor met zijn aan er ook als bij wordt worden werd "
        "heeft hebben maar door naar nog wel om uit dan".split()
    ),
    "en": frozenset(
        "the and is are was were not a an of to in on for that with as by this it be has have had "
        "from but or which they their at".split()
    ),
}
_WORDS = re.compile(r"[^\W\d_]+", re.UNICODE)
ERROR_PAGE = re.compile(
    r"\b(404|403|500)\b.{0,40}\b(not found|error|erreur|fehler|introuvable|nicht gefunden|forbidden)\b"
    r"|page (not found|introuvable|non trouvée)|seite (nicht gefunden|existiert nicht)|pagina niet gevonden"
    r"|access denied|accès refusé|zugriff verweigert"
    r"|enable javascript|activez javascript|javascript aktivieren"
    r"|(erreur|fehler|error) (interne|interner|internal)",
    re.IGNORECASE,
)


def guess_language(text: str, min_stopwords: int, margin: float) -> Optional[str]:
    """de, fr, nl or en by stop-word counts; None when fewer than `min_stopwords` stop words of
    the likeliest language, or when the runner-up's count times `margin` reaches it."""
    counts: Counter[str] = Counter()
    for word in _WORDS.findall(text.lower()):
        for lang, words in STOPWORDS.items():
            if word in words:
                counts[lang] += 1
    if not counts:
        return None
    (lang, n), *rest = counts.most_common(2)
    if n < min_stopwords or (rest and rest[0][1] * margin > n):
        return None
    return lang


def is_error_page(text: str, max_chars: int) -> bool:
    """A text of at most `max_chars` that reads like an HTTP error, a missing page or a script/cookie wall."""
    return len(text) <= max_chars and bool(ERROR_PAGE.search(text))


def near_identical(a: str, b: str, ratio: float, chars: int) -> bool:
    """Character similarity (rapidfuzz ratio on the first `chars` characters) of at least `ratio`."""
    from rapidfuzz import fuzz

    return fuzz.ratio(a[:chars], b[:chars]) >= ratio


@dataclass(frozen=True)
class PairFilters:
    """The settings of the filters, each default written here once; `align-xling --filter
    NAME=VALUE` changes one."""

    min_stopwords: int = 3  # stop words a text needs before its language is guessed
    language_margin: float = 1.5  # the likeliest language's stop words must exceed the runner-up's times this
    error_page_chars: int = 600  # only a text this short can be an error page
    near_identical_ratio: float = 90.0  # rapidfuzz ratio (0..100) from which two texts are near-identical
    compared_chars: int = 2000  # characters of each text the ratio compares

    def with_settings(self, assignments: Iterable[str]) -> "PairFilters":
        """These settings with NAME=VALUE assignments applied (a value of the setting's type)."""
        types = {f.name: type(getattr(self, f.name)) for f in fields(self)}
        changes = {}
        for assignment in assignments:
            name, _, value = assignment.partition("=")
            name = name.strip().replace("-", "_")
            if name not in types or not value.strip():
                raise InputError(f"--filter takes NAME=VALUE with NAME one of {', '.join(types)}, got '{assignment}'")
            try:
                changes[name] = types[name](value)
            except ValueError:
                raise InputError(f"--filter {name}: not a {types[name].__name__}: '{value}'") from None
        return replace(self, **changes)

    def problems(self, source_text: str, target_text: str, source_lang: str, target_lang: str) -> List[str]:
        """Why a matched pair is not a real cross-lingual pair (empty list: keep it). Reasons:
        error-page, same-language (declared or detected), wrong-language (text not in the declared
        language), near-identical."""
        reasons = []
        if is_error_page(source_text, self.error_page_chars) or is_error_page(target_text, self.error_page_chars):
            reasons.append("error-page")
        guessed = tuple(
            guess_language(text, self.min_stopwords, self.language_margin) for text in (source_text, target_text)
        )
        if source_lang == target_lang or (guessed[0] is not None and guessed[0] == guessed[1]):
            reasons.append("same-language")
        for declared, found in zip((source_lang, target_lang), guessed):
            if found is not None and found != declared:
                reasons.append("wrong-language")
                break
        if near_identical(source_text, target_text, self.near_identical_ratio, self.compared_chars):
            reasons.append("near-identical")
        return reasons
