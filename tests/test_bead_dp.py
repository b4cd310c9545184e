"""The monotone bead decoder (bead_dp.py) and the CRF aligner's routing of translations to it,
on the Text+Berg German/French dev article and DEplain pairs."""

import json

import numpy as np
import pytest
from conftest import HashedNgramSimilarity

from spacy_simalign.aligners.bead_dp import (
    SETTINGS,
    V1_SETTINGS,
    BeadDPAligner,
    align_monotone,
    bead_types,
    make_bead_dp,
    make_bead_dp_v3,
    runs,
)
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.core.structures import Side
from spacy_simalign.formats.pair_jsonl import parse_pair, read_pairs


@pytest.fixture(scope="module")
def textberg(shared_data):
    return next(read_pairs(str(shared_data("textberg-dev-de-fr/pairs.jsonl"))))


def score(record, beads):
    c, s = record.side("complex"), record.side("simple")
    scorer = AlignmentScorer()
    scorer.add(record.gold, beads, c.sentences, s.sentences)
    return scorer.scores()


def test_bead_types_and_runs():
    assert bead_types(3) == [(1, 0), (0, 1), (1, 1), (1, 2), (2, 1)]
    vectors = np.eye(3, dtype=np.float32)
    out, lengths = runs(vectors, np.array([1.0, 2.0, 4.0]), 2)
    np.testing.assert_allclose(out[1, 2], np.array([0, 1, 1]) / np.sqrt(2), atol=1e-6)  # sentences 1 and 2
    np.testing.assert_allclose(out[1, 0], [1, 0, 0], atol=1e-6)  # a run before the first sentence is shorter
    assert lengths[1].tolist() == [1.0, 3.0, 6.0]


def test_translation_article_beats_the_one_label_crf(textberg):
    """The dev article (468 German / 554 French sentences, a third of the beads not 1:1): the bead
    decoder on USE sums scores n:m beads as units (bertalign with the same encoder: link F1 0.925,
    strict 0.862, benchmarks/scripts/bench_peers.py)."""
    beads = make_bead_dp().align(textberg.side("complex"), textberg.side("simple"))
    scores = score(textberg, beads)
    assert scores["link"]["f"] > 0.925 and scores["bead_text"]["f"] > 0.862
    assert any(len(b.complex) > 1 for b in beads) and any(len(b.simple) > 1 for b in beads)


def test_beads_are_monotone_disjoint_and_in_range(deplain_pairs):
    aligner = make_bead_dp()
    for obj in deplain_pairs[:6]:
        record = parse_pair(obj)
        c, s = record.side("complex"), record.side("simple")
        beads = aligner.align(c, s)
        assert beads and all(0.0 <= b.score <= 1.0 for b in beads)
        for a, b in zip(beads, beads[1:]):
            assert max(a.complex) < min(b.complex) and max(a.simple) < min(b.simple)
        assert all(list(b.complex) == list(range(b.complex[0], b.complex[-1] + 1)) for b in beads)
        assert max(b.complex[-1] for b in beads) < len(c) and max(b.simple[-1] for b in beads) < len(s)
    empty = Side([], [], "de")
    assert aligner.align(empty, c) == [] and aligner.align(c, empty) == []


def test_sentences_that_disagree_are_left_out():
    """A bead scoring below the cost of leaving its sentences out (skip -0.1 a sentence, as in
    bertalign) is not taken: opposite sentences stay unaligned, equal ones align 1:1."""
    src = np.eye(4, dtype=np.float32)[:2]
    opposite = -np.tile(src.sum(axis=0) / np.sqrt(2), (2, 1))  # every pair's cosine is -0.71
    settings = dict(SETTINGS, margin=False)
    for name in ("concatenation", "candidate_gap", "candidate_penalty"):
        del settings[name]
    assert align_monotone(src, opposite, np.ones(2), np.ones(2), **settings) == []
    same = align_monotone(src, src.copy(), np.ones(2), np.ones(2), **settings)
    assert [(a, b, c, d) for a, b, c, d, _ in same] == [(0, 1, 0, 1), (1, 2, 1, 2)]


