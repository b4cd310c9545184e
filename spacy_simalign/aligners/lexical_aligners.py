"""The classic lexical sentence aligners, as pure functions over Sides: MASSAlign's
vicinity-driven aligner (Paetzold et al., 2017), CATS "closest" and "closest keeping
sequence" with character 3-gram similarity (Štajner et al., 2018), and a TF-IDF best match
inside aligned paragraphs (the method behind the Amsterdam municipal corpus). Each returns
sorted Beads in which a sentence is in at most one bead per side (but the TF-IDF aligner's
candidate mode, both_directions without group, which keeps every match as found). The
settings' defaults are those of the registered functions at the end."""

from collections import defaultdict
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from ..core.registries import aligner_registry
from ..core.setting_checks import COSINE, UNIT, Choice, ranges
from ..core.structures import Bead, ParagraphLink, Side
from ..similarity.backends import MassalignTfidf, massalign_model
from ..similarity.scores import pair_scores
from .best_match import best_matches
from .paragraphs import (
    MASSALIGN_PARAGRAPH_ALPHA,
    MASSALIGN_SLACK,
    TFIDF_PARAGRAPH_THRESHOLD,
    default_word_tfidf,
    tfidf_paragraph_alignment,
    vicinity_paragraph_alignment,
    vicinity_path,
)
from .protocol import SentenceAlignerBase

Block = Tuple[List[int], List[int]]


def blocks(complex: Side, simple: Side, paragraph_links: Optional[Sequence[ParagraphLink]] = None) -> List[Block]:
    """The sub-problems to align: the sentences of each aligned paragraph group, or the
    whole document when no paragraph links are given."""
    if paragraph_links is None:
        return [(list(range(len(complex))), list(range(len(simple))))]
    out = []
    for link in paragraph_links:
        cs = [i for p in link.complex for i in complex.paragraphs[p]]
        ss = [j for p in link.simple for j in simple.paragraphs[p]]
        if cs and ss:
            out.append((cs, ss))
    return out


def disjoint(beads: List[Bead]) -> List[Bead]:
    """Keep a sentence in one bead only: beads are taken by decreasing score and one that
    reuses a sentence already taken is dropped (this only happens when paragraph groups
    overlap). Returned in document order."""
    used_c: Set[int] = set()
    used_s: Set[int] = set()
    kept: List[Bead] = []
    for bead in sorted(beads, key=lambda b: -b.score):
        if used_c.isdisjoint(bead.complex) and used_s.isdisjoint(bead.simple):
            kept.append(bead)
            used_c.update(bead.complex)
            used_s.update(bead.simple)
    return sort_beads(kept)


def sort_beads(beads: List[Bead]) -> List[Bead]:
    return sorted(beads, key=lambda b: (b.complex[0], b.simple[0]))


def clip(score: float) -> float:
    return float(min(max(score, 0.0), 1.0))


def group_by_complex(links: Dict[int, Tuple[int, float]]) -> List[Bead]:
    """CATS-style grouping: the simple sentences aligned to one complex sentence form a 1:n
    bead (a split), scored by their mean similarity. `links`: simple -> (complex, sim)."""
    groups: Dict[int, List[Tuple[int, float]]] = defaultdict(list)
    for s, (c, score) in links.items():
        groups[c].append((s, score))
    return sort_beads(
        [
            Bead((c,), tuple(sorted(s for s, _ in members)), clip(float(np.mean([v for _, v in members]))))
            for c, members in groups.items()
        ]
    )


# ---------------------------------------------------------------------------------------
# CATS (Štajner et al., 2018)


def closest(sim: np.ndarray, cs: List[int], ss: List[int]) -> Dict[int, Tuple[int, float]]:
    """CATS ClosestSimilarity: every simple sentence to its most similar complex sentence
    (the first one on ties); a simple sentence similar to nothing (all zero) stays unaligned."""
    out: Dict[int, Tuple[int, float]] = {}
    if not cs:
        return out
    for s in ss:
        col = sim[cs, s]
        k = int(np.argmax(col))
        if col[k] > 0:
            out[s] = (cs[k], float(col[k]))
    return out


