"""The CRF aligner on real DEplain-web pairs: shipped weights, save/load, overfitting,
candidates, cross-lingual mode, bad configuration."""

import numpy as np
import pytest

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner, train_aligner
from spacy_simalign.aligners.crf.features import FEATURE_NAMES, PairFeaturizer
from spacy_simalign.aligners.crf.train import TrainingSettings
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.core.errors import InputError
from spacy_simalign.core.structures import ParagraphLink, Side
from spacy_simalign.formats.pair_jsonl import parse_pair


def check_beads(beads, pair):
    seen_c, seen_s = set(), set()
    for b in beads:
        assert b.complex and b.simple
        assert all(0 <= c < len(pair.complex) for c in b.complex)
        assert all(0 <= s < len(pair.simple) for s in b.simple)
        assert not seen_c & set(b.complex) and not seen_s & set(b.simple)
        seen_c |= set(b.complex)
        seen_s |= set(b.simple)
        assert 0.0 <= b.score <= 1.0


def link_f1(pairs, preds):
    scorer = AlignmentScorer()
    for p, beads in zip(pairs, preds):
        scorer.add(p.gold, beads, p.complex.sentences, p.simple.sentences)
    return scorer.scores()["link"]["f"]


def test_shipped_weights_load_and_align_a_pair(shipped, small_pairs):
    assert shipped.config["combination_weights"] is not None
    preds = [shipped.align(p.complex, p.simple) for p in small_pairs]
    for p, beads in zip(small_pairs, preds):
        check_beads(beads, p)
    assert link_f1(small_pairs, preds) >= 0.8


def test_save_load_round_trip(shipped, small_pairs, tmp_path, encoder):
    shipped.save(tmp_path / "crf")
    again = CRFAligner.load(tmp_path / "crf", encoder=encoder)
    assert again.config == shipped.config
    assert (tmp_path / "crf" / "model.npz").read_bytes() == (DEFAULT_WEIGHTS / "model.npz").read_bytes()
    state = again.current_state()
    for key, value in shipped.current_state().items():
        assert np.array_equal(value, state[key])
    pair = small_pairs[0]
    assert again.align(pair.complex, pair.simple) == shipped.align(pair.complex, pair.simple)


@pytest.mark.slow
def test_overfits_three_pairs(small_pairs, encoder):
    aligner = train_aligner(
        small_pairs, {"combination": "union"}, epochs=40, settings=TrainingSettings(seed=0), encoder=encoder
    )
    for pair in small_pairs:
        pred = {(b.complex, b.simple) for b in aligner.align(pair.complex, pair.simple)}
        assert pred == {(b.complex, b.simple) for b in pair.gold}


def test_candidates_hold_most_gold_links(deplain_pairs, encoder):
    """Candidate restriction must keep the right answer within reach for nearly every sentence."""
    featurizer = PairFeaturizer(encoder)
    hit = total = 0
    for record in deplain_pairs[:12]:
        pair = parse_pair(record).training_pair()
        x = featurizer(pair.complex, pair.simple).s2c
        gold = {}
        for c, s in pair.links:
            gold.setdefault(s, set()).add(c)
        for s, cs in gold.items():
            total += 1
            hit += bool(cs & set(x.cand[s].tolist()))
        assert x.cand.shape[1] <= 30
    assert hit / total >= 0.95


def test_cross_lingual_mode_aligns_the_same_sentences(shipped, small_pairs):
    """Sides tagged with two languages turn lexical features off; identical meaning must still align."""
    pair = small_pairs[1]
    other = Side(list(pair.complex.sentences), [list(p) for p in pair.complex.paragraphs], "en")
    beads = shipped.align(pair.complex, other)
    diagonal = {(b.complex, b.simple) for b in beads if b.complex == b.simple and len(b.complex) == 1}
    assert len(diagonal) >= 0.8 * len(pair.complex)


def test_paragraph_links_are_used(shipped, small_pairs):
    pair = small_pairs[2]
    para_c, para_s = pair.complex.paragraph_of(), pair.simple.paragraph_of()
    links = sorted({(para_c[c], para_s[s]) for c, s in pair.links})
    beads = shipped.align(pair.complex, pair.simple, [ParagraphLink((c,), (s,)) for c, s in links])
    check_beads(beads, pair)
    assert link_f1([pair], [beads]) >= 0.8
    last = len(pair.simple.paragraphs) - 1
    x = shipped.featurize(pair.complex, pair.simple, [ParagraphLink((0,), (last,))]).s2c
    rows, ks = np.nonzero(x.feats[..., FEATURE_NAMES.index("para_link")] > 0)
    assert len(rows)
    assert all(para_s[i] == last and para_c[int(x.cand[i, k])] == 0 for i, k in zip(rows.tolist(), ks.tolist()))


def test_empty_and_one_sentence_sides(shipped):
    one = Side.from_paragraphs([["Das ist ein Satz."]])
    assert shipped.align(Side([], []), one) == []
    assert shipped.align(one, Side([], [])) == []
    beads = shipped.align(one, Side.from_paragraphs([["Das ist ein Satz."]]))
    assert [(b.complex, b.simple) for b in beads] == [((0,), (0,))]


def test_bad_configuration_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="combination"):
        CRFAligner({"combination": "vote"})
    with pytest.raises(InputError, match="emission"):
        CRFAligner({"emission": "magic"})
    with pytest.raises(InputError, match="config.json"):
        CRFAligner.load(tmp_path)


def test_sides_without_paragraphs_are_one_paragraph(shipped, small_pairs):
    pair = small_pairs[0]
    flat_c = Side(list(pair.complex.sentences), [], "de")
    flat_s = Side(list(pair.simple.sentences), [], "de")
    beads = shipped.align(flat_c, flat_s)
    check_beads(beads, pair)
    assert link_f1([pair], [beads]) >= 0.8
