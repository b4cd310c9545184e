"""CRFAligner: the neural CRF sentence aligner over `Side` objects, with its configuration,
its trained weights (a folder: config.json + model.npz, and wide/ for a wide CRF, choice.py) and
`align(complex, simple)`; registered as `spacy-simalign.CRFAligner.v2` for the alignment components.

The default weights ship in spacy_simalign/weights/crf/: `CRFAligner.default()` works
with no training and no download. Aligning decodes in numpy (inference.py); training builds the
torch model (model.py, train.py) on first use, so only training needs torch."""

import copy
import dataclasses
import importlib
import inspect
import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import srsly

from ...core import caches
from ...core.errors import InputError
from ...core.extras import check_installed
from ...core.pair_kinds import ROUTING
from ...core.registries import aligner_registry
from ...core.setting_checks import (
    AT_LEAST_0,
    AT_LEAST_1,
    EMBEDS,
    UNIT,
    Choice,
    Range,
    Required,
    check_settings,
    ranges,
    setting_error,
)
from ...core.structures import Bead, Side, TrainingPair
from ...similarity.blas_threads import one_blas_thread
from ..protocol import SentenceAlignerBase
from .bead_decoder import CANDIDATE_FLOOR, MAX_BLOCK, MAX_MERGE, MAX_SPLIT, BeadContext, decode_beads
from .choice import WIDE_FOLDER, WIDE_RECORD, check_shared, wide_is_surer
from .combine import COMBINATIONS, LINK_FLOOR, combine, direction_output, kept_links, link_beads, link_probs
from .encoders import similarity_from_spec
from .features import PairFeaturizer, PairInput
from .identical import MIN_WORDS_UNLINKED, identical_beads_win
from .identical import MODES as IDENTICAL_MODES
from .inference import CRFWeights
from .retired import ALIGNER as RETIRED
from .retired import without_retired
from .training_settings import TrainingSettings
from .translations import AnchoredPairKindSettings, PairKindSettings, TranslationSettings
from .unsure import document_score
from .weights_files import (
    check_learned,
    check_saving,
    check_shapes,
    read_config,
    read_state,
    state_bytes,
    state_from_bytes,
)

DEFAULT_WEIGHTS = Path(__file__).resolve().parents[2] / "weights" / "crf"
SHIPPED = "shipped"
V2 = "spacy-simalign.CRFAligner.v2"
WEIGHTS_FILE = "model.npz"
TORCH_WEIGHTS_FILE = "model.pt"  # what spacy-simalign 0.1.0 saved (torch.save); read with torch
BYTES = Path("the CRF aligner's bytes")  # what names to_bytes' and from_bytes' data in errors

# an aligner's config (what config.json saves): its settings, whose defaults are make_crf_aligner's
# (filled in below it), the encoder's saved spec (encoders.py) and the learned weights
DEFAULT_CONFIG: Dict[str, Any] = {
    "encoder": "use",  # the sentence encoder a fresh model gets when none is given
    "combination_weights": None,  # the learned combination (combine.py); trained
    "bead_weights": None,  # the bead decoder's scorer (bead_decoder.py); None: beads are the link components
}
# model shape: loaded weights bring their own, a fresh model takes the config's
SHAPE_SETTINGS = ("hidden",)
DEFAULT_HIDDEN = 32  # never refused: a config cannot tell it from a width it did not set
# settings that came after the shipped weights, at the values that decoded before them: saved only
# where they differ, so a config.json keeps the keys it had (a missing key is the default)
LATER_SETTINGS = (
    "identical_min_words",
    "link_floor",
    "bead_candidate_floor",
    "bead_max_split",
    "bead_max_merge",
    "bead_max_block",
    "wide_margin",
)


def _paragraph_pairs(links) -> Optional[List[Tuple[Sequence[int], Sequence[int]]]]:
    """Accepts ParagraphLink objects, (complex, simple) tuples of paragraph index groups, or None."""
    if links is None:
        return None
    out: List[Tuple[Sequence[int], Sequence[int]]] = []
    for link in links:
        c, s = (link.complex, link.simple) if hasattr(link, "complex") else (link[0], link[1])
        out.append((tuple(c) if not isinstance(c, int) else (c,), tuple(s) if not isinstance(s, int) else (s,)))
    return out


# settings that came after weights were first saved, each with the value that keeps the output
# of weights saved before it (a saved config without the key gets this, not the new default)
PREDATED_SETTINGS: Dict[str, Any] = {"split_fill": None}


