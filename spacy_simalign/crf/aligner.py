"""CRFAligner: the neural CRF sentence aligner over `Side` objects, with its configuration,
its trained weights (a folder: config.json + model.pt) and `align(complex, simple)`.

The default weights ship in spacy_simalign/weights/crf/: `CRFAligner.default()` works
with no training and no download."""
import copy
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from ..errors import InputError
from ..structures import Bead, Side
from .combine import COMBINATIONS, combine, direction_output
from .features import PairFeaturizer, PairInput
from .model import CRF

DEFAULT_WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "crf"

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


class CRFAligner:
    """Aligns the sentences of a complex and a simple Side into n:m beads."""

    def __init__(self, config: Optional[Dict[str, Any]] = None, model: Optional[CRF] = None, encoder=None):
        cfg = copy.deepcopy(DEFAULT_CONFIG)
        cfg.update(config or {})
        if cfg["combination"] not in COMBINATIONS:
            raise InputError(f"unknown combination {cfg['combination']!r}: choose one of {', '.join(COMBINATIONS)}")
        self.config = cfg
        self._encoder = encoder
        self.model = model if model is not None else self.build_model(cfg)
        self.model.eval()
        self._featurizer = None

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
            from ..similarity import get_similarity

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

    def align(self, complex_side: Side, simple_side: Side, paragraph_links=None) -> List[Bead]:
        """Beads (complex indices, simple indices, score in [0, 1]) of the pair; sentences in
        no bead are deleted (complex) or added (simple)."""
        if not len(complex_side) or not len(simple_side):
            return []
        embeddings = (self.featurizer.embed(complex_side), self.featurizer.embed(simple_side))
        with threadpool_limits(limits=1, user_api="blas"):  # the same bits on any number of BLAS threads
            pair = self.featurize(complex_side, simple_side, paragraph_links, embeddings=embeddings)
            return self.align_input(pair)

    def align_input(self, pair: PairInput, combination: Optional[str] = None) -> List[Bead]:
        """Beads from already computed features (used by training and cross-validation)."""
        s2c, c2s = self.decode(pair)
        method = combination or self.config["combination"]
        weights = self.config.get("combination_weights")
        if method == "learned" and weights is None:
            method = "union"
        return combine(s2c, c2s, method, None if weights is None else np.asarray(weights), self.config["threshold"])

    def decode(self, pair: PairInput):
        decoded = self.model.decode_many([pair.s2c, pair.c2s], self.config["torch_threads"])
        s2c, c2s = (direction_output(best, marg, x.cand.numpy(), x.src_is_complex)
                    for (best, marg), x in zip(decoded, (pair.s2c, pair.c2s)))
        return s2c, c2s

    # persistence ---------------------------------------------------------------------------
    def save(self, folder: Union[str, Path]) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        cfg = dict(self.config)
        if cfg.get("combination_weights") is not None:
            cfg["combination_weights"] = [round(float(w), 6) for w in cfg["combination_weights"]]
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
    def load(cls, folder: Union[str, Path], encoder=None, **overrides) -> "CRFAligner":
        folder = Path(folder)
        if not (folder / "config.json").is_file() or not (folder / "model.pt").is_file():
            raise InputError(f"not a CRF aligner folder (config.json and model.pt expected): {folder}")
        cfg = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if cfg.get("emission") == "cross-encoder" and (folder / "cross_encoder").is_dir():
            cfg["cross_encoder_path"] = str(folder / "cross_encoder")
        cfg.update(overrides)
        aligner = cls(cfg, encoder=encoder)
        state = torch.load(folder / "model.pt", map_location="cpu", weights_only=True)
        aligner.model.load_state_dict(state, strict=cfg.get("emission") != "cross-encoder")
        aligner.model.eval()
        return aligner

    @classmethod
    def default(cls, encoder=None, **overrides) -> "CRFAligner":
        """The shipped weights (trained on DEplain-web dev, all 82 documents)."""
        return cls.load(DEFAULT_WEIGHTS, encoder=encoder, **overrides)
