"""Reading and resolving config sections (an [aligner], a [docmatch]) with one-line errors
that name the file and the failing keys, for every place that takes a user's config."""

from typing import Dict, Optional

from .errors import InputError


def config_error(err: Exception) -> str:
    """A confection/catalogue error as one line: the failing keys and what is wrong."""
    errors = getattr(err, "errors", None)
    if errors:
        return "; ".join(f"{'.'.join(str(part) for part in e.get('loc', ()))}: {e.get('msg')}" for e in errors)
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    useful = [line for line in lines if not line.startswith(("Config validation error", "Make sure the sections"))]
    return " ".join(useful or lines)[:300]


def read_config(path: str, section: str, what: str, hint: str = ""):
    """The config file at `path`, which must have a [section]."""
    import os

    from spacy.util import load_config

    if not os.path.exists(path):
        raise InputError(f"{what} config not found", path)
    try:
        config = load_config(path)
    except (OSError, ValueError) as err:
        raise InputError(f"cannot read {what} config: {config_error(err)}", path) from None
    if section not in config:
        raise InputError(f"config has no [{section}] section{hint}", path)
    return config


def resolve_section(config, section: str, path: Optional[str] = None, overrides: Optional[Dict] = None):
    """The object a [section] of registered functions builds (third-party names included, by
    entry point); bad names or settings, and settings that their function refuses (core/setting_checks.py:
    checked as each function is called, before its body runs, and first here, before spaCy's own
    check of the config that a pipeline built from it would meet), are one-line errors."""
    from catalogue import RegistryError
    from confection import ConfigValidationError
    from spacy.util import registry

    from . import registries as _registries  # noqa: F401  (creates the plugin's registries)
    from .setting_checks import config_problems

    found = config_problems(config[section], section) if isinstance(config[section], dict) else []
    if found:
        raise InputError(f"invalid [{section}] config: {'; '.join(found)}", path)
    try:
        return registry.resolve({section: config[section]}, overrides=overrides or {})[section]
    except (ConfigValidationError, RegistryError, ValueError, TypeError) as err:
        raise InputError(f"invalid [{section}] config: {config_error(err)}", path) from None
