"""One training step of the CRF whose cosine column comes from a transformer that learns with it
(pair_scores.py, pipeline/transformer_link.py): the column is computed in torch from the
sentence vectors, the CRF's loss is taken as crf.train takes it, the CRF's Adam steps, and the
gradient of the loss with respect to each sentence vector is returned, for the transformer's
backprop. Needs torch (the package's `train` extra)."""

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.nn.functional as F

from ...core.structures import TrainingPair
from .features import DirectionInput
from .pair_scores import COS, Vectors, candidate_cells
from .threads import torch_threads

Gradients = Tuple[np.ndarray, np.ndarray]  # d loss / d vectors of the (complex, simple) sentences


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
    """One Adam step of the CRF `aligner` on the mean per-sentence loss of the batch's documents,
    each scored with its sentence vectors; (the summed loss, d loss / d vectors per document)."""
    trainer = aligner.trainer
    model = aligner.model
    settings = trainer.settings
    leaves: List[Tuple[torch.Tensor, torch.Tensor]] = []
    total: Optional[torch.Tensor] = None
    weighted, docs = 0.0, 0
    model.train()
    with torch_threads(aligner.config["torch_threads"]):
        for pair, (complex_vectors, simple_vectors) in zip(pairs, vectors):
            vc = torch.tensor(np.asarray(complex_vectors, dtype=np.float32), requires_grad=True)
            vs = torch.tensor(np.asarray(simple_vectors, dtype=np.float32), requires_grad=True)
            leaves.append((vc, vs))
            if not len(pair.complex) or not len(pair.simple):
                continue
            x = trainer.features(pair)
            dirs = [x.s2c, x.c2s]
            if trainer.rng.random() < settings.cross_lingual_rate:
                dirs = [d.without_lexical() for d in dirs]
            n = sum(len(d) for d in dirs)
            if not n:
                continue
            s2c, c2s = scored_direction(dirs[0], vs, vc), scored_direction(dirs[1], vc, vs)
            loss = (model.nll(s2c) + model.nll(c2s)) / n
            total = loss if total is None else total + loss
            weighted += float(loss.detach()) * n
            docs += 1
        if total is not None:
            trainer.optimizer.zero_grad()
            (total / docs).backward()
            trainer.optimizer.step()
    model.eval()
    grads = [
        tuple(np.zeros(v.shape, np.float32) if v.grad is None else v.grad.numpy() for v in pair) for pair in leaves
    ]
    return weighted, grads  # type: ignore[return-value]
