"""CRFAligner: the neural CRF sentence aligner over `Side` objects, and its registered settings
(`spacy-simalign.CRFAligner.v3` for the alignment components; v2 without the word floor of
summaries). This module decodes: features of a pair, both directions' marginals, the combination
and the bead stage. The aligner's other jobs are parts of its own: the routing of translations
(routing.py), the wide CRF and the per-document choice (choice.py), the links a summary keeps
(summaries.py), its weights on disk and in bytes (persistence.py) and training (trainable.py). Its
settings are declared once, in blocks (aligner_settings.py): the registered forms here take them
flat, with signatures made from those declarations.

The default weights ship in spacy_simalign/weights/crf/: `CRFAligner.default()` works
with no training and no download. Aligning decodes in numpy (inference.py); training builds the
torch model (model.py, train.py) on first use, so only training needs torch."""

import copy
import dataclasses
import functools
import inspect
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union, cast

import numpy as np

from ...core.errors import InputError
from ...core.pair_kinds import ROUTING
from ...core.registries import aligner_registry
from ...core.setting_checks import EMBEDS, Required, check_settings, ranges
from ...core.structures import Bead, Side, TrainingPair
from ...similarity.blas_threads import one_blas_thread
from ..protocol import SentenceAlignerBase
from .aligner_settings import (
    CONFIG_SETTINGS,
    DECLARATIONS,
    NULL_IS_OLD_FORM,
    RANGES,
    SettingsBlock,
    SummarySettings,
    block_values,
    blocks_from,
    flat_parameters,
    flat_settings,
    settings_doc,
)
from .bead_decoder import BeadContext, decode_beads
from .choice import WideChoice, wide_is_surer
from .combine import combine, direction_output, kept_links, link_beads, link_probs
from .config_defaults import DEFAULT_CONFIG, DEFAULT_HIDDEN, LATER_SETTINGS, PREDATED_SETTINGS, SHAPE_SETTINGS, as_saved
from .encoders import similarity_from_spec
from .features import PairFeaturizer, PairInput
from .identical import identical_beads_win
from .inference import CRFWeights
from .persistence import BYTES, DEFAULT_WEIGHTS, TORCH_WEIGHTS_FILE, WEIGHTS_FILE, WeightsIO, read_weights, weights_file
from .retired import ALIGNER as RETIRED
from .retired import without_retired
from .routing import TranslationRouting
from .summaries import SUMMARY_RATIO, is_summary, sharing_words
from .trainable import Trainable, training_module
from .training_settings import TrainingSettings
from .translations import AnchoredPairKindSettings, PairKindSettings, TranslationSettings
from .unsure import document_score

# names that other modules import from here (the aligner's module is where they were always found)
__all__ = [
    "BYTES",
    "CONFIG_SETTINGS",
    "DEFAULT_CONFIG",
    "DEFAULT_HIDDEN",
    "DEFAULT_WEIGHTS",
    "LATER_SETTINGS",
    "PREDATED_SETTINGS",
    "SHAPE_SETTINGS",
    "TORCH_WEIGHTS_FILE",
    "WEIGHTS_FILE",
    "CRFAligner",
    "as_saved",
    "configured_aligner",
    "make_crf_aligner",
    "make_crf_aligner_v3",
    "read_weights",
    "saved_settings",
    "train_aligner",
    "training_module",
    "weights_file",
]

SHIPPED = "shipped"
V2 = "spacy-simalign.CRFAligner.v2"
V3 = "spacy-simalign.CRFAligner.v3"


def _paragraph_pairs(links) -> Optional[List[Tuple[Sequence[int], Sequence[int]]]]:
    """Accepts ParagraphLink objects, (complex, simple) tuples of paragraph index groups, or None."""
    if links is None:
        return None
    out: List[Tuple[Sequence[int], Sequence[int]]] = []
    for link in links:
        c, s = (link.complex, link.simple) if hasattr(link, "complex") else (link[0], link[1])
        out.append((tuple(c) if not isinstance(c, int) else (c,), tuple(s) if not isinstance(s, int) else (s,)))
    return out


