"""`spacy-simalign.CRFAligner.v1`: the CRF aligner's first config form, kept so that pipelines and
configs saved with it (flat training keys, `translations = "bead-dp"`, null for the settings the
weights bring) load and decode as they did. New configs name `spacy-simalign.CRFAligner.v3`
(aligner.py), whose filled config shows every value that runs."""

from typing import Optional

from ...core.registries import aligner_registry
from ...core.setting_checks import ranges
from .aligner import CRF_RANGES, DEFAULT_CONFIG, SHIPPED, CRFAligner, configured_aligner
from .aligner_settings import CONFIG_SETTINGS, DECLARATIONS
from .training_settings import TrainingSettings
from .translations import TranslationSettings

V1 = "spacy-simalign.CRFAligner.v1"
# the settings that came after this form, at their defaults (whatever the weights were saved with)
AFTER_V1 = tuple(name for name in CONFIG_SETTINGS if DECLARATIONS[name].since > 1)


@aligner_registry(V1)
@ranges(**CRF_RANGES)
def make_crf_aligner_v1(
    weights: Optional[str] = SHIPPED,
    similarity=None,
    combination: Optional[str] = None,
    threshold: Optional[float] = None,
    top_k: Optional[int] = None,
    top_k_lexical: Optional[int] = None,
    band: Optional[int] = None,
    neighbours: Optional[int] = None,
    hidden: Optional[int] = None,
    emission: Optional[str] = None,
    cross_encoder_path: Optional[str] = None,
    learn_rate: float = 0.01,
    encoder_learn_rate: float = 3e-5,
    cross_lingual_rate: float = 0.25,
    combination_epochs: int = 10,
    combination_holdout: float = 0.2,
    seed: int = 0,
    translations: str = "bead-dp",
    translation_length_ratio: float = 1.25,
    identical: Optional[str] = None,
    split_fill: Optional[float] = None,
    bead_threshold: Optional[float] = None,
    bead_folds: int = 5,
) -> CRFAligner:
    """The old form: null is the weights' value (a fresh model: v2's default), where v2 refuses it;
    the training and translation settings are flat keys (v2: [aligner.training], [aligner.translations]).
    emission, cross_encoder_path and encoder_learn_rate are accepted only at their off value (or
    null; any value for the last), as the configs saved with this form hold them (retired.py)."""
    training = TrainingSettings(
        learn_rate=learn_rate,
        cross_lingual_rate=cross_lingual_rate,
        combination_epochs=combination_epochs,
        combination_holdout=combination_holdout,
        bead_folds=bead_folds,
        seed=seed,
    )
    given = {
        "combination": combination,
        "threshold": threshold,
        "top_k": top_k,
        "top_k_lexical": top_k_lexical,
        "band": band,
        "neighbours": neighbours,
        "hidden": hidden,
        "identical": identical,
        "split_fill": split_fill,
        "bead_threshold": bead_threshold,
        **{key: DEFAULT_CONFIG[key] for key in AFTER_V1},
    }
    translation = TranslationSettings(mode=translations, length_ratio=translation_length_ratio)
    return configured_aligner(V1, weights, similarity, given, training, translation, wide=True)
