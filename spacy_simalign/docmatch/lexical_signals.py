"""Lexical signals that can be mixed into the embedding similarity: word TF-IDF cosine
(fitted on both collections) and the overlap of names and numbers, which carry across
languages. Scored only on candidate pairs, so they never need an n x m matrix."""

import re
from typing import List, Sequence

import numpy as np

from ..core.word_tokens import words

LEXICAL_SIGNALS = ("none", "tfidf", "names-numbers")
# the weight of a lexical signal where none is calibrated or given: half the first stage
LEXICAL_WEIGHT = 0.5
_NUMBER = re.compile(r"\d+(?:[.,']\d+)*")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-ZÄÖÜÀ-Ý][\w-]{2,}", re.UNICODE)


def names_numbers(text: str) -> set:
    """Numbers (digits normalised) and capitalised words not at a sentence start."""
    nums = {re.sub(r"[.,']", "", n) for n in _NUMBER.findall(text)}
    names = {m.lower() for line in text.splitlines() for m in _NAME.findall(line)}
    return nums | names


class LexicalScorer:
    """Pairwise lexical similarity in [0, 1] between source i and target j, on demand."""

    def __init__(self, kind: str, source_texts: Sequence[str], target_texts: Sequence[str]):
        self.kind = kind
        if kind == "tfidf":
            from sklearn.feature_extraction.text import TfidfVectorizer

            vec = TfidfVectorizer(
                tokenizer=words,
                lowercase=False,
                token_pattern=None,
                sublinear_tf=True,
                max_df=0.5 if len(source_texts) + len(target_texts) > 20 else 1.0,
            )
            try:
                matrix = vec.fit_transform(list(source_texts) + list(target_texts)).tocsr()
            except ValueError:  # no words at all
                matrix = None
            self.src = matrix[: len(source_texts)] if matrix is not None else None
            self.tgt = matrix[len(source_texts) :] if matrix is not None else None
        elif kind == "names-numbers":
            self.src_sets: List[set] = [names_numbers(t) for t in source_texts]
            self.tgt_sets: List[set] = [names_numbers(t) for t in target_texts]

    def pairs(self, src: np.ndarray, tgt: np.ndarray) -> np.ndarray:
        if self.kind == "tfidf":
            src_rows, tgt_rows = self.src, self.tgt
            if src_rows is None or tgt_rows is None or not len(src):
                return np.zeros(len(src), dtype=np.float32)
            out = np.empty(len(src), dtype=np.float32)
            for start in range(0, len(src), 100_000):
                s, t = src[start : start + 100_000], tgt[start : start + 100_000]
                out[start : start + len(s)] = np.asarray(src_rows[s].multiply(tgt_rows[t]).sum(axis=1)).ravel()
            return out
        if self.kind == "names-numbers":
            out = np.zeros(len(src), dtype=np.float32)
            for n, (i, j) in enumerate(zip(src, tgt)):
                a, b = self.src_sets[i], self.tgt_sets[j]
                out[n] = len(a & b) / len(a | b) if a or b else 0.0
            return out
        return np.zeros(len(src), dtype=np.float32)
