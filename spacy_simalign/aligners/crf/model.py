"""The linear-chain CRF of Jiang et al. (2020) over candidate labels: the label of source
sentence i is one of its candidate target sentences or "unaligned" (slot 0), scored by
psi(a_i, a_{i-1}) = sim(i, a_i) + T(a_i, a_{i-1}).

Exact forward algorithm (log partition), Viterbi and marginals, vectorised over the label
slots; only the recursion over positions is a loop. No stray terms in the recursion."""

from typing import Optional, Tuple

import numpy as np
import torch
from torch import nn

from .features import N_FEATURES, N_NULL_FEATURES, DirectionInput

NEG = -1e4  # score of an impossible label: finite, so that 0 * NEG stays 0 in gradients


def jump_features(jump: torch.Tensor) -> torch.Tensor:
    """Features of g1 = a_i - a_{i-1} - 1 (0: next sentence, -1: same sentence, i.e. a split)."""
    jf = jump.float()
    return torch.stack(
        [
            (jump == 0).float(),
            (jump == -1).float(),
            (jump > 0).float() * torch.log1p(jf.clamp(min=0)),
            (jump < -1).float() * torch.log1p((-jf - 1).clamp(min=0)),
            (jump == 1).float(),
        ],
        dim=-1,
    )


N_JUMP = 5


def mlp_np(layers: nn.Sequential, x: np.ndarray) -> np.ndarray:
    """A stack of Linear and Tanh layers applied in numpy (float32), with the layers' weights."""
    for layer in layers:
        if isinstance(layer, nn.Linear):
            x = x @ layer.weight.detach().numpy().T + layer.bias.detach().numpy()
        elif isinstance(layer, nn.Tanh):
            x = np.tanh(x)
        else:
            raise TypeError(f"mlp_np cannot apply {type(layer).__name__}")
    return x


