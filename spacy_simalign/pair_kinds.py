"""What a pair of documents is, as `align --pair-kind` and the CRF aligner's routing name it
(aligners/crf/translations.py): kept apart so that the command line reads it without importing
an aligner."""

PAIR_KINDS = ("auto", "translation", "simplification", "comparable")
ROUTING = "spacy-simalign.CRFTranslations.v2"
"""The registered routing by pair kind."""
