"""The optional extras (setup.cfg's extras_require) and the one way to import a module of one:
a missing module is an InputError saying which extra to install (one line, exit status 2 on the
command line), not a ModuleNotFoundError traceback."""

import importlib
import importlib.util
import sys
from types import ModuleType
from typing import Dict, Tuple

from .errors import InputError

# extra -> the modules of it that the package imports
EXTRAS: Dict[str, Tuple[str, ...]] = {
    "review": ("flask", "werkzeug"),
    "distributed": ("dask", "distributed"),
    "docmatch": ("faiss", "matplotlib"),
    "transformers": ("sentence_transformers", "transformers", "spacy_transformers"),
    "datasets": ("datasets",),
    "train": ("torch",),
}


class MissingExtra(InputError):
    """A feature whose optional extra is not installed: its message names the pip command."""

    def __init__(self, extra: str, module: str, what: str, why: str):
        self.extra, self.module = extra, module
        super().__init__(f"{what} needs the '{extra}' extra ({module} {why}): {install_hint(extra)}")


def install_hint(extra: str) -> str:
    """The command that installs `extra`."""
    return f'pip install "spacy-simalign[{extra}]"'


def _known(extra: str, module: str) -> None:
    if module not in EXTRAS.get(extra, ()):
        raise ValueError(f"{module} is not a module of the '{extra}' extra ({', '.join(EXTRAS.get(extra, ()))})")


def check_installed(extra: str, module: str, what: str = "") -> None:
    """As `require`, without importing the module: for what imports it only at its first use
    (a factory run when a config is read), so that a missing extra is reported before any work."""
    _known(extra, module)
    if module in sys.modules:
        found = sys.modules[module] is not None
    else:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
    if not found:
        raise MissingExtra(extra, module, what or extra, "is not installed")


def require(extra: str, module: str, what: str = "") -> ModuleType:
    """The module `module` of the optional `extra`, imported; `what` names the feature that needs
    it in the error (default: the extra's name)."""
    _known(extra, module)
    try:
        return importlib.import_module(module)
    except ImportError as err:
        missing = isinstance(err, ModuleNotFoundError) and err.name is not None
        if missing and (module == err.name or module.startswith(f"{err.name}.")):
            why = "is not installed"
        else:  # installed but broken, or one of its own dependencies missing
            why = f"cannot be imported: {str(err).splitlines()[0] if str(err) else type(err).__name__}"
        raise MissingExtra(extra, module, what or extra, why) from None
