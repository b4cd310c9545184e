"""Sub-sentence units scored against whole sentences: a sentence and its clauses (clauses.py).

A side's units are its sentences and the clauses of each sentence that splits, each embedded by
text through the encoder (whose per-text cache encodes a clause met again once; a sentence that
does not split adds nothing). The score of a sentence s against a sentence t of the other side
is the best cosine of s with any unit of t (t whole or one of its clauses): a simple sentence
that retells one clause of a long complex sentence matches that clause. Runs of sentences are
the other way to score more than a sentence as one (runs.py, the joined text of a split or a
merge); both go through the encoder by text, so its cache bounds the calls.

The maxima over all rows and columns (what the margins to the best rival need) come from
row-chunked products, and the scores of given pairs from their units alone, so memory grows
linearly with the number of sentences."""

from dataclasses import dataclass
from typing import Sequence, Tuple

import numpy as np

from .clauses import clauses


@dataclass
class SentenceUnits:
    """One side's sentence vectors and the vectors of the clauses of the sentences that split."""

    sentences: np.ndarray  # [n, dim] the sentences' vectors
    clauses: np.ndarray  # [u, dim] the clauses' vectors, grouped by sentence in order
    owner: np.ndarray  # [u] the sentence of each clause
    first: np.ndarray  # [n + 1] clause offsets: sentence i's clauses are first[i]:first[i + 1]

    @classmethod
    def of(cls, encoder, texts: Sequence[str], lang: str, embeddings: np.ndarray) -> "SentenceUnits":
        """The units of a side's sentences `texts` (vectors `embeddings`): one encoder call for their clauses."""
        parts = [clauses(t, lang) for t in texts]
        counts = np.fromiter((len(p) for p in parts), dtype=np.int64, count=len(parts))
        flat = [c for p in parts for c in p]
        dim = embeddings.shape[1] if embeddings.ndim == 2 else 0
        vectors = np.asarray(encoder.encode(flat, lang), dtype=np.float32) if flat else np.zeros((0, dim), np.float32)
        owner = np.repeat(np.arange(len(parts)), counts)
        return cls(np.asarray(embeddings, dtype=np.float32), vectors, owner, np.r_[0, np.cumsum(counts)])

    def __len__(self) -> int:
        return len(self.sentences)


def best_unit_maxima(query: SentenceUnits, target: SentenceUnits, chunk: int = 512) -> Tuple[np.ndarray, np.ndarray]:
    """(row max [n], column max [m]) of S[i, j] = the best cosine of query sentence i with a unit of
    target sentence j (j whole or a clause of it)."""
    n, m = len(query), len(target)
    row = np.full(n, -1.0, dtype=np.float32)
    col_sent = np.full(m, -1.0, dtype=np.float32)
    col_clause = np.full(len(target.owner), -1.0, dtype=np.float32)
    everything = np.concatenate([target.sentences, target.clauses]) if m else target.sentences
    for start in range(0, n, chunk):
        sims = query.sentences[start : start + chunk] @ everything.T
        if not sims.size:
            continue
        row[start : start + chunk] = sims.max(axis=1)
        best = sims.max(axis=0)
        np.maximum(col_sent, best[:m], out=col_sent)
        np.maximum(col_clause, best[m:], out=col_clause)
    col = col_sent.copy()
    if len(target.owner):
        np.maximum.at(col, target.owner, col_clause)
    return row, col


def best_unit_matrix(query: SentenceUnits, target: SentenceUnits) -> np.ndarray:
    """[n, m] S[i, j] = the best cosine of query sentence i with a unit of target sentence j, for
    the blocks of one pair (crf/joined.py): [n, m + clauses] floats, not [n, m, dim]."""
    whole = query.sentences @ target.sentences.T
    if not len(target.owner) or not len(query):
        return whole
    parts = query.sentences @ target.clauses.T  # [n, u], grouped by owner in order
    owners = np.flatnonzero(np.diff(target.first))  # the sentences that split
    best = np.maximum.reduceat(parts, target.first[owners], axis=1)
    whole[:, owners] = np.maximum(whole[:, owners], best)
    return whole


def best_unit_cosines(query: SentenceUnits, target: SentenceUnits, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """[p] the best cosine of query sentence rows[k] with a unit of target sentence cols[k]."""
    best = np.einsum("pd,pd->p", query.sentences[rows], target.sentences[cols])
    counts = target.first[cols + 1] - target.first[cols]
    if not counts.sum():
        return best
    pair = np.repeat(np.arange(len(rows)), counts)
    offset = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    unit = target.first[cols][pair] + offset
    values = np.einsum("pd,pd->p", query.sentences[rows][pair], target.clauses[unit])
    np.maximum.at(best, pair, values)
    return best
