"""Features of candidate sentence pairs for the CRF aligner, built to transfer across
languages and domains: embedding cosine and its margins to the best rival, character
3-gram and word TF-IDF cosine (zeroed, with a flag, when the two sides are in different
languages), length ratio, relative position, paragraph agreement and exact identity.

Each sentence is encoded once; lexical similarities are computed on candidate pairs only,
so the cost beyond the encoder grows linearly with the number of sentences."""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from ...core.structures import Side
from .candidate_labels import candidate_sets, matmul_t
from .tfidf import PairProducts, _tfidf_cells, cosines

FEATURE_NAMES = (
    "cos",
    "cos_gap_row",
    "cos_gap_col",
    "cos_rank",
    "c3g",
    "c3g_gap_row",
    "word",
    "word_gap_row",
    "log_len_ratio",
    "pos_diff",
    "para_cos",
    "para_link",
    "identical",
    "direction",
    "cross_lingual",
    "share_src",
    "share_tgt",
)
NULL_FEATURE_NAMES = (
    "best_cos",
    "second_gap",
    "best_c3g",
    "best_word",
    "log_len",
    "direction",
    "cross_lingual",
    "bias",
)
N_FEATURES = len(FEATURE_NAMES)
FEATURE_INDEX = {name: k for k, name in enumerate(FEATURE_NAMES)}
N_NULL_FEATURES = len(NULL_FEATURE_NAMES)
LEXICAL_FEATURES = [
    FEATURE_NAMES.index(n)
    for n in ("c3g", "c3g_gap_row", "word", "word_gap_row", "identical", "share_src", "share_tgt")
]
NULL_LEXICAL = [NULL_FEATURE_NAMES.index(n) for n in ("best_c3g", "best_word")]


@dataclass
class DirectionInput:
    """One direction of a pair: each source sentence i chooses among the target sentences
    `cand[i]` (-1 = padding) or none. Slot 0 of a label row is "unaligned"."""

    cand: np.ndarray  # [n, K] int64, target indices, -1 where padded
    feats: np.ndarray  # [n, K, N_FEATURES] float32
    null_feats: np.ndarray  # [n, N_NULL_FEATURES] float32
    n_target: int
    src_texts: List[str] = field(default_factory=list, repr=False)
    tgt_texts: List[str] = field(default_factory=list, repr=False)
    src_is_complex: bool = False
    gold: Optional[np.ndarray] = None  # [n, K+1] bool: labels consistent with the gold

    def __len__(self) -> int:
        return int(self.cand.shape[0])

    @property
    def mask(self) -> np.ndarray:
        """[n, K+1] bool: which label slots exist (slot 0, unaligned, always does)."""
        ones = np.ones((self.cand.shape[0], 1), dtype=bool)
        return np.concatenate([ones, self.cand >= 0], axis=1)

    def without_lexical(self) -> "DirectionInput":
        """The same input as if the sides were in two languages (for training the cross-lingual mode)."""
        feats, null = self.feats.copy(), self.null_feats.copy()
        feats[..., LEXICAL_FEATURES] = 0.0
        feats[..., FEATURE_NAMES.index("cross_lingual")] = 1.0
        null[:, NULL_LEXICAL] = 0.0
        null[:, NULL_FEATURE_NAMES.index("cross_lingual")] = 1.0
        return DirectionInput(
            self.cand,
            feats,
            null,
            self.n_target,
            self.src_texts,
            self.tgt_texts,
            self.src_is_complex,
            self.gold,
        )


@dataclass
class PairInput:
    """Both directions of a pair: simple->complex (splits) and complex->simple (merges)."""

    s2c: DirectionInput
    c2s: DirectionInput
    n_complex: int
    n_simple: int
    langs: Tuple[str, str]  # of the (complex, simple) side

    @property
    def cross_lingual(self) -> bool:
        """Whether the sides are in two languages (lexical features off)."""
        null = self.s2c.null_feats
        return bool(len(null)) and bool(null[0, NULL_FEATURE_NAMES.index("cross_lingual")] > 0)

    def sentence_lengths(self) -> Tuple[np.ndarray, np.ndarray]:
        """Characters of each (complex, simple) sentence."""
        return (
            np.array([len(t) for t in self.s2c.tgt_texts], dtype=np.float64),
            np.array([len(t) for t in self.s2c.src_texts], dtype=np.float64),
        )


