"""Training the CRF aligner with the negative log-likelihood of the gold alignments, both
directions, then fitting the learned combination of directions on held-out documents.
Deterministic for a given seed."""
import random
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np
import torch

from ..formats import parse_pair
from ..structures import Bead, Side
from .aligner import CRFAligner
from .combine import fit_combination
from .features import PairInput
from .threads import torch_threads


@dataclass
class GoldPair:
    """A training document: both sides and the gold beads."""

    id: str
    complex: Side
    simple: Side
    gold: List[Bead]

    @property
    def links(self) -> Set[Tuple[int, int]]:
        return {link for b in self.gold for link in b.links()}

    @classmethod
    def from_record(cls, obj: Dict) -> "GoldPair":
        """From a pair-JSONL dict (validated as formats.parse_pair does; language "de" when absent)."""
        record = parse_pair(obj, default_lang="de")
        return cls(record.id, record.side("complex"), record.side("simple"), record.gold or [])


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def featurize_all(aligner: CRFAligner, pairs: Sequence[GoldPair], with_gold: bool = True) -> List[PairInput]:
    return [aligner.featurize(p.complex, p.simple, gold_links=p.links if with_gold else None) for p in pairs]


def pair_loss(model, pair: PairInput, rng: random.Random, cross_lingual_rate: float) -> Tuple[Optional[torch.Tensor], int]:
    """(NLL of both directions per sentence, sentence count) of one training document, or
    (None, 0) for an empty one; with probability `cross_lingual_rate` the document is shown
    without its lexical features, as a cross-lingual pair would be."""
    dirs = [pair.s2c, pair.c2s]
    if rng.random() < cross_lingual_rate:
        dirs = [d.without_lexical() for d in dirs]
    n = sum(len(d) for d in dirs)
    if not n:
        return None, 0
    return sum(model.nll(d) for d in dirs) / n, n


def fit_crf(aligner: CRFAligner, inputs: Sequence[PairInput], epochs: int = 30, lr: float = 0.01,
            cross_lingual_rate: float = 0.25, seed: int = 0, log: Optional[Callable[[str], None]] = None,
            encoder_lr: float = 3e-5) -> None:
    """Adam on the summed NLL of both directions, one document per step (see pair_loss)."""
    set_seed(seed)
    model = aligner.model
    named = [(k, p) for k, p in model.named_parameters() if p.requires_grad]
    groups = [{"params": [p for k, p in named if not k.startswith("emission.encoder.")], "lr": lr}]
    pretrained = [p for k, p in named if k.startswith("emission.encoder.")]
    if pretrained:  # a cross-encoder checkpoint is fine-tuned gently
        groups.append({"params": pretrained, "lr": encoder_lr})
    opt = torch.optim.Adam(groups)
    rng = random.Random(seed)
    order = list(range(len(inputs)))
    model.train()
    with torch_threads(aligner.config["torch_threads"]):
        for epoch in range(epochs):
            rng.shuffle(order)
            total, count = 0.0, 0
            for idx in order:
                loss, n = pair_loss(model, inputs[idx], rng, cross_lingual_rate)
                if loss is None:
                    continue
                opt.zero_grad()
                loss.backward()
                opt.step()
                total += float(loss.detach()) * n
                count += n
            if log:
                log(f"epoch {epoch + 1}/{epochs}: nll per sentence {total / max(count, 1):.4f}")
    model.eval()


def holdout_split(n: int, holdout: float, seed: int) -> Tuple[List[int], List[int]]:
    """(held-out, rest) document indices for fitting the learned combination."""
    order = list(range(n))
    random.Random(seed + 1).shuffle(order)
    cut = max(1, int(round(n * holdout)))
    return order[:cut], order[cut:]


def holdout_combination(config: Dict, encoder, rest: Sequence[PairInput], held: Sequence[PairInput],
                        held_gold: Sequence[Set[Tuple[int, int]]], epochs: int, seed: int = 0, lr: float = 0.01,
                        cross_lingual_rate: float = 0.25, log: Optional[Callable[[str], None]] = None) -> List[float]:
    """Weights of the learned combination of directions: a first CRF trained on the `rest`
    documents decodes the `held` ones (features without gold), and a logistic model is fitted
    on its outputs against their gold links."""
    set_seed(seed)
    first = CRFAligner(config, encoder=encoder)
    fit_crf(first, rest, epochs, lr=lr, cross_lingual_rate=cross_lingual_rate, seed=seed, log=log)
    examples = [first.decode(x) + (gold,) for x, gold in zip(held, held_gold)]
    return [float(w) for w in fit_combination(examples, seed)]


def train_aligner(pairs: Sequence[GoldPair], config: Optional[Dict] = None, epochs: int = 30, seed: int = 0,
                  holdout: float = 0.2, encoder=None, inputs: Optional[Sequence[PairInput]] = None,
                  log: Optional[Callable[[str], None]] = None) -> CRFAligner:
    """A trained aligner. With the learned combination, a first CRF is trained on the other
    (1 - holdout) of the documents, the combination is fitted on its outputs for the held-out
    documents, then the CRF is trained again on all of them."""
    config = dict(config or {})
    set_seed(seed)
    aligner = CRFAligner(config, encoder=encoder)
    if inputs is None:
        inputs = featurize_all(aligner, pairs)
    if aligner.config["combination"] == "learned" and len(pairs) >= 5 and holdout > 0:
        held, rest = holdout_split(len(pairs), holdout, seed)
        plain = [aligner.featurize(pairs[i].complex, pairs[i].simple) for i in held]
        weights = holdout_combination(config, aligner.encoder, [inputs[i] for i in rest], plain,
                                      [pairs[i].links for i in held], epochs, seed, log=log)
        aligner.config["combination_weights"] = weights
        if log:
            log(f"combination weights: {np.round(weights, 3).tolist()}")
    set_seed(seed)
    aligner.model = CRFAligner.build_model(aligner.config)
    fit_crf(aligner, inputs, epochs, seed=seed, log=log)
    return aligner
