"""The CRF's inference in numpy: emission and transition scores from the learned weights (a
state dict of arrays), then Viterbi and marginals over a padded batch. Aligning needs no torch;
training (model.py) keeps the same weights as torch parameters and decodes through this module,
so a trained model and its saved weights decode alike."""

from typing import Dict, List, Tuple

import numpy as np

from .features import N_FEATURES, N_NULL_FEATURES, DirectionInput

NEG = -1e4  # score of an impossible label: finite, so that 0 * NEG stays 0 in gradients
N_JUMP = 5  # features of a jump (jump_features)
JUMP_HIDDEN = 16  # the jump network's width
NULL_HIDDEN = 16  # the unaligned score's network width

# the layers of each network, in order: (name in the state dict, activation after it)
PAIR_LAYERS = ("emission.pair.0", "emission.pair.2", "emission.pair.4")
NULL_LAYERS = ("emission.null.0", "emission.null.2")
JUMP_LAYERS = ("transition.jump.0", "transition.jump.2")


def state_shapes(hidden: int) -> Dict[str, Tuple[int, ...]]:
    """The shape of every array of a CRF's weights with `hidden` units (the config's)."""
    shapes: Dict[str, Tuple[int, ...]] = {}
    for layers, sizes in (
        (PAIR_LAYERS, (N_FEATURES, hidden, hidden, 1)),
        (NULL_LAYERS, (N_NULL_FEATURES, NULL_HIDDEN, 1)),
        (JUMP_LAYERS, (N_JUMP, JUMP_HIDDEN, 1)),
    ):
        for name, n_in, n_out in zip(layers, sizes, sizes[1:]):
            shapes[f"{name}.weight"] = (n_out, n_in)
            shapes[f"{name}.bias"] = (n_out,)
    shapes["transition.g"] = (3,)
    shapes["transition.start"] = (2,)
    return shapes


def jump_features(jump: np.ndarray) -> np.ndarray:
    """Features of g1 = a_i - a_{i-1} - 1 (0: next sentence, -1: same sentence, i.e. a split),
    float32; the logarithms are taken in float64 and rounded once."""
    jump = np.asarray(jump, dtype=np.int64)
    ahead = np.log1p(np.maximum(jump, 0).astype(np.float64)).astype(np.float32)
    back = np.log1p(np.maximum(-jump - 1, 0).astype(np.float64)).astype(np.float32)
    return np.stack(
        [
            (jump == 0).astype(np.float32),
            (jump == -1).astype(np.float32),
            (jump > 0).astype(np.float32) * ahead,
            (jump < -1).astype(np.float32) * back,
            (jump == 1).astype(np.float32),
        ],
        axis=-1,
    )


