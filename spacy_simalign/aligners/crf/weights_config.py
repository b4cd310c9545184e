"""What a CRF weights folder's config.json may hold, checked whole when it is read (a folder, a
pipeline's bytes): a hand-edited or foreign file would otherwise load and fail later in a
traceback (a NaN threshold, bead weights of another length in a matrix product) or align silently
with defaults in place of what is missing or misspelt.

Every key is known, and every key that each config.json saved so far holds is there: older folders
lack the settings that came after them (neighbours, identical and the bead stage came after the
first shipped weights; the later settings are saved only where they differ from their default;
the wide CRF's record only where one is saved), which then keep their default. Each value has its
type and shape: the settings as their declarations allow them (aligner_settings.py), finite numbers,
learned weights as long as their stage's features, the record a boolean, the encoder one that
exists."""

import os
from pathlib import Path
from typing import Any, Dict, List, Optional

from ...core.errors import InputError
from ...core.setting_checks import number_problem, setting_problems, shown
from .aligner_settings import CONFIG_SETTINGS, PREDATED_SETTINGS, block_of
from .bead_decoder import N_BEAD_FEATURES
from .choice import WIDE_RECORD
from .combine import N_LINK_FEATURES
from .encoders import SAVED_SPECS
from .retired import ALIGNER as RETIRED

# the keys of every config.json saved so far (the first shipped weights held these and the retired ones)
REQUIRED = (
    "band",
    "combination",
    "combination_weights",
    "encoder",
    "hidden",
    "threshold",
    "top_k",
    "top_k_lexical",
    "torch_threads",
)
# the keys that came after the first saved weights: every other setting the aligner's config saves
LATER = (*(key for key in CONFIG_SETTINGS if key not in REQUIRED), "bead_weights", WIDE_RECORD)
LEARNED_LENGTHS = {"combination_weights": N_LINK_FEATURES, "bead_weights": N_BEAD_FEATURES}
# the keys whose null has a meaning: none learned, the split fill off (weights saved before it)
NULLABLE = ("combination_weights", "bead_weights", *PREDATED_SETTINGS)
INVALID = "invalid CRF weights config"


def weights_config_problems(config: Dict[str, Any]) -> List[str]:
    """Every key of a weights config.json that is unknown, missing or of the wrong type or shape."""
    known = set(REQUIRED) | set(LATER) | set(RETIRED)
    out = [f"unknown key {shown(key)}" for key in config if key not in known]
    missing = [key for key in REQUIRED if key not in config]
    if missing:
        out.append(f"missing {', '.join(shown(key) for key in missing)}")
    settings = {}
    for key, value in config.items():
        if key not in known or key in RETIRED:  # retired.py checks their value
            continue
        if value is None:
            if key not in NULLABLE:
                out.append(f"{key} = null: a saved config holds its value")
        elif key in LEARNED_LENGTHS:
            out.extend(learned_problem(key, value))
        elif key == WIDE_RECORD:
            if not isinstance(value, bool):
                out.append(f"{key} = {shown(value)}: must be true or false")
        elif key == "encoder":
            problem = encoder_problem(value)
            if problem:
                out.append(f"{key} = {shown(value)}: {problem}")
        else:
            settings[key] = value
    # each setting as its block checks it (aligner_settings.py), which every form of the aligner does
    return out + [
        problem for key, value in settings.items() for problem in setting_problems(block_of(key), {key: value})
    ]


def learned_problem(key: str, value) -> List[str]:
    """A learned stage's weights (null aside): a list of finite numbers, one per feature of the stage."""
    length = LEARNED_LENGTHS[key]
    if not isinstance(value, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return [f"{key} = {shown(value)}: must be a list of {length} numbers"]
    problem = number_problem(value)
    if problem:
        return [f"{key}: {problem}"]
    if len(value) != length:
        return [f"{key} holds {len(value)} numbers: its stage has {length} features"]
    return []


def encoder_problem(value) -> Optional[str]:
    """None when `value` names a sentence encoder that exists (encoders.similarity_from_spec reads
    it): a saved spec, a registered similarity or a sentence-transformers model folder."""
    from ...core.registries import similarity_registry

    known = ", ".join(shown(spec) for spec in SAVED_SPECS)
    if not isinstance(value, str):
        return f"must be a string: {known}, a registered similarity or a sentence-transformers model folder"
    if value in SAVED_SPECS or os.path.isdir(value):
        return None
    if os.sep in value or value.startswith("."):
        return "names a sentence-transformers model folder that is not there"
    if value in similarity_registry:  # entry points included
        return None
    return f"not a sentence encoder: {known}, a registered similarity or a sentence-transformers model folder"


def check_weights_config(config: Dict[str, Any], path: Path) -> None:
    """Refuse, in one line naming `path`, a weights config.json with any of weights_config_problems."""
    found = weights_config_problems(config)
    if found:
        raise InputError(f"{INVALID}: {'; '.join(found)}", str(path))
