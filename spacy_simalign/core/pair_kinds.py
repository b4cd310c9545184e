"""What a pair of documents is, as `align --pair-kind` and the CRF aligner's routing name it
(aligners/crf/translations.py): kept apart so that the command line reads it without importing
an aligner."""

PAIR_KINDS = ("auto", "translation", "simplification", "comparable")
ROUTING = "spacy-simalign.CRFTranslations.v3"
"""The registered routing by pair kind (to the bead decoder that counts shared anchors)."""
KIND_ROUTINGS = ("spacy-simalign.CRFTranslations.v2", ROUTING)
"""The routings by pair kind, each with its decoder: the first, BeadDP.v1's (the decoder of the
older length rule, CRFTranslations.v1, which a declared kind replaces), the second BeadDP.v3's."""
