"""The anchors the bead decoder counts (bead_anchors.py, BeadDP.v3): numbers and ? ! quote marks
a bead's two sides share, counted as a multiset, and the ends on a colon or semicolon that a bead's
sides do not share, on the Text+Berg and TransRead dev sets."""

from collections import Counter

import numpy as np
import pytest

from spacy_simalign.aligners import bead_dp
from spacy_simalign.aligners.bead_anchors import SharedAnchors, ends_open, sentence_anchors
from spacy_simalign.aligners.bead_dp import make_bead_dp, make_bead_dp_v3
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.formats.pair_jsonl import read_pairs


def test_a_sentence_anchors_are_its_numbers_and_marks():
    assert sentence_anchors("Am 3. August 1934 : « Wer ? »") == ["3", "1934", '"', "?", '"']
    assert sentence_anchors("Le 03 août , 8848,0 m !") == ["3", "8848", "0", "!"]
    assert sentence_anchors("“Quoi?” he said.") == ['"', "?", '"']
    assert sentence_anchors("Rien ici .") == []


def direct_count(complex_sentences, simple_sentences, a, b, i, j):
    """Anchors shared by the a:b bead ending at (i, j), counted one bead at a time."""
    left = Counter(x for s in complex_sentences[i - a : i] for x in sentence_anchors(s))
    right = Counter(x for s in simple_sentences[j - b : j] for x in sentence_anchors(s))
    return sum((left & right).values())


def test_shared_anchors_equal_a_direct_count():
    complex_sentences = ["Gipfel 8000 m am 3. Mai ?", "Zwei : 8000 und 12 !", "Nichts .", "« Ja » , 1956"]
    simple_sentences = ["Le 3 mai , 8000 m ?", "8000 et 7 !", "« Oui » .", "1956 , 1956"]
    anchors = SharedAnchors(complex_sentences, simple_sentences)
    for a in range(1, 4):
        for b in range(1, 4):
            rows = np.array([i for i in range(a, 5) for j in range(b, 5)])
            cols = np.array([j for i in range(a, 5) for j in range(b, 5)])
            expected = [direct_count(complex_sentences, simple_sentences, a, b, i, j) for i, j in zip(rows, cols)]
            assert anchors.shared(a, b, rows, cols).tolist() == expected
    # "12" and "7" are on one side only; 1956 twice on one side, once on the other: shared once
    assert anchors.shared(1, 1, np.array([2, 4]), np.array([2, 4])).tolist() == [2.0, 1.0]


def test_a_sentence_ends_open_on_a_colon_or_semicolon():
    assert ends_open("Die erfolgreichen Bergsteiger waren :")
    assert ends_open("a ) la réfraction des rayons lumineux ;  ")
    assert not ends_open("Literatur : siehe unten .")
    assert not ends_open("« Wer ? »")
    assert not ends_open("")


def test_evidence_is_the_shared_anchors_less_one_where_the_ends_differ():
    complex_sentences = ["Am 3. Mai waren es :", "Hartog und Brown .", "Eröffnung :", "1956 ;"]
    simple_sentences = ["Le 3 mai , Hartog et Brown .", "Ouverture :", "En 1956 .", "Fin ."]
    anchors = SharedAnchors(complex_sentences, simple_sentences)
    rows, cols = np.array([1, 2, 3, 4, 4]), np.array([1, 1, 2, 3, 4])
    # open : closed, closed : closed, open : open, open : closed, open : closed
    assert anchors.ends_differ(rows, cols).tolist() == [1.0, 0.0, 0.0, 1.0, 1.0]
    shared = anchors.shared(1, 1, rows, cols)
    assert shared.tolist() == [1.0, 0.0, 0.0, 1.0, 0.0]
    assert anchors.evidence(1, 1, rows, cols).tolist() == (shared - anchors.ends_differ(rows, cols)).tolist()
    # a 2:1 bead that takes the list's lead-in with its list ends closed on both sides, and keeps its "3"
    assert anchors.evidence(2, 1, np.array([2]), np.array([1])).tolist() == [1.0]