class CRFAligner(TranslationRouting, WideChoice, WeightsIO, Trainable, SentenceAlignerBase):
    """Aligns the sentences of a complex and a simple Side into n:m beads.

    It is trainable: `initialize` readies a fresh model (`ready` False: built from a config,
    not loaded from weights), `update` takes one training step and `fit` the epochs of steps,
    all through one crf.train.CRFTrainer with the aligner's `settings` (TrainingSettings).

    Translations (`translations`, an AnchoredPairKindSettings, an older PairKindSettings or the
    length rule of a TranslationSettings): a pair that is a translation is aligned by the
    monotone bead decoder on the same encoder (translations.py)."""

    is_trainable = True

    def __init__(
        self,
        config: Optional[Dict[str, Any]] = None,
        model=None,
        encoder=None,
        settings: Optional[TrainingSettings] = None,
        ready: bool = True,
        weights: Optional[str] = None,
        translations: Union[PairKindSettings, TranslationSettings, None] = None,
    ):
        cfg = copy.deepcopy(DEFAULT_CONFIG)
        cfg.update(without_retired(config or {}, RETIRED))
        # a weights folder's config.json, or a direct call: the settings' own check (core/setting_checks.py);
        # null is the caller's to refuse (the old form's null is the weights' value)
        check_settings(make_crf_aligner, {k: v for k, v in cfg.items() if k in CRF_RANGES and v is not None})
        self.config = cfg
        self._encoder = encoder
        self._model = model  # the torch model (model.py), made on first use: only training needs it
        self._state: Optional[Dict[str, np.ndarray]] = None  # the loaded weights
        self._crf: Optional[CRFWeights] = None  # what decodes them
        self._featurizer: Optional[PairFeaturizer] = None
        self.settings = settings or TrainingSettings()
        self.ready = ready  # False: a fresh model that initialize() must prepare
        self.weights = weights  # where the weights came from (initialize reloads them)
        self._trainer: Any = None  # train.CRFTrainer (torch), made on first use
        self._bead_dp = None
        self.translations: Union[PairKindSettings, TranslationSettings] = translations or AnchoredPairKindSettings()
        # the wide CRF (choice.py), made on first use
        self._wide: Optional[CRFAligner] = None
        self._wide_loader: Optional[Callable[[Any], CRFAligner]] = None
        self.wide_allowed = True  # false (the config's wide = false): no wide CRF aligns, is saved or trained
        # the word floor of summaries (summaries.py): off (0) but where a form with its block
        # (CRFAligner.v3) or CRFAligner.default() sets it (summarise)
        self.summary_ratio, self.summary_word_floor = SUMMARY_RATIO, 0.0
        # the width the config asked for (hidden, other than the default) and the registered form that
        # asked: weights loaded later (from_disk, from_bytes) must have it (check_width)
        self.asked_hidden: Optional[int] = None
        self.form = V2

    def summarise(self, summaries: SummarySettings) -> "CRFAligner":
        """This aligner, with the word floor of summaries of `summaries` (summaries.py; the block
        refuses null when it is made)."""
        self.summary_ratio = cast(float, summaries.summary_ratio)
        self.summary_word_floor = cast(float, summaries.summary_word_floor)
        return self

    def _new(self, config: Optional[Dict[str, Any]] = None, **kwargs: Any) -> "CRFAligner":
        """An aligner of this aligner's class (its parts make the wide CRF and training's first CRF so)."""
        return type(self)(config, **kwargs)

    @property
    def crf(self) -> CRFWeights:
        """What decodes: the torch model's current weights while there is one, else the loaded ones."""
        if self._model is not None or self._state is None:
            return self.model.weights()
        if self._crf is None:
            self._crf = CRFWeights(self._state)
        return self._crf

    @property
    def encoder(self):
        if self._encoder is None:
            self._encoder = similarity_from_spec(self.config["encoder"])
        return self._encoder

    @property
    def featurizer(self) -> PairFeaturizer:
        if self._featurizer is None:
            c = self.config
            self._featurizer = PairFeaturizer(self.encoder, c["top_k"], c["top_k_lexical"], c["band"], c["neighbours"])
        return self._featurizer

    def featurize(
        self, complex_side: Side, simple_side: Side, paragraph_links=None, gold_links=None, embeddings=None
    ) -> PairInput:
        return self.featurizer(complex_side, simple_side, _paragraph_pairs(paragraph_links), gold_links, embeddings)

    def encoders(self) -> List:
        return [self.encoder]

    def align(self, complex_side: Side, simple_side: Side, paragraph_links=None) -> List[Bead]:
        """Beads (complex indices, simple indices, score in [0, 1]) of the pair; sentences in
        no bead are deleted (complex) or added (simple)."""
        if not self.ready:
            raise ValueError(
                "this CRF aligner has no weights yet: with weights = null it is built by "
                "nlp.initialize() and trained (spacy train); to align without training use "
                'weights = "shipped" (the package\'s model) or a CRF weights folder, or spacy.load '
                "a trained pipeline"
            )
        if not len(complex_side) or not len(simple_side):
            return []
        if self.is_translation(complex_side, simple_side):
            return self.bead_dp.align(complex_side, simple_side)
        embeddings = (self.featurizer.embed(complex_side), self.featurizer.embed(simple_side))
        with one_blas_thread():  # the same bits on any number of BLAS threads
            pair = self.featurize(complex_side, simple_side, paragraph_links, embeddings=embeddings)
            return self.align_input(pair)

    def align_input(self, pair: PairInput, combination: Optional[str] = None) -> List[Bead]:
        """Beads from already computed features (used by training and cross-validation), by this
        CRF or, if it has one and that one is surer of the document, by the wide CRF (choice.py);
        in a summary, only the links whose sentences share enough words (summaries.py)."""
        beads = self.chosen_beads(pair, combination)
        floor = self.summary_word_floor
        if floor and not pair.cross_lingual and is_summary(pair.n_complex, pair.n_simple, self.summary_ratio):
            return sharing_words(beads, pair.s2c.tgt_texts, pair.s2c.src_texts, floor)
        return beads

    def chosen_beads(self, pair: PairInput, combination: Optional[str] = None) -> List[Bead]:
        """The beads of this CRF or of the wide CRF, whichever the per-document choice picks."""
        decoded = self.decoded(pair)
        wide = self.wide
        if wide is not None:  # its s2c direction scores the document; its c2s is decoded only if it wins
            wide_s2c = wide.crf.decode_many([pair.s2c])  # per sequence: the bits of a batch
            own, theirs = document_score(decoded[0][1]), document_score(wide_s2c[0][1])
            if wide_is_surer(own, theirs, self.config["wide_margin"]):
                wide_decoded = wide_s2c + wide.crf.decode_many([pair.c2s])
                return wide.beads(pair, wide.outputs(pair, wide_decoded), combination)
        return self.beads(pair, self.outputs(pair, decoded), combination)

    def beads(self, pair: PairInput, outputs, combination: Optional[str] = None) -> List[Bead]:
        """Beads of this CRF's decoded directions (s2c, c2s) of the pair."""
        s2c, c2s = outputs
        cfg = self.config
        method = combination or cfg["combination"]
        weights = cfg.get("combination_weights")
        if method == "learned" and weights is None:
            method = "union"
        if method == "learned" and cfg.get("bead_weights") is not None:
            beads = self.bead_stage(pair, s2c, c2s)
        else:
            beads = combine(
                s2c, c2s, method, None if weights is None else np.asarray(weights), cfg["threshold"], cfg["split_fill"]
            )
        return identical_beads_win(
            beads, pair.s2c.tgt_texts, pair.s2c.src_texts, cfg["identical"], cfg["identical_min_words"]
        )

    def bead_context(self, pair: PairInput, s2c, c2s) -> Tuple[BeadContext, List[Bead]]:
        """(the bead decoder's view of a decoded pair, the link-level beads of the learned combination)."""
        cfg = self.config
        probs = link_probs(s2c, c2s, cfg["combination_weights"])
        base = link_beads(kept_links(probs, s2c, cfg["threshold"], cfg["split_fill"]))
        return BeadContext(
            s2c,
            c2s,
            probs,
            *pair.sentence_lengths(),
            pair.cross_lingual,
            cfg["bead_candidate_floor"],
            cfg["bead_max_split"],
            cfg["bead_max_merge"],
            cfg["bead_max_block"],
        ), base

    def bead_stage(self, pair: PairInput, s2c, c2s) -> List[Bead]:
        """Beads chosen as units by the bead decoder (bead_decoder.py) over the link-level beads."""
        cfg = self.config
        ctx, base = self.bead_context(pair, s2c, c2s)
        return decode_beads(ctx, cfg["bead_weights"], cfg["bead_threshold"], base)

    def decode(self, pair: PairInput):
        """Both directions' outputs (combine.DirectionOutput) of this CRF."""
        return self.outputs(pair, self.decoded(pair))

    def decoded(self, pair: PairInput):
        """The model's (best labels, marginals) of the s2c and the c2s direction."""
        return self.crf.decode_many([pair.s2c, pair.c2s])

    def outputs(self, pair: PairInput, decoded):
        """The directions' outputs of `decoded` (self.decoded(pair))."""
        return tuple(
            direction_output(best, marg, x.cand, x.src_is_complex, self.config["link_floor"])
            for (best, marg), x in zip(decoded, (pair.s2c, pair.c2s))
        )

    # persistence ---------------------------------------------------------------------------

    # the component protocol: training and serialisation ---------------------------------