def _paragraph_embeddings(emb: np.ndarray, paragraph: np.ndarray, count: int) -> np.ndarray:
    """Normalised mean sentence embedding of each of `count` paragraphs (`paragraph`: each
    sentence's; a paragraph without sentences is zero): a product with the paragraph x sentence
    membership matrix while that is small, else sums group by group (memory stays linear)."""
    if count * len(paragraph) <= 65536:
        member = np.zeros((count, len(paragraph)), dtype=np.float32)
        member[paragraph, np.arange(len(paragraph))] = 1.0
        out = member @ emb
    else:
        out = np.zeros((count, emb.shape[1]), dtype=np.float32)
        order = np.argsort(paragraph, kind="stable")
        grouped = paragraph[order]
        starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
        out[grouped[starts]] = np.add.reduceat(emb[order], starts, axis=0)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


@dataclass
class _Lexical:
    """A pair's lexical products (same-language pairs only)."""

    word: PairProducts
    c3g: PairProducts
    incidence: PairProducts  # word incidence: products count shared words, row sums count words


@dataclass
class _SideData:
    """What both directions need of one side, computed once: embeddings, paragraph of each
    sentence, an id per normalised text (equal ids: identical sentences), lengths."""

    side: Side
    emb: np.ndarray
    paragraph: np.ndarray
    n_paragraphs: int
    text_id: np.ndarray
    length: np.ndarray  # characters + 1

    @classmethod
    def of(cls, side: Side, emb: np.ndarray, ids: Dict[str, int]) -> "_SideData":
        paragraph = np.asarray(side.paragraph_of(), dtype=np.int64)
        text_id = np.fromiter(
            (ids.setdefault(" ".join(t.split()).lower(), len(ids)) for t in side.sentences),
            dtype=np.int64,
            count=len(side),
        )
        length = np.fromiter((len(t) + 1 for t in side.sentences), dtype=np.float32, count=len(side))
        return cls(side, emb, paragraph, len(side.paragraphs) or 1, text_id, length)

    def __len__(self) -> int:
        return len(self.length)


