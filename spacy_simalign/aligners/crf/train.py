"""Training the CRF aligner: one trainer and one training step for every way of training it.
`CRFTrainer.update` takes an Adam step on the negative log-likelihood of a batch's gold
alignments (both directions): `spacy train` calls it through the sentence-aligner component
(CRFAligner.update), and `CRFTrainer.fit` calls it once per document for `epochs` shuffled
passes (CRFAligner.fit: project/train_crf.py, the cross-validation, the first CRF of the
held-out decodes). Before the steps, `prepare_aligner` fits the learned combination of the two
directions on held-out documents and builds the fresh model. Deterministic for a given seed.

Training needs torch (the package's `train` extra); aligning does not.

The trainer takes the aligner it trains (anything with CRFAligner's model, config, featurize,
decode, bead_context, build_model and fresh): this module does not import the aligner."""

import random
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from ...core.structures import TrainingPair
from .combine import fit_combination
from .features import DirectionInput, PairInput
from .threads import torch_threads
from .training_settings import TrainingSettings


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def training_input(aligner, pair: TrainingPair) -> PairInput:
    """A training document's features with its gold labels."""
    return aligner.featurize(pair.complex, pair.simple, pair.paragraph_links, gold_links=pair.links)


def featurize_all(aligner, pairs: Sequence[TrainingPair], with_gold: bool = True) -> List[PairInput]:
    if with_gold:
        return [training_input(aligner, p) for p in pairs]
    return [aligner.featurize(p.complex, p.simple, p.paragraph_links) for p in pairs]


# a document's (simple->complex, complex->simple) directions as the CRF is to read them in a step:
# with a column computed by a network that learns with it (listened_training.py)
Rescore = Callable[[DirectionInput, DirectionInput], Tuple[DirectionInput, DirectionInput]]


def pair_loss(
    model, pair: PairInput, rng: random.Random, cross_lingual_rate: float, rescore: Optional[Rescore] = None
) -> Tuple[Optional[torch.Tensor], int]:
    """(NLL of both directions per sentence, sentence count) of one training document, or
    (None, 0) for an empty one; with probability `cross_lingual_rate` the document is shown
    without its lexical features, as a cross-lingual pair would be; `rescore`: the directions then
    pass through it."""
    dirs = [pair.s2c, pair.c2s]
    if rng.random() < cross_lingual_rate:
        dirs = [d.without_lexical() for d in dirs]
    n = sum(len(d) for d in dirs)
    if not n:
        return None, 0
    if rescore is not None:
        dirs = list(rescore(dirs[0], dirs[1]))
    loss = sum(model.nll(d) for d in dirs) / n
    return loss, n


