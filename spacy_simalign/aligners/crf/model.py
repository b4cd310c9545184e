"""The linear-chain CRF of Jiang et al. (2020) over candidate labels, as torch modules for
training: the label of source sentence i is one of its candidate target sentences or
"unaligned" (slot 0), scored by psi(a_i, a_{i-1}) = sim(i, a_i) + T(a_i, a_{i-1}).

Exact forward algorithm (log partition) for the loss; only the recursion over positions is a
loop. Decoding goes through inference.py (numpy) with the module's current weights, as an
aligner without torch decodes its saved weights. Importing this module needs torch (the
package's `train` extra)."""

from typing import Dict, Optional, Tuple

import numpy as np
import torch
from torch import nn

from .features import N_FEATURES, N_NULL_FEATURES, DirectionInput
from .inference import JUMP_HIDDEN, N_JUMP, NEG, NULL_HIDDEN, CRFWeights


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


class EmissionNet(nn.Module):
    """sim(i, j) from pair features, and the score of leaving i unaligned from its row features."""

    def __init__(self, hidden: int = 32, n_features: int = N_FEATURES):
        super().__init__()
        self.pair = nn.Sequential(
            nn.Linear(n_features, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1)
        )
        self.null = nn.Sequential(nn.Linear(N_NULL_FEATURES, NULL_HIDDEN), nn.Tanh(), nn.Linear(NULL_HIDDEN, 1))

    def forward(self, x: DirectionInput) -> torch.Tensor:
        """[n, K+1] emission scores, slot 0 = unaligned, NEG where a slot is padding. The pair
        features may be a tensor (a column computed by a network that learns with the CRF)."""
        feats = x.feats if isinstance(x.feats, torch.Tensor) else torch.from_numpy(x.feats)
        pair = self.pair(feats).squeeze(-1)
        null = self.null(torch.from_numpy(x.null_feats))
        scores = torch.cat([null, pair], dim=1)
        return scores.masked_fill(~torch.from_numpy(x.mask), NEG)


class TransitionNet(nn.Module):
    """T(a_i, a_{i-1}): a small network over the jump g1 when both are aligned; learned
    scores g2 (aligned -> unaligned), g3 (unaligned -> aligned), g4 (unaligned -> unaligned)."""

    def __init__(self, hidden: int = JUMP_HIDDEN):
        super().__init__()
        self.jump = nn.Sequential(nn.Linear(N_JUMP, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.g = nn.Parameter(torch.zeros(3))
        self.start = nn.Parameter(torch.zeros(2))  # start -> unaligned, start -> aligned (plus jump from -1)

    def forward(self, candidates: np.ndarray) -> Tuple[torch.Tensor, torch.Tensor]:
        """(start [K+1], trans [n-1, K+1, K+1]) with trans[i-1, prev, cur] the score of the
        step from position i-1 to i."""
        cand = torch.from_numpy(candidates)
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
        gold = None if x.gold is None else torch.from_numpy(x.gold)
        return forward_logz(emit, start, trans) - forward_logz(emit, start, trans, gold)

    def weights(self) -> CRFWeights:
        """The current weights for decoding (inference.py): float32 copies of the parameters."""
        return CRFWeights(state_arrays(self.state_dict()))

    def decode_many(self, xs) -> list:
        """(Viterbi target per source sentence, marginals) of each input with the current weights."""
        return self.weights().decode_many(xs)


def state_arrays(state: Dict[str, torch.Tensor]) -> Dict[str, np.ndarray]:
    """A state dict's tensors as float32 numpy arrays of their own."""
    return {k: v.detach().cpu().numpy().astype(np.float32, copy=True) for k, v in state.items()}


def state_tensors(state: Dict[str, np.ndarray]) -> Dict[str, torch.Tensor]:
    """A state dict of arrays as tensors (for load_state_dict)."""
    return {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()}
