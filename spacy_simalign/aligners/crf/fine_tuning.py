"""Adapting trained CRF weights to a user's domain from a few gold documents (the `adapt`
command).

Mixing a few gold documents of a new domain into the training data unweighted barely moves the
model: among the background documents they are a small share of the steps. Here the CRF continues from trained weights (the shipped ones, or any weights folder) for a
few epochs in which every user document is shown `repeat` times among the background documents
shown once each (so the model keeps what it knew: the background is the data the weights were
trained on, DEplain-web dev for the shipped ones). Then (`refit`) the two stages that training
fits on held-out decodes, the learned combination (its bias holds the null/threshold trade-off)
and the bead decoder's scorer, are refitted on the adapted CRF's decodes of the user documents:
the domain's own marginals, although in-sample (with epochs = 0: the base's decodes, held out).
benchmarks/scripts/eval_adapt.py compares this order with refitting before fine-tuning or alone
(docs/results.md). Adapting can also lose on a domain (where the
wide CRF already aligns it better): held_out_check measures that on the user's own gold, leaving
one document out at a time."""

import dataclasses
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ...core.errors import InputError
from ...core.setting_checks import AT_LEAST_0, AT_LEAST_1, Range, ranges
from ...core.structures import TrainingPair
from ..scoring import AlignmentScorer
from .aligner import CRFAligner, training_module
from .aligner_settings import SummarySettings
from .combine import fit_combination
from .features import PairInput


@dataclass
@ranges(epochs=AT_LEAST_0, repeat=AT_LEAST_1, learn_rate=Range(0))
class AdaptSettings:
    """How `adapt` fine-tunes: the command's options, with their defaults here only."""

    epochs: int = 5  # passes over the background documents and the repeated user documents (0: none)
    repeat: int = 10  # each user document is shown this many times per epoch
    learn_rate: float = 0.003  # Adam's, below the 0.01 of training from scratch
    refit: bool = True  # then refit the combination and the bead scorer on the user documents' decodes
    seed: int = 0


def schedule(n_user: int, n_background: int, repeat: int) -> List[int]:
    """One epoch's steps as indices into background + user documents: every background document
    once, every user document `repeat` times (CRFTrainer.fit shuffles them)."""
    return list(range(n_background)) + [n_background + i for i in range(n_user) for _ in range(repeat)]


def fine_tune(
    aligner,
    user: Sequence[PairInput],
    background: Sequence[PairInput],
    settings: AdaptSettings = AdaptSettings(),
    tick: Optional[Callable[[], None]] = None,
    log: Optional[Callable[[str], None]] = None,
) -> None:
    """Continue training the aligner's model (loaded weights) on the background documents and the
    repeated user documents (features with gold); `tick` is called after every step."""
    training = dataclasses.replace(aligner.settings, learn_rate=settings.learn_rate, seed=settings.seed)
    train = training_module("train")  # torch: the 'train' extra
    train.set_seed(settings.seed)
    pool = list(background) + list(user)
    steps = [pool[i] for i in schedule(len(user), len(background), settings.repeat)]
    train.CRFTrainer(aligner, training).fit(steps, settings.epochs, log, tick=tick)


def refit_stages(aligner, pairs: Sequence[TrainingPair], plain: Sequence[PairInput], seed: int = 0) -> None:
    """Refit the aligner's learned combination and bead scorer on its CRF's decodes of the user
    documents (`plain`: their features without gold); a stage whose gold there holds one class
    only keeps its weights."""
    cfg = aligner.config
    if cfg["combination"] != "learned" or cfg.get("combination_weights") is None:
        return
    decodes = [(i, x, aligner.decode(x)) for i, x in enumerate(plain)]
    settings = dataclasses.replace(aligner.settings, seed=seed)
    examples = [dec + (pairs[i].links,) for i, _, dec in decodes]
    if len({int(k in links) for s2c, c2s, links in examples for k in set(s2c.probs) | set(c2s.probs)}) == 2:
        weights = fit_combination(examples, seed, settings.combination_c, settings.combination_max_iter)
        cfg["combination_weights"] = [round(float(w), 6) for w in np.asarray(weights)]
    if cfg.get("bead_weights") is not None:
        fitted = training_module("train").fit_bead_decoder(aligner, decodes, pairs, settings)
        cfg["bead_weights"] = fitted or cfg["bead_weights"]


