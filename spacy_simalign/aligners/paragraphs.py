"""Paragraph alignment between the complex and simple side of a document: Jiang et al.
(2020) Algorithms 1-2 (Newsela) and 3-4 (Wikipedia), MASSAlign's vicinity-driven search
(Paetzold et al., 2017) and a plain TF-IDF best match. Pure functions over Sides; each
returns ParagraphLinks (groups of complex paragraphs aligned to groups of simple ones).

Also home of what the lexical sentence aligners share with the paragraph ones: the
vicinity-driven walk through a similarity matrix (MASSAlign's TF-IDF model is a similarity
backend: similarity.MassalignTfidf)."""

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..core.registries import aligner_registry
from ..core.setting_checks import AT_LEAST_0, COSINE, UNIT, Range, ranges
from ..core.structures import ParagraphLink, Side
from ..similarity.backends import massalign_model
from ..similarity.scores import pair_scores
from .best_match import best_matches

# ---------------------------------------------------------------------------------------
# The vicinity-driven walk (MASSAlign)


def starting_point(sim: np.ndarray, alpha: float, top: int = 0, left: int = 0) -> Optional[Tuple[int, int]]:
    """The first acceptable cell (similarity >= alpha) at or after (top, left), sweeping
    anti-diagonals outward from that corner; on one anti-diagonal the most similar cell."""
    region = sim[top:, left:]
    if not region.size:
        return None
    rows, cols = np.nonzero(region >= alpha)
    if not len(rows):
        return None
    diagonal = rows + cols
    on_first = np.nonzero(diagonal == diagonal.min())[0]
    best = on_first[np.argmax(region[rows[on_first], cols[on_first]])]
    return int(rows[best]) + top, int(cols[best]) + left


def vicinity_path(sim: np.ndarray, alpha: float, slack: float) -> List[Tuple[int, int]]:
    """MASSAlign's path through a similarity matrix (rows: complex, columns: simple).

    From the starting point, each step looks at the first-order vicinity V1 = {(i+1, j+1),
    (i+1, j), (i, j+1)}: its most similar cell is taken if it reaches alpha, but the diagonal
    is preferred when it is within `slack` of that best. Failing V1, the second-order
    vicinity V2 (cells at Chebyshev distance 2 ahead) is searched the same way; failing
    both, the walk jumps to the next acceptable cell below and right of the current one
    (the sentences in between stay unaligned). The path ends when no acceptable cell is left."""
    rows, cols = sim.shape
    if not rows or not cols:
        return []
    start = starting_point(sim, alpha)
    if start is None:
        return []
    path = [start]
    i, j = start
    while True:
        step = None
        for ring in (1, 2):
            cells = [
                (i + a, j + b)
                for a in range(ring + 1)
                for b in range(ring + 1)
                if max(a, b) == ring and i + a < rows and j + b < cols
            ]
            if not cells:
                continue
            best = max(cells, key=lambda c: sim[c])
            if sim[best] >= alpha:
                diag = (i + ring, j + ring)
                if diag in cells and sim[diag] >= alpha and sim[diag] >= sim[best] - slack:
                    best = diag
                step = best
                break
        if step is None:
            step = starting_point(sim, alpha, i + 1, j + 1)
        if step is None:
            break
        path.append(step)
        i, j = step
    return path


def path_groups(path: List[Tuple[int, int]]) -> List[Tuple[List[int], List[int]]]:
    """Cut a path into alignments: consecutive cells in the same column make an N-1 group,
    in the same row a 1-N group; any other move starts a new group."""
    groups: List[Tuple[List[int], List[int]]] = []
    prev = None
    for i, j in path:
        if prev is not None and groups:
            rows, cols = groups[-1]
            if j == prev[1] and i != prev[0] and len(cols) == 1:
                rows.append(i)
                prev = (i, j)
                continue
            if i == prev[0] and j != prev[1] and len(rows) == 1:
                cols.append(j)
                prev = (i, j)
                continue
        groups.append(([i], [j]))
        prev = (i, j)
    return groups


# ---------------------------------------------------------------------------------------
# Grouping paragraph pairs