class CRFTrainer:
    """Adam on the aligner's model; `update` takes one optimizer step on a batch of documents,
    `fit` runs the epochs of single-document steps."""

    def __init__(self, aligner, settings: TrainingSettings = TrainingSettings()):
        self.aligner, self.settings = aligner, settings
        params = [p for p in aligner.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.Adam([{"params": params, "lr": settings.learn_rate}])
        self.rng = random.Random(settings.seed)  # cross-lingual masking (and fit's shuffling)
        self._features: Dict[Tuple, PairInput] = {}

    @staticmethod
    def key(pair: TrainingPair) -> Tuple:
        c, s = pair.complex, pair.simple
        return (
            tuple(c.sentences),
            tuple(map(tuple, c.paragraphs)),
            c.lang,
            tuple(s.sentences),
            tuple(map(tuple, s.paragraphs)),
            s.lang,
            None if pair.paragraph_links is None else tuple((p.complex, p.simple) for p in pair.paragraph_links),
            tuple(sorted(pair.links)),
        )

    def features(self, pair: TrainingPair, known: Optional[PairInput] = None) -> PairInput:
        """A training document's features with its gold, memoised (`known`: already computed):
        they do not change with the weights, and training reads the same documents every epoch."""
        key = self.key(pair)
        feats = self._features.get(key)
        if feats is None:
            if len(self._features) >= 4096:
                self._features.clear()
            feats = known if known is not None else training_input(self.aligner, pair)
            self._features[key] = feats
        return feats

    def update(self, pairs: Sequence[TrainingPair]) -> Tuple[float, int]:
        """One training step on a batch of gold pairs (empty documents skipped)."""
        return self.step([self.features(p) for p in pairs if len(p.complex) and len(p.simple)])

    def step(self, inputs: Sequence[PairInput], rescores: Optional[Sequence[Rescore]] = None) -> Tuple[float, int]:
        """One Adam step on the mean per-sentence loss of the documents (empty ones skipped);
        returns (summed loss x sentences, sentences) for logging. `rescores`: one per document, the
        directions' rescoring (pair_loss)."""
        model = self.aligner.model
        model.train()
        total, weighted, count, docs = None, 0.0, 0, 0
        with torch_threads(self.aligner.config["torch_threads"]):
            for k, x in enumerate(inputs):
                rescore = None if rescores is None else rescores[k]
                loss, n = pair_loss(model, x, self.rng, self.settings.cross_lingual_rate, rescore)
                if loss is None:
                    continue
                total = loss if total is None else total + loss
                weighted += float(loss.detach()) * n
                count, docs = count + n, docs + 1
            if total is not None:
                self.optimizer.zero_grad()
                (total / docs).backward()
                self.optimizer.step()
        model.eval()
        return weighted, count

    def fit(
        self,
        inputs: Sequence[PairInput],
        epochs: int,
        log: Optional[Callable[[str], None]] = None,
        tick: Optional[Callable[[], None]] = None,
    ) -> None:
        """`epochs` passes over the documents in a shuffled order, one document per step
        (`tick`: called after each step, for a progress bar)."""
        set_seed(self.settings.seed)
        order = list(range(len(inputs)))
        for epoch in range(epochs):
            self.rng.shuffle(order)
            total, count = 0.0, 0
            for idx in order:
                loss, n = self.step([inputs[idx]])
                total += loss
                count += n
                if tick:
                    tick()
            if log:
                log(f"epoch {epoch + 1}/{epochs}: nll per sentence {total / max(count, 1):.4f}")


def fit_crf(
    aligner,
    inputs: Sequence[PairInput],
    epochs: int,
    settings: TrainingSettings = TrainingSettings(),
    log: Optional[Callable[[str], None]] = None,
) -> None:
    """`epochs` of CRFTrainer.fit on already featurized documents with a trainer of its own."""
    CRFTrainer(aligner, settings).fit(inputs, epochs, log)


def holdout_split(n: int, holdout: float, seed: int) -> Tuple[List[int], List[int]]:
    """(held-out, rest) document indices for fitting the learned combination."""
    order = list(range(n))
    random.Random(seed + 1).shuffle(order)
    cut = max(1, int(round(n * holdout)))
    return order[:cut], order[cut:]


def heldout_folds(n: int, settings: TrainingSettings) -> Tuple[List[int], List[List[int]]]:
    """(the documents in the hold-out split's shuffled order, the held-out folds of the second
    stage): the combination's hold-out first, then, for the bead decoder, the other documents
    cut into bead_folds - 1 folds (none when bead_folds < 2)."""
    held, rest = holdout_split(n, settings.combination_holdout, settings.seed)
    order = held + rest
    k = settings.bead_folds - 1
    if k < 1 or len(rest) < k:
        return order, [held]
    return order, [held] + [rest[round(f * len(rest) / k) : round((f + 1) * len(rest) / k)] for f in range(k)]


def heldout_decodes(
    aligner,
    config: Dict,
    inputs: Sequence[PairInput],
    plain: Callable[[int], PairInput],
    held: Sequence[int],
    order: Sequence[int],
    settings: TrainingSettings,
    epochs: int,
    log: Optional[Callable[[str], None]] = None,
) -> List[Tuple[int, PairInput, Tuple]]:
    """(document, its features without gold, (s2c, c2s) decoded) of the `held` documents by a
    first CRF (a fresh aligner like `aligner`, with `config`) trained for `epochs` on the other
    documents (taken in `order`)."""
    set_seed(settings.seed)
    first = aligner.fresh(config)
    held_set = set(held)
    fit_crf(first, [inputs[i] for i in order if i not in held_set], epochs, settings, log=log)
    out = []
    for i in held:
        x = plain(i)
        out.append((i, x, first.decode(x)))
    return out


def fit_bead_decoder(
    aligner, decodes, pairs: Sequence[TrainingPair], settings: TrainingSettings
) -> Optional[List[float]]:
    """The bead decoder's scorer from held-out decodes (with the aligner's combination weights)."""
    from .bead_decoder import bead_examples, fit_bead_scorer

    xs, ys = [], []
    for i, x, (s2c, c2s) in decodes:
        ctx, base = aligner.bead_context(x, s2c, c2s)
        bx, by = bead_examples(ctx, pairs[i].gold, base)
        xs.append(bx)
        ys.append(by)
    return fit_bead_scorer(xs, ys, settings.seed, settings.bead_c, settings.bead_max_iter)


def prepare_aligner(
    aligner,
    pairs: Sequence[TrainingPair],
    settings: TrainingSettings,
    inputs: Optional[Sequence[PairInput]] = None,
    log: Optional[Callable[[str], None]] = None,
) -> Optional[Sequence[PairInput]]:
    """Ready a fresh aligner for its training steps: with the learned combination (and at least
    5 documents), fit the combination on the decodes of held-out documents by a first CRF, and the
    bead decoder on those of bead_folds held-out folds (the combination's among them); then a fresh
    model. Returns the documents' features with gold when it computed them (`inputs`)."""
    config = aligner.config
    config["bead_weights"] = None
    first_epochs = settings.combination_epochs
    if config["combination"] == "learned" and len(pairs) >= 5 and settings.combination_holdout > 0 and first_epochs > 0:
        if inputs is None:
            inputs = featurize_all(aligner, pairs)

        def plain(i: int) -> PairInput:  # features without gold, as at inference (each document is held once)
            return aligner.featurize(pairs[i].complex, pairs[i].simple, pairs[i].paragraph_links)

        first_config = dict(config, combination_weights=None)
        order, folds = heldout_folds(len(pairs), settings)
        decodes = [
            heldout_decodes(aligner, first_config, inputs, plain, held, order, settings, first_epochs, log)
            for held in folds
        ]
        weights = fit_combination(
            [dec + (pairs[i].links,) for i, _, dec in decodes[0]],
            settings.seed,
            settings.combination_c,
            settings.combination_max_iter,
            settings.combination_fallback,
        )
        config["combination_weights"] = [round(float(w), 6) for w in weights]
        if log:
            log(f"combination weights: {np.round(weights, 3).tolist()}")
        if len(folds) > 1:
            held_out = [d for fold in decodes for d in fold]
            config["bead_weights"] = fit_bead_decoder(aligner, held_out, pairs, settings)
            if log and config["bead_weights"] is not None:
                log(f"bead decoder weights: {np.round(config['bead_weights'], 3).tolist()}")
    set_seed(settings.seed)
    aligner.model = aligner.build_model(config)
    aligner.model.eval()
    return inputs
