"""The routing of a pair by its kind (crf/translations.py, align --pair-kind): under "auto" sides
in two languages are a translation, whatever their lengths, and a declared kind wins over a saved
length rule."""

import pytest
from conftest import HashedNgramSimilarity

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.translations import PairKindSettings, TranslationSettings
from spacy_simalign.aligners.methods import method_config
from spacy_simalign.commands.align import with_pair_kind
from spacy_simalign.core.errors import InputError
from spacy_simalign.core.structures import Side


def sides(lang_a, lang_b, ratio):
    return Side(["x" * 100], [[0]], lang_a), Side(["y" * int(100 * ratio)], [[0]], lang_b)


def test_pair_kind_auto_routes_by_languages_not_lengths():
    emma = sides("en", "fr", 1.31)  # a novel's translation a third longer
    assert PairKindSettings().is_translation(*emma)
    assert not TranslationSettings().is_translation(*emma)  # the older rule keeps its length limit
    assert not PairKindSettings().is_translation(*sides("de", "de", 1.0))
    assert PairKindSettings(pair_kind="translation").is_translation(*sides("de", "de", 0.5))
    assert not PairKindSettings(pair_kind="comparable").is_translation(*sides("de", "fr", 1.0))
    assert not PairKindSettings(pair_kind="simplification").is_translation(*sides("de", "fr", 1.0))
    assert not PairKindSettings(mode="crf").is_translation(*sides("de", "fr", 1.0))
    with pytest.raises(InputError, match='pair_kind = "novel": must be one of "auto", "translation"'):
        PairKindSettings(pair_kind="novel")


def test_a_saved_length_rule_gives_way_to_a_declared_kind():
    aligner = CRFAligner(encoder=HashedNgramSimilarity(), ready=False, translations=TranslationSettings())
    aligner.set_pair_kind("comparable")
    assert isinstance(aligner.translations, PairKindSettings)
    assert not aligner.is_translation(*sides("de", "fr", 1.0))
    assert aligner.translations.candidate_gap == TranslationSettings().candidate_gap


def test_align_pair_kind_sets_the_crf_routing_and_refuses_other_aligners():
    config = with_pair_kind(method_config("crf"), "comparable")
    block = config["aligner"]["translations"]
    assert block["@simalign_aligners"] == "spacy-simalign.CRFTranslations.v3" and block["pair_kind"] == "comparable"
    assert block["anchor_weight"] == 0.05
    assert 'pair_kind = "comparable"' in config.to_str()
    with pytest.raises(InputError, match="--pair-kind"):
        with_pair_kind(method_config("bead-dp"), "translation")


def test_a_declared_kind_keeps_the_decoder_of_a_saved_block():
    """A config saved with the older blocks keeps BeadDP.v1's decoder when a kind is declared:
    the length rule becomes the routing by kind of the same decoder, and no anchor is counted."""
    for saved in ("spacy-simalign.CRFTranslations.v1", "spacy-simalign.CRFTranslations.v2"):
        config = method_config("crf")
        kept = {
            k: v
            for k, v in config["aligner"]["translations"].items()
            if k not in ("@simalign_aligners", "anchor_weight", "pair_kind")
        }
        config["aligner"]["translations"] = {"@simalign_aligners": saved, **kept, "candidate_penalty": 0.075}
        block = with_pair_kind(config, "translation")["aligner"]["translations"]
        assert block["@simalign_aligners"] == "spacy-simalign.CRFTranslations.v2" and "anchor_weight" not in block
        settings = PairKindSettings(**{k: v for k, v in block.items() if not k.startswith("@")})
        decoder = settings.decoder(HashedNgramSimilarity())
        assert decoder.anchor_weight == 0.0 and decoder.candidate_penalty == 0.075
    aligner = CRFAligner(encoder=HashedNgramSimilarity(), ready=False, translations=TranslationSettings())
    aligner.set_pair_kind("translation")
    assert aligner.bead_dp.anchor_weight == 0.0
