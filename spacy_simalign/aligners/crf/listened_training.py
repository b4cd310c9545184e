"""One training step of the CRF whose cosine column comes from a transformer that learns with it
(pair_scores.py, pipeline/transformer_link.py): the column is computed in torch from the
sentence vectors, the CRF's loss is taken as crf.train takes it, the CRF's Adam steps, and the
gradient of the loss with respect to each sentence vector is returned, for the transformer's
backprop. Needs torch (the package's `train` extra)."""

import functools
from typing import Any, List, Sequence, Tuple

import numpy as np
import torch
import torch.nn.functional as F

from ...core.structures import TrainingPair
from .features import DirectionInput
from .pair_scores import COS, Vectors, candidate_cells

Gradients = Tuple[np.ndarray, np.ndarray]  # d loss / d vectors of the (complex, simple) sentences


def scored_directions(
    s2c: DirectionInput, c2s: DirectionInput, complex_vectors: torch.Tensor, simple_vectors: torch.Tensor
) -> Tuple[DirectionInput, DirectionInput]:
    """Both directions of a document with the cosine column of its sentence vectors (train.Rescore)."""
    return scored_direction(s2c, simple_vectors, complex_vectors), scored_direction(
        c2s, complex_vectors, simple_vectors
    )


def scored_direction(x: DirectionInput, src: torch.Tensor, tgt: torch.Tensor) -> DirectionInput:
    """The direction with its cosine column a tensor of the source and target sentences' vectors."""
    rows, ks, cols = candidate_cells(x)
    cos = (F.normalize(src, dim=1, eps=1e-12)[rows] * F.normalize(tgt, dim=1, eps=1e-12)[cols]).sum(-1)
    feats = torch.from_numpy(x.feats).clone()
    feats[torch.from_numpy(rows), torch.from_numpy(ks), COS] = cos
    # the features as a tensor: EmissionNet reads either (model.py)
    tensor_feats: Any = feats
    return DirectionInput(
        x.cand, tensor_feats, x.null_feats, x.n_target, x.src_texts, x.tgt_texts, x.src_is_complex, x.gold
    )


def listened_update(
    aligner, pairs: Sequence[TrainingPair], vectors: Sequence[Vectors]
) -> Tuple[float, List[Gradients]]:
    """One Adam step of the CRF `aligner` (its trainer's step, crf/train.py) on the mean
    per-sentence loss of the batch's documents, each scored with its sentence vectors; (the summed
    loss, d loss / d vectors per document)."""
    trainer = aligner.trainer
    leaves: List[Tuple[torch.Tensor, torch.Tensor]] = []
    inputs, rescores = [], []
    for pair, (complex_vectors, simple_vectors) in zip(pairs, vectors):
        vc = torch.tensor(np.asarray(complex_vectors, dtype=np.float32), requires_grad=True)
        vs = torch.tensor(np.asarray(simple_vectors, dtype=np.float32), requires_grad=True)
        leaves.append((vc, vs))
        if len(pair.complex) and len(pair.simple):
            inputs.append(trainer.features(pair))
            rescores.append(functools.partial(scored_directions, complex_vectors=vc, simple_vectors=vs))
    weighted, _ = trainer.step(inputs, rescores)
    grads = [
        tuple(np.zeros(v.shape, np.float32) if v.grad is None else v.grad.numpy() for v in pair) for pair in leaves
    ]
    return weighted, grads  # type: ignore[return-value]
