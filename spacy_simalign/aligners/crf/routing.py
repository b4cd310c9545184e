"""Which pairs are translations and what aligns them: a pair that is a translation goes to the
monotone bead decoder on the CRF aligner's encoder (translations.py), the rest to the CRF."""

import dataclasses
from typing import Any, Dict, Optional

from ...core.structures import Side
from .parts import AlignerParts
from .translations import PairKindSettings


class TranslationRouting:
    """The CRF aligner's routing of translations (a part of CRFAligner): its settings, and the bead
    decoder it builds for them on first use."""

    def set_translations(self: AlignerParts, mode: str, length_ratio: Optional[float] = None) -> None:
        """How pairs that are translations are aligned (translations.py); the length ratio is
        the older length rule's (TranslationSettings)."""
        changes: Dict[str, Any] = {"mode": mode}
        if length_ratio is not None:
            changes["length_ratio"] = float(length_ratio)
        self.translations = dataclasses.replace(self.translations, **changes)
        self._bead_dp = None

    def set_pair_kind(self: AlignerParts, kind: str) -> None:
        """Declare what the pairs are ("auto", "translation", "simplification", "comparable"):
        a saved length rule (TranslationSettings) gives way to the routing by kind; an unknown
        kind is refused by PairKindSettings' own check."""
        current = self.translations
        if isinstance(current, PairKindSettings):
            self.translations = dataclasses.replace(current, pair_kind=kind)
        else:
            keep = {f.name: getattr(current, f.name) for f in dataclasses.fields(current) if f.name != "length_ratio"}
            self.translations = PairKindSettings(pair_kind=kind, **keep)
        self._bead_dp = None

    def is_translation(self: AlignerParts, complex_side: Side, simple_side: Side) -> bool:
        """A translation (translations.py): aligned by the bead decoder."""
        return self.translations.is_translation(complex_side, simple_side)

    @property
    def bead_dp(self: AlignerParts):
        if self._bead_dp is None:
            self._bead_dp = self.translations.decoder(self.encoder)
        return self._bead_dp