def train_aligner(
    pairs: Sequence[TrainingPair],
    config: Optional[Dict] = None,
    epochs: Optional[int] = None,
    settings: TrainingSettings = TrainingSettings(),
    encoder=None,
    inputs: Optional[Sequence[PairInput]] = None,
    log=None,
) -> CRFAligner:
    """A trained fresh aligner (`config`: its settings): initialize, then fit, as
    project/train_crf.py does. `epochs`: both CRFs' epochs (the first, whose decodes fit the
    combination, and the final one) instead of the settings'. `inputs`: the pairs' features
    with gold, when already computed."""
    if epochs is not None:
        settings = dataclasses.replace(settings, epochs=epochs, combination_epochs=epochs)
    training_module("train").set_seed(settings.seed)
    aligner = CRFAligner(dict(config or {}), encoder=encoder, settings=settings, ready=False)
    aligner.initialize(lambda: pairs, inputs, log)
    aligner.fit(pairs, log)
    return aligner


TRAINING = {"@simalign_aligners": "spacy-simalign.CRFTraining.v1"}
TRANSLATIONS = {"@simalign_aligners": ROUTING}


def sub_config(value, kind):
    """A sub-config's object: given (resolved by the config), or its defaults (a direct call)."""
    if isinstance(value, dict):
        return kind(**{k: v for k, v in value.items() if not k.startswith("@")})
    return value