def closest_keeping_sequence(sim: np.ndarray, cs: List[int], ss: List[int]) -> Dict[int, Tuple[int, float]]:
    """CATS ClosestSimilarityWithSequence: information order is mostly kept, so a simple
    sentence whose closest complex sentence breaks the order is realigned.

    First every simple sentence gets its closest complex sentence. Then a simple sentence
    whose complex sentence lies before that of the previous simple sentence or after that of
    the next one (both from the first pass, so that one mistake does not spread), while those
    two neighbours are themselves in order, is moved to its most similar complex sentence
    inside the interval [previous, next] (inclusive: 1:n splits and n:1 merges stay allowed)."""
    first = closest(sim, cs, ss)
    out: Dict[int, Tuple[int, float]] = {}
    order = [s for s in ss if s in first]
    position = {c: k for k, c in enumerate(cs)}
    for n, s in enumerate(order):
        lo = position[first[order[n - 1]][0]] if n > 0 else 0
        hi = position[first[order[n + 1]][0]] if n + 1 < len(order) else len(cs) - 1
        k = position[first[s][0]]
        if lo <= k <= hi or hi < lo:
            out[s] = first[s]
            continue
        window = cs[lo : hi + 1]
        col = sim[window, s]
        best = int(np.argmax(col))
        out[s] = (window[best], float(col[best]))
    return out


def cats_align(
    complex: Side,
    simple: Side,
    similarity,
    strategy: str,
    paragraph_links: Optional[Sequence[ParagraphLink]],
    group: bool,
) -> List[Bead]:
    """CATS sentence alignment: `strategy` "closest" or "closest-seq", over the whole
    document or inside aligned paragraphs. Default similarity: C3G (character 3-gram TF-IDF
    cosine). Simple sentences aligned to the same complex sentence make one 1:n bead; with
    group=False each stays a 1:1 bead of its own (then a complex sentence may be in several
    beads), which is how the CATS output released with DEplain is scored."""
    if similarity is None:
        from ..similarity.backends import TfidfSimilarity

        similarity = TfidfSimilarity("char", 3)
    if strategy not in ("closest", "closest-seq"):
        raise ValueError(f"unknown CATS strategy '{strategy}' (closest, closest-seq)")
    if not len(complex) or not len(simple):
        return []
    sim = np.asarray(similarity.matrix(complex.sentences, simple.sentences, complex.lang, simple.lang))
    step = closest if strategy == "closest" else closest_keeping_sequence
    links: Dict[int, Tuple[int, float]] = {}
    for cs, ss in blocks(complex, simple, paragraph_links):
        links.update(step(sim, cs, ss))
    if not group:
        return sort_beads([Bead((c,), (s,), clip(v)) for s, (c, v) in links.items()])
    return group_by_complex(links)


# ---------------------------------------------------------------------------------------
# TF-IDF best match (Amsterdam municipal corpus)


def tfidf_paragraph_links(
    complex: Side, simple: Side, similarity, threshold: float, both_directions: bool
) -> List[ParagraphLink]:
    """The paragraph links the TF-IDF aligner aligns inside: the TF-IDF paragraph aligner's, or
    with `both_directions` every best match of either side's paragraphs as a 1:1 link, as found
    (the Amsterdam corpus's candidates: a link found both ways is there twice)."""
    if not both_directions:
        return tfidf_paragraph_alignment(complex, simple, similarity, threshold)
    texts = complex.paragraph_texts(), simple.paragraph_texts()
    scores = pair_scores(similarity, *texts, complex.lang, simple.lang)
    return [
        ParagraphLink((c,), (s,), clip(score))
        for c, s, score in best_matches(scores, range(len(texts[0])), range(len(texts[1])), threshold, True)
    ]


