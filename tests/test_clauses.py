"""Sub-sentence units (issue 24 item 2): clauses of a sentence in de, nl, fr, en, the best cosine
of a sentence with the units of another, and the CRF's clause features (a setting, off in the
shipped weights, which keep their shape and their output)."""

import dataclasses

import numpy as np
import pytest
import torch

from spacy_simalign.aligners.clauses import clauses
from spacy_simalign.aligners.crf.aligner import CRFAligner, make_crf_aligner, train_aligner
from spacy_simalign.aligners.crf.features import CLAUSE_FEATURE_NAMES, FEATURE_INDEX, N_FEATURES
from spacy_simalign.aligners.crf.joined import N_JOINED_FEATURES, UNIT_FEATURE_NAMES
from spacy_simalign.aligners.crf.train import TrainingSettings, pair_loss, training_input
from spacy_simalign.aligners.units import SentenceUnits, best_unit_cosines, best_unit_matrix, best_unit_maxima
from spacy_simalign.evaluation.training_runs import split_settings

# (language, sentence, its clauses separated by " | ")
CASES = [
    (
        "de",
        "Bitte beachten Sie, dass kein Rechtsanspruch auf ein bestimmtes Kennzeichen besteht.",
        "Bitte beachten Sie | dass kein Rechtsanspruch auf ein bestimmtes Kennzeichen besteht.",
    ),
    (
        "de",
        "Ich esse Äpfel und Birnen, weil sie gesund sind und gut schmecken.",
        "Ich esse Äpfel und Birnen | weil sie gesund sind | und gut schmecken.",
    ),
    (
        "nl",
        "Hij ging weg omdat het regende en hij het koud had.",
        "Hij ging weg | omdat het regende | en hij het koud had.",
    ),
    (
        "fr",
        "Il est parti parce que il pleuvait et qu'il avait froid.",
        "Il est parti | parce que il pleuvait | et qu'il avait froid.",
    ),
    (
        "en",
        "He stayed at home because it rained - and he was cold.",
        "He stayed at home | because it rained | and he was cold.",
    ),
]


@pytest.mark.parametrize("lang, sentence, expected", CASES)
def test_a_sentence_splits_at_punctuation_and_before_conjunctions(lang, sentence, expected):
    expected = tuple(expected.split(" | "))
    assert clauses(sentence, lang) == expected
    # the clauses hold every word of the sentence, in order
    assert " ".join(expected).replace(",", "").split() == sentence.replace(",", "").replace(" -", "").split()


def test_short_pieces_join_a_neighbour_and_a_sentence_without_two_clauses_has_none():
    assert clauses("Er kam, sah und siegte.", "de") == ()  # every piece under 3 words: one unit
    assert clauses("Das Wetter ist heute schön.", "de") == ()
    assert clauses("Heute regnet es, aber wir gehen trotzdem spazieren.", "xx") == (
        "Heute regnet es",
        "aber wir gehen trotzdem spazieren.",
    )  # a language without a word list: punctuation alone
    assert clauses("Heute regnet es aber wir gehen trotzdem spazieren.", "xx") == ()


def test_a_sentence_scores_its_best_unit(fake_encoder):
    complex_texts = ["Die Stadt baut eine neue Schule, weil viele Familien in das Viertel ziehen.", "Kurzer Satz hier."]
    simple_texts = ["Viele Familien ziehen in das Viertel.", "Ein kurzer Satz."]
    ec = np.asarray(fake_encoder.encode(complex_texts, "de"), dtype=np.float32)
    es = np.asarray(fake_encoder.encode(simple_texts, "de"), dtype=np.float32)
    cu = SentenceUnits.of(fake_encoder, complex_texts, "de", ec)
    su = SentenceUnits.of(fake_encoder, simple_texts, "de", es)
    assert list(cu.owner) == [0, 0] and list(cu.first) == [0, 2, 2]  # only the first sentence splits
    rows, cols = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    best = best_unit_cosines(su, cu, rows, cols)
    whole = np.einsum("pd,pd->p", es[rows], ec[cols])
    clause = np.asarray(fake_encoder.encode([clauses(complex_texts[0], "de")[1]], "de"))[0]
    # the sentence's own cosine where it has no clauses, the best clause's where that is higher
    assert best[1] == pytest.approx(whole[1]) and best[3] == pytest.approx(whole[3])
    assert best[0] == pytest.approx(max(whole[0], float(es[0] @ clause))) and best[0] > whole[0] + 0.05
    row, col = best_unit_maxima(su, cu, chunk=1)
    dense = best_unit_cosines(su, cu, np.repeat([0, 1], 2), np.tile([0, 1], 2)).reshape(2, 2)
    assert row == pytest.approx(dense.max(axis=1)) and col == pytest.approx(dense.max(axis=0))
    assert best_unit_matrix(su, cu) == pytest.approx(dense)  # the bead stage's matrix: the same scores