def group_pairs(
    pairs: Iterable[Tuple[int, int]], scores: Optional[Dict[Tuple[int, int], float]] = None
) -> List[ParagraphLink]:
    """Turn aligned paragraph pairs into links: each simple paragraph with all the complex
    paragraphs aligned to it (an n:1 link when there are several), and neighbouring simple
    paragraphs aligned to the same complex paragraphs merged into one 1:n / n:m link. The
    links cover exactly the given pairs; two links may share a complex paragraph when
    simple paragraphs partly agree (s1 -> {c1}, s2 -> {c1, c2})."""
    by_simple: Dict[int, set] = {}
    for c, s in set(pairs):
        by_simple.setdefault(s, set()).add(c)
    links: List[Tuple[Tuple[int, ...], List[int]]] = []
    for s in sorted(by_simple):
        cs = tuple(sorted(by_simple[s]))
        if links and links[-1][0] == cs and links[-1][1][-1] == s - 1:
            links[-1][1].append(s)
        else:
            links.append((cs, [s]))
    out = []
    for cs, ss in links:
        vals = [scores[(c, s)] for c in cs for s in ss if scores and (c, s) in scores]
        out.append(ParagraphLink(cs, tuple(ss), float(np.mean(vals)) if vals else 1.0))
    return sorted(out, key=lambda link: (link.complex[0], link.simple[0]))


def link_pairs(links: Iterable[ParagraphLink]) -> set:
    """The (complex paragraph, simple paragraph) pairs that a list of links covers."""
    return {(c, s) for link in links for c in link.complex for s in link.simple}


# ---------------------------------------------------------------------------------------
# Jiang et al. (2020), appendix: Algorithms 1-4


def segment_reduce(values: np.ndarray, groups: Sequence[Sequence[int]], ufunc) -> np.ndarray:
    """Reduce the last axis of `values` over each group of indices (non-empty groups):
    out[..., g] = ufunc.reduce(values[..., groups[g]])."""
    order = np.fromiter((i for group in groups for i in group), dtype=np.intp)
    starts = np.cumsum([0] + [len(group) for group in groups[:-1]])
    return ufunc.reduceat(values[..., order], starts, axis=-1)