# what each setting allows (declared with it, aligner_settings.py; checked on every call, before the
# aligner is built), with the sentence encoder's and the retired settings' rules
CRF_RANGES = {**RANGES, "similarity": EMBEDS, **RETIRED}
# v2's settings that null does not stand for: its filled config shows their value. Null keeps its
# meaning for weights (a fresh CRF), similarity (the weights' own encoder), cross_encoder_path
# (off), split_fill (the weights' own: none for weights saved before it, as align --model passes
# it on), hidden (the weights' width) and the retired emission and clauses (off)
VALUED = (*(name for name in flat_settings(2) if DECLARATIONS[name].valued), "translations", "training")

_P = inspect.Parameter.POSITIONAL_OR_KEYWORD
# the parameters of a flat form before its settings and after them: the config references are
# resolved by confection to the annotated type; sub_config builds their defaults on a direct call
FORM_HEAD = (
    inspect.Parameter("weights", _P, default=SHIPPED, annotation=Optional[str]),
    inspect.Parameter("similarity", _P, default=None),
)
FORM_TAIL = (
    inspect.Parameter(
        "translations", _P, default=TRANSLATIONS, annotation=Union[PairKindSettings, TranslationSettings, str]
    ),
    inspect.Parameter("training", _P, default=TRAINING, annotation=TrainingSettings),
)
# v2's settings that pipelines saved by 0.1.0 hold, accepted only at their off value (crf/retired.py)
V2_RETIRED = (
    inspect.Parameter("emission", _P, default="features", annotation=Optional[str]),
    inspect.Parameter("cross_encoder_path", _P, default=None, annotation=Optional[str]),
    inspect.Parameter("clauses", _P, default=False, annotation=bool),
)


