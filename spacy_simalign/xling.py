"""Cross-lingual sentence alignment inside matched document pairs, and the post-processing
that drops pairs which are not real cross-lingual pairs.

The 20min-XD method: cosine of multilingual sentence embeddings x100, Intersection (each
sentence's best partner must choose it back), kept above a threshold; 1:1 beads; registered
as `spacy-simalign.XlingIntersection.v1`. Any other registered sentence aligner (the CRF,
by default) can align these pairs too. The filters do what the
20min-XD authors did by hand: drop pairs whose two sides are in one language, whose texts
are near-identical, or where one side is an error page."""
import re
from collections import Counter
from typing import Dict, List, Optional, Tuple

import numpy as np

from .aligner_protocol import SentenceAlignerBase
from .registry import aligner_registry
from .structures import Bead, Side

DEFAULT_SENTENCE_THRESHOLD = 40.0  # best link F1 of this method with USE on DEplain-web dev (flat over 20..50)

# -- sentence alignment -------------------------------------------------------------------


def intersection_links(sim: np.ndarray, threshold: float) -> List[Tuple[int, int]]:
    """Mutual-best (i, j) of a similarity matrix (x100) scoring at least `threshold`."""
    if not sim.size:
        return []
    best_j = sim.argmax(axis=1)
    best_i = sim.argmax(axis=0)
    return [(i, int(j)) for i, j in enumerate(best_j) if best_i[j] == i and sim[i, j] >= threshold]


def align_intersection(source: Side, target: Side, embedder, threshold: float = DEFAULT_SENTENCE_THRESHOLD) -> List[Bead]:
    """20min-XD sentence alignment: 1:1 beads of mutually most similar sentences above threshold (x100)."""
    if not len(source) or not len(target):
        return []
    sim = 100.0 * (embedder.encode(source.sentences, source.lang) @ embedder.encode(target.sentences, target.lang).T)
    return [Bead((i,), (j,), float(np.clip(sim[i, j] / 100.0, 0.0, 1.0))) for i, j in intersection_links(sim, threshold)]


class IntersectionAligner(SentenceAlignerBase):
    """The 20min-XD sentence aligner with its encoder and threshold (x100)."""

    def __init__(self, similarity=None, threshold: float = DEFAULT_SENTENCE_THRESHOLD):
        if similarity is None:
            from .similarity import make_use_similarity

            similarity = make_use_similarity()
        self.similarity, self.threshold = similarity, float(threshold)

    def encoders(self) -> List:
        return [self.similarity]

    def align(self, complex: Side, simple: Side, paragraph_links=None) -> List[Bead]:
        return align_intersection(complex, simple, self.similarity, self.threshold)


@aligner_registry("spacy-simalign.XlingIntersection.v1")
def make_intersection_aligner(similarity=None, threshold: float = DEFAULT_SENTENCE_THRESHOLD) -> IntersectionAligner:
    """20min-XD: 1:1 beads of mutually most similar sentences whose cosine x100 reaches
    `threshold`; default similarity multilingual USE."""
    return IntersectionAligner(similarity, threshold)


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