class CRFWeights:
    """A CRF's learned weights as float32 arrays, and its scores and decoders. The jump network
    is applied to each possible jump once, then looked up."""

    def __init__(self, state: Dict[str, np.ndarray]):
        self.state = state
        self._jump_table: Tuple[int, np.ndarray] = (0, np.zeros(0))

    def mlp(self, layers: Tuple[str, ...], x: np.ndarray) -> np.ndarray:
        """Linear layers with tanh between them, in float32."""
        for k, name in enumerate(layers):
            x = x @ self.state[f"{name}.weight"].T + self.state[f"{name}.bias"]
            if k < len(layers) - 1:
                x = np.tanh(x)
        return x

    def emission(self, x: DirectionInput) -> np.ndarray:
        """[n, K+1] emission scores (float64), slot 0 = unaligned, NEG where a slot is padding."""
        pair = self.mlp(PAIR_LAYERS, x.feats)[..., 0]
        null = self.mlp(NULL_LAYERS, x.null_feats)
        scores = np.concatenate([null, pair], axis=1).astype(np.float64)
        scores[:, 1:][x.cand < 0] = NEG
        return scores

    def jump_scores(self, low: int, high: int) -> np.ndarray:
        """Scores of the jumps low..high (float64); the table covers at least -64..64."""
        first, table = self._jump_table
        if low < first or high > first + len(table) - 1:
            first, last = min(low, -64), max(high, 64)
            values = jump_features(np.arange(first, last + 1))
            table = self.mlp(JUMP_LAYERS, values)[:, 0].astype(np.float64)
            self._jump_table = (first, table)
        return table[low - first : high - first + 1]

    def transition(self, cand: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(start [K+1], trans [n-1, K+1, K+1]) in float64, trans[i-1, prev, cur] the score of
        the step from position i-1 to i."""
        n, k = cand.shape
        g = self.state["transition.g"].astype(np.float64)
        begin = self.state["transition.start"].astype(np.float64)
        jump = cand[1:, None, :] - cand[:-1, :, None] - 1 if n > 1 else np.zeros((0, k, k), dtype=np.int64)
        first = np.maximum(cand[0], 0) if n else np.zeros(0, dtype=np.int64)  # the jump from before the start
        low = int(min(jump.min(initial=0), first.min(initial=0)))
        high = int(max(jump.max(initial=0), first.max(initial=0)))
        table = self.jump_scores(low, high)
        if not n:
            return begin[:0], np.zeros((0, k + 1, k + 1))
        start = np.concatenate([begin[:1], begin[1] + table[first - low]])
        trans = np.empty((n - 1, k + 1, k + 1))
        trans[:, 1:, 1:] = table[jump - low]
        trans[:, 1:, 0] = g[0]
        trans[:, 0, 1:] = g[1]
        trans[:, 0, 0] = g[2]
        return start, trans

    def potentials(self, x: DirectionInput) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(emit, start, trans) of one direction, float64."""
        return (self.emission(x),) + self.transition(x.cand)

    def decode_many(self, xs) -> List[Tuple[np.ndarray, np.ndarray]]:
        """(Viterbi target per source sentence [n] int64, -1 = unaligned; marginals [n, K+1]
        float32) of each input, decoded as one padded batch."""
        out = [(np.zeros(0, dtype=np.int64), np.zeros((0, 1), dtype=np.float32))] * len(xs)
        live = [k for k, x in enumerate(xs) if len(x)]
        if not live:
            return out
        emit, start, trans = pad_potentials([self.potentials(xs[k]) for k in live])
        paths, margs = viterbi_batch(emit, start, trans), marginals_batch(emit, start, trans)
        for b, k in enumerate(live):
            cand = xs[k].cand
            n, slots = cand.shape[0], cand.shape[1] + 1
            path = paths[b, :n]
            best = np.where(path > 0, cand[np.arange(n), np.maximum(path - 1, 0)], -1)
            out[k] = (best, margs[b, :n, :slots].astype(np.float32))
        return out


def viterbi_batch(emit: np.ndarray, start: np.ndarray, trans: np.ndarray) -> np.ndarray:
    """Viterbi over a batch [B, n, L] / [B, L] / [B, n-1, L, L]: one small array operation a
    step for the whole batch."""
    batch, n, labels = emit.shape
    step = trans + emit[:, 1:, None, :]  # [B, n-1, prev, cur]: everything but the running score
    score = start + emit[:, 0]
    back = np.zeros((batch, max(n - 1, 0), labels), dtype=np.int64)
    for i in range(n - 1):
        cand = step[:, i] + score[:, :, None]
        back[:, i] = cand.argmax(axis=1)
        score = cand.max(axis=1)
    path = np.zeros((batch, n), dtype=np.int64)
    path[:, -1] = score.argmax(axis=1)
    rows = np.arange(batch)
    for i in range(n - 2, -1, -1):
        path[:, i] = back[rows, i, path[:, i + 1]]
    return path


def marginals_batch(emit: np.ndarray, start: np.ndarray, trans: np.ndarray) -> np.ndarray:
    """Forward-backward posteriors over a batch, [B, n, L]: in probability space, scores shifted
    by their maximum before exp and each step's vectors renormalised (exact up to rounding, and
    several times faster than a log-sum-exp at every step)."""
    batch, n, labels = emit.shape
    e = np.exp(emit - emit.max(axis=2, keepdims=True))
    step = np.exp(trans - trans.max(axis=(2, 3), keepdims=True)) * e[:, 1:, None, :]
    alpha = np.empty((batch, n, labels))
    beta = np.empty((batch, n, labels))
    a = np.exp(start - start.max(axis=1, keepdims=True)) * e[:, 0]
    alpha[:, 0] = a / a.sum(axis=1, keepdims=True)
    for i in range(n - 1):
        a = np.matmul(alpha[:, i, None, :], step[:, i])[:, 0]
        alpha[:, i + 1] = a / a.sum(axis=1, keepdims=True)
    beta[:, -1] = 1.0
    for i in range(n - 2, -1, -1):
        b = np.matmul(step[:, i], beta[:, i + 1, :, None])[:, :, 0]
        beta[:, i] = b / b.sum(axis=1, keepdims=True)
    post = alpha * beta
    return post / post.sum(axis=2, keepdims=True)


def pad_potentials(potentials):
    """Stack (emit [n, L], start [L], trans [n-1, L, L]) of several sequences into one batch
    padded to the longest n and L: padded label slots score NEG, padded positions allow only
    slot 0 at score 0, which changes neither the best path nor the marginals of real positions."""
    n = max(e.shape[0] for e, _, _ in potentials)
    labels = max(e.shape[1] for e, _, _ in potentials)
    emit = np.full((len(potentials), n, labels), NEG)
    emit[:, :, 0] = 0.0
    start = np.zeros((len(potentials), labels))
    trans = np.zeros((len(potentials), max(n - 1, 0), labels, labels))
    for b, (e, s, t) in enumerate(potentials):
        emit[b, : e.shape[0], : e.shape[1]] = e
        start[b, : len(s)] = s
        trans[b, : t.shape[0], : t.shape[1], : t.shape[2]] = t
    return emit, start, trans