class PairFeaturizer:
    """Turns a (complex, simple) pair of Sides into the CRF's inputs for both directions."""

    def __init__(
        self,
        encoder,
        top_k: int = 6,
        top_k_lexical: int = 4,
        band: int = 3,
        neighbours: int = 2,
        chunk: int = 512,
    ):
        self.encoder = encoder
        self.top_k, self.top_k_lexical, self.band, self.chunk = top_k, top_k_lexical, band, chunk
        self.neighbours = neighbours
        self.n_features = N_FEATURES

    def embed(self, side: Side) -> np.ndarray:
        if not len(side):
            return np.zeros((0, getattr(self.encoder, "dim", 512)), dtype=np.float32)
        return np.asarray(self.encoder.encode(side.sentences, side.lang), dtype=np.float32)

    def __call__(
        self,
        complex_side: Side,
        simple_side: Side,
        paragraph_links: Optional[Sequence[Tuple[Sequence[int], Sequence[int]]]] = None,
        gold_links: Optional[Set[Tuple[int, int]]] = None,
        embeddings: Optional[Tuple[np.ndarray, np.ndarray]] = None,
    ) -> PairInput:
        """Both directions' inputs (numpy throughout: no torch thread pool to wake for small products)."""
        ec, es = embeddings if embeddings is not None else (self.embed(complex_side), self.embed(simple_side))
        return self._pair(ec, es, complex_side, simple_side, paragraph_links, gold_links)

    def _pair(self, ec, es, complex_side: Side, simple_side: Side, paragraph_links, gold_links) -> PairInput:
        cross = complex_side.lang != simple_side.lang
        nc, ns = len(complex_side), len(simple_side)
        ids: Dict[str, int] = {}
        cdata, sdata = _SideData.of(complex_side, ec, ids), _SideData.of(simple_side, es, ids)
        texts = list(complex_side.sentences) + list(simple_side.sentences)
        lexical = None
        if not cross and texts:  # word and 3-gram TF-IDF products, and word incidence
            word_cells = _tfidf_cells(texts, "word")
            lexical = _Lexical(
                PairProducts(word_cells, nc, len(texts)),
                PairProducts(_tfidf_cells(texts, "char"), nc, len(texts)),
                PairProducts(word_cells, nc, len(texts), binary=True),
            )
        # paragraph agreement: own cheap paragraph similarity, or the links given by the caller
        pc = _paragraph_embeddings(ec, cdata.paragraph, cdata.n_paragraphs)
        ps = _paragraph_embeddings(es, sdata.paragraph, sdata.n_paragraphs)
        para_sim = matmul_t(ps, pc)
        linked = np.zeros_like(para_sim, dtype=bool)
        if paragraph_links is not None:
            for cps, sps in paragraph_links:
                for a in cps:
                    for b in sps:
                        if b < linked.shape[0] and a < linked.shape[1]:
                            linked[b, a] = True
        elif para_sim.size:
            linked[np.arange(len(ps)), para_sim.argmax(axis=1)] = True
            linked[para_sim.argmax(axis=0), np.arange(len(pc))] = True
        force_s2c: Optional[Dict[int, Set[int]]] = None
        force_c2s: Optional[Dict[int, Set[int]]] = None
        if gold_links is not None:  # training: the gold labels must be reachable
            force_s2c, force_c2s = {}, {}
            for c, s in gold_links:
                force_s2c.setdefault(s, set()).add(c)
                force_c2s.setdefault(c, set()).add(s)
        s2c = self._direction(sdata, cdata, para_sim, linked, False, cross, lexical, force_s2c)
        c2s = self._direction(cdata, sdata, para_sim.T, linked.T, True, cross, lexical, force_c2s)
        if gold_links is not None:
            s2c.gold = gold_mask(s2c.cand, [(s, c) for c, s in gold_links])
            c2s.gold = gold_mask(c2s.cand, list(gold_links))
        return PairInput(s2c, c2s, nc, ns, (complex_side.lang, simple_side.lang))

    def _direction(
        self,
        src: _SideData,
        tgt: _SideData,
        para_sim,
        linked,
        src_is_complex: bool,
        cross: bool,
        lexical: Optional["_Lexical"],
        force=None,
    ) -> DirectionInput:
        n, m = len(src), len(tgt)
        direction = float(src_is_complex)
        texts = (list(src.side.sentences), list(tgt.side.sentences))
        if n == 0 or m == 0:
            zeros = np.zeros(n, dtype=np.float32)
            null = self._null(src, zeros, zeros, zeros, zeros, direction, cross)
            return DirectionInput(
                np.full((n, 0), -1, dtype=np.int64),
                np.zeros((n, 0, self.n_features), dtype=np.float32),
                null,
                m,
                *texts,
                src_is_complex,
            )
        word_rows = None
        if lexical is not None and lexical.word.has_rows:

            def word_rows(start, stop):
                return lexical.word.matrix(start, stop, src_is_complex)

        cands = candidate_sets(
            src.emb,
            tgt.emb,
            word_rows,
            top_k=self.top_k,
            top_k_lexical=self.top_k_lexical,
            band=self.band,
            neighbours=self.neighbours,
            chunk=self.chunk,
            force=force,
        )
        cand, row_max, row_second, col_max = cands.cand, cands.row_max, cands.row_second, cands.col_max
        rows, ks = np.nonzero(cand >= 0)
        cols = cand[rows, ks]
        cos = cands.cos[rows, ks]
        f = np.zeros((n, cand.shape[1], self.n_features), dtype=np.float32)

        def put(name, values):
            f[rows, ks, FEATURE_INDEX[name]] = values

        def row_gap(values):
            best = np.full(n, -np.inf, dtype=np.float32)
            np.maximum.at(best, rows, values)
            return values - best[rows], np.where(np.isfinite(best), best, 0.0)

        put("cos", cos)
        put("cos_gap_row", cos - row_max[rows])
        put("cos_gap_col", cos - col_max[cols])
        cos_mat = np.full(cand.shape, -np.inf, dtype=np.float32)
        cos_mat[rows, ks] = cos
        order = np.argsort(-cos_mat, axis=1, kind="stable")
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(cand.shape[1])[None, :].repeat(n, 0), axis=1)
        put("cos_rank", 1.0 / (1.0 + rank[rows, ks]))
        best_c3g = best_word = np.zeros(n, dtype=np.float32)
        if lexical is not None:
            sc = cosines(lexical.c3g.pairs(rows, cols, src_is_complex))
            sw = cosines(lexical.word.pairs(rows, cols, src_is_complex))
            gap_c, best_c3g = row_gap(sc)
            gap_w, best_word = row_gap(sw)
            put("c3g", sc)
            put("c3g_gap_row", gap_c)
            put("word", sw)
            put("word_gap_row", gap_w)
            common_words = lexical.incidence.pairs(rows, cols, src_is_complex)
            src_words, tgt_words = (np.maximum(v, 1.0) for v in lexical.incidence.side_sums(src_is_complex))
            put("share_src", common_words / src_words[rows])
            put("share_tgt", common_words / tgt_words[cols])
            put("identical", (src.text_id[rows] == tgt.text_id[cols]).astype(np.float32))
        put("log_len_ratio", np.clip(np.log(src.length[rows] / tgt.length[cols]), -3, 3))
        pos_src = (np.arange(n) + 0.5) / n
        pos_tgt = (np.arange(m) + 0.5) / m
        put("pos_diff", np.abs(pos_src[rows] - pos_tgt[cols]))
        put("para_cos", para_sim[src.paragraph[rows], tgt.paragraph[cols]])
        put("para_link", linked[src.paragraph[rows], tgt.paragraph[cols]].astype(np.float32))
        put("direction", direction)
        put("cross_lingual", float(cross))
        null = self._null(src, row_max, row_second, best_c3g, best_word, direction, cross)
        return DirectionInput(cand.astype(np.int64, copy=False), f, null, m, *texts, src_is_complex)

    @staticmethod
    def _null(src: _SideData, row_max, row_second, best_c3g, best_word, direction, cross) -> np.ndarray:
        g = np.zeros((len(src), N_NULL_FEATURES), dtype=np.float32)
        g[:, 0] = row_max
        g[:, 1] = row_max - row_second
        g[:, 2] = best_c3g
        g[:, 3] = best_word
        g[:, 4] = np.log(src.length) / 5.0
        g[:, 5] = direction
        g[:, 6] = float(cross)
        g[:, 7] = 1.0
        return g


def gold_mask(cand: np.ndarray, links: Sequence[Tuple[int, int]]) -> np.ndarray:
    """[n, K+1] bool: the labels that agree with gold links (src, tgt); unaligned if none."""
    n = cand.shape[0]
    targets: Dict[int, Set[int]] = {}
    for s, t in links:
        if s < n:
            targets.setdefault(s, set()).add(t)
    mask = np.zeros((n, cand.shape[1] + 1), dtype=bool)
    for i in range(n):
        want = targets.get(i)
        if not want:
            mask[i, 0] = True
            continue
        for t in want:
            hit = np.flatnonzero(cand[i] == t)
            if len(hit):
                mask[i, int(hit[0]) + 1] = True
    return mask
