"""The post-processing of a cross-lingual corpus (20min-XD): drop pairs which are not real cross-lingual
pairs, as the 20min-XD authors did by hand: pairs whose two sides are in one language, whose texts
are near-identical, or where one side is an error page."""
import re
from collections import Counter
from typing import Dict, List, Optional

# -- post-processing filters --------------------------------------------------------------

STOPWORDS: Dict[str, frozenset] = {
    "de": frozenset("der die das und ist nicht ein eine einen dem den des mit von zu auf für sich auch im wird "
                    "werden wurde hat haben sind war als wie aber oder nach bei noch nur so dass über".split()),
    "fr": frozenset("le la les et est une un des du de en dans pour que qui pas sur au aux avec ce cette il elle "
                    "ont sont été par plus ne se son sa ses leur nous vous".split()),
    "nl": frozenset("de het een en is niet van op te dat die voor met zijn aan er ook als bij wordt worden werd "
                    "heeft hebben maar door naar nog wel om uit dan".split()),
    "en": frozenset("the and is are was were not a an of to in on for that with as by this it be has have had "
                    "from but or which they their at".split()),
}
_WORDS = re.compile(r"[^\W\d_]+", re.UNICODE)
ERROR_PAGE = re.compile(
    r"\b(404|403|500)\b.{0,40}\b(not found|error|erreur|fehler|introuvable|nicht gefunden|forbidden)\b"
    r"|page (not found|introuvable|non trouvée)|seite (nicht gefunden|existiert nicht)|pagina niet gevonden"
    r"|access denied|accès refusé|zugriff verweigert"
    r"|enable javascript|activez javascript|javascript aktivieren"
    r"|(erreur|fehler|error) (interne|interner|internal)",
    re.IGNORECASE)


def guess_language(text: str, min_hits: int = 3) -> Optional[str]:
    """de, fr, nl or en by stop-word counts; None when too few stop words to tell."""
    counts = Counter()
    for word in _WORDS.findall(text.lower()):
        for lang, words in STOPWORDS.items():
            if word in words:
                counts[lang] += 1
    if not counts:
        return None
    (lang, n), *rest = counts.most_common(2)
    if n < min_hits or (rest and rest[0][1] * 1.5 > n):
        return None
    return lang


def is_error_page(text: str, max_chars: int = 600) -> bool:
    """A short text that reads like an HTTP error, a missing page or a script/cookie wall."""
    return len(text) <= max_chars and bool(ERROR_PAGE.search(text))


def near_identical(a: str, b: str, cutoff: float = 90.0) -> bool:
    """Character similarity (rapidfuzz ratio on the first 2,000 characters) of at least `cutoff`."""
    from rapidfuzz import fuzz

    return fuzz.ratio(a[:2000], b[:2000]) >= cutoff


def pair_problems(source_text: str, target_text: str, source_lang: str, target_lang: str) -> List[str]:
    """Why a matched pair is not a real cross-lingual pair (empty list: keep it). Reasons:
    error-page, same-language (declared or detected), wrong-language (text not in the declared
    language), near-identical."""
    reasons = []
    if is_error_page(source_text) or is_error_page(target_text):
        reasons.append("error-page")
    guessed = (guess_language(source_text), guess_language(target_text))
    if source_lang == target_lang or (guessed[0] is not None and guessed[0] == guessed[1]):
        reasons.append("same-language")
    for declared, found in zip((source_lang, target_lang), guessed):
        if found is not None and found != declared:
            reasons.append("wrong-language")
            break
    if near_identical(source_text, target_text):
        reasons.append("near-identical")
    return reasons
