"""Features of candidate sentence pairs for the CRF aligner, built to transfer across
languages and domains: embedding cosine and its margins to the best rival, character
3-gram and word TF-IDF cosine (zeroed, with a flag, when the two sides are in different
languages), length ratio, relative position, paragraph agreement and exact identity.

Each sentence is encoded once; lexical similarities are computed on candidate pairs only,
so the cost beyond the encoder grows linearly with the number of sentences."""
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np
import torch

from ..similarity import words
from ..structures import Side
from .candidates import candidate_sets, matmul_t, pair_cosines

FEATURE_NAMES = (
    "cos", "cos_gap_row", "cos_gap_col", "cos_rank", "c3g", "c3g_gap_row", "word", "word_gap_row",
    "log_len_ratio", "pos_diff", "para_cos", "para_link", "identical", "direction", "cross_lingual",
    "share_src", "share_tgt",
)
NULL_FEATURE_NAMES = (
    "best_cos", "second_gap", "best_c3g", "best_word", "log_len", "direction", "cross_lingual", "bias",
)
N_FEATURES = len(FEATURE_NAMES)
N_NULL_FEATURES = len(NULL_FEATURE_NAMES)
LEXICAL = [FEATURE_NAMES.index(n) for n in ("c3g", "c3g_gap_row", "word", "word_gap_row", "identical",
                                            "share_src", "share_tgt")]
NULL_LEXICAL = [NULL_FEATURE_NAMES.index(n) for n in ("best_c3g", "best_word")]


@dataclass
class DirectionInput:
    """One direction of a pair: each source sentence i chooses among the target sentences
    `cand[i]` (-1 = padding) or none. Slot 0 of a label row is "unaligned"."""

    cand: torch.Tensor            # [n, K] long, target indices, -1 where padded
    feats: torch.Tensor           # [n, K, N_FEATURES]
    null_feats: torch.Tensor      # [n, N_NULL_FEATURES]
    n_target: int
    src_texts: List[str] = field(default_factory=list, repr=False)
    tgt_texts: List[str] = field(default_factory=list, repr=False)
    src_is_complex: bool = False
    gold: Optional[torch.Tensor] = None  # [n, K+1] bool: labels consistent with the gold

    def __len__(self) -> int:
        return int(self.cand.shape[0])

    @property
    def mask(self) -> torch.Tensor:
        """[n, K+1] bool: which label slots exist (slot 0, unaligned, always does)."""
        ones = torch.ones(self.cand.shape[0], 1, dtype=torch.bool)
        return torch.cat([ones, self.cand >= 0], dim=1)

    def without_lexical(self) -> "DirectionInput":
        """The same input as if the sides were in two languages (for training the cross-lingual mode)."""
        feats, null = self.feats.clone(), self.null_feats.clone()
        feats[..., LEXICAL] = 0.0
        feats[..., FEATURE_NAMES.index("cross_lingual")] = 1.0
        null[:, NULL_LEXICAL] = 0.0
        null[:, NULL_FEATURE_NAMES.index("cross_lingual")] = 1.0
        return DirectionInput(self.cand, feats, null, self.n_target, self.src_texts, self.tgt_texts,
                              self.src_is_complex, self.gold)


@dataclass
class PairInput:
    """Both directions of a pair: simple->complex (splits) and complex->simple (merges)."""

    s2c: DirectionInput
    c2s: DirectionInput
    n_complex: int
    n_simple: int


_SPACES = re.compile(r"\s\s+")


def _char3(text: str) -> List[str]:
    text = _SPACES.sub(" ", text.lower())
    return [text[i:i + 3] for i in range(len(text) - 2)]


def _tfidf(texts: Sequence[str], analyzer: str):
    """L2-normalised TF-IDF rows (scipy CSR) fitted on the texts of this pair, or None: raw
    counts times smoothed IDF, as scikit-learn's TfidfVectorizer computes them, without its
    per-call overhead (which matters on many small documents)."""
    from scipy.sparse import csr_matrix

    tokenize = words if analyzer == "word" else _char3
    vocab: Dict[str, int] = {}
    indices: List[int] = []
    data: List[int] = []
    indptr = [0]
    for text in texts:
        for token, count in Counter(tokenize(text)).items():
            indices.append(vocab.setdefault(token, len(vocab)))
            data.append(count)
        indptr.append(len(indices))
    if not vocab:
        return None
    idx = np.asarray(indices, dtype=np.int64)
    df = np.bincount(idx, minlength=len(vocab))
    idf = np.log((1.0 + len(texts)) / (1.0 + df)) + 1.0
    values = np.asarray(data, dtype=np.float64) * idf[idx]
    x = csr_matrix((values, idx, np.asarray(indptr, dtype=np.int64)), shape=(len(texts), len(vocab)))
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    x.data /= np.repeat(np.maximum(norms, 1e-12), np.diff(x.indptr))
    return x


