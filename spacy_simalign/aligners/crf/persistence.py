"""The CRF aligner's weights on disk and in bytes: a weights folder (config.json, model.npz and wide/
for a wide CRF, choice.py), read once per process while its files stay the same, saved only when
every weight is a finite number, and the shipped weights of the package."""

import copy
import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np
import srsly

from ...core import caches
from ...core.errors import InputError
from ...core.setting_checks import setting_error
from .aligner_settings import SummarySettings
from .choice import WIDE_FOLDER, WIDE_RECORD
from .config_defaults import DEFAULT_CONFIG, DEFAULT_HIDDEN, LATER_SETTINGS, as_saved
from .parts import AlignerParts
from .weights_config import check_weights_config
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
WEIGHTS_FILE = "model.npz"
TORCH_WEIGHTS_FILE = "model.pt"  # what spacy-simalign 0.1.0 saved (torch.save); read with torch
BYTES = Path("the CRF aligner's bytes")  # what names to_bytes' and from_bytes' data in errors


def weights_file(folder: Path) -> Path:
    """The learned weights' file of a weights folder: model.npz, or an older folder's model.pt."""
    older = folder / TORCH_WEIGHTS_FILE
    return older if older.is_file() and not (folder / WEIGHTS_FILE).is_file() else folder / WEIGHTS_FILE


def read_weights(folder: Union[str, Path]) -> Tuple[Dict[str, Any], Dict[str, np.ndarray]]:
    """(config, learned arrays) of a weights folder; read once per process while the files stay
    the same (caches.shared), and each aligner keeps its own reference. A damaged file, weights
    that are not finite numbers, a config.json that is not a whole weights config (weights_config.py),
    or a wide CRF that config.json records and the folder lacks, is an
    InputError naming the file (or folder) as the caller named the weights folder."""
    given = Path(folder)
    folder = given.resolve()
    files = (folder / "config.json", folder / WEIGHTS_FILE, folder / TORCH_WEIGHTS_FILE, folder / WIDE_FOLDER)

    def load():
        if not (folder / "config.json").is_file() or not weights_file(folder).is_file():
            raise InputError(f"not a CRF aligner folder (config.json and {WEIGHTS_FILE} expected): {folder}")
        saved = read_config(given / "config.json")
        check_learned(saved, given / "config.json")
        check_weights_config(saved, given / "config.json")
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


def wide_loader(folder: Union[str, Path], make: Callable[..., Any], overrides: Optional[Dict[str, Any]] = None):
    """What makes the wide CRF of the weights `folder` (choice.py: its wide/ folder, if it has one)
    with an encoder, as an aligner of the class `make`; its weights are read now (the folder may go),
    the inference `overrides` apply to it too."""
    wide = Path(folder) / WIDE_FOLDER
    if not wide.is_dir():
        return None
    cfg, state = read_weights(wide)
    cfg = dict(cfg, **{k: v for k, v in (overrides or {}).items() if k != "wide_margin"})

    def load(encoder):
        aligner = make(cfg, encoder=encoder, weights=str(wide))
        aligner._load_state(state)
        return aligner

    return load


