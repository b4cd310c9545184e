"""The word floor of summaries (crf/summaries.py, CRFAligner.v3): in a document whose complex side has
many times the simple side's sentences, links whose sentences share too few words are dropped; German
gold, simplified sentence by sentence, is never such a document, and v3 aligns it as v2 does."""

import pytest
from conftest import DEPLAIN_PAIRS

from spacy_simalign.aligners.crf.aligner import make_crf_aligner, make_crf_aligner_v3
from spacy_simalign.aligners.crf.features import FEATURE_NAMES
from spacy_simalign.aligners.crf.summaries import (
    SUMMARY_RATIO,
    SUMMARY_WORD_FLOOR,
    is_summary,
    sharing_words,
    word_cosines,
)
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.core.errors import InputError
from spacy_simalign.core.structures import Bead, Side, TrainingPair
from spacy_simalign.formats.pair_jsonl import read_pairs


def gold_pairs(path, lang="de"):
    return [record.training_pair(str(path)) for record in read_pairs(str(path), default_lang=lang)]


@pytest.fixture(scope="module")
def deplain():
    return gold_pairs(DEPLAIN_PAIRS)


@pytest.fixture(scope="module")
def aligners(encoder):
    """(v2, v3) on the shipped weights."""
    return make_crf_aligner(similarity=encoder), make_crf_aligner_v3(similarity=encoder)


def summarised(pair: TrainingPair, ratio: float = SUMMARY_RATIO) -> TrainingPair:
    """The pair with its simple side cut to its first sentences, so that the complex side has `ratio`
    times as many: the shape of a summary, with real German sentences."""
    keep = max(1, int(len(pair.complex) / ratio))
    side = Side.from_paragraphs([[s] for s in pair.simple.sentences[:keep]], pair.simple.lang)
    return TrainingPair(pair.complex, side, [b for b in pair.gold if max(b.simple) < keep], None, pair.id)


def test_a_summary_has_the_ratio_of_sentences():
    assert is_summary(25, 10, 2.5) and not is_summary(24, 10, 2.5)
    assert not is_summary(5, 0, 2.5)  # an empty simple side is not aligned at all


def test_the_cosine_is_the_crf_word_feature(aligners, deplain):
    """word_cosines gives each link the value the CRF's word feature has for that candidate."""
    v2, _ = aligners
    pair = deplain[3]
    x = v2.featurize(pair.complex, pair.simple)
    column = FEATURE_NAMES.index("word")
    links, features = [], []
    for s, row in enumerate(x.s2c.cand):
        for k, c in enumerate(row):
            if c >= 0:
                links.append((int(c), s))
                features.append(float(x.s2c.feats[s, k, column]))
    assert len(links) > 50
    assert word_cosines(pair.complex.sentences, pair.simple.sentences, links) == pytest.approx(features, abs=1e-6)


def test_a_link_without_shared_words_leaves_its_bead_and_the_rest_keeps_its_score():
    complex_texts = ["Der Hund bellt laut im Garten.", "Die Katze schläft.", "Es regnet heute stark."]
    simple_texts = ["Der Hund bellt im Garten.", "Heute ist schönes Wetter."]
    beads = [Bead((0, 1), (0,), 0.9), Bead((2,), (1,), 0.7)]
    assert sharing_words(beads, complex_texts, simple_texts, 0.0) == beads
    kept = sharing_words(beads, complex_texts, simple_texts, 0.3)
    assert kept == [Bead((0,), (0,), 0.9)]  # "Die Katze schläft." and the weather share no word with theirs


def test_german_gold_is_no_summary_and_v3_aligns_it_as_v2(aligners, deplain):
    """Every DEplain-web dev document (bundled) is aligned by v3 exactly as by v2: none is a summary."""
    v2, v3 = aligners
    assert not any(is_summary(len(p.complex), len(p.simple), SUMMARY_RATIO) for p in deplain)
    for pair in deplain[::8]:
        x = v2.featurize(pair.complex, pair.simple)
        assert v3.align_input(x) == v2.align_input(x)


