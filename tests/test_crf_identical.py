"""Identical sentences win their own 1:1 bead: the CRF scores a sentence and its near-duplicate
neighbour alike and, left alone, puts both in one n:1 bead with the simple sentence that repeats
one of them word for word."""

import pytest

from spacy_simalign.aligners.crf.aligner import CRFAligner, make_crf_aligner
from spacy_simalign.aligners.crf.identical import identical_beads_win, identical_pairs, normal_form
from spacy_simalign.core.errors import InputError
from spacy_simalign.core.structures import Bead, Side
from spacy_simalign.formats.pair_jsonl import parse_pair


@pytest.fixture(scope="module")
def aligner(shipped):
    return shipped


def test_an_exact_match_is_not_merged_with_its_near_duplicate_neighbour(aligner):
    complex_side = Side(["Das ist ein Satz.", "Das ist noch ein Satz."], [[0, 1]])
    simple_side = Side(["Das ist ein Satz."], [[0]])
    beads = aligner.align(complex_side, simple_side)
    assert [(b.complex, b.simple) for b in beads] == [((0,), (0,))]
    assert beads[0].score == 1.0


def test_copied_sentences_keep_their_own_beads_beside_near_duplicates(aligner, deplain_pairs):
    """A real complex side with a near-duplicate after every sentence; the simple side copies
    the originals: each copy must align 1:1 to its original, none to the near-duplicate."""
    side = parse_pair(deplain_pairs[5]).training_pair().complex
    originals = [s for s in side.sentences if len(s.split()) >= 4][:20]
    doubled = [t for s in originals for t in (s, "Auch heute gilt: " + s)]
    beads = aligner.align(Side(doubled, [list(range(len(doubled)))]), Side(originals, [list(range(len(originals)))]))
    shapes = {(b.complex, b.simple) for b in beads}
    assert shapes == {((2 * j,), (j,)) for j in range(len(originals))}


def test_without_the_rule_the_link_level_model_merges_the_neighbour(aligner):
    """The rule is what makes the first test pass for the link-level decoding: the CRF's links
    alone build the 2:1 bead (`identical = "off"` as a config would set it, and no bead decoder,
    which chooses the 1:1 bead here on its own)."""
    sides = (Side(["Das ist ein Satz.", "Das ist noch ein Satz."], [[0, 1]]), Side(["Das ist ein Satz."], [[0]]))
    plain = CRFAligner.default(encoder=aligner.encoder, overrides={"identical": "off", "bead_weights": None})
    assert [(b.complex, b.simple) for b in plain.align(*sides)] != [((0,), (0,))]
    beads_only = make_crf_aligner(similarity=aligner.encoder, identical="off")
    assert [(b.complex, b.simple) for b in beads_only.align(*sides)] == [((0,), (0,))]


def test_normal_form_folds_case_punctuation_and_spacing_only():
    assert normal_form("Das  ist ein Satz!") == normal_form("das ist ein Satz.") == "das ist ein satz"
    assert normal_form("Das ist ein Satz.") != normal_form("Das ist kein Satz.")
    assert normal_form("„…“") == ""


def test_identical_pairs_mark_forms_that_occur_once_per_side():
    pairs = identical_pairs(["A b c.", "Ja.", "Ja.", "X y"], ["Ja!", "a B c", "Z."])
    assert pairs == [(0, 1, True), (1, 0, False), (2, 0, False)]


def test_rest_of_a_bead_keeps_its_score_and_one_sided_rests_are_unaligned():
    complex_texts = ["Der Hund bellt laut.", "Er ist müde.", "Die Katze schläft.", "Es regnet."]
    simple_texts = ["Der Hund bellt laut.", "Er will schlafen.", "Die Katze schläft"]
    beads = [Bead((0, 1), (0, 1), 0.7), Bead((2, 3), (2,), 0.6)]
    out = identical_beads_win(beads, complex_texts, simple_texts, "linked")
    assert [(b.complex, b.simple, b.score) for b in out] == [((0,), (0,), 1.0), ((1,), (1,), 0.7), ((2,), (2,), 1.0)]


def test_unique_mode_also_takes_identical_pairs_the_model_left_apart():
    complex_texts = ["Der Hund bellt sehr laut.", "Die Katze schläft.", "Ja."]
    simple_texts = ["Die Katze schläft.", "Der Hund bellt sehr laut.", "Ja."]
    beads = [Bead((1,), (1,), 0.9)]
    linked = identical_beads_win(beads, complex_texts, simple_texts, "linked")
    unique = identical_beads_win(beads, complex_texts, simple_texts, "unique")
    assert [(b.complex, b.simple) for b in linked] == [((1,), (1,))]
    # "Der Hund bellt sehr laut." (5 words) is taken; the 3-word "Die Katze schläft." too; "Ja." is too short
    assert [(b.complex, b.simple) for b in unique] == [((0,), (1,)), ((1,), (0,))]


def test_an_unknown_mode_is_refused():
    with pytest.raises(InputError, match="identical"):
        CRFAligner({"identical": "always"})