def form_ranges(form: int) -> Dict[str, Any]:
    """What each argument of the flat form `form` allows: its settings' declared rules (null refused
    where a setting has a value), the encoder's, and a value for each sub-config."""
    settings = {name: DECLARATIONS[name].checked for name in flat_settings(form)}
    required = Required(None, NULL_IS_OLD_FORM)
    rules = {"similarity": EMBEDS, **settings, "translations": required, "training": required}
    return {name: rule for name, rule in rules.items() if rule is not None}


def flat_form(form: int, *extra: inspect.Parameter) -> Callable[[Callable[[Dict[str, Any]], CRFAligner]], Any]:
    """A flat form's function from `body`, which takes its arguments, defaults applied, as a dict. Its
    signature (which confection reads, and spaCy fills configs from) is made from the declarations:
    the weights and the encoder, the form's settings (aligner_settings.flat_parameters), the
    sub-configs of translations and training, and `extra`."""
    parameters = (*FORM_HEAD, *flat_parameters(form), *FORM_TAIL, *extra)
    signature = inspect.Signature(parameters, return_annotation=CRFAligner)

    def declare(body: Callable[[Dict[str, Any]], CRFAligner]) -> Any:
        @functools.wraps(body)
        def flat(*args: Any, **kwargs: Any) -> CRFAligner:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return body(dict(bound.arguments))

        flat.__signature__ = signature  # type: ignore[attr-defined]
        flat.__doc__ = f"{body.__doc__}\n\n    Its settings (aligner_settings.py):\n{settings_doc(form)}"
        flat.__annotations__ = {
            **{p.name: p.annotation for p in parameters if p.annotation is not inspect.Parameter.empty},
            "return": CRFAligner,
        }
        return flat

    return declare


V2_RANGES = {**form_ranges(2), **RETIRED}


@aligner_registry(V2)
@ranges(**V2_RANGES)
@flat_form(2, *V2_RETIRED)
def make_crf_aligner(arguments: Dict[str, Any]) -> CRFAligner:
    """The neural CRF sentence aligner as it was the default before v3 (which adds the word floor of
    summaries), with its settings as flat keys. Each setting, its default (the shipped weights'
    setting) and what it allows is declared once, in its block (aligner_settings.py): v2 takes
    those of the forms up to v2.

    weights: "shipped" (the package's model), a CRF weights folder, or null (a fresh model that
        `nlp.initialize()` prepares for `spacy train`; aligning before that is an error).
    similarity: the sentence encoder (default: the weights' own, multilingual USE).
    hidden: a fresh model's width; loaded weights bring their own, and a width other than the
        default (32) that is not theirs is refused, naming both (null: the weights' width).
    wide, wide_margin: weights with a wide CRF (the shipped ones: trained on more domains, in their
        folder's wide/) align a document by it when its mean entropy is lower by at least
        wide_margin nats; wide = false: never (crf/choice.py). A fresh model trains one beside it
        when the component's initialize is given wide_data (spacy train --paths.wide).
    translations: [aligner.translations], how translations are aligned (crf/translations.py;
        a mode name for short). training: [aligner.training], crf.train.TrainingSettings.
    emission, cross_encoder_path, clauses: accepted only at their off value, for pipelines saved by
        0.1.0 (crf/retired.py).

    Null is a value for weights (a fresh model), similarity (the weights' own encoder), hidden and
    split_fill (the weights' own) and the retired settings (off); every other setting needs a
    value, and null is refused in one line (VALUED), not taken as the default. Only the old form,
    `spacy-simalign.CRFAligner.v1` (crf/legacy.py), which pipelines saved before v2 name, takes
    null for a setting as the weights' value (a fresh model: the default)."""
    return flat_aligner(V2, arguments)


V3_RANGES = form_ranges(3)


