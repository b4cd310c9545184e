"""CRFAligner: the neural CRF sentence aligner over `Side` objects, with its configuration,
its trained weights (a folder: config.json + model.pt) and `align(complex, simple)`;
registered as `spacy-simalign.CRFAligner.v1` for the alignment components.

The default weights ship in spacy_simalign/weights/crf/: `CRFAligner.default()` works
with no training and no download."""
import copy
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import srsly
import torch
from threadpoolctl import threadpool_limits

from ... import caches
from ...errors import InputError
from ...registry import aligner_registry
from ...structures import Bead, Side, TrainingPair
from ..protocol import SentenceAlignerBase
from .beads import BeadContext, decode_beads
from .combine import COMBINATIONS, combine, direction_output, kept_links, link_beads, link_probs
from .features import PairFeaturizer, PairInput
from .identical import MODES as IDENTICAL_MODES
from .identical import identical_beads_win
from .model import CRF

DEFAULT_WEIGHTS = Path(__file__).resolve().parents[2] / "weights" / "crf"
SHIPPED = "shipped"

DEFAULT_CONFIG: Dict[str, Any] = {
    "encoder": "use",            # similarity backend name (get_similarity) or a sentence-transformers folder
    "emission": "features",      # "features" (default) or "cross-encoder"
    "cross_encoder_path": None,  # Hugging Face checkpoint folder for the cross-encoder emission
    "hidden": 32,
    "top_k": 6,                  # candidates per sentence by embedding cosine
    "top_k_lexical": 4,          # ... and by word TF-IDF
    "band": 3,                   # ... and around the diagonal
    "neighbours": 2,             # ... and next to the best matches of this many neighbours each side
    "combination": "learned",    # "union", "intersection" or "learned"
    "threshold": 0.5,            # link probability kept by the learned combination
    "combination_weights": None,
    "torch_threads": 1,          # torch threads for training and the cross-encoder (inference is numpy)
    "identical": "unique",       # identical sentences get their own 1:1 bead: "off", "linked", "unique" (identical.py)
    "split_fill": 0.4,           # keep a split part only the simple->complex direction finds (combine.fill_splits)
    "bead_weights": None,        # the bead decoder's scorer (beads.py); None: beads are the link components
    "bead_threshold": 0.5,       # bead probability a chosen bead must exceed
}


def _paragraph_pairs(links) -> Optional[List[Tuple[Sequence[int], Sequence[int]]]]:
    """Accepts ParagraphLink objects, (complex, simple) tuples of paragraph index groups, or None."""
    if links is None:
        return None
    out = []
    for link in links:
        c, s = (link.complex, link.simple) if hasattr(link, "complex") else (link[0], link[1])
        out.append((tuple(c) if not isinstance(c, int) else (c,), tuple(s) if not isinstance(s, int) else (s,)))
    return out


# settings that came after weights were first saved, each with the value that keeps the output
# of weights saved before it (a saved config without the key gets this, not the new default)
PREDATED_SETTINGS: Dict[str, Any] = {"split_fill": None}


def as_saved(config: Dict[str, Any]) -> Dict[str, Any]:
    """A saved aligner's config, with the settings it predates at their old behaviour."""
    return {**PREDATED_SETTINGS, **config}


def read_weights(folder: Union[str, Path], cached: bool = True) -> Tuple[Dict[str, Any], Dict[str, torch.Tensor]]:
    """(config, state dict) of a weights folder; read once per process while the files stay the
    same (caches.shared), and each aligner loads the tensors into a model of its own."""
    folder = Path(folder).resolve()

    def load():
        if not (folder / "config.json").is_file() or not (folder / "model.pt").is_file():
            raise InputError(f"not a CRF aligner folder (config.json and model.pt expected): {folder}")
        cfg = as_saved(json.loads((folder / "config.json").read_text(encoding="utf-8")))
        if cfg.get("emission") == "cross-encoder" and (folder / "cross_encoder").is_dir():
            cfg["cross_encoder_path"] = str(folder / "cross_encoder")
        return cfg, torch.load(folder / "model.pt", map_location="cpu", weights_only=True)

    if not cached:
        return load()
    stamp = tuple(os.stat(p).st_mtime_ns if p.exists() else 0 for p in (folder / "config.json", folder / "model.pt"))
    return caches.shared("crf-weights", (str(folder), stamp), load)


