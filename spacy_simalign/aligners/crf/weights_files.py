"""The two files of a CRF weights folder read with one located error each: a damaged file (cut
short by a failed copy, a changed byte, emptied, not JSON) is an InputError naming the file, which
names its pipeline folder too, instead of torch's or json's traceback.

model.pt is a zip archive (torch.save) whose entries carry CRC-32 checksums; torch does not check
them, so a changed byte in a tensor would load as a silently different model. They are checked here
first (13 KB for the shipped weights: well under a millisecond)."""

import io
import json
import zipfile
from pathlib import Path
from typing import Any, Dict

import torch

from ...errors import InputError

REPAIR = "save them again, or copy the folder again from where they were saved"


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


def read_state(path: Path) -> Dict[str, torch.Tensor]:
    """model.pt of a weights folder: its state dict, after its archive's checksums are checked."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise damaged(path, f"cannot be read: {err.strerror}") from None
    if not data:
        raise damaged(path, "empty file")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as err:
        raise damaged(path, f"not a whole torch archive ({err or type(err).__name__}), truncated or changed") from None
    if bad is not None:
        raise damaged(path, f"checksum mismatch in {bad}, changed since it was saved")
    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - whatever torch's unpickler finds wrong is this file's damage
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise damaged(path, f"torch cannot load it ({first[:160]})") from None
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise damaged(path, "not a state dict of tensors")
    return state
