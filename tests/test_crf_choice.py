"""The shipped weights' two CRFs and the per-document choice (crf/choice.py): a document goes to the
wide CRF exactly when its mean entropy there is lower by the margin; the choice survives saving,
bytes and pipelines, and can be switched off."""

import json
import shutil

import pytest
import torch
from conftest import DEPLAIN_PAIRS, SMALL

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner, make_crf_aligner
from spacy_simalign.aligners.crf.choice import WIDE_FOLDER, WIDE_RECORD
from spacy_simalign.aligners.crf.train import TrainingSettings
from spacy_simalign.aligners.crf.unsure import document_score
from spacy_simalign.core.errors import InputError
from spacy_simalign.formats.pair_jsonl import read_pairs


def read_gold_pairs(path):
    """The training pairs (sides and gold) of a pair JSONL file."""
    return [record.training_pair(str(path)) for record in read_pairs(str(path), default_lang="de")]


@pytest.fixture(scope="module")
def inputs(shipped, shared_data):
    """Features of the SMALL DEplain pairs and of the first 6 sgc-dev documents (websites)."""
    deplain = read_gold_pairs(str(DEPLAIN_PAIRS))
    sgc = read_gold_pairs(str(shared_data("sgc-dev/pairs.jsonl")))
    pairs = [p for p in deplain if p.id in SMALL] + sgc[:6]
    return [shipped.featurize(p.complex, p.simple) for p in pairs]


def test_each_document_goes_to_the_crf_the_margin_picks(shipped, inputs):
    wide = shipped.wide
    assert wide is not None and shipped.config["wide_margin"] == 0.1
    routed = 0
    for x in inputs:
        own, theirs = (document_score(crf.decoded(x)[0][1]) for crf in (shipped, wide))
        picked = wide if theirs < own - 0.1 else shipped
        routed += picked is wide
        assert shipped.align_input(x) == picked.beads(x, picked.decode(x))
    assert 0 < routed < len(inputs)  # the choice is made both ways on these documents


def test_wide_false_and_a_large_margin_keep_the_deplain_crf(shipped, inputs):
    off = make_crf_aligner(similarity=shipped.encoder, wide=False)
    assert off.wide is None
    never = make_crf_aligner(similarity=shipped.encoder, wide_margin=5.0)
    for x in inputs:
        own = shipped.beads(x, shipped.decode(x))
        assert off.align_input(x) == own == never.align_input(x)


def test_the_choice_survives_save_bytes_and_a_pipeline(shipped, inputs, tmp_path):
    shipped.save(tmp_path / "crf")
    assert (tmp_path / "crf" / WIDE_FOLDER / "model.npz").read_bytes() == (
        DEFAULT_WEIGHTS / WIDE_FOLDER / "model.npz"
    ).read_bytes()
    loaded = CRFAligner.load(tmp_path / "crf", encoder=shipped.encoder)
    copied = CRFAligner(encoder=shipped.encoder).from_bytes(shipped.to_bytes())
    expected = [shipped.align_input(x) for x in inputs]
    assert [loaded.align_input(x) for x in inputs] == expected
    assert [copied.align_input(x) for x in inputs] == expected
    assert copied.wide is not None


def test_weights_without_a_wide_crf_are_one_crf_and_saving_one_over_a_pair_drops_the_wide(shipped, inputs, tmp_path):
    """A folder of one CRF (the shipped one without its wide/ and without the record of it, as
    saving one CRF writes it) aligns as the shipped CRF alone."""
    folder = tmp_path / "crf"
    shutil.copytree(DEFAULT_WEIGHTS, folder)
    shutil.rmtree(folder / WIDE_FOLDER)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    del config[WIDE_RECORD]
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    alone = CRFAligner.load(folder, encoder=shipped.encoder)
    assert alone.wide is None
    assert [alone.align_input(x) for x in inputs] == [shipped.beads(x, shipped.decode(x)) for x in inputs]
    pair = tmp_path / "pair"
    shutil.copytree(DEFAULT_WEIGHTS, pair)
    alone.save(pair)  # the folder now holds one CRF: its old wide CRF must not decode with it
    assert not (pair / WIDE_FOLDER).exists() and CRFAligner.load(pair).wide is None


def test_a_wide_crf_that_reads_other_features_is_refused(shipped, tmp_path):
    folder = tmp_path / "crf"
    shutil.copytree(DEFAULT_WEIGHTS, folder)
    cfg_path = folder / WIDE_FOLDER / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["top_k"] = cfg["top_k"] + 2
    cfg_path.write_text(json.dumps(cfg))
    with pytest.raises(InputError, match="top_k"):
        CRFAligner.load(folder, encoder=shipped.encoder).wide


# -- training a pair: the component's initialize with wide_data (spacy train --paths.wide) ----------


@pytest.fixture(scope="module")
def few(shared_data):
    """6 DEplain-web documents to train on and 2 sgc-dev documents as the other domain."""
    deplain = read_gold_pairs(str(DEPLAIN_PAIRS))
    sgc = read_gold_pairs(str(shared_data("sgc-dev/pairs.jsonl")))
    return deplain[:6], sgc[:2]


def test_wide_pairs_need_a_fresh_crf_with_wide_on(shipped, few):
    pairs, wide_pairs = few
    fresh_off = make_crf_aligner(similarity=shipped.encoder, weights=None, wide=False)
    loaded = make_crf_aligner(similarity=shipped.encoder)
    for aligner in (fresh_off, loaded):
        with pytest.raises(InputError, match="wide data needs weights = null and wide = true"):
            aligner.initialize(lambda: pairs, wide_pairs=wide_pairs)


def test_wide_false_keeps_a_saved_pair_to_one_crf(shipped, tmp_path):
    shipped.save(tmp_path / "crf")
    off = make_crf_aligner(similarity=shipped.encoder, weights=None, wide=False).from_disk(tmp_path / "crf")
    assert off.wide is None and make_crf_aligner(weights=None).from_disk(tmp_path / "crf").wide is not None
    copied = make_crf_aligner(similarity=shipped.encoder, weights=None, wide=False).from_bytes(shipped.to_bytes())
    assert copied.wide is None  # bytes too: wide = false is one CRF whatever was saved


def test_wide_pairs_train_the_wide_crf_and_leave_the_crf_as_without_them(shipped, few, tmp_path):
    """The wide CRF is trained on the CRF's documents and the wide ones, before the CRF's own steps,
    which are those it takes without them (the seed is set again); the pair saves and loads."""
    pairs, wide_pairs = few
    quick = TrainingSettings(epochs=2, combination_epochs=2)
    trained = []
    for extra in (None, wide_pairs):
        aligner = make_crf_aligner(similarity=shipped.encoder, weights=None, training=quick)
        aligner.initialize(lambda: pairs, wide_pairs=extra)
        aligner.fit(pairs)
        trained.append(aligner)
    alone, paired = trained
    assert alone.wide is None and paired.wide is not None
    own, theirs = alone.model.state_dict(), paired.model.state_dict()
    assert all(torch.equal(own[k], theirs[k]) for k in own)
    wide_state = paired.wide.model.state_dict()
    assert not all(torch.equal(own[k], wide_state[k]) for k in own)  # trained on 8 documents, not 6
    paired.save(tmp_path / "pair")
    loaded = CRFAligner.load(tmp_path / "pair", encoder=shipped.encoder)
    assert loaded.wide is not None
    x = shipped.featurize(pairs[0].complex, pairs[0].simple)
    assert loaded.align_input(x) == paired.align_input(x)