def _paragraph_blocks(complex: Side, simple: Side, sent: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """From a [complex sentences x simple sentences] matrix, three [complex paragraphs x
    simple paragraphs] ones: avg over the simple sentences of their max into the complex
    paragraph, avg over the complex sentences of their max into the simple paragraph, max."""
    row_max = segment_reduce(sent.T, complex.paragraphs, np.maximum).T  # [complex paras, simple sents]
    col_max = segment_reduce(sent, simple.paragraphs, np.maximum)  # [complex sents, simple paras]
    sizes_s = np.array([len(p) for p in simple.paragraphs], dtype=np.float64)
    sizes_c = np.array([len(p) for p in complex.paragraphs], dtype=np.float64)
    avg_max = segment_reduce(row_max, simple.paragraphs, np.add) / sizes_s
    reverse = (segment_reduce(col_max.T, complex.paragraphs, np.add) / sizes_c).T
    max_sim = segment_reduce(row_max, simple.paragraphs, np.maximum)
    return avg_max, reverse, max_sim


def _sentence_matrix(complex: Side, simple: Side, similarity) -> np.ndarray:
    return np.asarray(
        similarity.matrix(complex.sentences, simple.sentences, complex.lang, simple.lang), dtype=np.float64
    )


def jiang_similarities(complex: Side, simple: Side, similarity) -> Tuple[np.ndarray, np.ndarray]:
    """Algorithm 1: two [complex paragraphs x simple paragraphs] matrices from sentence
    similarities. avg_max[c, s]: over the sentences of simple paragraph s, the average of their
    best similarity with a sentence of complex paragraph c; max_sim[c, s]: the best sentence
    pair similarity between the two paragraphs."""
    n_c, n_s = len(complex.paragraphs), len(simple.paragraphs)
    if not len(complex) or not len(simple):
        return np.zeros((n_c, n_s)), np.zeros((n_c, n_s))
    avg_max, _, max_sim = _paragraph_blocks(complex, simple, _sentence_matrix(complex, simple, similarity))
    return avg_max, max_sim


def relative_distance(c: int, n_c: int, s: int, n_s: int) -> float:
    """d(i, j) = |i/n - j/m|: how far apart two paragraphs are in relative document position."""
    return abs(c / max(n_c, 1) - s / max(n_s, 1))


def best_by_average(
    avg_max: np.ndarray, tau1: float, max_distance: Optional[float] = None
) -> Dict[Tuple[int, int], float]:
    """Each simple paragraph paired with its best complex paragraph by avg-of-max similarity,
    when that exceeds tau1 (and, given max_distance, lies within that relative distance)."""
    n_c, n_s = avg_max.shape
    pairs: Dict[Tuple[int, int], float] = {}
    if not n_c:
        return pairs
    for s in range(n_s):
        best = int(np.argmax(avg_max[:, s]))
        if avg_max[best, s] > tau1 and (max_distance is None or relative_distance(best, n_c, s, n_s) < max_distance):
            pairs[(best, s)] = float(avg_max[best, s])
    return pairs


def jiang_paragraph_alignment(
    complex: Side, simple: Side, similarity, tau1: float, tau2: float, tau3: float, tau4: float, tau5: float
) -> List[ParagraphLink]:
    """Algorithm 2 (Newsela): for each simple paragraph, (a) its best complex paragraph by
    avg-of-max similarity if above tau1 and within relative distance tau2; (b) every complex
    paragraph sharing a sentence pair above tau3; (c) two consecutive complex paragraphs whose
    best sentence pairs are both above tau4 and both within distance tau5 (a split paragraph).
    Pairs sharing a paragraph are then merged into n:m groups."""
    avg_max, max_sim = jiang_similarities(complex, simple, similarity)
    n_c, n_s = avg_max.shape
    pairs = best_by_average(avg_max, tau1, max_distance=tau2)
    for s in range(n_s):
        for c in range(n_c):
            if max_sim[c, s] > tau3:
                pairs[(c, s)] = float(max_sim[c, s])
            if (
                c > 0
                and max_sim[c, s] > tau4
                and max_sim[c - 1, s] > tau4
                and relative_distance(c, n_c, s, n_s) < tau5
                and relative_distance(c - 1, n_c, s, n_s) < tau5
            ):
                pairs[(c, s)] = float(max_sim[c, s])
                pairs[(c - 1, s)] = float(max_sim[c - 1, s])
    return group_pairs(pairs, pairs)


def jiang_wiki_similarities(complex: Side, simple: Side, similarity) -> Tuple[np.ndarray, np.ndarray]:
    """Algorithm 3: as Algorithm 1, but the avg-of-max is symmetrised (the mean of both
    directions) so that a short paragraph inside a long one is not favoured."""
    n_c, n_s = len(complex.paragraphs), len(simple.paragraphs)
    if not len(complex) or not len(simple):
        return np.zeros((n_c, n_s)), np.zeros((n_c, n_s))
    avg_max, reverse, max_sim = _paragraph_blocks(complex, simple, _sentence_matrix(complex, simple, similarity))
    return (avg_max + reverse) / 2.0, max_sim


def jiang_wiki_paragraph_alignment(
    complex: Side, simple: Side, similarity, tau1: float, tau2: float
) -> List[ParagraphLink]:
    """Algorithm 4 (Wikipedia): each simple paragraph to its best complex paragraph by
    (symmetric) avg-of-max similarity if above tau1, wherever it is, plus every complex
    paragraph holding a sentence pair above tau2; then merged into n:m groups. (Wikipedia:
    paragraph order is much less reliable, so no position constraint, and a paragraph may align
    to several non-adjacent paragraphs.)"""
    avg_max, max_sim = jiang_wiki_similarities(complex, simple, similarity)
    pairs = best_by_average(avg_max, tau1)
    pairs.update({(int(c), int(s)): float(max_sim[c, s]) for c, s in np.argwhere(max_sim > tau2)})
    return group_pairs(pairs, pairs)


# ---------------------------------------------------------------------------------------
# MASSAlign (Paetzold et al., 2017) and a plain TF-IDF best match

# settings that two registered aligners share (MASSAlign's sentence aligner runs the paragraph
# one first; the TF-IDF sentence aligner, the TF-IDF paragraph one): written once, here
MASSALIGN_PARAGRAPH_ALPHA = 0.3  # acceptable similarity of the massalign README's paragraph aligner
MASSALIGN_SLACK = 0.05
TFIDF_PARAGRAPH_THRESHOLD = 0.2


def paragraph_matrix(complex: Side, simple: Side, similarity=None) -> np.ndarray:
    """[complex paragraphs x simple paragraphs] similarity of the joined paragraph texts;
    with no backend, MASSAlign's TF-IDF model of the pair."""
    if similarity is None:
        similarity = massalign_model(complex, simple)
    return np.asarray(
        similarity.matrix(complex.paragraph_texts(), simple.paragraph_texts(), complex.lang, simple.lang),
        dtype=np.float64,
    )


def vicinity_paragraph_alignment(
    complex: Side, simple: Side, similarity, acceptable_similarity: float, slack: float
) -> List[ParagraphLink]:
    """MASSAlign's VicinityDrivenParagraphAligner: the vicinity-driven path through the
    paragraph similarity matrix, cut into 1:1, 1:N and N:1 paragraph alignments; `similarity`
    None: MASSAlign's TF-IDF model of the pair."""
    sim = paragraph_matrix(complex, simple, similarity)
    if not sim.size:
        return []
    links = []
    for rows, cols in path_groups(vicinity_path(sim, acceptable_similarity, slack)):
        score = float(np.mean([sim[r, c] for r in rows for c in cols]))
        links.append(ParagraphLink(tuple(rows), tuple(cols), min(max(score, 0.0), 1.0)))
    return links


def tfidf_paragraph_alignment(complex: Side, simple: Side, similarity, threshold: float) -> List[ParagraphLink]:
    """Each simple paragraph to its most similar complex paragraph (cosine of the joined texts)
    if at least `threshold`; pairs sharing a paragraph are merged. The similarities are read in
    blocks (best_match.py): the memory of one block, however many paragraphs."""
    similarity = default_word_tfidf(similarity)
    texts = complex.paragraph_texts(), simple.paragraph_texts()
    scores = pair_scores(similarity, *texts, complex.lang, simple.lang)
    found = best_matches(scores, range(len(texts[0])), range(len(texts[1])), threshold, False, np.float64)
    pairs = {(c, s): score for c, s, score in found}
    return group_pairs(pairs, pairs)


# ---------------------------------------------------------------------------------------
# Registered paragraph aligners (core/registries.py), for simalign_paragraph_aligner


class ParagraphFunction:
    """One of the paragraph functions above with its similarity and thresholds."""

    def __init__(self, function, similarity=None, **settings):
        self.function, self.similarity, self.settings = function, similarity, settings

    def align_paragraphs(self, complex: Side, simple: Side) -> List[ParagraphLink]:
        similarity = self.similarity.for_pair(complex, simple) if self.similarity is not None else None
        return self.function(complex, simple, similarity, **self.settings)


def default_word_tfidf(similarity):
    """`similarity`, or word TF-IDF when it is None (the default of the TF-IDF and Jiang aligners)."""
    if similarity is not None:
        return similarity
    from ..similarity.backends import TfidfSimilarity

    return TfidfSimilarity("word", 1)


# a similarity threshold of a rule: above 1 no similarity reaches it, and the rule is off
RULE_THRESHOLD = Range(-1)


@aligner_registry("spacy-simalign.JiangParagraphs.v1")
@ranges(tau1=COSINE, tau2=AT_LEAST_0, tau3=RULE_THRESHOLD, tau4=RULE_THRESHOLD, tau5=AT_LEAST_0)
def make_jiang_paragraphs(
    similarity=None, tau1: float = 0.1, tau2: float = 0.35, tau3: float = 0.9, tau4: float = 0.5, tau5: float = 0.2
) -> ParagraphFunction:
    """Jiang et al. (2020) Algorithms 1+2 (Newsela); default similarity word TF-IDF. The
    thresholds are those of the paper's appendix (for its fine-tuned BERT similarity in [0, 1]):
    tau1, the avg-of-max similarity a simple paragraph's best complex paragraph must exceed while
    lying within relative distance tau2; tau3, a sentence pair this similar aligns any paragraph
    pair; two consecutive complex paragraphs both holding a sentence more similar than tau4 and
    both within distance tau5 are aligned to the simple one (1:2). A distance of 1 or more sets no
    limit; tau3 or tau4 above 1 (no similarity reaches it) switches its rule off."""
    return ParagraphFunction(
        jiang_paragraph_alignment, default_word_tfidf(similarity), tau1=tau1, tau2=tau2, tau3=tau3, tau4=tau4, tau5=tau5
    )


@aligner_registry("spacy-simalign.JiangWikiParagraphs.v1")
@ranges(tau1=COSINE, tau2=COSINE)
def make_jiang_wiki_paragraphs(similarity=None, tau1: float = 0.1, tau2: float = 0.8) -> ParagraphFunction:
    """Jiang et al. (2020) Algorithms 3+4 (Wikipedia); default similarity word TF-IDF. tau1: the
    avg-of-max similarity of the best complex paragraph; tau2: the sentence-pair similarity that
    aligns any paragraph pair."""
    return ParagraphFunction(jiang_wiki_paragraph_alignment, default_word_tfidf(similarity), tau1=tau1, tau2=tau2)


@aligner_registry("spacy-simalign.MASSAlignParagraphs.v1")
@ranges(acceptable_similarity=COSINE, slack=UNIT)
def make_massalign_paragraphs(
    similarity=None, acceptable_similarity: float = MASSALIGN_PARAGRAPH_ALPHA, slack: float = MASSALIGN_SLACK
) -> ParagraphFunction:
    """MASSAlign's vicinity-driven paragraph aligner; default similarity its TF-IDF model of the pair."""
    return ParagraphFunction(
        vicinity_paragraph_alignment, similarity, acceptable_similarity=acceptable_similarity, slack=slack
    )


@aligner_registry("spacy-simalign.TfidfParagraphs.v1")
@ranges(threshold=COSINE)
def make_tfidf_paragraphs(similarity=None, threshold: float = TFIDF_PARAGRAPH_THRESHOLD) -> ParagraphFunction:
    """Each simple paragraph to its most similar complex paragraph (>= threshold); default word TF-IDF."""
    return ParagraphFunction(tfidf_paragraph_alignment, default_word_tfidf(similarity), threshold=threshold)
