"""The CRF aligner's settings, each declared once: its default, what it allows, a line saying what
it holds and when it came. They are grouped in blocks by the part of the aligner they set
(CandidateSettings, LinkSettings, ...), each registered (`spacy-simalign.CRFCandidates.v1`, ...) so
that an aligner form takes them as config sub-blocks ([aligner.candidates], ...) as it takes
[aligner.translations] and [aligner.training].

The flat forms, CRFAligner.v2 and .v3, take the same settings as flat keys: their signatures are
made here from the declarations (flat_parameters), and so is every list another module needs (what
each setting allows, the settings config.json saves, those that came after the shipped weights). A
new setting is one field in its block; one that would change how weights saved before it decode
defaults to what they decoded with and is marked `later`."""

import dataclasses
import inspect
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, Dict, Iterable, List, Mapping, Optional, Tuple, Type

from ...core.registries import aligner_registry
from ...core.setting_checks import AT_LEAST_0, AT_LEAST_1, UNIT, Choice, Range, Required, check_settings
from .bead_decoder import CANDIDATE_FLOOR, MAX_BLOCK, MAX_MERGE, MAX_SPLIT
from .combine import COMBINATIONS, LINK_FLOOR
from .identical import MIN_WORDS_UNLINKED
from .identical import MODES as IDENTICAL_MODES
from .summaries import SUMMARY_RATIO, SUMMARY_WORD_FLOOR

DECLARED = "crf_setting"  # the key of a setting's declaration in its field's metadata
NULL_IS_OLD_FORM = "null is the weights' value only in the old form, spacy-simalign.CRFAligner.v1"
DEFAULT_HIDDEN = 32  # never refused: a config cannot tell it from a width it did not set
DEFAULT: Any = object()  # a later setting's `before`: weights saved before it decode with its default


@dataclass(frozen=True)
class Declared:
    """What a setting allows and where it belongs, beside its default (its field's).

    rule: its range or choices (core/setting_checks.py); None: its type alone.
    doc: what it holds, in a line.
    since: the flat form that took it first (1: CRFAligner.v1; v2 admits null in the type of those
        alone, where null was the weights' value; 3: v3, not a setting of v2).
    valued: null does not stand for it (it is refused in one line); False: null is the weights' value.
    saved: config.json saves it (the aligner's config); False: it sets the aligner, not its weights.
    later: it came after the shipped weights, at the value that decoded before it: config.json
        saves it only where it differs, so a saved file keeps the keys it had.
    before: (with later) the value that weights saved before it decode with, where that is not its
        default: config.json then always saves it, and a file without it gets this value.
    shape: the model's shape: loaded weights bring their own."""

    rule: Any
    doc: str
    since: int = 1
    valued: bool = True
    saved: bool = True
    later: bool = False
    before: Any = DEFAULT
    shape: bool = False

    @property
    def checked(self) -> Any:
        """The rule that every form and block checks: null refused where the setting has a value."""
        return Required(self.rule, NULL_IS_OLD_FORM) if self.valued else self.rule


def setting(default: Any, rule: Any, doc: str, **marks: Any) -> Any:
    """A block's field: the setting's default and its declaration (Declared's marks)."""
    return field(default=default, metadata={DECLARED: Declared(rule, doc, **marks)})


class SettingsBlock:
    """A block of the CRF aligner's settings: checked when made, as a registered function's
    arguments are (its errors name the block's registered name and the setting)."""

    setting_ranges: ClassVar[Dict[str, Any]] = {}
    __dataclass_fields__: ClassVar[Dict[str, Any]]  # each block is a dataclass (made so by `block`)

    def __post_init__(self) -> None:
        check_settings(type(self), {f.name: getattr(self, f.name) for f in dataclasses.fields(self)})


BLOCKS: Dict[str, Type[SettingsBlock]] = {}  # each block by its config key ([aligner.candidates]: "candidates")


def block(key: str, name: str):
    """Register a block (a frozen dataclass of `setting` fields) as `name`, the sub-block `key` of a form."""

    def declare(cls):
        cls = dataclass(frozen=True)(cls)
        rules = {f.name: f.metadata[DECLARED].checked for f in dataclasses.fields(cls)}
        cls.setting_ranges = {setting: rule for setting, rule in rules.items() if rule is not None}
        aligner_registry.register(name, func=cls)
        BLOCKS[key] = cls
        return cls

    return declare


