"""The CRF features' own TF-IDF over the sentences of one pair (word and character 3-gram),
counted with numpy instead of a Counter per sentence, and the cosines of candidate pairs:
read off one dense complex x simple product on small pairs (most documents), gathered from
sparse rows on large ones so that memory stays linear."""

import re
from typing import Optional, Sequence, Tuple

import numpy as np

from ...core.text_limits import capped

_SPACES = re.compile(r"\s\s+")
_WORD_OR_NUL = re.compile(r"\w+|\x00")  # the word tokens of tokens.words, and the NUL between texts
DENSE_CELLS = 4_000_000  # sentences x vocabulary cells (32 MB) up to which a pair's rows are made dense


def _joined(texts: Sequence[str]) -> str:
    """The texts lower-cased and joined by NUL (a NUL inside a text becomes a space): one call
    of each string method for the whole pair instead of one per sentence. Each text counts with
    its first limits.MAX_TEXT_CHARS characters, so that one huge sentence costs bounded memory."""
    texts = [capped(t) for t in texts]
    joined = "\x00".join(texts)
    if joined.count("\x00") != max(len(texts) - 1, 0):
        joined = "\x00".join(t.replace("\x00", " ") for t in texts)
    return joined.lower()


def _char3_ids(texts: Sequence[str]):
    """(sentence of each 3-gram, 3-gram code) for all texts: code points packed into one int64."""
    low = _SPACES.sub(" ", _joined(texts))  # white space runs never span the NUL between two texts
    codes = np.frombuffer(low.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
    if len(codes) < 3:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    text = codes != 0
    doc = np.cumsum(~text)[:-2]
    keep = text[:-2] & text[1:-1] & text[2:]  # no 3-gram across two sentences
    grams = (codes[:-2] << 42) | (codes[1:-1] << 21) | codes[2:]
    return doc[keep], grams[keep]


def _word_ids(texts: Sequence[str]):
    """(sentence of each word token, word id in order of first occurrence)."""
    tokens = _WORD_OR_NUL.findall(_joined(texts))
    vocab = dict.fromkeys(["\x00"] + tokens)  # the loops run in C: dict, zip and map, no bytecode per token
    vocab = dict(zip(vocab, range(-1, len(vocab) - 1)))
    ids = np.fromiter(map(vocab.__getitem__, tokens), dtype=np.int64, count=len(tokens))
    sep = ids < 0
    return np.cumsum(sep)[~sep], ids[~sep]


def _tfidf_cells(texts: Sequence[str], analyzer: str) -> Optional[Tuple[np.ndarray, np.ndarray, np.ndarray, int]]:
    """(row, column, value, vocabulary size) of the L2-normalised TF-IDF matrix of the texts of
    this pair, or None: raw counts times smoothed IDF, as scikit-learn's TfidfVectorizer
    computes them, without its per-call overhead (which matters on many small documents).
    One stable sort by token finds both the vocabulary and the count of each cell."""
    doc, token = _word_ids(texts) if analyzer == "word" else _char3_ids(texts)
    if not len(token):
        return None
    order = np.argsort(token, kind="stable")  # grouped by token, each group in sentence order
    token, doc = token[order], doc[order]
    new_token = np.empty(len(token), dtype=bool)
    new_token[0] = True
    np.not_equal(token[1:], token[:-1], out=new_token[1:])
    new_cell = new_token.copy()
    new_cell[1:] |= doc[1:] != doc[:-1]
    starts = np.flatnonzero(new_cell)
    counts = np.diff(np.append(starts, len(token)))
    rows, cols = doc[starts], (np.cumsum(new_token) - 1)[starts]
    size = int(cols[-1]) + 1
    df = np.bincount(cols, minlength=size)
    idf = np.log((1.0 + len(texts)) / (1.0 + df)) + 1.0
    values = counts * idf[cols]
    norms = np.sqrt(np.bincount(rows, weights=values * values, minlength=len(texts)))
    values /= np.maximum(norms, 1e-12)[rows]
    return rows, cols, values, size


def _csr(cells, n_rows: int):
    """The cells as a scipy CSR matrix (scipy imported here: 0.2 s that a run of translations only never needs)."""
    from scipy.sparse import csr_matrix

    rows, cols, values, size = cells
    order = np.lexsort((cols, rows))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n_rows))])
    return csr_matrix((values[order], cols[order], indptr), shape=(n_rows, size))


def _pair_dots(x, rows: np.ndarray, cols: np.ndarray, offset: int) -> np.ndarray:
    """Products of row `rows[p]` and row `offset + cols[p]` of a sparse matrix, for each p."""
    if not len(rows):
        return np.zeros(0, dtype=np.float64)
    return np.asarray(x[rows].multiply(x[cols + offset]).sum(axis=1)).ravel()


class PairProducts:
    """Products of a pair's sentence rows (complex rows first, then simple) of a TF-IDF or
    incidence matrix: the whole complex x simple product from dense rows when the pair is
    small (most documents: no sparse-matrix overhead), else sparse rows gathered per candidate."""

    def __init__(self, cells, n_complex: int, n_texts: int, binary: bool = False):
        self.nc, self.x, self.full = n_complex, None, None
        self.row_sums: np.ndarray = np.zeros(n_texts)
        if cells is None:
            return
        rows, cols, values, size = cells
        if binary:
            values = np.ones_like(values)
        self.row_sums = np.bincount(rows, weights=values, minlength=n_texts)
        if n_texts * size <= DENSE_CELLS:
            dense = np.zeros((n_texts, size))
            dense[rows, cols] = values
            self.full = dense[:n_complex] @ dense[n_complex:].T
        else:
            self.x = _csr((rows, cols, values, size), n_texts)

    def side_sums(self, src_is_complex: bool) -> Tuple[np.ndarray, np.ndarray]:
        """Row sums of the source sentences and of the target sentences."""
        complex_sums, simple_sums = self.row_sums[: self.nc], self.row_sums[self.nc :]
        return (complex_sums, simple_sums) if src_is_complex else (simple_sums, complex_sums)

    @property
    def has_rows(self) -> bool:
        return self.full is not None or self.x is not None

    def pairs(self, rows: np.ndarray, cols: np.ndarray, src_is_complex: bool) -> np.ndarray:
        """Products of source sentence rows[p] and target sentence cols[p] (float64)."""
        if self.full is not None:
            return self.full[rows, cols] if src_is_complex else self.full[cols, rows]
        if self.x is None:
            return np.zeros(len(rows), dtype=np.float64)
        if src_is_complex:
            return _pair_dots(self.x, rows, cols, self.nc)
        return _pair_dots(self.x, rows + self.nc, cols, 0)

    def matrix(self, start: int, stop: int, src_is_complex: bool) -> Optional[np.ndarray]:
        """Dense products of source rows start..stop with every target sentence, or None."""
        if self.full is not None:
            return self.full[start:stop] if src_is_complex else self.full[:, start:stop].T
        if self.x is None:
            return None
        if src_is_complex:
            return (self.x[start:stop] @ self.x[self.nc :].T).toarray()
        return (self.x[self.nc + start : self.nc + stop] @ self.x[: self.nc].T).toarray()


def cosines(products: np.ndarray) -> np.ndarray:
    """Cosines of normalised rows as float32 features in [0, 1]."""
    return np.clip(products, 0.0, 1.0).astype(np.float32)
