"""Training the CRF aligner (torch, the `train` extra, loaded on first use): initialize readies a
fresh model or reloads saved weights, update takes one step and fit the epochs of steps, through
one crf.train.CRFTrainer; a wide CRF is trained first when wide data is given (choice.py)."""

import copy
import importlib
from typing import Any, Dict, Optional, Sequence

import numpy as np

from ...core.errors import InputError
from ...core.extras import check_installed
from ...core.structures import TrainingPair
from .features import PairInput
from .parts import AlignerParts
from .persistence import read_weights


def training_module(name: str):
    """The torch part `name` of the CRF (model, train); without torch, a MissingExtra naming the
    `train` extra."""
    check_installed("train", "torch", "training the CRF aligner")
    return importlib.import_module(f".{name}", __package__)


class Trainable:
    """The CRF aligner's training (a part of CRFAligner): the torch model, made from the loaded
    weights on first use, and the steps that update it."""

    _crf: Any  # set by the model's setter too: typed as CRFAligner.__init__ types it

    def fresh(self: AlignerParts, config: Dict[str, Any]) -> Any:
        """An untrained aligner of this kind with `config` and the same encoder (training's first CRF)."""
        return self._new(config, encoder=self.encoder, settings=self.settings, translations=self.translations)

    @staticmethod
    def build_model(cfg: Dict[str, Any]):
        """A fresh torch model (model.CRF) of the config's shape."""
        return training_module("model").CRF(cfg["hidden"])

    @property
    def model(self: AlignerParts):
        """The torch model that training updates, made from the loaded weights on first use."""
        if self._model is None:
            model = self.build_model(self.config)
            if self._state is not None:
                model.load_state_dict(training_module("model").state_tensors(self._state))
            model.eval()
            self._model = model
        return self._model

    @model.setter
    def model(self: AlignerParts, model) -> None:
        self._model, self._crf = model, None

    def current_state(self: AlignerParts) -> Dict[str, np.ndarray]:
        """The learned arrays as they are now (after training steps too)."""
        if self._model is not None or self._state is None:
            return training_module("model").state_arrays(self.model.state_dict())
        return self._state

    def initialize(
        self: AlignerParts,
        get_pairs,
        inputs: Optional[Sequence[PairInput]] = None,
        log=None,
        wide_pairs: Optional[Sequence[TrainingPair]] = None,
    ) -> None:
        """Ready for `update` / `fit`: loaded weights are reloaded (fine-tuning starts from them);
        a fresh model is prepared on the training pairs (crf.train.prepare_aligner; `inputs`:
        their features with gold, when already computed). `wide_pairs` (gold of other domains): a
        fresh aligner first trains its wide CRF (choice.py) on the training pairs and those."""
        self._trainer = None
        if wide_pairs and (self.weights is not None or not self.wide_allowed):
            raise InputError("a wide CRF is trained beside a fresh CRF: wide data needs weights = null and wide = true")
        if self.weights is not None:
            cfg, state = read_weights(self.weights)
            trained = ("combination_weights", "bead_weights")
            self.config.update({k: v for k, v in cfg.items() if k in trained})
            self._load_state(state)
            self.ready = True
            return
        train = training_module("train")
        pairs = list(get_pairs())
        if wide_pairs:
            self._train_wide(pairs, wide_pairs, log)
        train.set_seed(self.settings.seed)
        inputs = train.prepare_aligner(self, pairs, self.settings, inputs, log)
        self.ready = True
        self._trainer = trainer = train.CRFTrainer(self, self.settings)
        for pair, feats in zip(pairs, inputs or ()):
            trainer.features(pair, feats)  # computed once for the hold-out, kept for the steps

    def _train_wide(
        self: AlignerParts, pairs: Sequence[TrainingPair], wide_pairs: Sequence[TrainingPair], log=None
    ) -> None:
        """Train the wide CRF (choice.py) on this CRF's `pairs` and the `wide_pairs` of other domains,
        whole, before this CRF's own steps: they reseed, so this CRF is the same as without it."""
        config = copy.deepcopy(self.config)
        wide = self._new(
            config, encoder=self.encoder, settings=self.settings, ready=False, translations=self.translations
        )
        if log:
            log(f"wide CRF: {len(pairs)} training documents and {len(wide_pairs)} of other domains")
        both = list(pairs) + list(wide_pairs)
        wide.initialize(lambda: both, log=log)
        wide.fit(both, log)
        self.attach_wide(lambda _: wide)

    @property
    def trainer(self: AlignerParts):
        """The one trainer of this aligner's steps (made on first use after initialize)."""
        if not self.ready:
            raise ValueError("update() before initialize(): call nlp.initialize(get_examples) first")
        if self._trainer is None:
            self._trainer = training_module("train").CRFTrainer(self, self.settings)
        return self._trainer

    def update(self: AlignerParts, pairs: Sequence[TrainingPair]) -> float:
        """One training step on a batch of gold pairs; returns the summed loss."""
        return self.trainer.update(pairs)[0]

    def fit(self: AlignerParts, pairs: Sequence[TrainingPair], log=None) -> None:
        """settings.epochs passes of one-document steps over `pairs` (after `initialize`)."""
        trainer = self.trainer
        trainer.fit([trainer.features(p) for p in pairs], self.settings.epochs, log)
