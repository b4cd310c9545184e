"""The CRF aligner's config as config.json saves it: the defaults of its settings (filled in from
the registered function's signature by aligner.py), the settings that came after weights were
first saved, and how a saved config is read (the settings it predates at their old behaviour)."""

from typing import Any, Dict

from .choice import WIDE_RECORD
from .retired import ALIGNER as RETIRED
from .retired import without_retired

# an aligner's config (what config.json saves): its settings, whose defaults are make_crf_aligner's
# (aligner.py fills them in below that function), the encoder's saved spec (encoders.py) and the learned weights
DEFAULT_CONFIG: Dict[str, Any] = {
    "encoder": "use",  # the sentence encoder a fresh model gets when none is given
    "combination_weights": None,  # the learned combination (combine.py); trained
    "bead_weights": None,  # the bead decoder's scorer (bead_decoder.py); None: beads are the link components
}
# model shape: loaded weights bring their own, a fresh model takes the config's
SHAPE_SETTINGS = ("hidden",)
DEFAULT_HIDDEN = 32  # never refused: a config cannot tell it from a width it did not set
# settings that came after the shipped weights, at the values that decoded before them: saved only
# where they differ, so a config.json keeps the keys it had (a missing key is the default)
LATER_SETTINGS = (
    "identical_min_words",
    "link_floor",
    "bead_candidate_floor",
    "bead_max_split",
    "bead_max_merge",
    "bead_max_block",
    "wide_margin",
)


# settings that came after weights were first saved, each with the value that keeps the output
# of weights saved before it (a saved config without the key gets this, not the new default)
PREDATED_SETTINGS: Dict[str, Any] = {"split_fill": None}


def as_saved(config: Dict[str, Any], path=None) -> Dict[str, Any]:
    """A saved aligner's config, with the settings it predates at their old behaviour, without
    the retired ones (retired.py: saved at their off value; another value is an error naming `path`)
    and without the record of a wide CRF (choice.WIDE_RECORD, which describes the folder)."""
    settings = {k: v for k, v in config.items() if k != WIDE_RECORD}
    return {**PREDATED_SETTINGS, **without_retired(settings, RETIRED, path)}
