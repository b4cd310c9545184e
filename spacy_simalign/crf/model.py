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
    return torch.stack([
        (jump == 0).float(), (jump == -1).float(), (jump > 0).float() * torch.log1p(jf.clamp(min=0)),
        (jump < -1).float() * torch.log1p((-jf - 1).clamp(min=0)), (jump == 1).float(),
    ], dim=-1)


N_JUMP = 5


class EmissionNet(nn.Module):
    """sim(i, j) from pair features, and the score of leaving i unaligned from its row features."""

    def __init__(self, hidden: int = 32):
        super().__init__()
        self.pair = nn.Sequential(nn.Linear(N_FEATURES, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                  nn.Linear(hidden, 1))
        self.null = nn.Sequential(nn.Linear(N_NULL_FEATURES, 16), nn.Tanh(), nn.Linear(16, 1))

    def forward(self, x: DirectionInput) -> torch.Tensor:
        """[n, K+1] emission scores, slot 0 = unaligned, NEG where a slot is padding."""
        pair = self.pair(x.feats).squeeze(-1)
        null = self.null(x.null_feats)
        scores = torch.cat([null, pair], dim=1)
        return scores.masked_fill(~x.mask, NEG)


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
        jump = cand[1:, None, :] - cand[:-1, :, None] - 1          # [n-1, prev, cur]
        low = int(jump.min())
        values = torch.arange(low, int(jump.max()) + 1)  # score each possible jump once, then look up
        aa = self.jump(jump_features(values)).squeeze(-1)[jump - low]
        trans = torch.empty(n - 1, k + 1, k + 1)
        trans[:, 1:, 1:] = aa
        trans[:, 1:, 0] = self.g[0]
        trans[:, 0, 1:] = self.g[1]
        trans[:, 0, 0] = self.g[2]
        return start, trans


def forward_logz(emit: torch.Tensor, start: torch.Tensor, trans: torch.Tensor,
                 allowed: Optional[torch.Tensor] = None) -> torch.Tensor:
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


def _lse(x: np.ndarray, axis: int) -> np.ndarray:
    top = x.max(axis=axis, keepdims=True)
    return (top + np.log(np.exp(x - top).sum(axis=axis, keepdims=True))).squeeze(axis)


def viterbi_np(emit: np.ndarray, start: np.ndarray, trans: np.ndarray) -> np.ndarray:
    """Viterbi in numpy (inference: a few microseconds a step instead of torch's overhead)."""
    n = emit.shape[0]
    score = start + emit[0]
    back = np.zeros((max(n - 1, 0), emit.shape[1]), dtype=np.int64)
    for i in range(1, n):
        cand = score[:, None] + trans[i - 1]
        back[i - 1] = cand.argmax(axis=0)
        score = cand[back[i - 1], np.arange(emit.shape[1])] + emit[i]
    path = np.zeros(n, dtype=np.int64)
    path[-1] = int(score.argmax())
    for i in range(n - 2, -1, -1):
        path[i] = back[i, path[i + 1]]
    return path


def marginals_np(emit: np.ndarray, start: np.ndarray, trans: np.ndarray) -> np.ndarray:
    """Forward-backward posteriors in numpy, [n, L]."""
    n, labels = emit.shape
    alpha = np.empty((n, labels))
    beta = np.zeros((n, labels))
    alpha[0] = start + emit[0]
    for i in range(1, n):
        alpha[i] = _lse(alpha[i - 1][:, None] + trans[i - 1], 0) + emit[i]
    for i in range(n - 2, -1, -1):
        beta[i] = _lse(trans[i] + (emit[i + 1] + beta[i + 1])[None, :], 1)
    logz = _lse(alpha[-1], 0)
    return np.exp(alpha + beta - logz)


class CRF(nn.Module):
    """Emission and transition networks with the CRF's losses and decoders."""

    def __init__(self, hidden: int = 32, emission: Optional[nn.Module] = None):
        super().__init__()
        self.emission = emission if emission is not None else EmissionNet(hidden)
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

    @torch.no_grad()
    def decode(self, x: DirectionInput) -> Tuple[torch.Tensor, torch.Tensor]:
        """(Viterbi target per source sentence, -1 = unaligned, [n]; marginals [n, K+1])."""
        if len(x) == 0:
            return torch.zeros(0, dtype=torch.long), torch.zeros(0, 1)
        emit, start, trans = (t.double().numpy() for t in self.potentials(x))
        path = torch.from_numpy(viterbi_np(emit, start, trans))
        marg = torch.from_numpy(marginals_np(emit, start, trans)).float()
        full = torch.cat([torch.full((len(x), 1), -1, dtype=torch.long), x.cand], dim=1)
        return full.gather(1, path[:, None]).squeeze(1), marg
