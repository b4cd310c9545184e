"""Stage two of the bead decoder (issue 23): candidate beads rescored with their joined text.

The bead scorer of beads.py sees only the CRF's sentence-level links. Here the candidates it
already generates that can matter (every 1:1, and each larger block whose first-stage
probability is at least `floor`) are scored again by a second logistic model over the
first-stage features and two of the joined text: the cosine between the joined complex run and
the joined simple run (a complex sentence against the joined text of a simple run for a split,
the reverse for a merge; runs.py), and how much that exceeds the best cosine of one member pair
(what joining adds); with the aligner's `clauses` on, also how well each member is matched inside
the block by a sub-sentence unit (units.py: the clauses of the CRF's clause features, so runs of
sentences and clauses are scored in one stage). The candidates below the floor are dropped
(their first-stage gain is negative anyway). The encoder sees only the joined texts of the gated
blocks (and, with clauses, each side's clauses once); a 1:1 is its two sentences, already encoded.

Off unless the weights carry `bead_text_weights` (trained with the training setting
`bead_text_floor` above 0, crf/train.py, which saves the floor beside them). On the Simple
German Corpus dev documents it chose no more splits than the first stage and lowered strict and
link F1 (docs/crf-experiments.md), so the shipped weights have none."""

from typing import Sequence, Tuple

import numpy as np

from ..runs import embed_runs
from ..units import SentenceUnits, best_unit_matrix
from .beads import N_BEAD_FEATURES, BeadContext, block_of, candidate_beads, expand_ranges, mean_min

JOINED_FEATURE_NAMES = ("joined_cos", "joined_gain")
N_JOINED_FEATURES = N_BEAD_FEATURES + len(JOINED_FEATURE_NAMES)
# with the aligner's `clauses` on, after JOINED_FEATURE_NAMES: how well each member of a block is
# matched inside it by a sub-sentence unit (units.py): each simple sentence's best cosine with a
# unit of the block's complex sentences (a split retold clause by clause), mean and min over the
# simple members, and the same for the complex members against the simple sentences' units (a merge)
UNIT_FEATURE_NAMES = ("unit_simple_mean", "unit_simple_min", "unit_complex_mean", "unit_complex_min")


def joined_feature_count(clauses: bool) -> int:
    """Stage-two features per candidate block: N_JOINED_FEATURES, and UNIT_FEATURE_NAMES with `clauses` on."""
    return N_JOINED_FEATURES + (len(UNIT_FEATURE_NAMES) if clauses else 0)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


class JoinedText:
    """The joined-text view of one pair: its sentences, languages and encoder; with `clauses`,
    also the sentences against the other side's clauses (UNIT_FEATURE_NAMES)."""

    def __init__(
        self,
        encoder,
        complex_texts: Sequence[str],
        simple_texts: Sequence[str],
        langs: Tuple[str, str],
        clauses: bool = False,
    ):
        self.encoder, self.complex_texts, self.simple_texts, self.langs = encoder, complex_texts, simple_texts, langs
        self.clauses = clauses
        self.n_features = joined_feature_count(clauses)

    def features(self, cands: np.ndarray, first: np.ndarray) -> np.ndarray:
        """[N, self.n_features]: the first-stage features `first` of blocks `cands` and the joined ones."""
        c0, c1, s0, s1 = cands.T
        ec = embed_runs(self.encoder, self.complex_texts, c0, c1, self.langs[0])
        es = embed_runs(self.encoder, self.simple_texts, s0, s1, self.langs[1])
        joined = np.sum(ec * es, axis=1)
        sc = np.asarray(self.encoder.encode(list(self.complex_texts), self.langs[0]), dtype=np.float32)
        ss = np.asarray(self.encoder.encode(list(self.simple_texts), self.langs[1]), dtype=np.float32)
        best = np.array([float((sc[a : b + 1] @ ss[c : d + 1].T).max()) for a, b, c, d in cands.tolist()])
        out = [first, joined, joined - best]
        if self.clauses:
            out += self.unit_features(cands, sc, ss)
        return np.column_stack(out)

    def unit_features(self, cands: np.ndarray, sc: np.ndarray, ss: np.ndarray) -> list:
        """UNIT_FEATURE_NAMES of blocks `cands` (sc, ss: the sentence vectors of each side)."""
        cu = SentenceUnits.of(self.encoder, self.complex_texts, self.langs[0], sc)
        su = SentenceUnits.of(self.encoder, self.simple_texts, self.langs[1], ss)
        sub, sup = best_unit_matrix(su, cu), best_unit_matrix(cu, su)  # [ns, nc], [nc, ns]
        c0, c1, s0, s1 = cands.T
        n = len(cands)
        own_s, s_idx = expand_ranges(s0, s1)
        own_c, c_idx = expand_ranges(c0, c1)
        in_s = np.full(len(s_idx), -1.0)
        for d in range(int((c1 - c0).max(initial=0)) + 1):
            ok = c0[own_s] + d <= c1[own_s]
            in_s = np.where(ok, np.maximum(in_s, sub[s_idx, np.minimum(c0[own_s] + d, c1[own_s])]), in_s)
        in_c = np.full(len(c_idx), -1.0)
        for d in range(int((s1 - s0).max(initial=0)) + 1):
            ok = s0[own_c] + d <= s1[own_c]
            in_c = np.where(ok, np.maximum(in_c, sup[c_idx, np.minimum(s0[own_c] + d, s1[own_c])]), in_c)
        return [*mean_min(own_s, in_s, n), *mean_min(own_c, in_c, n)]


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
        return np.zeros((0, text.n_features)), y
    return text.features(cands, first), y