class WeightsIO:
    """The CRF aligner's saving and loading (a part of CRFAligner): a weights folder, bytes (a
    spaCy pipeline's to_bytes), a pipeline folder's to_disk and from_disk."""

    # set by its methods too: typed as CRFAligner.__init__ types them
    _state: Optional[Dict[str, np.ndarray]]
    _crf: Any
    _featurizer: Any

    def _saved_config(self: AlignerParts) -> Dict[str, Any]:
        """config.json: the settings and learned stage weights, and the record of a wide CRF
        saved beside them (choice.WIDE_RECORD), when there is one."""
        cfg = {k: v for k, v in self.config.items() if k not in LATER_SETTINGS or v != DEFAULT_CONFIG[k]}
        if cfg.get("combination_weights") is not None:
            cfg["combination_weights"] = [round(float(w), 6) for w in cfg["combination_weights"]]
        cfg.pop(WIDE_RECORD, None)
        if self.wide is not None:
            cfg[WIDE_RECORD] = True
        return cfg

    def _check_saving(self: AlignerParts, folder: Optional[Path]) -> None:
        """This CRF's weights and its wide CRF's, about to be saved in `folder` (None: as bytes), are
        finite numbers (weights_files.check_saving), checked before anything of either is written."""
        state_path, config_path = (folder / WEIGHTS_FILE, folder / "config.json") if folder else (BYTES, BYTES)
        check_saving(self.current_state(), self.config, state_path, config_path)
        if self.wide is not None:
            self.wide._check_saving(folder / WIDE_FOLDER if folder else None)

    def save(self: AlignerParts, folder: Union[str, Path]) -> None:
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
    def load(cls: Any, folder: Union[str, Path], encoder=None, overrides: Optional[Dict[str, Any]] = None) -> Any:
        """The aligner saved in `folder`; `overrides` change its inference settings (top_k, combination, ...)."""
        cfg, state = read_weights(folder)
        cfg = dict(cfg, **(overrides or {}))
        aligner = cls(cfg, encoder=encoder, weights=str(folder))
        aligner._load_state(state)
        aligner.attach_wide(wide_loader(folder, cls, overrides))
        return aligner

    def _load_state(self: AlignerParts, state: Dict[str, np.ndarray]) -> None:
        """Take `state` (checked arrays) as the weights; a torch model is made from them when training needs one."""
        self._state, self._model, self._crf = state, None, None

    def to_bytes(self: AlignerParts) -> bytes:
        """config and weights (and the wide CRF's); weights that are not finite numbers are refused."""
        self._check_saving(None)
        msg = {"config": self._saved_config(), "model": state_bytes(self.current_state())}
        if self.wide is not None:
            msg["wide"] = self.wide.to_bytes()
        return srsly.msgpack_dumps(msg)

    def from_bytes(self: AlignerParts, data: bytes) -> Any:
        msg = srsly.msgpack_loads(data)
        check_learned(msg["config"], BYTES)
        check_weights_config(msg["config"], BYTES)
        if msg["config"].get(WIDE_RECORD) and "wide" not in msg:
            raise InputError("missing: the config records a wide CRF that they do not hold", str(BYTES))
        config = as_saved(msg["config"])
        state = state_from_bytes(msg["model"], BYTES)
        check_shapes(state, config, BYTES)
        self._replace(config, state, BYTES)
        if "wide" in msg:
            make = self._new
            self.attach_wide(lambda encoder: make(encoder=encoder).from_bytes(msg["wide"]))
        return self

    def to_disk(self: AlignerParts, path) -> None:
        self.save(path)

    def from_disk(self: AlignerParts, path) -> Any:
        if not (Path(path) / "config.json").is_file():
            return self
        self._replace(*read_weights(path), path)
        self.attach_wide(wide_loader(path, self._new))
        return self

    def check_width(self: AlignerParts, width: int, where) -> None:
        """Weights `width` wide (their hidden), loaded from `where`, have the width the config asked
        for (asked_hidden, when it asked for one other than the default): else a one-line error
        naming both, as the registered form that asked."""
        if self.asked_hidden is not None and width != self.asked_hidden:
            raise setting_error(
                f"{self.form}: hidden = {self.asked_hidden}: the loaded weights have hidden = {width} ({where}); "
                "a loaded model's width is its weights'"
            )

    def _replace(self: AlignerParts, config: Dict[str, Any], state, where) -> Any:
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
    def default(cls: Any, encoder=None, overrides: Optional[Dict[str, Any]] = None) -> Any:
        """The shipped weights: the CRF of DEplain-web dev (all 82 documents) and, in wide/, the wide
        CRF of those and the 30 sgc-dev documents (choice.py), decoding as the default pipeline
        (CRFAligner.v3) does: with the word floor of summaries at its default (summaries.py)."""
        return cls.load(DEFAULT_WEIGHTS, encoder=encoder, overrides=overrides).summarise(SummarySettings())