def adapted_aligner(
    folder,
    pairs: Sequence[TrainingPair],
    inputs: Sequence[PairInput],
    plain: Sequence[PairInput],
    background: Sequence[PairInput],
    settings: AdaptSettings = AdaptSettings(),
    encoder=None,
    tick: Optional[Callable[[], None]] = None,
    log: Optional[Callable[[str], None]] = None,
) -> CRFAligner:
    """The aligner of the weights `folder` adapted to the user documents `pairs` (`inputs`: their
    features with gold, `plain`: without): settings.epochs of fine-tuning with `background`
    (features with gold of the documents the weights were trained on), then the refit of its
    stages on its decodes of the user documents (settings.refit). The base's wide CRF (choice.py),
    if it has one, is kept unchanged beside the adapted one."""
    aligner = CRFAligner.load(folder, encoder=encoder)
    if settings.epochs:
        fine_tune(aligner, inputs, background, settings, tick, log)
    if settings.refit:
        refit_stages(aligner, pairs, plain, settings.seed)
    return aligner


@dataclass
class HeldOutCheck:
    """Whether adapting helps on the user's domain, measured on documents adapt did not see: every
    user document aligned by the base and by the base adapted to the other user documents, pooled
    (AlignmentScorer.scores() of each); `documents`: each document's (id, base, adapted) bead-text F1."""

    base: Dict
    adapted: Dict
    documents: List[Tuple[str, float, float]] = field(default_factory=list)

    @property
    def helps(self) -> bool:
        """Whether the adapted aligners' held-out bead-text F1 is above the base's."""
        return self.adapted["bead_text"]["f"] > self.base["bead_text"]["f"]


def decoding_as_default(aligner: CRFAligner) -> CRFAligner:
    """The aligner decoding as the default form, CRFAligner.v3, decodes its weights (the word floor
    of summaries, crf/summaries.py): what a pipeline with the adapted weights does with a document."""
    return aligner.summarise(SummarySettings())


def held_out_check(
    folder,
    pairs: Sequence[TrainingPair],
    inputs: Sequence[PairInput],
    plain: Sequence[PairInput],
    background: Sequence[PairInput],
    settings: AdaptSettings = AdaptSettings(),
    encoder=None,
    tick: Optional[Callable[[], None]] = None,
) -> HeldOutCheck:
    """Leave-one-document-out over the user documents (at least 2; arguments as adapted_aligner's):
    one adapt per document, on the others, with the same settings. The base and the adapted aligners
    decode as a pipeline with the default form does (decoding_as_default)."""
    if len(pairs) < 2:
        raise InputError(f"the held-out check leaves one gold document out: it needs at least 2, got {len(pairs)}")
    base = decoding_as_default(CRFAligner.load(folder, encoder=encoder))
    before, after = AlignmentScorer(), AlignmentScorer()
    documents = []
    for i, (pair, x) in enumerate(zip(pairs, plain)):
        rest = [j for j in range(len(pairs)) if j != i]
        adapted = decoding_as_default(
            adapted_aligner(
                folder,
                [pairs[j] for j in rest],
                [inputs[j] for j in rest] if inputs else [],
                [plain[j] for j in rest],
                background,
                settings,
                encoder,
                tick,
            )
        )
        texts = (pair.complex.sentences, pair.simple.sentences)
        figures = []
        for pooled, aligner in ((before, base), (after, adapted)):
            beads, own = list(aligner.align_input(x)), AlignmentScorer()
            for scorer in (pooled, own):
                scorer.add(pair.gold, beads, *texts)
            figures.append(own.scores()["bead_text"]["f"])
        documents.append((pair.id, figures[0], figures[1]))
    return HeldOutCheck(before.scores(), after.scores(), documents)