def tfidf_align(
    complex: Side,
    simple: Side,
    similarity,
    threshold: float,
    paragraph_links: Optional[Sequence[ParagraphLink]],
    use_paragraphs: bool,
    paragraph_threshold: float,
    both_directions: bool,
    group: bool,
) -> List[Bead]:
    """Each simple sentence to its most similar complex sentence (word TF-IDF cosine, IDF
    fitted on the pair, unless another similarity is given) if the cosine reaches `threshold`,
    and with `both_directions` each complex sentence to its most similar simple one too, inside
    aligned paragraphs: the given links, else those of tfidf_paragraph_links (unless
    use_paragraphs is False). With `group` the simple sentences sharing a complex sentence form
    a 1:n bead (a simple sentence matched twice keeps its last match); without, each match is
    a 1:1 bead, in the order found."""
    similarity = default_word_tfidf(similarity)
    if not len(complex) or not len(simple):
        return []
    if paragraph_links is None and use_paragraphs:
        paragraph_links = tfidf_paragraph_links(complex, simple, similarity, paragraph_threshold, both_directions)
    scores = pair_scores(similarity, complex.sentences, simple.sentences, complex.lang, simple.lang)
    found = [
        match
        for cs, ss in blocks(complex, simple, paragraph_links)
        for match in best_matches(scores, cs, ss, threshold, both_directions)
    ]
    if not group:
        return [Bead((c,), (s,), clip(score)) for c, s, score in found]
    return group_by_complex({s: (c, score) for c, s, score in found})


# ---------------------------------------------------------------------------------------
# MASSAlign (Paetzold et al., 2017)


def text_similarity(similarity, a: str, b: str) -> float:
    if isinstance(similarity, MassalignTfidf):
        return similarity.similarity(a, b)
    return float(np.asarray(similarity.matrix([a], [b]))[0, 0])


def vicinity_sentence_alignment(
    complex_texts: Sequence[str], simple_texts: Sequence[str], similarity, acceptable_similarity: float, slack: float
) -> List[Tuple[List[int], List[int], float]]:
    """MASSAlign's VicinityDrivenSentenceAligner on one paragraph pair (local indices).

    Walks the vicinity-driven path through the sentence similarity matrix. A step that stays
    in the column of the current alignment proposes an N-1 growth (the next complex sentence
    joins), one that stays in its row a 1-N growth; the growth is kept only if the merged
    sentences are more similar to the other side than the alignment was, otherwise the
    sentence stays unaligned. Any other step starts a new 1-1 alignment."""
    sim = np.asarray(similarity.matrix(list(complex_texts), list(simple_texts)), dtype=np.float64)
    out: List[Tuple[List[int], List[int], float]] = []
    for i, j in vicinity_path(sim, acceptable_similarity, slack):
        if out:
            rows, cols, score = out[-1]
            if cols == [j] and i not in rows:
                merged = text_similarity(similarity, " ".join(complex_texts[r] for r in rows + [i]), simple_texts[j])
                if merged > score:
                    out[-1] = (rows + [i], cols, merged)
                continue
            if rows == [i] and j not in cols:
                merged = text_similarity(similarity, complex_texts[i], " ".join(simple_texts[c] for c in cols + [j]))
                if merged > score:
                    out[-1] = (rows, cols + [j], merged)
                continue
            if i in rows or j in cols:  # a step along a grown alignment: nothing new
                continue
        out.append(([i], [j], float(sim[i, j])))
    return out


def massalign_align(
    complex: Side,
    simple: Side,
    paragraph_links: Optional[Sequence[ParagraphLink]],
    similarity,
    acceptable_similarity: float,
    slack: float,
    paragraph_similarity: float,
    use_paragraphs: bool,
) -> List[Bead]:
    """MASSAlign end to end: paragraphs aligned by the vicinity-driven paragraph aligner
    (unless links are given, or use_paragraphs is False), then the vicinity-driven sentence
    aligner inside each aligned paragraph group, with MASSAlign's TF-IDF model of the pair."""
    if not len(complex) or not len(simple):
        return []
    model = similarity if similarity is not None else massalign_model(complex, simple)
    if paragraph_links is None and use_paragraphs:
        paragraph_links = vicinity_paragraph_alignment(complex, simple, model, paragraph_similarity, slack)
    beads = []
    for cs, ss in blocks(complex, simple, paragraph_links):
        for rows, cols, score in vicinity_sentence_alignment(
            [complex.sentences[i] for i in cs], [simple.sentences[j] for j in ss], model, acceptable_similarity, slack
        ):
            beads.append(Bead(tuple(cs[r] for r in rows), tuple(ss[c] for c in cols), clip(score)))
    return disjoint(beads)