@aligner_registry(V3)
@ranges(**V3_RANGES)
@flat_form(3)
def make_crf_aligner_v3(arguments: Dict[str, Any]) -> CRFAligner:
    """The neural CRF sentence aligner (the default): v2's settings, whose docstring
    (make_crf_aligner) says what the others do, with the same defaults, and the word floor of
    summaries (SummarySettings, aligner_settings.py):

    summary_ratio, summary_word_floor: a document whose complex side has at least summary_ratio
        times the simple side's sentences is a summary (a long text shortened: English Wikipedia
        and its Simple English version), where the CRF links simple sentences that have no
        counterpart; there a link whose sentences' word TF-IDF cosine is below summary_word_floor
        is dropped (crf/summaries.py; 0: none; cross-lingual pairs: none).

    v2's settings kept for pipelines saved by 0.1.0 (emission, cross_encoder_path, clauses) are not
    settings of v3. Null is refused for every setting but weights, similarity, hidden and
    split_fill, as in v2, and always in one line naming the setting: every setting that has a
    value admits null in its type, so that the declared ranges refuse it (v2 left the settings
    that came after the old form to the config's own type check)."""
    return flat_aligner(V3, arguments)


def flat_aligner(form: str, arguments: Dict[str, Any]) -> CRFAligner:
    """The aligner of a flat form (`form`: v2 or v3) from its registered function's arguments: its
    settings grouped in their blocks, then built as a form taking the blocks builds it."""
    translations = sub_config(arguments["translations"], AnchoredPairKindSettings)
    if isinstance(translations, str):
        translations = AnchoredPairKindSettings(mode=translations)
    settings = sub_config(arguments["training"], TrainingSettings)
    blocks = blocks_from(arguments)
    return blocks_aligner(form, arguments["weights"], arguments["similarity"], blocks, settings, translations)


def blocks_aligner(
    form: str,
    weights: Optional[str],
    similarity,
    blocks: Sequence[SettingsBlock],
    settings: TrainingSettings,
    translations: Union[PairKindSettings, TranslationSettings],
) -> CRFAligner:
    """The aligner of a registered form (`form`, its name in errors) from its settings blocks
    (aligner_settings.py): a saved setting whose block is not among them is the weights' own, no
    block of summaries is no word floor."""
    values = block_values(blocks)
    given = {key: values.get(key) for key in CONFIG_SETTINGS}
    aligner = configured_aligner(form, weights, similarity, given, settings, translations, values.get("wide", True))
    for summaries in (b for b in blocks if isinstance(b, SummarySettings)):
        aligner.summarise(summaries)
    return aligner


def configured_aligner(
    form: str,
    weights: Optional[str],
    similarity,
    given: Dict[str, Any],
    settings: TrainingSettings,
    translations: Union[PairKindSettings, TranslationSettings],
    wide: bool,
) -> CRFAligner:
    """The aligner of a registered form (`form`, its name in errors) with the `given` settings, of
    which null ones are the weights' values (a fresh model: the defaults)."""
    overrides = {k: v for k, v in given.items() if v is not None}
    if similarity is not None and getattr(similarity, "spec", None):
        overrides["encoder"] = similarity.spec
    hidden = overrides.get("hidden")
    if weights is None:
        aligner = CRFAligner(overrides, encoder=similarity, settings=settings, ready=False, translations=translations)
    else:
        folder = DEFAULT_WEIGHTS if weights == SHIPPED else Path(weights)
        if not folder.exists():
            raise InputError(f"CRF weights folder not found: {weights}")
        overrides = {k: v for k, v in overrides.items() if k not in SHAPE_SETTINGS}
        aligner = CRFAligner.load(folder, encoder=similarity, overrides=overrides)
        aligner.settings, aligner.translations = settings, translations
    aligner.form = form
    aligner.asked_hidden = hidden if hidden != DEFAULT_HIDDEN else None
    if weights is not None:
        aligner.check_width(aligner.config["hidden"], "the shipped weights" if weights == SHIPPED else weights)
    aligner.wide_allowed = wide
    return aligner


def saved_settings(folder: Union[str, Path]) -> Dict[str, Any]:
    """The inference settings a weights folder was saved with, as make_crf_aligner arguments: what
    `align --model FOLDER` puts in its [aligner] config, so the folder decodes as it was saved
    (and the config shows it). The model's shape comes with the weights anyway."""
    cfg, _ = read_weights(folder)
    return {k: v for k, v in cfg.items() if k in CONFIG_SETTINGS and k not in SHAPE_SETTINGS}