class CRFAligner(SentenceAlignerBase):
    """Aligns the sentences of a complex and a simple Side into n:m beads.

    For the components it is also trainable: `initialize` readies a fresh model (`ready`
    False: built from a config, not loaded from weights) and `update` takes a training step
    through crf.train.CRFTrainer, with the aligner's `settings` (TrainingSettings).

    Translations: a pair whose sides are in two languages and of about the same length (their
    characters within a factor `translation_length_ratio`) is a translation, not a
    simplification; with `translations = "bead-dp"` (default) it is aligned by the monotone bead
    decoder (bead_dp.py) on the same encoder. The CRF learned from simplifications, which delete
    a lot, and leaves a translation's sentences unaligned too often (docs/results.md)."""

    is_trainable = True
    TRANSLATIONS = ("bead-dp", "crf")

    def __init__(self, config: Optional[Dict[str, Any]] = None, model: Optional[CRF] = None, encoder=None,
                 settings=None, ready: bool = True, weights: Optional[str] = None, translations: str = "bead-dp",
                 translation_length_ratio: float = 1.25):
        cfg = copy.deepcopy(DEFAULT_CONFIG)
        cfg.update(config or {})
        if cfg["combination"] not in COMBINATIONS:
            raise InputError(f"unknown combination {cfg['combination']!r}: choose one of {', '.join(COMBINATIONS)}")
        if cfg["identical"] not in IDENTICAL_MODES:
            raise InputError(f"unknown identical {cfg['identical']!r}: choose one of {', '.join(IDENTICAL_MODES)}")
        self.config = cfg
        self._encoder = encoder
        self.model = model if model is not None else self.build_model(cfg)
        self.model.eval()
        self._featurizer = None
        self.settings = settings
        self.ready = ready          # False: a fresh model that initialize() must prepare
        self.weights = weights      # where the weights came from (initialize reloads them)
        self._trainer = None
        self._bead_dp = None
        self.set_translations(translations, translation_length_ratio)

    def set_translations(self, translations: str, length_ratio: float) -> None:
        """How pairs that are translations are aligned (see the class docstring)."""
        if translations not in self.TRANSLATIONS:
            raise InputError(f"unknown translations decoder {translations!r}: choose one of {', '.join(self.TRANSLATIONS)}")
        if length_ratio < 1.0:
            raise InputError(f"translation_length_ratio must be at least 1, got {length_ratio}")
        self.translations, self.translation_length_ratio = translations, float(length_ratio)

    @staticmethod
    def build_model(cfg: Dict[str, Any]) -> CRF:
        if cfg["emission"] == "cross-encoder":
            from .cross_encoder import CrossEncoderEmission

            if not cfg.get("cross_encoder_path"):
                raise InputError("the cross-encoder emission needs config 'cross_encoder_path' (a model folder)")
            return CRF(cfg["hidden"], emission=CrossEncoderEmission(cfg["cross_encoder_path"]))
        if cfg["emission"] != "features":
            raise InputError(f"unknown emission {cfg['emission']!r}: choose 'features' or 'cross-encoder'")
        return CRF(cfg["hidden"])

    @property
    def encoder(self):
        if self._encoder is None:
            from ...similarity.backends import get_similarity

            self._encoder = get_similarity(self.config["encoder"])
        return self._encoder

    @property
    def featurizer(self) -> PairFeaturizer:
        if self._featurizer is None:
            c = self.config
            self._featurizer = PairFeaturizer(self.encoder, c["top_k"], c["top_k_lexical"], c["band"], c["neighbours"])
        return self._featurizer

    def featurize(self, complex_side: Side, simple_side: Side, paragraph_links=None, gold_links=None,
                  embeddings=None) -> PairInput:
        return self.featurizer(complex_side, simple_side, _paragraph_pairs(paragraph_links), gold_links, embeddings)

    def encoders(self) -> List:
        return [self.encoder]

    def align(self, complex_side: Side, simple_side: Side, paragraph_links=None) -> List[Bead]:
        """Beads (complex indices, simple indices, score in [0, 1]) of the pair; sentences in
        no bead are deleted (complex) or added (simple)."""
        if not self.ready:
            raise ValueError("this CRF aligner has no weights yet: with weights = null it is built by "
                             "nlp.initialize() and trained (spacy train); to align without training use "
                             "weights = \"shipped\" (the package's model) or a CRF weights folder, or spacy.load "
                             "a trained pipeline")
        if not len(complex_side) or not len(simple_side):
            return []
        if self.is_translation(complex_side, simple_side):
            return self.bead_dp.align(complex_side, simple_side)
        embeddings = (self.featurizer.embed(complex_side), self.featurizer.embed(simple_side))
        with threadpool_limits(limits=1, user_api="blas"):  # the same bits on any number of BLAS threads
            pair = self.featurize(complex_side, simple_side, paragraph_links, embeddings=embeddings)
            return self.align_input(pair)

    def is_translation(self, complex_side: Side, simple_side: Side) -> bool:
        """Two languages and about the same length: aligned by the bead decoder (see the class docstring)."""
        if self.translations != "bead-dp" or complex_side.lang == simple_side.lang:
            return False
        chars = [sum(len(t) for t in side.sentences) for side in (complex_side, simple_side)]
        return bool(min(chars)) and max(chars) / min(chars) <= self.translation_length_ratio

    @property
    def bead_dp(self):
        if self._bead_dp is None:
            from ..bead_dp import BeadDPAligner

            self._bead_dp = BeadDPAligner(self.encoder)
        return self._bead_dp

    def align_input(self, pair: PairInput, combination: Optional[str] = None) -> List[Bead]:
        """Beads from already computed features (used by training and cross-validation)."""
        s2c, c2s = self.decode(pair)
        cfg = self.config
        method = combination or cfg["combination"]
        weights = cfg.get("combination_weights")
        if method == "learned" and weights is None:
            method = "union"
        if method == "learned" and cfg.get("bead_weights") is not None:
            beads = self.bead_stage(pair, s2c, c2s)
        else:
            beads = combine(s2c, c2s, method, None if weights is None else np.asarray(weights), cfg["threshold"],
                            cfg["split_fill"])
        return identical_beads_win(beads, pair.s2c.tgt_texts, pair.s2c.src_texts, cfg["identical"])

    def bead_context(self, pair: PairInput, s2c, c2s) -> Tuple[BeadContext, List[Bead]]:
        """(the bead decoder's view of a decoded pair, the link-level beads of the learned combination)."""
        cfg = self.config
        probs = link_probs(s2c, c2s, cfg["combination_weights"])
        base = link_beads(kept_links(probs, s2c, cfg["threshold"], cfg["split_fill"]))
        return BeadContext(s2c, c2s, probs, *pair.sentence_lengths(), pair.cross_lingual), base

    def bead_stage(self, pair: PairInput, s2c, c2s) -> List[Bead]:
        """Beads chosen as units by the bead decoder (beads.py) over the link-level beads."""
        ctx, base = self.bead_context(pair, s2c, c2s)
        return decode_beads(ctx, self.config["bead_weights"], self.config["bead_threshold"], base)

    def decode(self, pair: PairInput):
        decoded = self.model.decode_many([pair.s2c, pair.c2s], self.config["torch_threads"])
        s2c, c2s = (direction_output(best, marg, x.cand.numpy(), x.src_is_complex)
                    for (best, marg), x in zip(decoded, (pair.s2c, pair.c2s)))
        return s2c, c2s

    # persistence ---------------------------------------------------------------------------
    def _saved_config(self) -> Dict[str, Any]:
        cfg = dict(self.config)
        if cfg.get("combination_weights") is not None:
            cfg["combination_weights"] = [round(float(w), 6) for w in cfg["combination_weights"]]
        return cfg

    def save(self, folder: Union[str, Path]) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        cfg = self._saved_config()
        tmp = folder / "config.json.tmp"
        tmp.write_text(json.dumps(cfg, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        state = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        if cfg["emission"] == "cross-encoder":
            state = {k: v for k, v in state.items() if not k.startswith("emission.encoder.")}
            self.model.emission.save_encoder(folder / "cross_encoder")
        torch.save(state, folder / "model.pt.tmp")
        os.replace(folder / "model.pt.tmp", folder / "model.pt")
        os.replace(tmp, folder / "config.json")

    @classmethod
    def load(cls, folder: Union[str, Path], encoder=None, overrides: Optional[Dict[str, Any]] = None) -> "CRFAligner":
        """The aligner saved in `folder`; `overrides` change its inference settings (top_k, combination, ...)."""
        cfg, state = read_weights(folder)
        cfg = dict(cfg, **(overrides or {}))
        aligner = cls(cfg, encoder=encoder, weights=str(folder))
        aligner._load_state(state)
        return aligner

    def _load_state(self, state: Dict[str, torch.Tensor]) -> None:
        self.model.load_state_dict(state, strict=self.config.get("emission") != "cross-encoder")
        self.model.eval()

    # the component protocol: training and serialisation ---------------------------------
    def initialize(self, get_pairs) -> None:
        """Ready for `update`: loaded weights are reloaded (fine-tuning starts from them); a
        fresh model is prepared on the training pairs (crf.train.prepare_aligner)."""
        from .train import TrainingSettings, prepare_aligner, set_seed

        settings = self.settings or TrainingSettings()
        self._trainer = None
        if self.weights is not None:
            cfg, state = read_weights(self.weights)
            self.config.update({k: v for k, v in cfg.items() if k in ("combination_weights", "bead_weights")})
            self._load_state(state)
            self.ready = True
            return
        set_seed(settings.seed)
        pairs = list(get_pairs())
        prepare_aligner(self, pairs, settings)
        self.ready = True

    def update(self, pairs: Sequence[TrainingPair]) -> float:
        """One training step on a batch of gold pairs; returns the summed loss."""
        from .train import CRFTrainer, TrainingSettings

        if not self.ready:
            raise ValueError("update() before initialize(): call nlp.initialize(get_examples) first")
        if self._trainer is None:
            self._trainer = CRFTrainer(self, self.settings or TrainingSettings())
        inputs = [self._trainer.features(p) for p in pairs if len(p.complex) and len(p.simple)]
        loss, _ = self._trainer.step(inputs)
        return loss

    def to_bytes(self) -> bytes:
        """config and weights; a cross-encoder's checkpoint goes through a folder (Hugging Face saves to folders)."""
        if self.config["emission"] == "cross-encoder":
            with tempfile.TemporaryDirectory() as tmp:
                self.save(tmp)
                files = {str(p.relative_to(tmp)): p.read_bytes() for p in sorted(Path(tmp).rglob("*")) if p.is_file()}
            return srsly.msgpack_dumps({"files": files})
        buffer = io.BytesIO()
        torch.save(self.model.state_dict(), buffer)
        return srsly.msgpack_dumps({"config": self._saved_config(), "model": buffer.getvalue()})

    def from_bytes(self, data: bytes) -> "CRFAligner":
        msg = srsly.msgpack_loads(data)
        if "files" in msg:
            with tempfile.TemporaryDirectory() as tmp:
                for rel, content in msg["files"].items():
                    (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
                    (Path(tmp) / rel).write_bytes(content)
                return self._replace(*read_weights(tmp, cached=False))
        state = torch.load(io.BytesIO(msg["model"]), map_location="cpu", weights_only=True)
        return self._replace(as_saved(msg["config"]), state)

    def to_disk(self, path) -> None:
        self.save(path)

    def from_disk(self, path) -> "CRFAligner":
        if not (Path(path) / "config.json").is_file():
            return self
        return self._replace(*read_weights(path))

    def _replace(self, config: Dict[str, Any], state) -> "CRFAligner":
        """Take over a saved aligner's config and weights (the encoder stays)."""
        cfg = copy.deepcopy(DEFAULT_CONFIG)
        cfg.update(config)
        self.config = cfg
        self.model = self.build_model(cfg)
        self._load_state(state)
        self._featurizer, self._trainer, self.ready = None, None, True
        return self

    @classmethod
    def default(cls, encoder=None, overrides: Optional[Dict[str, Any]] = None) -> "CRFAligner":
        """The shipped weights (trained on DEplain-web dev, all 82 documents)."""
        return cls.load(DEFAULT_WEIGHTS, encoder=encoder, overrides=overrides)


@aligner_registry("spacy-simalign.CRFAligner.v1")
def make_crf_aligner(weights: Optional[str] = SHIPPED, similarity=None, combination: Optional[str] = None,
                     threshold: Optional[float] = None, top_k: Optional[int] = None,
                     top_k_lexical: Optional[int] = None, band: Optional[int] = None, neighbours: Optional[int] = None,
                     hidden: Optional[int] = None, emission: Optional[str] = None,
                     cross_encoder_path: Optional[str] = None, learn_rate: float = 0.01,
                     encoder_learn_rate: float = 3e-5, cross_lingual_rate: float = 0.25, combination_epochs: int = 10,
                     combination_holdout: float = 0.2, seed: int = 0, translations: str = "bead-dp",
                     translation_length_ratio: float = 1.25, identical: Optional[str] = None,
                     split_fill: Optional[float] = None, bead_threshold: Optional[float] = None,
                     bead_folds: int = 5) -> CRFAligner:
    """The neural CRF sentence aligner (the default).

    weights: "shipped" (the package's model), a CRF weights folder, or null (a fresh model that
        `nlp.initialize()` prepares for `spacy train`; aligning before that is an error).
    similarity: the sentence encoder (default: the weights' own, multilingual USE).
    combination, threshold, top_k, top_k_lexical, band, neighbours: override the weights'
        inference settings (how the two directions are combined, the link probability kept,
        the candidates per sentence); hidden, emission, cross_encoder_path: a fresh model's shape.
    learn_rate ... seed: training (crf.train.TrainingSettings).
    translations, translation_length_ratio: pairs in two languages whose lengths differ by at most
        this factor are aligned by the monotone bead decoder ("bead-dp"), or by the CRF ("crf").
    identical: "unique" (default), "linked" or "off": identical sentences get their own 1:1 bead
        (crf/identical.py).
    split_fill, bead_threshold: override the weights' split fill (crf/combine.py) and bead decoder
        threshold (crf/beads.py); bead_folds: held-out folds that train the bead decoder (below 2: none)."""
    from .train import TrainingSettings

    settings = TrainingSettings(learn_rate=learn_rate, encoder_learn_rate=encoder_learn_rate,
                                cross_lingual_rate=cross_lingual_rate, combination_epochs=combination_epochs,
                                combination_holdout=combination_holdout, bead_folds=bead_folds, seed=seed)
    given = {"combination": combination, "threshold": threshold, "top_k": top_k, "top_k_lexical": top_k_lexical,
             "band": band, "neighbours": neighbours, "hidden": hidden, "emission": emission,
             "cross_encoder_path": cross_encoder_path, "identical": identical, "split_fill": split_fill,
             "bead_threshold": bead_threshold}
    overrides = {k: v for k, v in given.items() if v is not None}
    if similarity is not None and getattr(similarity, "spec", None):
        overrides["encoder"] = similarity.spec
    if weights is None:
        return CRFAligner(overrides, encoder=similarity, settings=settings, ready=False, translations=translations,
                          translation_length_ratio=translation_length_ratio)
    folder = DEFAULT_WEIGHTS if weights == SHIPPED else Path(weights)
    if not folder.exists():
        raise InputError(f"CRF weights folder not found: {weights}")
    aligner = CRFAligner.load(folder, encoder=similarity, overrides=overrides)
    aligner.settings = settings
    aligner.set_translations(translations, translation_length_ratio)
    return aligner
