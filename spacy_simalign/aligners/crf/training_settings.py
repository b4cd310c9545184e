"""How the CRF learns (TrainingSettings, registered as `spacy-simalign.CRFTraining.v1`): a
module of its own so that a config names it without importing the trainer, which needs torch."""

from dataclasses import dataclass
from typing import Sequence

from ...core.registries import aligner_registry
from ...core.setting_checks import AT_LEAST_0, AT_LEAST_1, UNIT, Range, ranges
from .bead_decoder import BEAD_C, BEAD_MAX_ITER
from .combine import COMBINATION_C, COMBINATION_FALLBACK, COMBINATION_MAX_ITER
from .retired import TRAINING as RETIRED


@dataclass
@ranges(
    epochs=AT_LEAST_1,
    combination_epochs=AT_LEAST_1,
    combination_max_iter=AT_LEAST_1,
    bead_max_iter=AT_LEAST_1,
    bead_folds=AT_LEAST_0,
    learn_rate=Range(0),
    combination_c=Range(0),
    bead_c=Range(0),
    cross_lingual_rate=UNIT,
    combination_holdout=UNIT,
    seed=Range(0, 2**32 - 1),  # numpy's random seeds (train.set_seed)
    **RETIRED,
)
class TrainingSettings:
    """How the CRF learns, the [aligner.training] block of a CRF aligner's config; the same for
    `spacy train` and project/train_crf.py. The defaults are the shipped weights' recipe.
    encoder_learn_rate, linked_only_weight and bead_text_floor are accepted only at their off value
    (any value for the first), for configs saved by 0.1.0 (retired.py)."""

    epochs: int = 20  # passes of CRFAligner.fit over the documents (spacy train: [training]
    # max_epochs, which configs/crf.cfg sets to this value, tests/test_crf_config.py checks it)
    learn_rate: float = 0.01
    encoder_learn_rate: float = 3e-5  # retired.py
    cross_lingual_rate: float = 0.25  # share of documents shown without lexical features
    combination_epochs: int = 20  # epochs of the first CRF, the one the combination is fitted on
    combination_holdout: float = 0.2  # share of documents held out to fit the combination
    combination_c: float = COMBINATION_C  # the combination's logistic regression: inverse regularisation,
    combination_max_iter: int = COMBINATION_MAX_ITER  # its iterations, and the weights when the
    combination_fallback: Sequence[float] = COMBINATION_FALLBACK  # gold holds one class only
    bead_folds: int = 5  # held-out folds whose decodes fit the bead decoder (the first is
    # the combination's hold-out); below 2: no bead decoder
    bead_c: float = BEAD_C  # the bead scorer's logistic regression
    bead_max_iter: int = BEAD_MAX_ITER
    linked_only_weight: float = 1.0  # retired.py
    bead_text_floor: float = 0.0  # retired.py
    seed: int = 0


aligner_registry.register("spacy-simalign.CRFTraining.v1", func=TrainingSettings)