class EmissionNet(nn.Module):
    """sim(i, j) from pair features, and the score of leaving i unaligned from its row features."""

    def __init__(self, hidden: int = 32, n_features: int = N_FEATURES):
        super().__init__()
        self.pair = nn.Sequential(
            nn.Linear(n_features, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1)
        )
        self.null = nn.Sequential(nn.Linear(N_NULL_FEATURES, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x: DirectionInput) -> torch.Tensor:
        """[n, K+1] emission scores, slot 0 = unaligned, NEG where a slot is padding."""
        pair = self.pair(x.feats).squeeze(-1)
        null = self.null(x.null_feats)
        scores = torch.cat([null, pair], dim=1)
        return scores.masked_fill(~x.mask, NEG)

    def forward_np(self, x: DirectionInput) -> np.ndarray:
        """The same scores in numpy (float64), for inference: no autograd, no per-op overhead."""
        pair = mlp_np(self.pair, x.feats.numpy())[..., 0]
        null = mlp_np(self.null, x.null_feats.numpy())
        scores = np.concatenate([null, pair], axis=1).astype(np.float64)
        scores[:, 1:][x.cand.numpy() < 0] = NEG
        return scores


class TransitionNet(nn.Module):
    """T(a_i, a_{i-1}): a small network over the jump g1 when both are aligned; learned
    scores g2 (aligned -> unaligned), g3 (unaligned -> aligned), g4 (unaligned -> unaligned)."""

    def __init__(self, hidden: int = 16):
        super().__init__()
        self.jump = nn.Sequential(nn.Linear(N_JUMP, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.g = nn.Parameter(torch.zeros(3))
        self.start = nn.Parameter(torch.zeros(2))  # start -> unaligned, start -> aligned (plus jump from -1)

    def forward(self, cand: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """(start [K+1], trans [n-1, K+1, K+1]) with trans[i-1, prev, cur] the score of the
        step from position i-1 to i."""
        n, k = cand.shape
        start_jump = self.jump(jump_features(cand[0:1].clamp(min=0))).squeeze(-1)[0] if n else cand.new_zeros(0)
        start = torch.cat([self.start[0:1], self.start[1] + start_jump]) if n else self.start[:0]
        if n < 2:
            return start, torch.zeros(0, k + 1, k + 1)
        jump = cand[1:, None, :] - cand[:-1, :, None] - 1  # [n-1, prev, cur]
        low = int(jump.min())
        values = torch.arange(low, int(jump.max()) + 1)  # score each possible jump once, then look up
        aa = self.jump(jump_features(values)).squeeze(-1)[jump - low]
        trans = torch.empty(n - 1, k + 1, k + 1)
        trans[:, 1:, 1:] = aa
        trans[:, 1:, 0] = self.g[0]
        trans[:, 0, 1:] = self.g[1]
        trans[:, 0, 0] = self.g[2]
        return start, trans

    def jump_table(self, low: int, high: int) -> np.ndarray:
        """Scores of the jumps low..high (float64), kept until the jump network's weights change."""
        key = tuple(p._version for p in self.jump.parameters())
        cached = self.__dict__.get("_jump_table")
        if cached is None or cached[0] != key or low < cached[1] or high > cached[1] + len(cached[2]) - 1:
            first, last = min(low, -64), max(high, 64)
            values = jump_features(torch.arange(first, last + 1)).numpy()
            self.__dict__["_jump_table"] = cached = (key, first, mlp_np(self.jump, values)[:, 0].astype(np.float64))
        return cached[2][low - cached[1] : high - cached[1] + 1]

    def forward_np(self, cand: torch.Tensor) -> Tuple[np.ndarray, np.ndarray]:
        """The same (start, trans) in numpy (float64), for inference: each distinct jump is
        scored once by the network, the rest is table look-ups."""
        c = cand.numpy()
        n, k = c.shape
        g, begin = self.g.detach().numpy().astype(np.float64), self.start.detach().numpy().astype(np.float64)
        jump = c[1:, None, :] - c[:-1, :, None] - 1 if n > 1 else np.zeros((0, k, k), dtype=np.int64)
        first = np.maximum(c[0], 0) if n else np.zeros(0, dtype=np.int64)  # the jump from before the start
        low = int(min(jump.min(initial=0), first.min(initial=0)))
        high = int(max(jump.max(initial=0), first.max(initial=0)))
        table = self.jump_table(low, high)
        if not n:
            return begin[:0], np.zeros((0, k + 1, k + 1))
        start = np.concatenate([begin[:1], begin[1] + table[first - low]])
        trans = np.empty((n - 1, k + 1, k + 1))
        trans[:, 1:, 1:] = table[jump - low]
        trans[:, 1:, 0] = g[0]
        trans[:, 0, 1:] = g[1]
        trans[:, 0, 0] = g[2]
        return start, trans


def forward_logz(
    emit: torch.Tensor, start: torch.Tensor, trans: torch.Tensor, allowed: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """log sum over label sequences of exp(score); `allowed` [n, L] restricts the labels."""
    if allowed is not None:
        emit = emit.masked_fill(~allowed, NEG)
    alpha = start + emit[0]
    for i in range(1, emit.shape[0]):
        alpha = torch.logsumexp(alpha[:, None] + trans[i - 1], dim=0) + emit[i]
    return torch.logsumexp(alpha, dim=0)


def viterbi(emit: torch.Tensor, start: torch.Tensor, trans: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """(best label slot per position [n], its score)."""
    n = emit.shape[0]
    score = start + emit[0]
    back = []
    for i in range(1, n):
        cand = score[:, None] + trans[i - 1]
        score, arg = cand.max(dim=0)
        score = score + emit[i]
        back.append(arg)
    best_score, last = score.max(dim=0)
    path = [int(last)]
    for arg in reversed(back):
        path.append(int(arg[path[-1]]))
    path.reverse()
    return torch.tensor(path, dtype=torch.long), best_score


def marginals(emit: torch.Tensor, start: torch.Tensor, trans: torch.Tensor) -> torch.Tensor:
    """[n, L] posterior probability of each label slot (d logZ / d emission)."""
    emit = emit.detach().requires_grad_(True)
    with torch.enable_grad():
        logz = forward_logz(emit, start.detach(), trans.detach())
        (grad,) = torch.autograd.grad(logz, emit)
    return grad


def viterbi_batch(emit: np.ndarray, start: np.ndarray, trans: np.ndarray) -> np.ndarray:
    """Viterbi over a batch [B, n, L] / [B, L] / [B, n-1, L, L] in numpy: one small array
    operation a step for the whole batch instead of torch's per-operation overhead."""
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


class CRF(nn.Module):
    """Emission and transition networks with the CRF's losses and decoders."""

    def __init__(self, hidden: int = 32, n_features: int = N_FEATURES):
        super().__init__()
        self.emission = EmissionNet(hidden, n_features)
        self.transition = TransitionNet()

    def potentials(self, x: DirectionInput):
        emit = self.emission(x)
        start, trans = self.transition(x.cand)
        return emit, start, trans

    def nll(self, x: DirectionInput) -> torch.Tensor:
        """-log p(gold labels) = logZ - logZ restricted to the gold labels (several gold
        labels at a position, as in an n:m bead, are summed over)."""
        if len(x) == 0:
            return torch.zeros(())
        emit, start, trans = self.potentials(x)
        return forward_logz(emit, start, trans) - forward_logz(emit, start, trans, x.gold)

    def numpy_potentials(self, x: DirectionInput) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(emit, start, trans) as float64 arrays, computed in numpy (no autograd, no torch per-op
        overhead)."""
        return (self.emission.forward_np(x),) + self.transition.forward_np(x.cand)

    def decode_many(self, xs) -> list:
        """(Viterbi target per source sentence [n] int64, -1 = unaligned; marginals [n, K+1]
        float32) of each input, decoded as one padded batch."""
        out = [(np.zeros(0, dtype=np.int64), np.zeros((0, 1), dtype=np.float32))] * len(xs)
        live = [k for k, x in enumerate(xs) if len(x)]
        if not live:
            return out
        emit, start, trans = pad_potentials([self.numpy_potentials(xs[k]) for k in live])
        paths, margs = viterbi_batch(emit, start, trans), marginals_batch(emit, start, trans)
        for b, k in enumerate(live):
            cand = xs[k].cand.numpy()
            n, slots = cand.shape[0], cand.shape[1] + 1
            path = paths[b, :n]
            best = np.where(path > 0, cand[np.arange(n), np.maximum(path - 1, 0)], -1)
            out[k] = (best, margs[b, :n, :slots].astype(np.float32))
        return out
