"""The CRF aligner's config as config.json saves it: the defaults of its settings (declared in
aligner_settings.py), the settings that came after weights were first saved, and how a saved config
is read (the settings it predates at their old behaviour)."""

from typing import Any, Dict

from .aligner_settings import (
    CONFIG_SETTINGS,
    DEFAULT_HIDDEN,
    DEFAULTS,
    LATER_SETTINGS,
    PREDATED_SETTINGS,
    SHAPE_SETTINGS,
)
from .choice import WIDE_RECORD
from .retired import ALIGNER as RETIRED
from .retired import without_retired

# names that other modules import from here
__all__ = ["DEFAULT_CONFIG", "DEFAULT_HIDDEN", "LATER_SETTINGS", "PREDATED_SETTINGS", "SHAPE_SETTINGS", "as_saved"]

# an aligner's config (what config.json saves): the encoder's saved spec (encoders.py), the learned
# weights and its settings at their declared defaults. The model's shape settings (SHAPE_SETTINGS):
# loaded weights bring their own, a fresh model takes the config's. The settings that came after
# the shipped weights (LATER_SETTINGS), at the values that decoded before them: saved only where
# they differ, so a config.json keeps the keys it had (a missing key is the default); those whose
# default is not what weights saved before them decode with (PREDATED_SETTINGS): that value
DEFAULT_CONFIG: Dict[str, Any] = {
    "encoder": "use",  # the sentence encoder a fresh model gets when none is given
    "combination_weights": None,  # the learned combination (combine.py); trained
    "bead_weights": None,  # the bead decoder's scorer (bead_decoder.py); None: beads are the link components
    **{name: DEFAULTS[name] for name in CONFIG_SETTINGS},
}


def as_saved(config: Dict[str, Any], path=None) -> Dict[str, Any]:
    """A saved aligner's config, with the settings it predates at their old behaviour, without
    the retired ones (retired.py: saved at their off value; another value is an error naming `path`)
    and without the record of a wide CRF (choice.WIDE_RECORD, which describes the folder)."""
    settings = {k: v for k, v in config.items() if k != WIDE_RECORD}
    return {**PREDATED_SETTINGS, **without_retired(settings, RETIRED, path)}