def test_in_a_summary_v3_keeps_the_links_that_share_words(aligners, deplain):
    v2, v3 = aligners
    changed = 0
    for pair in [p for p in deplain if len(p.complex) >= 30][:6]:
        short = summarised(pair)
        x = v2.featurize(short.complex, short.simple)
        before = v2.align_input(x)
        after = v3.align_input(x)
        assert after == sharing_words(before, short.complex.sentences, short.simple.sentences, SUMMARY_WORD_FLOOR)
        changed += after != before
        translated = v2.featurize(short.complex, Side(short.simple.sentences, short.simple.paragraphs, "en"))
        assert translated.cross_lingual and v3.align_input(translated) == v2.align_input(translated)
    assert changed >= 1


def test_on_wikipedia_v3_links_fewer_simple_sentences_that_have_no_counterpart(aligners, shared_data):
    """English Wikipedia and Simple English Wikipedia (Wiki-Manual dev, the first 12 articles, Task 1
    link figures): v3 links fewer simple sentences that gold leaves without a counterpart, and its
    precision and F1 are higher than v2's."""
    pairs = gold_pairs(shared_data("wikimanual-dev/pairs.jsonl"), "en")[:12]
    figures, linked_without = {}, {}
    for name, aligner in zip(("v2", "v3"), aligners):
        scorer, count = AlignmentScorer(exclude_identical=True), 0
        for pair in pairs:
            beads = aligner.align(pair.complex, pair.simple)
            scorer.add(pair.gold, beads, pair.complex.sentences, pair.simple.sentences)
            gold_simple = {s for b in pair.gold for s in b.simple}
            count += len({s for b in beads for s in b.simple} - gold_simple)
        figures[name], linked_without[name] = scorer.scores()["link"], count
    assert linked_without["v3"] < linked_without["v2"]
    assert figures["v3"]["p"] > figures["v2"]["p"] and figures["v3"]["f"] > figures["v2"]["f"]


def test_a_floor_of_zero_is_v2_and_a_floor_outside_zero_to_one_is_refused(aligners, deplain, encoder):
    v2, _ = aligners
    off = make_crf_aligner_v3(similarity=encoder, summary_word_floor=0.0)
    short = summarised([p for p in deplain if len(p.complex) >= 30][0])
    x = v2.featurize(short.complex, short.simple)
    assert off.align_input(x) == v2.align_input(x)
    with pytest.raises(
        InputError, match="spacy-simalign.CRFAligner.v3: summary_word_floor = 1.5: must be between 0 and 1"
    ):
        make_crf_aligner_v3(summary_word_floor=1.5)


def test_adapt_check_scores_the_base_as_a_v3_pipeline_decodes(aligners, deplain):
    """`adapt --check` measures what a pipeline with the adapted weights does: the base's held-out
    figure on summaries is v3's, not the CRF's alone."""
    from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS
    from spacy_simalign.aligners.crf.fine_tuning import AdaptSettings, held_out_check
    from spacy_simalign.aligners.crf.train import featurize_all

    v2, v3 = aligners
    pairs = [summarised(p) for p in deplain if len(p.complex) >= 30][:3]
    plain = featurize_all(v2, pairs, with_gold=False)
    check = held_out_check(DEFAULT_WEIGHTS, pairs, [], plain, [], AdaptSettings(epochs=0), v2.encoder)
    figures = {}
    for name, aligner in (("v2", v2), ("v3", v3)):
        scorer = AlignmentScorer()
        for pair, x in zip(pairs, plain):
            scorer.add(pair.gold, aligner.align_input(x), pair.complex.sentences, pair.simple.sentences)
        figures[name] = scorer.scores()["link"]
    assert check.base["link"] == figures["v3"] != figures["v2"]


def test_the_shipped_aligner_decodes_as_the_default_pipeline(aligners, deplain, encoder):
    """CRFAligner.default() (the shipped weights) keeps the word floor of summaries, as the default
    pipeline's aligner does, not the CRF's links alone (v2)."""
    import spacy

    from spacy_simalign.aligners.crf.aligner import CRFAligner

    v2, _ = aligners
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_sentence_aligner")
    pipeline = nlp.get_pipe("simalign_sentence_aligner").aligner
    shipped = CRFAligner.default(encoder=encoder)
    changed = 0
    for pair in [p for p in deplain if len(p.complex) >= 30][:4]:
        short = summarised(pair)
        beads = shipped.align(short.complex, short.simple)
        assert beads == pipeline.align(short.complex, short.simple)
        changed += beads != v2.align(short.complex, short.simple)
    assert changed >= 1
