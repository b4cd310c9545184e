"""The two files of a CRF weights folder read with one located error each: a damaged file (cut
short by a failed copy, a changed byte, emptied, not JSON) is an InputError naming the file, which
names its pipeline folder too, instead of numpy's, torch's or json's traceback.

model.npz (numpy's archive of the learned arrays; spacy-simalign 0.1.0 wrote model.pt with
torch.save) is a zip archive whose entries carry CRC-32 checksums; torch does not check them, so
a changed byte in a tensor would load as a silently different model. They are checked here first
(13 KB for the shipped weights: well under a millisecond).

Weights that are not finite numbers (NaN or infinity in an array, or in config.json's learned
combination and bead weights) are what a training run that diverged saves: a valid archive that
decodes to no beads at all. They are refused when read and when saved, naming the file."""

import io
import json
import zipfile
from pathlib import Path
from typing import Any, Dict, Optional

import numpy as np

from ...core.errors import InputError, first_line
from ...core.extras import install_hint
from .inference import state_shapes

REPAIR = "save them again, or copy the folder again from where they were saved"
DIVERGED = "what a training run that diverged saves; train again (a lower learn_rate)"
LEARNED = ("combination_weights", "bead_weights")  # config.json's learned weights (combine.py, bead_decoder.py)
TORCH_ENTRY = b"data.pkl"  # the pickle entry of a torch.save archive, near its start


def damaged(path: Path, what: str) -> InputError:
    """The error of a damaged weights file at `path`: `what` is wrong with it."""
    return InputError(f"damaged CRF weights: {what}; {REPAIR}", str(path))