def as_saved(config: Dict[str, Any], path=None) -> Dict[str, Any]:
    """A saved aligner's config, with the settings it predates at their old behaviour, without
    the retired ones (retired.py: saved at their off value; another value is an error naming `path`)
    and without the record of a wide CRF (choice.WIDE_RECORD, which describes the folder)."""
    settings = {k: v for k, v in config.items() if k != WIDE_RECORD}
    return {**PREDATED_SETTINGS, **without_retired(settings, RETIRED, path)}


def training_module(name: str):
    """The torch part `name` of the CRF (model, train); without torch, a MissingExtra naming the
    `train` extra."""
    check_installed("train", "torch", "training the CRF aligner")
    return importlib.import_module(f".{name}", __package__)


def weights_file(folder: Path) -> Path:
    """The learned weights' file of a weights folder: model.npz, or an older folder's model.pt."""
    older = folder / TORCH_WEIGHTS_FILE
    return older if older.is_file() and not (folder / WEIGHTS_FILE).is_file() else folder / WEIGHTS_FILE


def read_weights(folder: Union[str, Path]) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """(config, learned arrays) of a weights folder; read once per process while the files stay
    the same (caches.shared), and each aligner keeps its own reference. A damaged file, weights
    that are not finite numbers, or a wide CRF that config.json records and the folder lacks, is an
    InputError naming the file (or folder) as the caller named the weights folder."""
    given = Path(folder)
    folder = given.resolve()
    files = (folder / "config.json", folder / WEIGHTS_FILE, folder / TORCH_WEIGHTS_FILE, folder / WIDE_FOLDER)

    def load():
        if not (folder / "config.json").is_file() or not weights_file(folder).is_file():
            raise InputError(f"not a CRF aligner folder (config.json and {WEIGHTS_FILE} expected): {folder}")
        saved = read_config(given / "config.json")
        check_learned(saved, given / "config.json")
        cfg = as_saved(saved, given / "config.json")
        if saved.get(WIDE_RECORD) and not (folder / WIDE_FOLDER).is_dir():
            raise InputError(
                "missing: config.json records the wide CRF saved here; copy the folder again from where it was saved",
                str(given / WIDE_FOLDER),
            )
        path = given / weights_file(folder).name
        state = read_state(path)
        check_shapes(state, cfg, path)
        return cfg, state

    stamp = tuple(os.stat(p).st_mtime_ns if p.exists() else 0 for p in files)
    return caches.shared("crf-weights", (str(folder), stamp), load)


def wide_loader(folder: Union[str, Path], overrides: Optional[Dict[str, Any]] = None):
    """What makes the wide CRF of the weights `folder` (choice.py: its wide/ folder, if it has one)
    with an encoder; its weights are read now (the folder may go), the inference `overrides` apply
    to it too."""
    wide = Path(folder) / WIDE_FOLDER
    if not wide.is_dir():
        return None
    cfg, state = read_weights(wide)
    cfg = dict(cfg, **{k: v for k, v in (overrides or {}).items() if k != "wide_margin"})

    def load(encoder) -> CRFAligner:
        aligner = CRFAligner(cfg, encoder=encoder, weights=str(wide))
        aligner._load_state(state)
        return aligner

    return load