@block("candidates", "spacy-simalign.CRFCandidates.v1")
class CandidateSettings(SettingsBlock):
    """The target sentences the CRF scores for each sentence (crf/candidate_labels.py); each count
    is clipped to the document, so any count works."""

    top_k: Optional[int] = setting(6, AT_LEAST_1, "the most similar sentences by the sentence encoder")
    top_k_lexical: Optional[int] = setting(4, AT_LEAST_0, "the most similar sentences by word TF-IDF")
    band: Optional[int] = setting(3, AT_LEAST_0, "the sentences this far from the diagonal")
    neighbours: Optional[int] = setting(2, AT_LEAST_0, "the best candidates of this many neighbouring sentences")


@block("links", "spacy-simalign.CRFLinks.v1")
class LinkSettings(SettingsBlock):
    """How the two directions' links become beads (crf/combine.py)."""

    combination: Optional[str] = setting(
        "learned", Choice(COMBINATIONS), "union, intersection or learned: how the two directions combine"
    )
    threshold: Optional[float] = setting(0.5, UNIT, "the link probability the learned combination keeps")
    split_fill: Optional[float] = setting(
        0.4,
        UNIT,
        "a split's marginal that adds its link (null: the weights' own)",
        valued=False,
        later=True,
        before=None,  # no split filled
    )
    link_floor: Optional[float] = setting(
        LINK_FLOOR, UNIT, "the probability below which a direction drops a link", since=2, later=True
    )


@block("identical", "spacy-simalign.CRFIdentical.v1")
class IdenticalSettings(SettingsBlock):
    """Identical sentences get their own 1:1 bead (crf/identical.py)."""

    identical: Optional[str] = setting(
        "unique", Choice(IDENTICAL_MODES), "unique, linked or off: which identical sentences get one"
    )
    identical_min_words: Optional[int] = setting(
        MIN_WORDS_UNLINKED, AT_LEAST_0, "the words of an identical pair the model did not link", since=2, later=True
    )


@block("beads", "spacy-simalign.CRFBeads.v1")
class BeadSettings(SettingsBlock):
    """The bead decoder, which chooses splits and merges as units (crf/bead_decoder.py)."""

    bead_threshold: Optional[float] = setting(0.5, UNIT, "the score a bead needs")
    bead_candidate_floor: Optional[float] = setting(
        CANDIDATE_FLOOR, UNIT, "the link probability that can bound a candidate bead", since=2, later=True
    )
    bead_max_split: Optional[int] = setting(
        MAX_SPLIT, Range(1, 50), "the simple sentences of a 1:n bead", since=2, later=True
    )
    bead_max_merge: Optional[int] = setting(
        MAX_MERGE, Range(1, 50), "the complex sentences of an n:1 bead", since=2, later=True
    )
    bead_max_block: Optional[int] = setting(
        MAX_BLOCK, Range(1, 10), "the sentences of each side of an n:m bead", since=2, later=True
    )


@block("wide", "spacy-simalign.CRFWide.v1")
class WideSettings(SettingsBlock):
    """The wide CRF of weights that have one, and the per-document choice of it (crf/choice.py)."""

    wide: Optional[bool] = setting(
        True, None, "whether a document may be aligned by the wide CRF", since=2, saved=False
    )
    wide_margin: Optional[float] = setting(
        0.1, AT_LEAST_0, "the nats of mean entropy by which the wide CRF must be surer", since=2, later=True
    )


@block("summaries", "spacy-simalign.CRFSummaries.v1")
class SummarySettings(SettingsBlock):
    """The word floor of summaries (crf/summaries.py): forms without this block have none."""

    summary_ratio: Optional[float] = setting(
        SUMMARY_RATIO, AT_LEAST_0, "the times the simple side's sentences that make a summary", since=3, saved=False
    )
    summary_word_floor: Optional[float] = setting(
        SUMMARY_WORD_FLOOR, UNIT, "the word TF-IDF cosine a summary's link needs (0: none)", since=3, saved=False
    )


@block("model", "spacy-simalign.CRFModel.v1")
class ModelSettings(SettingsBlock):
    """The model's width and the torch threads that train it (inference is numpy)."""

    hidden: Optional[int] = setting(
        DEFAULT_HIDDEN,
        Range(1, 4096),
        "a fresh model's width (null, or loaded weights: the weights' own)",
        valued=False,
        shape=True,
    )
    torch_threads: Optional[int] = setting(1, AT_LEAST_1, "torch threads for training", since=2)


