"""What the parts of CRFAligner (routing.py, choice.py, persistence.py, trainable.py) may use of the
aligner they are part of: declared once, for the type checker, as the `self` of their methods."""

from pathlib import Path
from typing import Any, Callable, Dict, Optional, Protocol, Sequence, Union

import numpy as np


class AlignerParts(Protocol):
    config: Dict[str, Any]
    weights: Optional[str]
    ready: bool
    settings: Any
    translations: Any
    asked_hidden: Optional[int]
    form: str
    wide_allowed: bool
    _model: Any
    _state: Optional[Dict[str, np.ndarray]]
    _crf: Any
    _featurizer: Any
    _trainer: Any
    _wide: Any
    _wide_loader: Optional[Callable[[Any], Any]]
    _bead_dp: Any

    @property
    def encoder(self) -> Any: ...

    @property
    def wide(self) -> Any: ...

    @property
    def model(self) -> Any: ...

    @property
    def trainer(self) -> Any: ...

    def _new(self, config: Optional[Dict[str, Any]] = None, **kwargs: Any) -> Any: ...

    def build_model(self, cfg: Dict[str, Any]) -> Any: ...

    def current_state(self) -> Dict[str, np.ndarray]: ...

    def attach_wide(self, loader: Optional[Callable[[Any], Any]]) -> None: ...

    def _load_state(self, state: Dict[str, np.ndarray]) -> None: ...

    def _saved_config(self) -> Dict[str, Any]: ...

    def _check_saving(self, folder: Optional[Path]) -> None: ...

    def _replace(self, config: Dict[str, Any], state: Any, where: Any) -> Any: ...

    def check_width(self, width: int, where: Any) -> None: ...

    def save(self, folder: Union[str, Path]) -> None: ...

    def to_bytes(self) -> bytes: ...

    def from_bytes(self, data: bytes) -> Any: ...

    def initialize(self, get_pairs: Any, inputs: Any = None, log: Any = None, wide_pairs: Any = None) -> None: ...

    def fit(self, pairs: Sequence[Any], log: Any = None) -> None: ...

    def _train_wide(self, pairs: Sequence[Any], wide_pairs: Sequence[Any], log: Any = None) -> None: ...