@pytest.fixture(scope="module")
def textberg(shared_data):
    return next(read_pairs(str(shared_data("textberg-dev-de-fr/pairs.jsonl"))))


def test_shared_anchors_on_a_yearbook_article_equal_a_direct_count(textberg):
    c, s = textberg.side("complex").sentences, textberg.side("simple").sentences
    anchors = SharedAnchors(c, s)
    rng = np.random.default_rng(0)
    for a, b in [(1, 1), (2, 1), (1, 3), (2, 2)]:
        rows = np.sort(rng.integers(a, len(c) + 1, 300))
        cols = np.clip(rows * len(s) // len(c) + rng.integers(-3, 4, 300), b, len(s))
        expected = [direct_count(c, s, a, b, i, j) for i, j in zip(rows, cols)]
        assert anchors.shared(a, b, rows, cols).tolist() == expected


def path_anchors(record, beads):
    c, s = record.side("complex").sentences, record.side("simple").sentences
    return sum(direct_count(c, s, len(b.complex), len(b.simple), b.complex[-1] + 1, b.simple[-1] + 1) for b in beads)


def test_the_anchored_decoder_keeps_more_numbers_with_their_translation(textberg):
    """On the yearbook article (altitudes, dates, page numbers), BeadDP.v3's beads share more
    anchors than those of BeadDP.v1 at the same candidate penalty: the anchors are the change."""
    c, s = textberg.side("complex"), textberg.side("simple")
    anchored = make_bead_dp_v3().align(c, s)
    plain = make_bead_dp(candidate_penalty=make_bead_dp_v3().candidate_penalty).align(c, s)
    assert anchored != plain
    assert path_anchors(textberg, anchored) > path_anchors(textberg, plain)


class NumbersAndMarksOnly(SharedAnchors):
    """SharedAnchors without the evidence of the ends: the decoder as if only shared anchors counted."""

    def ends_differ(self, rows, cols):
        return np.zeros(len(rows))


def test_the_anchored_decoder_cuts_fewer_beads_at_an_open_end(textberg, monkeypatch):
    """On the yearbook article (lists and references cut at colons and semicolons), BeadDP.v3's
    beads end open on one side only less often than the beads of the same decoder without that
    evidence, and more of them are gold beads."""
    c, s = textberg.side("complex"), textberg.side("simple")
    with_ends = make_bead_dp_v3().align(c, s)
    monkeypatch.setattr(bead_dp, "SharedAnchors", NumbersAndMarksOnly)
    without = make_bead_dp_v3().align(c, s)
    anchors = SharedAnchors(c.sentences, s.sentences)

    def differing(beads):
        ends = [(b.complex[-1] + 1, b.simple[-1] + 1) for b in beads]
        return anchors.ends_differ(np.array([i for i, _ in ends]), np.array([j for _, j in ends])).sum()

    def correct(beads):
        gold = {(tuple(b.complex), tuple(b.simple)) for b in textberg.gold}
        return sum((tuple(b.complex), tuple(b.simple)) in gold for b in beads)

    assert differing(with_ends) < differing(without)
    assert correct(with_ends) > correct(without)


def test_the_anchored_decoder_is_ahead_on_the_novels(shared_data):
    """The TransRead dev novels (en-fr, quoted dialogue): BeadDP.v3's defaults are ahead of
    BeadDP.v1's in strict bead F1 (both chosen with these novels among the sets: in-sample)."""
    records = list(read_pairs(str(shared_data("transread-dev-en-fr/pairs.jsonl"))))

    def strict(aligner):
        scorer = AlignmentScorer()
        for r in records:
            c, s = r.side("complex"), r.side("simple")
            scorer.add(r.gold, aligner.align(c, s), c.sentences, s.sentences)
        return scorer.scores()["bead_text"]["f"]

    assert strict(make_bead_dp_v3()) > strict(make_bead_dp()) + 0.005
