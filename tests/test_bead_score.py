"""The learned bead score of translations (bead_score.py, bead_evidence.py) and the routing of a
pair by its kind (crf/translations.py, align --pair-kind, align-xling)."""

import json

import numpy as np
import pytest
from conftest import HashedNgramSimilarity

from spacy_simalign.aligners.bead_dp import make_bead_dp
from spacy_simalign.aligners.bead_evidence import NAMES, BeadEvidence
from spacy_simalign.aligners.bead_score import BeadScoreAligner, BeadScoreModel, make_bead_score
from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.translations import PairKindSettings, TranslationSettings
from spacy_simalign.aligners.methods import method_config
from spacy_simalign.commands.align import with_pair_kind
from spacy_simalign.errors import InputError
from spacy_simalign.formats.pairs import read_pairs
from spacy_simalign.structures import Side


@pytest.fixture(scope="module")
def textberg(shared_data):
    return next(iter(read_pairs(str(shared_data("textberg-dev-de-fr/pairs.jsonl")))))


@pytest.fixture(scope="module")
def ntrex(shared_data):
    return list(read_pairs(str(shared_data("ntrex-news/de-fr.jsonl"))))[:4]


def test_with_the_unlearned_weights_the_decoder_gives_bead_dp_v1s_beads(ntrex):
    # the unlearned score in the learned decoder's features: cosine x length agreement, the penalty, the skip
    unlearned = BeadScoreModel({"cosine_length": 1.0, "extra_sentences": -0.075}, skip=-0.1)
    encoder = HashedNgramSimilarity()
    learned = BeadScoreAligner(encoder, unlearned, max_align=5, top_k=3, window=5, candidate_gap=0.2)
    old = make_bead_dp(encoder)
    for record in ntrex:
        src, tgt = record.side("complex"), record.side("simple")
        ours = [(b.complex, b.simple) for b in learned.align(src, tgt)]
        assert ours == [(b.complex, b.simple) for b in old.align(src, tgt)]


def test_evidence_finds_the_numbers_and_names_a_gold_bead_shares(textberg):
    src, tgt = textberg.side("complex"), textberg.side("simple")
    evidence = BeadEvidence(src, tgt)
    gold = next(b for b in textberg.gold if any(c.isdigit() for c in src.sentences[b.complex[0]]))
    a, b, i, j = len(gold.complex), len(gold.simple), gold.complex[-1] + 1, gold.simple[-1] + 1
    wrong = j + 3 if j + 3 <= len(tgt) else j - 3
    rows = evidence.features(a, b, i, np.array([j, wrong]), np.zeros(2), np.zeros(2))
    number = NAMES.index("number_dice")
    assert rows[0, number] > rows[1, number]
    assert rows[0, NAMES.index("gale_church")] > rows[1, NAMES.index("gale_church")] - 1.0
    assert rows[0, NAMES.index(f"shape_{a}_{b}")] == 1.0


def test_the_shipped_weights_load_and_name_their_data(tmp_path):
    model = make_bead_score(HashedNgramSimilarity()).model
    assert model.vector.shape == (len(NAMES),) and model.skip < 0
    assert set(model.about["fitted_on"]) == {"textberg", "transread", "ntrex"}
    bad = tmp_path / "weights.json"
    bad.write_text(json.dumps({"weights": {"nonsense": 1.0}, "skip": -1}), encoding="utf-8")
    with pytest.raises(InputError, match="nonsense"):
        BeadScoreModel.load(bad)
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="unreadable"):
        BeadScoreModel.load(bad)


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
    with pytest.raises(InputError, match="pair kind 'novel'"):
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
    assert block["@simalign_aligners"] == "spacy-simalign.CRFTranslations.v2" and block["pair_kind"] == "comparable"
    assert 'pair_kind = "comparable"' in config.to_str()
    with pytest.raises(InputError, match="--pair-kind"):
        with_pair_kind(method_config("bead-dp"), "translation")