def _pair_dots(x, rows: np.ndarray, cols: np.ndarray, offset: int) -> np.ndarray:
    """Cosines of row `rows[p]` and row `offset + cols[p]` of a normalised sparse matrix, for each p."""
    if x is None or not len(rows):
        return np.zeros(len(rows), dtype=np.float32)
    out = np.asarray(x[rows].multiply(x[cols + offset]).sum(axis=1)).ravel()
    return np.clip(out, 0.0, 1.0).astype(np.float32)


def _paragraph_embeddings(emb: np.ndarray, side: Side) -> np.ndarray:
    """Mean sentence embedding of each paragraph (a side without paragraphs is one paragraph)."""
    paragraphs = side.paragraphs or [list(range(len(side)))]
    out = np.stack([emb[idx].mean(axis=0) if len(idx) else np.zeros(emb.shape[1], dtype=np.float32)
                    for idx in paragraphs])
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


class PairFeaturizer:
    """Turns a (complex, simple) pair of Sides into the CRF's inputs for both directions."""

    def __init__(self, encoder, top_k: int = 6, top_k_lexical: int = 4, band: int = 3, neighbours: int = 2,
                 chunk: int = 512):
        self.encoder = encoder
        self.top_k, self.top_k_lexical, self.band, self.chunk = top_k, top_k_lexical, band, chunk
        self.neighbours = neighbours

    def embed(self, side: Side) -> np.ndarray:
        if not len(side):
            return np.zeros((0, getattr(self.encoder, "dim", 512)), dtype=np.float32)
        return np.asarray(self.encoder.encode(side.sentences, side.lang), dtype=np.float32)

    def __call__(self, complex_side: Side, simple_side: Side,
                 paragraph_links: Optional[Sequence[Tuple[Sequence[int], Sequence[int]]]] = None,
                 gold_links: Optional[Set[Tuple[int, int]]] = None,
                 embeddings: Optional[Tuple[np.ndarray, np.ndarray]] = None) -> PairInput:
        ec, es = embeddings if embeddings is not None else (self.embed(complex_side), self.embed(simple_side))
        cross = complex_side.lang != simple_side.lang
        nc, ns = len(complex_side), len(simple_side)
        texts = list(complex_side.sentences) + list(simple_side.sentences)
        word = c3g = None
        if not cross and texts:
            word, c3g = _tfidf(texts, "word"), _tfidf(texts, "char")
        # paragraph agreement: own cheap paragraph similarity, or the links given by the caller
        pc, ps = _paragraph_embeddings(ec, complex_side), _paragraph_embeddings(es, simple_side)
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
        para_c, para_s = complex_side.paragraph_of(), simple_side.paragraph_of()
        norm_c = [_norm(t) for t in complex_side.sentences]
        norm_s = [_norm(t) for t in simple_side.sentences]
        common = dict(cross=cross, word=word, c3g=c3g, nc=nc)
        if word is not None:  # word incidence, for the share of words the two sentences have in common
            binary = word.copy()
            binary.data[:] = 1.0
            common["binary"] = (binary, np.maximum(np.asarray(binary.sum(axis=1)).ravel(), 1.0))
        force_s2c = force_c2s = None
        if gold_links is not None:  # training: the gold labels must be reachable
            force_s2c, force_c2s = {}, {}
            for c, s in gold_links:
                force_s2c.setdefault(s, set()).add(c)
                force_c2s.setdefault(c, set()).add(s)
        s2c = self._direction(es, ec, simple_side, complex_side, para_s, para_c, para_sim, linked, norm_s, norm_c,
                              src_offset=nc, tgt_offset=0, direction=0.0, force=force_s2c, **common)
        c2s = self._direction(ec, es, complex_side, simple_side, para_c, para_s, para_sim.T, linked.T, norm_c, norm_s,
                              src_offset=0, tgt_offset=nc, direction=1.0, force=force_c2s, **common)
        if gold_links is not None:
            s2c.gold = gold_mask(s2c.cand, [(s, c) for c, s in gold_links])
            c2s.gold = gold_mask(c2s.cand, list(gold_links))
        return PairInput(s2c, c2s, nc, ns)

    def _direction(self, e_src, e_tgt, src: Side, tgt: Side, para_src, para_tgt, para_sim, linked, norm_src, norm_tgt,
                   src_offset, tgt_offset, direction, cross, word, c3g, nc, force=None, binary=None) -> DirectionInput:
        n, m = len(src), len(tgt)
        if n == 0 or m == 0:
            zeros = np.zeros(n, dtype=np.float32)
            null = self._null(n, zeros, zeros, zeros, zeros, src, direction, cross)
            return DirectionInput(torch.full((n, 0), -1, dtype=torch.long), torch.zeros(n, 0, N_FEATURES), null,
                                  m, list(src.sentences), list(tgt.sentences), direction == 1.0)
        cands = candidate_sets(e_src, e_tgt, None if cross else word, src_offset, tgt_offset,
                               top_k=self.top_k, top_k_lexical=self.top_k_lexical, band=self.band,
                               neighbours=self.neighbours, chunk=self.chunk,
                               force=force)
        cand, row_max, row_second, col_max = cands.cand, cands.row_max, cands.row_second, cands.col_max
        valid = cand >= 0
        rows, ks = np.nonzero(valid)
        cols = cand[rows, ks]
        cos = pair_cosines(e_src, e_tgt, rows, cols)
        f = np.zeros((n, cand.shape[1], N_FEATURES), dtype=np.float32)

        def put(name, values):
            f[rows, ks, FEATURE_NAMES.index(name)] = values

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
        if not cross:
            sc = _pair_dots(c3g, rows + src_offset, cols, tgt_offset)
            sw = _pair_dots(word, rows + src_offset, cols, tgt_offset)
            gap_c, best_c3g = row_gap(sc)
            gap_w, best_word = row_gap(sw)
            put("c3g", sc)
            put("c3g_gap_row", gap_c)
            put("word", sw)
            put("word_gap_row", gap_w)
            if binary is not None:
                inc, counts = binary
                shared = np.asarray(inc[rows + src_offset].multiply(inc[cols + tgt_offset]).sum(axis=1)).ravel()
                put("share_src", shared / counts[rows + src_offset])
                put("share_tgt", shared / counts[cols + tgt_offset])
            put("identical", np.array([norm_src[i] == norm_tgt[j] for i, j in zip(rows, cols)], dtype=np.float32))
        len_src = np.array([len(t) + 1 for t in src.sentences], dtype=np.float32)
        len_tgt = np.array([len(t) + 1 for t in tgt.sentences], dtype=np.float32)
        put("log_len_ratio", np.clip(np.log(len_src[rows] / len_tgt[cols]), -3, 3))
        pos_src = (np.arange(n) + 0.5) / n
        pos_tgt = (np.arange(m) + 0.5) / m
        put("pos_diff", np.abs(pos_src[rows] - pos_tgt[cols]))
        psrc, ptgt = np.asarray(para_src), np.asarray(para_tgt)
        put("para_cos", para_sim[psrc[rows], ptgt[cols]])
        put("para_link", linked[psrc[rows], ptgt[cols]].astype(np.float32))
        put("direction", direction)
        put("cross_lingual", float(cross))
        null = self._null(n, row_max, row_second, best_c3g, best_word, src, direction, cross)
        return DirectionInput(torch.from_numpy(cand).long(), torch.from_numpy(f), null, m,
                              list(src.sentences), list(tgt.sentences), direction == 1.0)

    @staticmethod
    def _null(n, row_max, row_second, best_c3g, best_word, src: Side, direction, cross) -> torch.Tensor:
        g = np.zeros((n, N_NULL_FEATURES), dtype=np.float32)
        g[:, 0] = row_max
        g[:, 1] = row_max - row_second
        g[:, 2] = best_c3g
        g[:, 3] = best_word
        g[:, 4] = [math.log(len(t) + 1) / 5.0 for t in src.sentences]
        g[:, 5] = direction
        g[:, 6] = float(cross)
        g[:, 7] = 1.0
        return torch.from_numpy(g)


def gold_mask(cand: torch.Tensor, links: Sequence[Tuple[int, int]]) -> torch.Tensor:
    """[n, K+1] bool: the labels that agree with gold links (src, tgt); unaligned if none."""
    n = cand.shape[0]
    targets = {}
    for s, t in links:
        if s < n:
            targets.setdefault(s, set()).add(t)
    mask = torch.zeros(n, cand.shape[1] + 1, dtype=torch.bool)
    for i in range(n):
        want = targets.get(i)
        if not want:
            mask[i, 0] = True
            continue
        for t in want:
            hit = (cand[i] == t).nonzero()
            if len(hit):
                mask[i, int(hit[0]) + 1] = True
    return mask