class CRFAligner(SentenceAlignerBase):
    """Aligns the sentences of a complex and a simple Side into n:m beads.

    It is trainable: `initialize` readies a fresh model (`ready` False: built from a config,
    not loaded from weights), `update` takes one training step and `fit` the epochs of steps,
    all through one crf.train.CRFTrainer with the aligner's `settings` (TrainingSettings).

    Translations (`translations`, an AnchoredPairKindSettings, an older PairKindSettings or the
    length rule of a TranslationSettings): a pair that is a translation is aligned by the
    monotone bead decoder on the same encoder (translations.py)."""

    is_trainable = True

    def __init__(
        self,
        config: Optional[Dict[str, Any]] = None,
        model=None,
        encoder=None,
        settings: Optional[TrainingSettings] = None,
        ready: bool = True,
        weights: Optional[str] = None,
        translations: Union[PairKindSettings, TranslationSettings, None] = None,
    ):
        cfg = copy.deepcopy(DEFAULT_CONFIG)
        cfg.update(without_retired(config or {}, RETIRED))
        # a weights folder's config.json, or a direct call: the settings' own check (core/setting_checks.py);
        # null is the caller's to refuse (the old form's null is the weights' value)
        check_settings(make_crf_aligner, {k: v for k, v in cfg.items() if k in CRF_RANGES and v is not None})
        self.config = cfg
        self._encoder = encoder
        self._model = model  # the torch model (model.py), made on first use: only training needs it
        self._state: Optional[Dict[str, np.ndarray]] = None  # the loaded weights
        self._crf: Optional[CRFWeights] = None  # what decodes them
        self._featurizer: Optional[PairFeaturizer] = None
        self.settings = settings or TrainingSettings()
        self.ready = ready  # False: a fresh model that initialize() must prepare
        self.weights = weights  # where the weights came from (initialize reloads them)
        self._trainer: Any = None  # train.CRFTrainer (torch), made on first use
        self._bead_dp = None
        self.translations: Union[PairKindSettings, TranslationSettings] = translations or AnchoredPairKindSettings()
        # the wide CRF (choice.py), made on first use
        self._wide: Optional[CRFAligner] = None
        self._wide_loader: Optional[Callable[[Any], CRFAligner]] = None
        self.wide_allowed = True  # false (the config's wide = false): no wide CRF aligns, is saved or trained
        # the width the config asked for (hidden, other than the default) and the registered form that
        # asked: weights loaded later (from_disk, from_bytes) must have it (check_width)
        self.asked_hidden: Optional[int] = None
        self.form = V2

    def attach_wide(self, loader: Optional[Callable[[Any], "CRFAligner"]]) -> None:
        """Give the aligner a wide CRF (choice.py), made by `loader(encoder)` on first use with this
        aligner's encoder (None: none)."""
        self._wide, self._wide_loader = None, loader

    @property
    def wide(self) -> Optional["CRFAligner"]:
        """The wide CRF of the per-document choice (choice.py), or None (also with wide = false,
        whatever the weights, bytes or folder it was loaded from hold)."""
        if self._wide_loader is None or not self.wide_allowed:
            return None
        if self._wide is None:
            self._wide = self._wide_loader(self.encoder)
            check_shared(self.config, self._wide.config, self.weights or "the pipeline")
        return self._wide

    def set_translations(self, mode: str, length_ratio: Optional[float] = None) -> None:
        """How pairs that are translations are aligned (translations.py); the length ratio is
        the older length rule's (TranslationSettings)."""
        changes: Dict[str, Any] = {"mode": mode}
        if length_ratio is not None:
            changes["length_ratio"] = float(length_ratio)
        self.translations = dataclasses.replace(self.translations, **changes)
        self._bead_dp = None

    def set_pair_kind(self, kind: str) -> None:
        """Declare what the pairs are ("auto", "translation", "simplification", "comparable"):
        a saved length rule (TranslationSettings) gives way to the routing by kind; an unknown
        kind is refused by PairKindSettings' own check."""
        current = self.translations
        if isinstance(current, PairKindSettings):
            self.translations = dataclasses.replace(current, pair_kind=kind)
        else:
            keep = {f.name: getattr(current, f.name) for f in dataclasses.fields(current) if f.name != "length_ratio"}
            self.translations = PairKindSettings(pair_kind=kind, **keep)
        self._bead_dp = None

    def fresh(self, config: Dict[str, Any]) -> "CRFAligner":
        """An untrained aligner of this kind with `config` and the same encoder (training's first CRF)."""
        return type(self)(config, encoder=self.encoder, settings=self.settings, translations=self.translations)

    @staticmethod
    def build_model(cfg: Dict[str, Any]):
        """A fresh torch model (model.CRF) of the config's shape."""
        return training_module("model").CRF(cfg["hidden"])

    @property
    def model(self):
        """The torch model that training updates, made from the loaded weights on first use."""
        if self._model is None:
            model = self.build_model(self.config)
            if self._state is not None:
                model.load_state_dict(training_module("model").state_tensors(self._state))
            model.eval()
            self._model = model
        return self._model

    @model.setter
    def model(self, model) -> None:
        self._model, self._crf = model, None

    @property
    def crf(self) -> CRFWeights:
        """What decodes: the torch model's current weights while there is one, else the loaded ones."""
        if self._model is not None or self._state is None:
            return self.model.weights()
        if self._crf is None:
            self._crf = CRFWeights(self._state)
        return self._crf

    def current_state(self) -> Dict[str, np.ndarray]:
        """The learned arrays as they are now (after training steps too)."""
        if self._model is not None or self._state is None:
            return training_module("model").state_arrays(self.model.state_dict())
        return self._state

    @property
    def encoder(self):
        if self._encoder is None:
            self._encoder = similarity_from_spec(self.config["encoder"])
        return self._encoder

    @property
    def featurizer(self) -> PairFeaturizer:
        if self._featurizer is None:
            c = self.config
            self._featurizer = PairFeaturizer(self.encoder, c["top_k"], c["top_k_lexical"], c["band"], c["neighbours"])
        return self._featurizer

    def featurize(
        self, complex_side: Side, simple_side: Side, paragraph_links=None, gold_links=None, embeddings=None
    ) -> PairInput:
        return self.featurizer(complex_side, simple_side, _paragraph_pairs(paragraph_links), gold_links, embeddings)

    def encoders(self) -> List:
        return [self.encoder]

    def align(self, complex_side: Side, simple_side: Side, paragraph_links=None) -> List[Bead]:
        """Beads (complex indices, simple indices, score in [0, 1]) of the pair; sentences in
        no bead are deleted (complex) or added (simple)."""
        if not self.ready:
            raise ValueError(
                "this CRF aligner has no weights yet: with weights = null it is built by "
                "nlp.initialize() and trained (spacy train); to align without training use "
                'weights = "shipped" (the package\'s model) or a CRF weights folder, or spacy.load '
                "a trained pipeline"
            )
        if not len(complex_side) or not len(simple_side):
            return []
        if self.is_translation(complex_side, simple_side):
            return self.bead_dp.align(complex_side, simple_side)
        embeddings = (self.featurizer.embed(complex_side), self.featurizer.embed(simple_side))
        with one_blas_thread():  # the same bits on any number of BLAS threads
            pair = self.featurize(complex_side, simple_side, paragraph_links, embeddings=embeddings)
            return self.align_input(pair)

    def is_translation(self, complex_side: Side, simple_side: Side) -> bool:
        """A translation (translations.py): aligned by the bead decoder."""
        return self.translations.is_translation(complex_side, simple_side)

    @property
    def bead_dp(self):
        if self._bead_dp is None:
            self._bead_dp = self.translations.decoder(self.encoder)
        return self._bead_dp

    def align_input(self, pair: PairInput, combination: Optional[str] = None) -> List[Bead]:
        """Beads from already computed features (used by training and cross-validation), by this
        CRF or, if it has one and that one is surer of the document, by the wide CRF (choice.py)."""
        decoded = self.decoded(pair)
        wide = self.wide
        if wide is not None:  # its s2c direction scores the document; its c2s is decoded only if it wins
            wide_s2c = wide.crf.decode_many([pair.s2c])  # per sequence: the bits of a batch
            own, theirs = document_score(decoded[0][1]), document_score(wide_s2c[0][1])
            if wide_is_surer(own, theirs, self.config["wide_margin"]):
                wide_decoded = wide_s2c + wide.crf.decode_many([pair.c2s])
                return wide.beads(pair, wide.outputs(pair, wide_decoded), combination)
        return self.beads(pair, self.outputs(pair, decoded), combination)

    def beads(self, pair: PairInput, outputs, combination: Optional[str] = None) -> List[Bead]:
        """Beads of this CRF's decoded directions (s2c, c2s) of the pair."""
        s2c, c2s = outputs
        cfg = self.config
        method = combination or cfg["combination"]
        weights = cfg.get("combination_weights")
        if method == "learned" and weights is None:
            method = "union"
        if method == "learned" and cfg.get("bead_weights") is not None:
            beads = self.bead_stage(pair, s2c, c2s)
        else:
            beads = combine(
                s2c, c2s, method, None if weights is None else np.asarray(weights), cfg["threshold"], cfg["split_fill"]
            )
        return identical_beads_win(
            beads, pair.s2c.tgt_texts, pair.s2c.src_texts, cfg["identical"], cfg["identical_min_words"]
        )

    def bead_context(self, pair: PairInput, s2c, c2s) -> Tuple[BeadContext, List[Bead]]:
        """(the bead decoder's view of a decoded pair, the link-level beads of the learned combination)."""
        cfg = self.config
        probs = link_probs(s2c, c2s, cfg["combination_weights"])
        base = link_beads(kept_links(probs, s2c, cfg["threshold"], cfg["split_fill"]))
        return BeadContext(
            s2c,
            c2s,
            probs,
            *pair.sentence_lengths(),
            pair.cross_lingual,
            cfg["bead_candidate_floor"],
            cfg["bead_max_split"],
            cfg["bead_max_merge"],
            cfg["bead_max_block"],
        ), base

    def bead_stage(self, pair: PairInput, s2c, c2s) -> List[Bead]:
        """Beads chosen as units by the bead decoder (bead_decoder.py) over the link-level beads."""
        cfg = self.config
        ctx, base = self.bead_context(pair, s2c, c2s)
        return decode_beads(ctx, cfg["bead_weights"], cfg["bead_threshold"], base)

    def decode(self, pair: PairInput):
        """Both directions' outputs (combine.DirectionOutput) of this CRF."""
        return self.outputs(pair, self.decoded(pair))

    def decoded(self, pair: PairInput):
        """The model's (best labels, marginals) of the s2c and the c2s direction."""
        return self.crf.decode_many([pair.s2c, pair.c2s])

    def outputs(self, pair: PairInput, decoded):
        """The directions' outputs of `decoded` (self.decoded(pair))."""
        return tuple(
            direction_output(best, marg, x.cand, x.src_is_complex, self.config["link_floor"])
            for (best, marg), x in zip(decoded, (pair.s2c, pair.c2s))
        )

    # persistence ---------------------------------------------------------------------------
    def _saved_config(self) -> Dict[str, Any]:
        """config.json: the settings and learned stage weights, and the record of a wide CRF
        saved beside them (choice.WIDE_RECORD), when there is one."""
        cfg = {k: v for k, v in self.config.items() if k not in LATER_SETTINGS or v != DEFAULT_CONFIG[k]}
        if cfg.get("combination_weights") is not None:
            cfg["combination_weights"] = [round(float(w), 6) for w in cfg["combination_weights"]]
        cfg.pop(WIDE_RECORD, None)
        if self.wide is not None:
            cfg[WIDE_RECORD] = True
        return cfg

    def _check_saving(self, folder: Optional[Path]) -> None:
        """This CRF's weights and its wide CRF's, about to be saved in `folder` (None: as bytes), are
        finite numbers (weights_files.check_saving), checked before anything of either is written."""
        state_path, config_path = (folder / WEIGHTS_FILE, folder / "config.json") if folder else (BYTES, BYTES)
        check_saving(self.current_state(), self.config, state_path, config_path)
        if self.wide is not None:
            self.wide._check_saving(folder / WIDE_FOLDER if folder else None)

    def save(self, folder: Union[str, Path]) -> None:
        """config.json, model.npz and wide/ (the wide CRF's folder) in `folder`; weights that are
        not finite numbers are refused before anything is written."""
        folder = Path(folder)
        self._check_saving(folder)
        folder.mkdir(parents=True, exist_ok=True)
        cfg = self._saved_config()
        tmp = folder / "config.json.tmp"
        tmp.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        data = state_bytes(self.current_state())
        if self.wide is not None:
            self.wide.save(folder / WIDE_FOLDER)
        elif (folder / WIDE_FOLDER).is_dir():  # the folder now holds one CRF: no earlier wide one decodes with it
            shutil.rmtree(folder / WIDE_FOLDER)
        (folder / f"{WEIGHTS_FILE}.tmp").write_bytes(data)
        os.replace(folder / f"{WEIGHTS_FILE}.tmp", folder / WEIGHTS_FILE)
        (folder / TORCH_WEIGHTS_FILE).unlink(missing_ok=True)  # an older save's weights, replaced by these
        os.replace(tmp, folder / "config.json")

    @classmethod
    def load(cls, folder: Union[str, Path], encoder=None, overrides: Optional[Dict[str, Any]] = None) -> "CRFAligner":
        """The aligner saved in `folder`; `overrides` change its inference settings (top_k, combination, ...)."""
        cfg, state = read_weights(folder)
        cfg = dict(cfg, **(overrides or {}))
        aligner = cls(cfg, encoder=encoder, weights=str(folder))
        aligner._load_state(state)
        aligner.attach_wide(wide_loader(folder, overrides))
        return aligner

    def _load_state(self, state: Dict[str, np.ndarray]) -> None:
        """Take `state` (checked arrays) as the weights; a torch model is made from them when training needs one."""
        self._state, self._model, self._crf = state, None, None

    # the component protocol: training and serialisation ---------------------------------
    def initialize(
        self,
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

    def _train_wide(self, pairs: Sequence[TrainingPair], wide_pairs: Sequence[TrainingPair], log=None) -> None:
        """Train the wide CRF (choice.py) on this CRF's `pairs` and the `wide_pairs` of other domains,
        whole, before this CRF's own steps: they reseed, so this CRF is the same as without it."""
        config = copy.deepcopy(self.config)
        wide = type(self)(
            config, encoder=self.encoder, settings=self.settings, ready=False, translations=self.translations
        )
        if log:
            log(f"wide CRF: {len(pairs)} training documents and {len(wide_pairs)} of other domains")
        both = list(pairs) + list(wide_pairs)
        wide.initialize(lambda: both, log=log)
        wide.fit(both, log)
        self.attach_wide(lambda _: wide)

    @property
    def trainer(self):
        """The one trainer of this aligner's steps (made on first use after initialize)."""
        if not self.ready:
            raise ValueError("update() before initialize(): call nlp.initialize(get_examples) first")
        if self._trainer is None:
            self._trainer = training_module("train").CRFTrainer(self, self.settings)
        return self._trainer

    def update(self, pairs: Sequence[TrainingPair]) -> float:
        """One training step on a batch of gold pairs; returns the summed loss."""
        return self.trainer.update(pairs)[0]

    def fit(self, pairs: Sequence[TrainingPair], log=None) -> None:
        """settings.epochs passes of one-document steps over `pairs` (after `initialize`)."""
        trainer = self.trainer
        trainer.fit([trainer.features(p) for p in pairs], self.settings.epochs, log)

    def to_bytes(self) -> bytes:
        """config and weights (and the wide CRF's); weights that are not finite numbers are refused."""
        self._check_saving(None)
        msg = {"config": self._saved_config(), "model": state_bytes(self.current_state())}
        if self.wide is not None:
            msg["wide"] = self.wide.to_bytes()
        return srsly.msgpack_dumps(msg)

    def from_bytes(self, data: bytes) -> "CRFAligner":
        msg = srsly.msgpack_loads(data)
        check_learned(msg["config"], BYTES)
        if msg["config"].get(WIDE_RECORD) and "wide" not in msg:
            raise InputError("missing: the config records a wide CRF that they do not hold", str(BYTES))
        config = as_saved(msg["config"])
        state = state_from_bytes(msg["model"], BYTES)
        check_shapes(state, config, BYTES)
        self._replace(config, state, BYTES)
        if "wide" in msg:
            self.attach_wide(lambda encoder: CRFAligner(encoder=encoder).from_bytes(msg["wide"]))
        return self

    def to_disk(self, path) -> None:
        self.save(path)

    def from_disk(self, path) -> "CRFAligner":
        if not (Path(path) / "config.json").is_file():
            return self
        self._replace(*read_weights(path), path)
        self.attach_wide(wide_loader(path))
        return self

    def check_width(self, width: int, where) -> None:
        """Weights `width` wide (their hidden), loaded from `where`, have the width the config asked
        for (asked_hidden, when it asked for one other than the default): else a one-line error
        naming both, as the registered form that asked."""
        if self.asked_hidden is not None and width != self.asked_hidden:
            raise setting_error(
                f"{self.form}: hidden = {self.asked_hidden}: the loaded weights have hidden = {width} ({where}); "
                "a loaded model's width is its weights'"
            )

    def _replace(self, config: Dict[str, Any], state, where) -> "CRFAligner":
        """Take over a saved aligner's config and weights, loaded from `where` (the encoder stays)."""
        self.check_width(config.get("hidden", DEFAULT_HIDDEN), where)
        cfg = copy.deepcopy(DEFAULT_CONFIG)
        cfg.update(config)
        self.config = cfg
        self._load_state(state)
        self._featurizer, self._trainer, self.ready = None, None, True
        self.attach_wide(None)
        return self

    @classmethod
    def default(cls, encoder=None, overrides: Optional[Dict[str, Any]] = None) -> "CRFAligner":
        """The shipped weights: the CRF of DEplain-web dev (all 82 documents) and, in wide/, the wide
        CRF of those and the 30 sgc-dev documents (choice.py)."""
        return cls.load(DEFAULT_WEIGHTS, encoder=encoder, overrides=overrides)


def train_aligner(
    pairs: Sequence[TrainingPair],
    config: Optional[Dict] = None,
    epochs: Optional[int] = None,
    settings: TrainingSettings = TrainingSettings(),
    encoder=None,
    inputs: Optional[Sequence[PairInput]] = None,
    log=None,
) -> CRFAligner:
    """A trained fresh aligner (`config`: its settings): initialize, then fit, as
    project/train_crf.py does. `epochs`: both CRFs' epochs (the first, whose decodes fit the
    combination, and the final one) instead of the settings'. `inputs`: the pairs' features
    with gold, when already computed."""
    if epochs is not None:
        settings = dataclasses.replace(settings, epochs=epochs, combination_epochs=epochs)
    training_module("train").set_seed(settings.seed)
    aligner = CRFAligner(dict(config or {}), encoder=encoder, settings=settings, ready=False)
    aligner.initialize(lambda: pairs, inputs, log)
    aligner.fit(pairs, log)
    return aligner


TRAINING = {"@simalign_aligners": "spacy-simalign.CRFTraining.v1"}
TRANSLATIONS = {"@simalign_aligners": ROUTING}


def sub_config(value, kind):
    """A sub-config's object: given (resolved by the config), or its defaults (a direct call)."""
    if isinstance(value, dict):
        return kind(**{k: v for k, v in value.items() if not k.startswith("@")})
    return value


# what each setting allows (core/setting_checks.py: checked on every call, before the aligner is built). The
# candidate counts (top_k, top_k_lexical, band, neighbours) are clipped to the document, so any
# count works; the bead decoder's run lengths and the model's width are not, hence their bounds.
CRF_RANGES = {
    **dict.fromkeys(
        ("threshold", "split_fill", "link_floor", "bead_threshold", "bead_candidate_floor"), UNIT
    ),  # probabilities
    **dict.fromkeys(("top_k", "torch_threads"), AT_LEAST_1),
    **dict.fromkeys(("top_k_lexical", "band", "neighbours", "identical_min_words", "wide_margin"), AT_LEAST_0),
    **dict.fromkeys(("bead_max_split", "bead_max_merge"), Range(1, 50)),
    "bead_max_block": Range(1, 10),
    "hidden": Range(1, 4096),
    "combination": Choice(COMBINATIONS),
    "identical": Choice(IDENTICAL_MODES),
    "similarity": EMBEDS,
    **RETIRED,
}
# v2's settings that null does not stand for: its filled config shows their value. Null keeps its
# meaning for weights (a fresh CRF), similarity (the weights' own encoder), cross_encoder_path
# (off), split_fill (the weights' own: none for weights saved before it, as align --model passes
# it on), hidden (the weights' width) and the retired emission and clauses (off)
VALUED = (
    "combination",
    "threshold",
    "top_k",
    "top_k_lexical",
    "band",
    "neighbours",
    "identical",
    "identical_min_words",
    "link_floor",
    "bead_threshold",
    "bead_candidate_floor",
    "bead_max_split",
    "bead_max_merge",
    "bead_max_block",
    "torch_threads",
    "wide",
    "wide_margin",
    "translations",
    "training",
)
NULL_IS_OLD_FORM = "null is the weights' value only in the old form, spacy-simalign.CRFAligner.v1"
V2_RANGES = {**CRF_RANGES, **{key: Required(CRF_RANGES.get(key), NULL_IS_OLD_FORM) for key in VALUED}}


@aligner_registry(V2)
@ranges(**V2_RANGES)
def make_crf_aligner(
    weights: Optional[str] = SHIPPED,
    similarity=None,
    combination: Optional[str] = "learned",
    threshold: Optional[float] = 0.5,
    top_k: Optional[int] = 6,
    top_k_lexical: Optional[int] = 4,
    band: Optional[int] = 3,
    neighbours: Optional[int] = 2,
    hidden: Optional[int] = DEFAULT_HIDDEN,
    identical: Optional[str] = "unique",
    identical_min_words: int = MIN_WORDS_UNLINKED,
    split_fill: Optional[float] = 0.4,
    link_floor: float = LINK_FLOOR,
    bead_threshold: Optional[float] = 0.5,
    bead_candidate_floor: float = CANDIDATE_FLOOR,
    bead_max_split: int = MAX_SPLIT,
    bead_max_merge: int = MAX_MERGE,
    bead_max_block: int = MAX_BLOCK,
    torch_threads: int = 1,
    wide: bool = True,
    wide_margin: float = 0.1,
    # config references: confection resolves each to the annotated type; sub_config builds
    # the defaults on a direct call
    translations: Union[PairKindSettings, TranslationSettings, str] = TRANSLATIONS,  # type: ignore[assignment]
    training: TrainingSettings = TRAINING,  # type: ignore[assignment]
    emission: Optional[str] = "features",
    cross_encoder_path: Optional[str] = None,
    clauses: bool = False,
) -> CRFAligner:
    """The neural CRF sentence aligner (the default). The defaults are the shipped weights' settings.

    weights: "shipped" (the package's model), a CRF weights folder, or null (a fresh model that
        `nlp.initialize()` prepares for `spacy train`; aligning before that is an error).
    similarity: the sentence encoder (default: the weights' own, multilingual USE).
    combination, threshold: how the two directions are combined (union, intersection, learned)
        and the link probability the learned combination keeps; link_floor: the probability
        below which a direction drops a link (crf/combine.py).
    top_k, top_k_lexical, band, neighbours: the candidates per sentence (crf/candidate_labels.py).
    hidden: a fresh model's width; loaded weights bring their own, and a width other than the
        default (32) that is not theirs is refused, naming both (null: the weights' width).
    identical, identical_min_words: identical sentences get their own 1:1 bead ("unique",
        "linked" or "off"; crf/identical.py).
    split_fill: the split fill (crf/combine.py; null: the weights' own, none for weights saved
        before it); bead_threshold, bead_candidate_floor, bead_max_split, bead_max_merge,
        bead_max_block: the bead decoder (crf/bead_decoder.py).
    torch_threads: torch threads for training (inference is numpy).
    wide, wide_margin: weights with a wide CRF (the shipped ones: trained on more domains, in their
        folder's wide/) align a document by it when its mean entropy is lower by at least
        wide_margin nats; wide = false: never (crf/choice.py). A fresh model trains one beside it
        when the component's initialize is given wide_data (spacy train --paths.wide).
    translations: [aligner.translations], how translations are aligned (crf/translations.py;
        a mode name for short). training: [aligner.training], crf.train.TrainingSettings.
    emission, cross_encoder_path, clauses: accepted only at their off value, for pipelines saved by
        0.1.0 (crf/retired.py).

    Null is a value for weights (a fresh model), similarity (the weights' own encoder), hidden and
    split_fill (the weights' own) and the retired settings (off); every other setting needs a
    value, and null is refused in one line (VALUED), not taken as the default. Only the old form,
    `spacy-simalign.CRFAligner.v1` (crf/legacy.py), which pipelines saved before v2 name, takes
    null for a setting as the weights' value (a fresh model: the default)."""
    translations = sub_config(translations, AnchoredPairKindSettings)
    if isinstance(translations, str):
        translations = AnchoredPairKindSettings(mode=translations)
    settings = sub_config(training, TrainingSettings)
    given = {
        "combination": combination,
        "threshold": threshold,
        "top_k": top_k,
        "top_k_lexical": top_k_lexical,
        "band": band,
        "neighbours": neighbours,
        "hidden": hidden,
        "identical": identical,
        "identical_min_words": identical_min_words,
        "split_fill": split_fill,
        "link_floor": link_floor,
        "bead_threshold": bead_threshold,
        "bead_candidate_floor": bead_candidate_floor,
        "bead_max_split": bead_max_split,
        "bead_max_merge": bead_max_merge,
        "bead_max_block": bead_max_block,
        "torch_threads": torch_threads,
        "wide_margin": wide_margin,
    }
    return configured_aligner(V2, weights, similarity, given, settings, translations, wide)


def configured_aligner(
    form: str,
    weights: Optional[str],
    similarity,
    given: Dict[str, Any],
    settings: TrainingSettings,
    translations: Union[PairKindSettings, TranslationSettings],
    wide: bool,
) -> CRFAligner:
    """The aligner of a registered form (`form`, its name in errors) with the `given` settings, of
    which null ones are the weights' values (a fresh model: the defaults)."""
    overrides = {k: v for k, v in given.items() if v is not None}
    if similarity is not None and getattr(similarity, "spec", None):
        overrides["encoder"] = similarity.spec
    hidden = overrides.get("hidden")
    if weights is None:
        aligner = CRFAligner(overrides, encoder=similarity, settings=settings, ready=False, translations=translations)
    else:
        folder = DEFAULT_WEIGHTS if weights == SHIPPED else Path(weights)
        if not folder.exists():
            raise InputError(f"CRF weights folder not found: {weights}")
        overrides = {k: v for k, v in overrides.items() if k not in SHAPE_SETTINGS}
        aligner = CRFAligner.load(folder, encoder=similarity, overrides=overrides)
        aligner.settings, aligner.translations = settings, translations
    aligner.form = form
    aligner.asked_hidden = hidden if hidden != DEFAULT_HIDDEN else None
    if weights is not None:
        aligner.check_width(aligner.config["hidden"], "the shipped weights" if weights == SHIPPED else weights)
    aligner.wide_allowed = wide
    return aligner


DEFAULT_CONFIG.update(
    {
        name: p.default
        for name, p in inspect.signature(make_crf_aligner).parameters.items()
        if name not in ("weights", "similarity", "translations", "training", "wide") and name not in RETIRED
    }
)


def saved_settings(folder: Union[str, Path]) -> Dict[str, Any]:
    """The inference settings a weights folder was saved with, as make_crf_aligner arguments: what
    `align --model FOLDER` puts in its [aligner] config, so the folder decodes as it was saved
    (and the config shows it). The model's shape comes with the weights anyway."""
    cfg, _ = read_weights(folder)
    names = set(inspect.signature(make_crf_aligner).parameters) - set(SHAPE_SETTINGS) - set(RETIRED)
    return {k: v for k, v in cfg.items() if k in names}