# the order in which the flat forms (v2, v3) show their settings, which `init-config` prints and the
# configs users wrote hold; a setting declared for a flat form but not here comes after these
FLAT_ORDER = (
    "combination",
    "threshold",
    "top_k",
    "top_k_lexical",
    "band",
    "neighbours",
    "hidden",
    "identical",
    "identical_min_words",
    "split_fill",
    "link_floor",
    "bead_threshold",
    "bead_candidate_floor",
    "bead_max_split",
    "bead_max_merge",
    "bead_max_block",
    "torch_threads",
    "wide",
    "wide_margin",
    "summary_ratio",
    "summary_word_floor",
)


def block_of(name: str) -> Type[SettingsBlock]:
    """The block that declares setting `name`."""
    return next(cls for cls in BLOCKS.values() if name in {f.name for f in dataclasses.fields(cls)})


def declared_fields() -> List[dataclasses.Field]:
    """Every setting's field, in FLAT_ORDER, then the others in their blocks' order."""
    found = [f for cls in BLOCKS.values() for f in dataclasses.fields(cls)]
    rank = {name: i for i, name in enumerate(FLAT_ORDER)}
    return sorted(found, key=lambda f: rank.get(f.name, len(rank)))  # stable: the others keep their order


FIELDS = {f.name: f for f in declared_fields()}
DECLARATIONS: Dict[str, Declared] = {name: f.metadata[DECLARED] for name, f in FIELDS.items()}
DEFAULTS: Dict[str, Any] = {name: f.default for name, f in FIELDS.items()}
TYPES: Dict[str, Any] = {name: typing.get_type_hints(block_of(name))[name] for name in FIELDS}


def names(**marks: Any) -> Tuple[str, ...]:
    """The settings whose declarations have these marks (in FLAT_ORDER)."""
    return tuple(n for n, d in DECLARATIONS.items() if all(getattr(d, k) == v for k, v in marks.items()))


RANGES: Dict[str, Any] = {name: d.rule for name, d in DECLARATIONS.items() if d.rule is not None}
VALUED_SETTINGS = names(valued=True)  # null does not stand for them
CONFIG_SETTINGS = names(saved=True)  # the aligner's config: what config.json saves
LATER_SETTINGS = names(later=True, before=DEFAULT)  # saved only where they differ from the default
# the later settings whose default is not what weights saved before them decode with: that value
PREDATED_SETTINGS: Dict[str, Any] = {n: d.before for n, d in DECLARATIONS.items() if d.later and d.before != DEFAULT}
SHAPE_SETTINGS = names(shape=True)  # loaded weights bring their own


def flat_annotation(name: str, form: int) -> Any:
    """A setting's type in the flat form `form`: its block's (admitting null, so that the ranges refuse
    null in one line), but in v2, which admits null only for the settings of the old form."""
    annotation = TYPES[name]
    if form == 2 and DECLARATIONS[name].since > 1:
        return next(a for a in typing.get_args(annotation) if a is not type(None))
    return annotation


def flat_settings(form: int) -> Tuple[str, ...]:
    """The settings of the flat form `form` (2: CRFAligner.v2, 3: v3), in the order it shows them."""
    return tuple(name for name, d in DECLARATIONS.items() if d.since <= form)


def flat_parameters(form: int) -> List[inspect.Parameter]:
    """The settings of the flat form `form` as its signature's parameters (default and type)."""
    return [
        inspect.Parameter(
            name,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=DEFAULTS[name],
            annotation=flat_annotation(name, form),
        )
        for name in flat_settings(form)
    ]


def settings_doc(form: int) -> str:
    """The flat form `form`'s settings, each with its default and what it holds, for its docstring."""
    return "\n".join(
        f"    {name} (default {DEFAULTS[name]!r}): {DECLARATIONS[name].doc}" for name in flat_settings(form)
    )


def blocks_from(values: Mapping[str, Any]) -> List[SettingsBlock]:
    """The blocks of which `values` (flat settings) give at least one setting; the others of such a
    block are at their default (a setting that came after a form decodes as the form did)."""
    out = []
    for cls in BLOCKS.values():
        own = {f.name: values[f.name] for f in dataclasses.fields(cls) if f.name in values}
        if own:
            out.append(cls(**own))
    return out


def block_values(blocks: Iterable[SettingsBlock]) -> Dict[str, Any]:
    """The flat settings of `blocks`."""
    return {f.name: getattr(b, f.name) for b in blocks for f in dataclasses.fields(b)}