def test_the_crf_aligner_sends_translations_to_the_bead_decoder(textberg, deplain_pairs):
    from spacy_simalign.aligners.crf.aligner import make_crf_aligner

    aligner = make_crf_aligner()
    c, s = textberg.side("complex"), textberg.side("simple")
    assert aligner.is_translation(c, s)  # de-fr, 1.04 times the characters
    assert aligner.align(c, s) == aligner.bead_dp.align(c, s)
    record = parse_pair(json.loads(json.dumps(deplain_pairs[0])))
    assert not aligner.is_translation(record.side("complex"), record.side("simple"))  # one language
    shorter = Side(s.sentences[: len(s) // 2], [list(range(len(s) // 2))], "fr")
    assert aligner.is_translation(c, shorter)  # two languages: a translation, whatever the lengths
    from spacy_simalign.aligners.crf.translations import TranslationSettings

    length_rule = make_crf_aligner(translations=TranslationSettings())
    assert not length_rule.is_translation(c, shorter)  # the older rule: half the length is no translation
    crf_only = make_crf_aligner(translations="crf")
    assert not crf_only.is_translation(c, s)
    assert (
        score(textberg, aligner.align(c, s))["bead_text"]["f"] > score(textberg, crf_only.align(c, s))["bead_text"]["f"]
    )


def test_the_decoder_built_without_settings_takes_the_registered_defaults():
    """A decoder built as BeadDPAligner(encoder) takes the settings it is not given from
    make_bead_dp_v3's signature, the one place they are written; BeadDP.v1 counts no anchors."""
    import inspect

    signature = {k: p.default for k, p in inspect.signature(make_bead_dp_v3).parameters.items() if k != "similarity"}
    encoder = HashedNgramSimilarity()
    decoder = BeadDPAligner(encoder)
    assert {k: getattr(decoder, k) for k in signature} == signature == SETTINGS
    old = make_bead_dp(encoder)
    assert {k: getattr(old, k) for k in V1_SETTINGS} == V1_SETTINGS and old.anchor_weight == 0.0
    assert BeadDPAligner(encoder, window=9).window == 9
    with pytest.raises(TypeError, match="unknown BeadDP setting"):
        BeadDPAligner(encoder, windw=9)


def test_band_scores_are_the_scores_of_each_bead_wherever_the_decoder_asks():
    """The decoder's scores come from a few matrix products over the band (band_scores.py,
    bead_dp.band_dots): each equals the bead's own dot products, inside the band, in the cells the
    backward pass asks for, and outside both (scored directly)."""
    from spacy_simalign.aligners.band_scores import BandScores
    from spacy_simalign.aligners.bead_dp import band_around, band_dots, bead_scorer

    rng = np.random.default_rng(0)
    n, m, dim = 150, 170, 16
    src = rng.normal(size=(n, dim)).astype(np.float32)
    tgt = rng.normal(size=(m, dim)).astype(np.float32)
    rows = np.sort(rng.integers(0, n, 900))
    cols = np.minimum(rows + rng.integers(-3, 30, 900), m - 1).clip(0)  # a band, and a few far cells
    cols[::97] = rng.integers(0, m, len(cols[::97]))
    expected = np.einsum("kd,kd->k", src[rows].astype(np.float64), tgt[cols].astype(np.float64))
    np.testing.assert_allclose(band_dots(src, tgt, rows, cols), expected, rtol=1e-5, atol=1e-5)

    S, SL = runs(src / np.linalg.norm(src, axis=1, keepdims=True), rng.uniform(5, 90, n), 4)
    T, TL = runs(tgt / np.linalg.norm(tgt, axis=1, keepdims=True), rng.uniform(5, 90, m), 4)
    score = bead_scorer(S, T, SL, TL, 1.1, True, True)
    path = [(i, min(m, i + i // 8)) for i in range(1, n, 3)]
    lo, hi = band_around(path, n, m, 5)
    band = BandScores(score, lo, hi)

    def direct(a, b, i, js):  # the module docstring's score, one bead at a time
        out = []
        for j in js:
            v, u = S[a - 1, i - 1].astype(np.float64), T[b - 1, j - 1].astype(np.float64)
            # less the mean cosine with the sentences just outside each side, the two sides averaged
            target_side = [T[0, k] @ v for k in (j, j - b - 1) if 0 <= k < m]
            source_side = [S[0, k] @ u for k in (i, i - a - 1) if 0 <= k < n]
            near = (np.mean(target_side) if target_side else 0.0) + (np.mean(source_side) if source_side else 0.0)
            value = u @ v - near / 2
            a_len, b_len = SL[a - 1, i - 1], TL[b - 1, j - 1] * 1.1
            out.append(value * np.log2(1 + min(a_len, b_len) / max(a_len, b_len)))
        return np.array(out)

    for a, b in ((1, 1), (2, 1), (1, 3), (2, 2)):
        for i in (a, n // 2, n):
            inside = np.arange(max(lo[i], b), hi[i] + 1)
            backward = np.arange(max(lo[i - a] + b, b), min(hi[i - a] + b, m) + 1)[::-1]
            outside = np.array([b, m]) if lo[i] > b + 1 else np.array([m])
            for js in (inside, backward, outside, np.concatenate([inside, outside])):
                at = np.full(len(js), i)
                np.testing.assert_allclose(band(a, b, at, js), direct(a, b, i, js), rtol=1e-5, atol=1e-5)
        # the cells of several rows in one call, as the forward pass asks
        at = np.repeat([a, n // 2, n], 2)
        js = np.array([max(lo[a], b), hi[a], max(lo[n // 2], b), hi[n // 2], max(lo[n], b), m])
        expected = np.concatenate([direct(a, b, i, js[k : k + 2]) for k, i in zip((0, 2, 4), (a, n // 2, n))])
        np.testing.assert_allclose(band(a, b, at, js), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "max_align, window, masked, block_cells",
    [(2, 0, False, None), (5, 3, True, None), (8, 2, True, None), (5, 200, False, None), (5, 3, True, 200)],
)
def test_forward_is_the_recurrence_taken_one_bead_type_at_a_time(max_align, window, masked, block_cells, monkeypatch):
    """bead_dp.forward takes every bead type of a row in one step; the recurrence it computes is
    the plain one: each cell's best over the bead types in their order (the first of equals),
    then the simple sentences left out along the row. Same costs and bead types on random
    sides, narrow and wide bands, with and without a mask of allowed n:m beads, and with the
    rows scored a few at a time (a small block, as a long document's band gets)."""
    from spacy_simalign.aligners import bead_dp
    from spacy_simalign.aligners.band_scores import BandScores
    from spacy_simalign.aligners.bead_dp import anchor_path, band_around, bead_scorer, forward

    if block_cells is not None:
        monkeypatch.setattr(bead_dp, "BLOCK_CELLS", block_cells)

    rng = np.random.default_rng(max_align + window)
    n, m, dim, skip = 37, 41, 8, -0.1
    src = rng.normal(size=(n, dim)).astype(np.float32)
    tgt = rng.normal(size=(m, dim)).astype(np.float32)
    src /= np.linalg.norm(src, axis=1, keepdims=True)
    tgt /= np.linalg.norm(tgt, axis=1, keepdims=True)
    types = bead_types(max_align)
    S, SL = runs(src, rng.uniform(5, 90, n), max_align - 1)
    T, TL = runs(tgt, rng.uniform(5, 90, m), max_align - 1)
    lo, hi = band_around(anchor_path(lambda a, b: src[a:b] @ tgt.T, n, m, 3), n, m, window)
    score = BandScores(bead_scorer(S, T, SL, TL, 1.0, True, True), lo, hi)
    # a mask keeping about half of the n:m beads
    kept = rng.random((len(types), n + 1, m + 1)) < 0.5
    allowed = (lambda t, rows, cols: kept[t, rows, cols]) if masked else None

    cost = np.full((n + 1, m + 1), -np.inf)
    back = np.full((n + 1, m + 1), -1)
    cost[0, 0] = 0.0
    for i in range(n + 1):
        for j in range(lo[i], hi[i] + 1):
            for t, (a, b) in enumerate(types):
                if (a, b) == (0, 1) or a > i or b > j:
                    continue
                if masked and a and b and a + b > 2 and not kept[t, i, j]:
                    continue
                gain = skip if not a or not b else score(a, b, np.array([i]), np.array([j]))[0]
                if cost[i - a, j - b] + gain > cost[i, j]:
                    cost[i, j], back[i, j] = cost[i - a, j - b] + gain, t
        for j in range(lo[i] + 1, hi[i] + 1):  # 0:1, left to right along the row
            if cost[i, j - 1] + skip > cost[i, j] + 1e-12:
                cost[i, j], back[i, j] = cost[i, j - 1] + skip, types.index((0, 1))
    got_cost, got_back = forward(n, m, types, lo, hi, score, skip, allowed)
    np.testing.assert_allclose(got_cost, cost, rtol=1e-12, atol=1e-12)
    assert (got_back == back).all()