# ---------------------------------------------------------------------------------------
# Registered aligners (core/registries.py): the functions above with their settings, for the
# components and `align --method/--config`.


class LexicalAligner(SentenceAlignerBase):
    """One of the functions above with its settings; `similarity` is primed per batch when it
    is a sentence encoder (a config may give any backend)."""

    def __init__(self, function, similarity=None, **settings):
        self.function, self.similarity, self.settings = function, similarity, settings

    def encoders(self) -> List:
        return [self.similarity] if self.similarity is not None else []

    def align(
        self, complex: Side, simple: Side, paragraph_links: Optional[Sequence[ParagraphLink]] = None
    ) -> List[Bead]:
        return self.function(
            complex, simple, similarity=self.similarity, paragraph_links=paragraph_links, **self.settings
        )


def _massalign(complex, simple, similarity=None, paragraph_links=None, **settings):
    return massalign_align(
        complex,
        simple,
        paragraph_links,
        similarity.for_pair(complex, simple) if similarity is not None else None,
        **settings,
    )


@aligner_registry("spacy-simalign.MASSAlign.v1")
@ranges(acceptable_similarity=COSINE, slack=UNIT, paragraph_similarity=COSINE)
def make_massalign(
    similarity=None,
    acceptable_similarity: float = 0.2,
    slack: float = MASSALIGN_SLACK,
    paragraph_similarity: float = MASSALIGN_PARAGRAPH_ALPHA,
    use_paragraphs: bool = True,
) -> LexicalAligner:
    """MASSAlign (Paetzold et al., 2017): vicinity-driven paragraph then sentence alignment;
    `similarity` default: MASSAlign's TF-IDF model of each pair. acceptable_similarity: that of
    its VicinityDrivenSentenceAligner; paragraph_similarity and slack: those of its paragraph
    aligner (MASSAlignParagraphs.v1's defaults)."""
    return LexicalAligner(
        _massalign,
        similarity,
        acceptable_similarity=acceptable_similarity,
        slack=slack,
        paragraph_similarity=paragraph_similarity,
        use_paragraphs=use_paragraphs,
    )


@aligner_registry("spacy-simalign.CATS.v1")
@ranges(strategy=Choice(("closest", "closest-seq")))
def make_cats(similarity=None, strategy: str = "closest", group: bool = True) -> LexicalAligner:
    """CATS (Štajner et al., 2018): "closest" or "closest-seq" (keeping sequence); default
    similarity C3G; group=false keeps each simple sentence its own 1:1 bead."""
    return LexicalAligner(cats_align, similarity, strategy=strategy, group=group)


class TfidfAligner(LexicalAligner):
    """The TF-IDF aligner; it also gives the paragraph links it aligns inside when none are
    given (the Amsterdam corpus tools count them)."""

    def paragraph_links(self, complex: Side, simple: Side) -> Optional[List[ParagraphLink]]:
        if not self.settings["use_paragraphs"]:
            return None
        return tfidf_paragraph_links(
            complex,
            simple,
            default_word_tfidf(self.similarity),
            self.settings["paragraph_threshold"],
            self.settings["both_directions"],
        )


@aligner_registry("spacy-simalign.Tfidf.v1")
@ranges(threshold=COSINE, paragraph_threshold=COSINE)
def make_tfidf_aligner(
    similarity=None,
    threshold: float = 0.3,
    use_paragraphs: bool = True,
    paragraph_threshold: float = TFIDF_PARAGRAPH_THRESHOLD,
    both_directions: bool = False,
    group: bool = True,
) -> TfidfAligner:
    """Each simple sentence to its most similar complex sentence if the cosine reaches
    `threshold` (0.3: not published with the Amsterdam corpus, a moderate cosine, not tuned),
    inside paragraphs linked by the same similarity (>= paragraph_threshold); default
    similarity word TF-IDF. both_directions = true, group = false: the Amsterdam corpus's
    candidates (every best match of either side, each its own 1:1 bead, as found)."""
    return TfidfAligner(
        tfidf_align,
        similarity,
        threshold=threshold,
        use_paragraphs=use_paragraphs,
        paragraph_threshold=paragraph_threshold,
        both_directions=both_directions,
        group=group,
    )
