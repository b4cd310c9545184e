"""The bead decoder's second stage over the joined text of candidate runs (crf/joined.py, runs.py;
issue 23): what it embeds, that it stays off in the shipped weights, and that training fits it
without touching the CRF."""

import json

import numpy as np

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner, train_aligner
from spacy_simalign.aligners.crf.joined import N_JOINED_FEATURES, gated, rescored
from spacy_simalign.aligners.crf.train import TrainingSettings
from spacy_simalign.aligners.runs import embed_runs, run_text
from spacy_simalign.formats.pairs import parse_pair


class CountingEncoder:
    """The real encoder, recording every text it is asked for."""

    def __init__(self, encoder):
        self.encoder, self.texts = encoder, []

    def encode(self, texts, lang="de"):
        self.texts += list(texts)
        return self.encoder.encode(texts, lang)


def test_a_run_is_embedded_as_its_joined_text(encoder):
    sents = ["Der Hund bellt laut.", "Er hat Hunger.", "Die Katze schläft."]
    vecs = embed_runs(encoder, sents, [0, 1, 0], [1, 1, 2], "de")
    assert run_text(sents, 0, 1) == "Der Hund bellt laut. Er hat Hunger."
    assert np.allclose(vecs[0], encoder.encode(["Der Hund bellt laut. Er hat Hunger."], "de")[0])
    assert np.allclose(vecs[1], encoder.encode(["Er hat Hunger."], "de")[0])  # one sentence: itself
    summed = encoder.encode(sents[:2], "de").sum(axis=0)
    assert not np.allclose(vecs[0], summed / np.linalg.norm(summed), atol=1e-3)  # not the sum of the vectors


def test_the_shipped_weights_have_no_joined_stage():
    saved = json.loads((DEFAULT_WEIGHTS / "config.json").read_text())
    assert "bead_text_weights" not in saved and "bead_text_floor" not in saved
    assert CRFAligner.default().config["bead_text_weights"] is None


def test_the_second_stage_embeds_only_the_gated_blocks(shipped, deplain_pairs):
    """Every 1:1 candidate and the larger ones above the floor are rescored; the encoder gets
    one joined text per side of a larger block, and a higher floor gates fewer."""
    pair = parse_pair(deplain_pairs[0]).training_pair()
    x = shipped.featurize(pair.complex, pair.simple, pair.paragraph_links)
    ctx, base = shipped.bead_context(x, *shipped.decode(x))
    weights = shipped.config["bead_weights"]
    low, _ = gated(ctx, base, weights, 0.01)
    high, _ = gated(ctx, base, weights, 0.5)
    multi = lambda c: int(((c[:, 1] > c[:, 0]) | (c[:, 3] > c[:, 2])).sum())  # noqa: E731
    assert 0 < multi(high) < multi(low)
    assert multi(low) < len(low)  # the 1:1 candidates stay
    counting = CountingEncoder(shipped.encoder)
    text = CRFAligner(shipped.config, model=shipped.model, encoder=counting).joined_text(x)
    cands, prob = rescored(ctx, base, text, weights, np.zeros(N_JOINED_FEATURES), 0.5)
    assert np.array_equal(cands, high) and np.allclose(prob, 0.5)
    sentences = set(pair.complex.sentences) | set(pair.simple.sentences)
    joined = set(counting.texts) - sentences
    assert 0 < len(joined) <= 2 * multi(high)


def test_training_fits_the_joined_stage_and_leaves_the_crf_as_it_was(deplain_pairs, encoder, tmp_path):
    pairs = [parse_pair(r).training_pair() for r in deplain_pairs[:10]]
    plain = train_aligner(pairs, epochs=2, settings=TrainingSettings(combination_epochs=2), encoder=encoder)
    settings = TrainingSettings(combination_epochs=2, bead_text_floor=0.05)
    joined = train_aligner(pairs, epochs=2, settings=settings, encoder=encoder)
    assert plain.config["bead_text_weights"] is None
    assert len(joined.config["bead_text_weights"]) == N_JOINED_FEATURES
    assert joined.config["bead_weights"] == plain.config["bead_weights"]
    for a, b in zip(plain.model.state_dict().values(), joined.model.state_dict().values()):
        assert a.equal(b)
    joined.save(tmp_path / "crf")
    again = CRFAligner.load(tmp_path / "crf", encoder=encoder)
    assert again.config["bead_text_floor"] == 0.05
    for pair in pairs[:3]:
        assert joined.align(pair.complex, pair.simple) == again.align(pair.complex, pair.simple)
