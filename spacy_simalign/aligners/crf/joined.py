"""Stage two of the bead decoder (issue 23): candidate beads rescored with their joined text.

The bead scorer of beads.py sees only the CRF's sentence-level links. Here the candidates it
already generates that can matter (every 1:1, and each larger block whose first-stage
probability is at least `floor`) are scored again by a second logistic model over the
first-stage features and two of the joined text: the cosine between the joined complex run and
the joined simple run (a complex sentence against the joined text of a simple run for a split,
the reverse for a merge; runs.py), and how much that exceeds the best cosine of one member pair
(what joining adds). The candidates below the floor are dropped (their first-stage gain is
negative anyway). The encoder sees only the joined texts of the gated blocks; a 1:1 is its two
sentences, already encoded.

Off unless the weights carry `bead_text_weights` (trained with the training setting
`bead_text_floor` above 0, crf/train.py, which saves the floor beside them). On the Simple
German Corpus dev documents it chose no more splits than the first stage and lowered strict and
link F1 (docs/crf-experiments.md), so the shipped weights have none."""

from typing import Sequence, Tuple

import numpy as np

from ..runs import embed_runs
from .beads import N_BEAD_FEATURES, BeadContext, block_of, candidate_beads

JOINED_FEATURE_NAMES = ("joined_cos", "joined_gain")
N_JOINED_FEATURES = N_BEAD_FEATURES + len(JOINED_FEATURE_NAMES)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


class JoinedText:
    """The joined-text view of one pair: its sentences, languages and encoder."""

    def __init__(self, encoder, complex_texts: Sequence[str], simple_texts: Sequence[str], langs: Tuple[str, str]):
        self.encoder, self.complex_texts, self.simple_texts, self.langs = encoder, complex_texts, simple_texts, langs

    def features(self, cands: np.ndarray, first: np.ndarray) -> np.ndarray:
        """[N, N_JOINED_FEATURES]: the first-stage features `first` of blocks `cands` and the joined ones."""
        c0, c1, s0, s1 = cands.T
        ec = embed_runs(self.encoder, self.complex_texts, c0, c1, self.langs[0])
        es = embed_runs(self.encoder, self.simple_texts, s0, s1, self.langs[1])
        joined = np.sum(ec * es, axis=1)
        sc = np.asarray(self.encoder.encode(list(self.complex_texts), self.langs[0]), dtype=np.float32)
        ss = np.asarray(self.encoder.encode(list(self.simple_texts), self.langs[1]), dtype=np.float32)
        best = np.array([float((sc[a : b + 1] @ ss[c : d + 1].T).max()) for a, b, c, d in cands.tolist()])
        return np.column_stack([first, joined, joined - best])


def gated(ctx: BeadContext, base, weights: Sequence[float], floor: float) -> Tuple[np.ndarray, np.ndarray]:
    """(candidate blocks kept for stage two, their first-stage features): every 1:1 and the
    larger blocks of first-stage probability >= floor."""
    cands = candidate_beads(ctx, base)
    first = ctx.features(cands)
    if not len(cands):
        return cands, first
    prob = sigmoid(first @ np.asarray(weights, dtype=np.float64))
    keep = ((cands[:, 0] == cands[:, 1]) & (cands[:, 2] == cands[:, 3])) | (prob >= floor)
    return cands[keep], first[keep]


def rescored(
    ctx: BeadContext, base, text: JoinedText, weights: Sequence[float], text_weights: Sequence[float], floor: float
) -> Tuple[np.ndarray, np.ndarray]:
    """(gated candidate blocks, their stage-two probabilities)."""
    cands, first = gated(ctx, base, weights, floor)
    if not len(cands):
        return cands, np.zeros(0)
    return cands, sigmoid(text.features(cands, first) @ np.asarray(text_weights, dtype=np.float64))


def joined_examples(
    ctx: BeadContext, base, text: JoinedText, weights: Sequence[float], floor: float, gold
) -> Tuple[np.ndarray, np.ndarray]:
    """(stage-two features, 1 where the gated candidate is exactly a gold bead) of a decoded training pair."""
    cands, first = gated(ctx, base, weights, floor)
    wanted = set(map(block_of, gold)) - {None}
    y = np.array([tuple(row) in wanted for row in cands.tolist()], dtype=np.int64)
    if not len(cands):
        return np.zeros((0, N_JOINED_FEATURES)), y
    return text.features(cands, first), y