def read_config(path: Path) -> Dict[str, Any]:
    """config.json of a weights folder: a JSON object."""
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as err:
        raise damaged(path, f"cannot be read: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise damaged(path, f"not UTF-8 at byte offset {err.start}") from None
    if not text.strip():
        raise damaged(path, "empty file")
    try:
        config = json.loads(text)
    except json.JSONDecodeError as err:
        raise damaged(path, f"not JSON ({err.msg}, line {err.lineno} column {err.colno})") from None
    except RecursionError:
        raise damaged(path, "not JSON (nested too deeply)") from None
    if not isinstance(config, dict):
        raise damaged(path, f"not a JSON object but {type(config).__name__}")
    return config


def read_state(path: Path) -> Dict[str, np.ndarray]:
    """The learned arrays of a weights folder (model.npz; model.pt, written by spacy-simalign 0.1.0,
    needs torch), after the archive's checksums are checked."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise damaged(path, f"cannot be read: {err.strerror}") from None
    return state_from_bytes(data, path)


def state_from_bytes(data: bytes, path: Path) -> Dict[str, np.ndarray]:
    """The learned arrays in `data` (a model.npz, or a model.pt of torch.save); `path` names them
    in errors."""
    state = archived_state(data, path)
    wrong = state_not_finite(state)
    if wrong:
        raise InputError(f"CRF weights that are not finite numbers: {wrong}, {DIVERGED}", str(path))
    return state


def archived_state(data: bytes, path: Path) -> Dict[str, np.ndarray]:
    """The arrays of an archive whose checksums hold."""
    legacy = path.suffix == ".pt" or TORCH_ENTRY in data[:4096]
    kind = "torch" if legacy else "npz"
    if not data:
        raise damaged(path, "empty file")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as err:
        raise damaged(path, f"not a whole {kind} archive ({err or type(err).__name__}), truncated or changed") from None
    if bad is not None:
        raise damaged(path, f"checksum mismatch in {bad}, changed since it was saved")
    return torch_state(data, path) if legacy else npz_state(data, path)


def npz_state(data: bytes, path: Path) -> Dict[str, np.ndarray]:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            state = {name: archive[name] for name in archive.files}
    except Exception as err:  # noqa: BLE001 - whatever numpy finds wrong is this file's damage
        raise damaged(path, f"numpy cannot load it ({first_line(err)[:160]})") from None
    if not all(v.dtype == np.float32 for v in state.values()):
        raise damaged(path, "not float32 arrays")
    return state


def torch_state(data: bytes, path: Path) -> Dict[str, np.ndarray]:
    """A state dict that torch.save wrote (spacy-simalign 0.1.0's model.pt), as arrays."""
    try:
        import torch
    except ImportError:
        raise InputError(
            f"CRF weights in model.pt (saved by spacy-simalign 0.1.0) are read with torch, the 'train' extra: "
            f"{install_hint('train')}; saved again, they are model.npz, which needs no torch",
            str(path),
        ) from None
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - whatever torch's unpickler finds wrong is this file's damage
        raise damaged(path, f"torch cannot load it ({first_line(err)[:160]})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise damaged(path, "not a state dict of tensors")
    return {k: v.detach().numpy().astype(np.float32, copy=True) for k, v in state.items()}


def state_bytes(state: Dict[str, np.ndarray]) -> bytes:
    """model.npz's bytes: the arrays, uncompressed, with zip checksums, in name order and with a
    fixed date, so that the same weights are the same bytes (np.savez stamps the time)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, value in sorted(state.items()):
            with archive.open(zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0)), "w") as entry:
                np.lib.format.write_array(entry, np.ascontiguousarray(value, dtype=np.float32), allow_pickle=False)
    return buffer.getvalue()


def check_shapes(state: Dict[str, np.ndarray], config: Dict[str, Any], path: Path) -> None:
    """The arrays are those of the config's model (inference.state_shapes of its width)."""
    shapes = state_shapes(config.get("hidden", 32))
    missing = sorted(set(shapes) - set(state))
    extra = sorted(set(state) - set(shapes))
    if missing or extra:
        what = ", ".join(f"{'no' if name in missing else 'unknown'} {name}" for name in (missing + extra)[:3])
        raise damaged(path, f"not the weights of this config's model ({what})")
    for name, shape in shapes.items():
        if tuple(state[name].shape) != shape:
            raise damaged(path, f"{name} has shape {tuple(state[name].shape)}, the config's model {shape}")


def state_not_finite(state: Dict[str, np.ndarray]) -> Optional[str]:
    """The first array (by name) that holds NaN or infinity, said as "NAME holds NaN"; None when
    every value is a finite number."""
    for name in sorted(state):
        values = np.asarray(state[name])
        if not np.isfinite(values).all():
            return f"{name} holds {'NaN' if np.isnan(values).any() else 'infinity'}"
    return None


def config_not_finite(config: Dict[str, Any]) -> Optional[str]:
    """The first learned weight of a config (LEARNED; null: none learned) that is NaN or infinite,
    said as "bead_weights[3] is NaN"; None when all are finite."""
    for key in LEARNED:
        for k, value in enumerate(config.get(key) or ()):
            if isinstance(value, float) and not np.isfinite(value):
                return f"{key}[{k}] is {'NaN' if np.isnan(value) else 'infinity'}"
    return None


def check_learned(config: Dict[str, Any], path: Path) -> None:
    """config.json's learned weights (LEARNED) are null or lists of finite numbers."""
    for key in LEARNED:
        values = config.get(key)
        if values is not None and (
            not isinstance(values, list)
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        ):
            raise damaged(path, f"{key} is not a list of numbers")
    wrong = config_not_finite(config)
    if wrong:
        raise InputError(f"CRF weights that are not finite numbers: {wrong}, {DIVERGED}", str(path))


def check_saving(state: Dict[str, np.ndarray], config: Dict[str, Any], state_path: Path, config_path: Path) -> None:
    """Weights about to be saved (the arrays to `state_path`, the config to `config_path`) are finite
    numbers: a diverged model is refused, naming the file it would have written, before anything
    is written."""
    for path, wrong in ((state_path, state_not_finite(state)), (config_path, config_not_finite(config))):
        if wrong:
            raise InputError(f"not saved: CRF weights that are not finite numbers: {wrong}, {DIVERGED}", str(path))
