"""How the CRF aligner aligns a pair that is a translation, the [aligner.translations] block of
its config. CRFTranslations.v3 (AnchoredPairKindSettings) routes by the pair's kind
(`pair_kind`: two languages make a translation under "auto") to the bead decoder of BeadDP.v3,
which counts the numbers and marks a bead's sides share; CRFTranslations.v2 (PairKindSettings)
routes the same way to BeadDP.v1's decoder; the older CRFTranslations.v1 (TranslationSettings) by
a rule: two languages and about the same length (their characters within a factor
`length_ratio`) make a translation. With mode "bead-dp" a translation goes to the monotone bead
decoder (aligners/bead_dp.py) on the CRF's own sentence encoder, with the decoder's settings here
(their defaults are those of the decoder's version). Saved pipelines keep the block they name,
so their translations keep their beads. The CRF learned from
simplifications, which delete a lot, and leaves a translation's sentences unaligned too often
(docs/results.md)."""

from dataclasses import dataclass, fields

from ...core.pair_kinds import PAIR_KINDS, ROUTING
from ...core.registries import aligner_registry
from ...core.setting_checks import Choice, Range, ranges
from ...core.structures import Side
from ..bead_dp import SETTINGS, V1_SETTINGS, BeadDPAligner, make_bead_dp, make_bead_dp_v3

MODES = ("bead-dp", "crf")


@dataclass(frozen=True)
class _BeadDecoderSettings:
    """The decoder of a translations block: the bead decoder's own settings (BeadDP.v1's names
    and defaults, make_bead_dp), on the CRF's encoder (one encoder, one sentence cache)."""

    max_align: int = V1_SETTINGS["max_align"]
    top_k: int = V1_SETTINGS["top_k"]
    window: int = V1_SETTINGS["window"]
    skip: float = V1_SETTINGS["skip"]
    margin: bool = V1_SETTINGS["margin"]
    length_penalty: bool = V1_SETTINGS["length_penalty"]
    concatenation: str = V1_SETTINGS["concatenation"]
    candidate_gap: float = V1_SETTINGS["candidate_gap"]
    candidate_penalty: float = V1_SETTINGS["candidate_penalty"]

    def decoder(self, encoder) -> BeadDPAligner:
        """The bead decoder of these settings; a block without anchor_weight counts no anchors (BeadDP.v1)."""
        given = {f.name: getattr(self, f.name) for f in fields(self) if f.name in SETTINGS}
        return BeadDPAligner(encoder, **{"anchor_weight": 0.0, **given})


@dataclass(frozen=True)
@ranges(mode=Choice(MODES), length_ratio=Range(1), **make_bead_dp.setting_ranges)
class TranslationSettings(_BeadDecoderSettings):
    """mode: "bead-dp" (translations go to the bead decoder) or "crf" (the CRF aligns them too);
    length_ratio: the most the two sides' character counts may differ by, as a factor; the rest
    are the bead decoder's settings (make_bead_dp)."""

    mode: str = "bead-dp"
    length_ratio: float = 1.25

    def is_translation(self, complex_side: Side, simple_side: Side) -> bool:
        """Two languages and about the same length (and mode "bead-dp")."""
        if self.mode != "bead-dp" or complex_side.lang == simple_side.lang:
            return False
        chars = [sum(len(t) for t in side.sentences) for side in (complex_side, simple_side)]
        return bool(min(chars)) and max(chars) / min(chars) <= self.length_ratio


aligner_registry.register("spacy-simalign.CRFTranslations.v1", func=TranslationSettings)


@dataclass(frozen=True)
@ranges(mode=Choice(MODES), pair_kind=Choice(PAIR_KINDS), **make_bead_dp.setting_ranges)
class PairKindSettings(_BeadDecoderSettings):
    """How the CRF aligner routes a pair by what it is (`pair_kind`): "translation" goes to the
    bead decoder (with mode "bead-dp"), "simplification" and "comparable" (documents on the same
    subject, many sentences without a counterpart: an aligner that deletes) to the CRF, and
    "auto" decides from the pair: sides in two languages are a translation, whatever their
    lengths (a novel's translation can be a third longer), one language a simplification. The
    rest are the bead decoder's settings (make_bead_dp)."""

    mode: str = "bead-dp"
    pair_kind: str = "auto"

    def is_translation(self, complex_side: Side, simple_side: Side) -> bool:
        """A translation by the pair's kind (see the class docstring), and mode "bead-dp"."""
        if self.mode != "bead-dp":
            return False
        if self.pair_kind == "auto":
            return complex_side.lang != simple_side.lang
        return self.pair_kind == "translation"


aligner_registry.register("spacy-simalign.CRFTranslations.v2", func=PairKindSettings)


@dataclass(frozen=True)
@ranges(mode=Choice(MODES), pair_kind=Choice(PAIR_KINDS), **make_bead_dp_v3.setting_ranges)
class AnchoredPairKindSettings(PairKindSettings):
    """The routing by pair kind of PairKindSettings, to the bead decoder of BeadDP.v3: each
    number, ?, ! or quote mark a bead's sides share adds anchor_weight, an end on a colon or
    semicolon on one side only takes it (make_bead_dp_v3's settings and defaults)."""

    candidate_penalty: float = SETTINGS["candidate_penalty"]
    anchor_weight: float = SETTINGS["anchor_weight"]


aligner_registry.register(ROUTING, func=AnchoredPairKindSettings)
