"""Bad input met while spaCy initializes a pipeline (`spacy train`'s initialize step: the corpus,
`--paths.wide`, the aligner's settings): still an InputError, and also a ConfigValidationError,
the one error spaCy's CLI prints as a message (then exits 1) instead of a traceback."""

from contextlib import contextmanager

from ..core.config_errors import InitializeInputError, SettingError
from ..core.errors import InputError

__all__ = ["InitializeInputError", "SettingError", "initialize_errors"]


@contextmanager
def initialize_errors():
    """Re-raise the InputErrors of the block as InitializeInputError."""
    try:
        yield
    except InputError as err:
        raise InitializeInputError(err) from None