def test_the_bead_stage_scores_each_member_by_its_best_unit_inside_the_block(small_pairs, fake_encoder):
    """With clauses on, the joined stage adds UNIT_FEATURE_NAMES: per block, each simple sentence's
    best cosine with a unit of the block's complex sentences (mean, min), and the reverse."""
    pair = small_pairs[0]
    aligner = CRFAligner({"clauses": True}, encoder=fake_encoder, ready=False)
    x = aligner.featurize(pair.complex, pair.simple)
    text = aligner.joined_text(x)
    assert text.clauses and text.n_features == N_JOINED_FEATURES + len(UNIT_FEATURE_NAMES)
    cands = np.array([[0, 0, 0, 0], [0, 0, 0, 1], [0, 1, 1, 1]])
    feats = text.features(cands, np.zeros((3, 1)))
    assert feats.shape == (3, 1 + 2 + len(UNIT_FEATURE_NAMES))
    c, s = list(pair.complex.sentences), list(pair.simple.sentences)
    ec, es = (np.asarray(fake_encoder.encode(t, "de"), dtype=np.float32) for t in (c, s))
    sub = best_unit_matrix(SentenceUnits.of(fake_encoder, s, "de", es), SentenceUnits.of(fake_encoder, c, "de", ec))
    sup = best_unit_matrix(SentenceUnits.of(fake_encoder, c, "de", ec), SentenceUnits.of(fake_encoder, s, "de", es))
    units = feats[:, 3:]
    assert units[0] == pytest.approx([sub[0, 0], sub[0, 0], sup[0, 0], sup[0, 0]], abs=1e-5)
    assert units[1] == pytest.approx(
        [sub[:2, 0].mean(), sub[:2, 0].min(), sup[0, :2].max(), sup[0, :2].max()], abs=1e-5
    )
    merge = sup[:2, 1]  # the merge: each complex member against the one simple sentence's units
    assert units[2] == pytest.approx([sub[1, :2].max(), sub[1, :2].max(), merge.mean(), merge.min()], abs=1e-5)
    plain = CRFAligner.default(encoder=fake_encoder).joined_text(x)
    assert not plain.clauses and plain.features(cands, np.zeros((3, 1))).shape == (3, 3)


def test_the_clause_features_are_a_setting_that_adds_six_pair_features(small_pairs, fake_encoder):
    pair = small_pairs[0]
    plain = CRFAligner.default(encoder=fake_encoder).featurize(pair.complex, pair.simple)
    fresh = CRFAligner({"clauses": True}, encoder=fake_encoder, ready=False)
    x = fresh.featurize(pair.complex, pair.simple)
    assert fresh.model.emission.pair[0].in_features == N_FEATURES + len(CLAUSE_FEATURE_NAMES)
    for d, p in ((x.s2c, plain.s2c), (x.c2s, plain.c2s)):
        assert d.feats.shape[-1] == N_FEATURES + 6 and (d.cand == p.cand).all()
        assert torch.equal(d.feats[..., :N_FEATURES], p.feats)  # the first 17 are today's features
        valid = d.cand >= 0
        cos, sub = d.feats[..., FEATURE_INDEX["cos"]], d.feats[..., FEATURE_INDEX["clause_cos"]]
        assert (sub[valid] >= cos[valid] - 1e-5).all()  # the whole sentence is one of the units
        assert (d.feats[..., FEATURE_INDEX["clause_gap_row"]][valid] <= 1e-5).all()
        assert (sub[valid] > cos[valid] + 1e-3).any()  # and some clause beats it
    # the same pair (complex, simple) gets the same clause cosine in both directions
    s2c = {
        (int(c), i): float(x.s2c.feats[i, k, FEATURE_INDEX["clause_cos"]])
        for i, k in zip(*np.nonzero(x.s2c.cand.numpy() >= 0))
        for c in [x.s2c.cand[i, k]]
    }
    c2s = {
        (c, int(s)): float(x.c2s.feats[c, k, FEATURE_INDEX["clause_cos"]])
        for c, k in zip(*np.nonzero(x.c2s.cand.numpy() >= 0))
        for s in [x.c2s.cand[c, k]]
    }
    both = set(s2c) & set(c2s)
    assert both and all(s2c[key] == pytest.approx(c2s[key], abs=1e-5) for key in both)


def test_a_clause_model_saves_and_loads_with_its_shape_and_the_shipped_weights_keep_theirs(
    small_pairs, fake_encoder, tmp_path
):
    aligner = train_aligner(small_pairs, {"clauses": True}, epochs=1, encoder=fake_encoder)
    aligner.save(tmp_path)
    assert '"clauses": true' in (tmp_path / "config.json").read_text()
    again = CRFAligner.load(tmp_path, encoder=fake_encoder)
    pair = small_pairs[1]
    assert again.config["clauses"] and again.align(pair.complex, pair.simple) == aligner.align(
        pair.complex, pair.simple
    )
    # clauses is part of the shape: the shipped weights (saved without it) load as they are
    shipped = make_crf_aligner(similarity=fake_encoder, clauses=True)
    assert not shipped.config["clauses"] and shipped.model.emission.pair[0].in_features == N_FEATURES


def test_a_linked_only_document_weighs_as_its_setting_says(small_pairs, fake_encoder):
    import random

    aligner = CRFAligner.default(encoder=fake_encoder)
    linked = training_input(aligner, dataclasses.replace(small_pairs[0], linked_only=True))
    ordinary = training_input(aligner, small_pairs[0])
    full, n = pair_loss(aligner.model, linked, random.Random(0), 0.0)
    weighted, m = pair_loss(aligner.model, linked, random.Random(0), 0.0, 0.3)
    assert n == m and float(weighted) == pytest.approx(0.3 * float(full), rel=1e-6)
    assert float(pair_loss(aligner.model, ordinary, random.Random(0), 0.0, 0.3)[0]) == pytest.approx(
        float(pair_loss(aligner.model, ordinary, random.Random(0), 0.0)[0])
    )  # ordinary gold is not weighted
    assert TrainingSettings().linked_only_weight == 1.0


def test_scripts_split_their_settings_into_aligner_and_training_ones():
    assert split_settings([("clauses", True), ("training.linked_only_weight", 0.3)]) == (
        {"clauses": True},
        {"linked_only_weight": 0.3},
    )
    with pytest.raises(ValueError, match="unknown training setting"):
        split_settings([("training.linked_weight", 0.3)])
