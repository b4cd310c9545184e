"""The errors of bad input that spaCy's command line prints as one message: an InputError that is
also a ConfigValidationError (spaCy prints that as its message, then exits 1, instead of a
traceback). Kept in the base layer beside errors.py, so that the settings check (setting_checks.py)
and the pipeline's initialize (pipeline/init_errors.py) raise the same classes."""

from confection import ConfigValidationError

from .errors import InputError


class InitializeInputError(InputError, ConfigValidationError):
    """An InputError re-raised from a component's initialize; str() is its one-line message."""

    def __init__(self, err: InputError):
        self.path, self.line, self.reason = err.path, err.line, err.reason
        ConfigValidationError.__init__(self, title=str(err), show_config=False)
        ValueError.__init__(self, str(err))

    @classmethod
    def from_error(cls, err, title=None, desc=None, parent=None, show_config=None) -> ConfigValidationError:
        """What spaCy's CLI re-creates to print below the title: a plain ConfigValidationError."""
        return ConfigValidationError(
            title=err.title if title is None else title,
            desc=err.desc if desc is None else desc,
            parent=err.parent if parent is None else parent,
            show_config=False,
        )


class SettingError(InitializeInputError):
    """A setting that its registered function refuses (core/setting_checks.py): out of its range, not one of its
    choices, of the wrong type, or a combination that cannot work."""
