"""Linked-only training pairs (TrainingPair.linked_only, issue 24): the Simple German Corpus dev
documents hold only the sentences of gold beads, so the CRF learns links from them, not nulls, and
they calibrate neither the combination nor the bead decoder."""

import dataclasses

import pytest
import torch

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.train import TrainingSettings, heldout_folds, training_input
from spacy_simalign.evaluation.crossval import read_gold_pairs


@pytest.fixture(scope="module")
def sgc(shared_data):
    path = shared_data / "sgc-dev" / "pairs.jsonl"
    if not path.exists():
        pytest.fail(f"the sgc-dev pairs are missing at {path}")
    return read_gold_pairs(path, linked_only=True)


def test_sgc_dev_is_read_by_website_as_linked_only_pairs(sgc):
    domains, pairs = sgc
    assert len(pairs) == 30 and len(set(domains)) == 6 and "mdr.de" in domains
    assert all(p.linked_only for p in pairs)
    # why: every sentence of both sides is in a gold bead, in every document
    for p in pairs:
        assert {c for c, _ in p.links} == set(range(len(p.complex)))
        assert {s for _, s in p.links} == set(range(len(p.simple)))


def test_a_linked_only_pair_supervises_its_links_and_not_the_null_label(sgc, fake_encoder):
    aligner = CRFAligner.default(encoder=fake_encoder)
    pair = sgc[1][0]
    full = training_input(aligner, dataclasses.replace(pair, linked_only=False))
    linked = training_input(aligner, pair)
    for f, x in ((full.s2c, linked.s2c), (full.c2s, linked.c2s)):
        assert f.labels is None and (x.gold == f.gold).all() and not f.gold[:, 0].any()
        assert not x.labels[:, 0].any() and (x.labels[:, 1:] == x.mask[:, 1:]).all()
    model = aligner.model
    model.zero_grad()
    loss = model.nll(linked.s2c) + model.nll(linked.c2s)
    loss.backward()
    # conditioned on being aligned: the null score and the null transitions get no gradient ...
    assert all(float(p.grad.abs().sum()) == 0.0 for p in model.emission.null.parameters())
    assert float(model.transition.g.grad.abs().sum()) == 0.0
    with torch.no_grad():
        model.emission.null[-1].bias += 3.0
        again = model.nll(linked.s2c) + model.nll(linked.c2s)
        moved = model.nll(full.s2c) + model.nll(full.c2s)
        model.emission.null[-1].bias -= 3.0
    # ... and its loss does not move with the null score, which the ordinary gold's does
    assert float(again) == pytest.approx(float(loss), abs=1e-5)
    assert float(moved) > float(model.nll(full.s2c) + model.nll(full.c2s)) + 1.0


def test_linked_only_documents_are_in_no_held_out_fold_but_train_the_first_crfs():
    settings = TrainingSettings(bead_folds=5)
    order, folds = heldout_folds(25, settings, linked_only=[3, 24])
    held = sorted(i for f in folds for i in f)
    assert held == [i for i in range(25) if i not in (3, 24)]
    assert sorted(order) == list(range(25)) and order[-2:] == [3, 24]
    # the folds over the other documents are those of a set without them (same shuffle)
    plain_order, plain_folds = heldout_folds(23, settings)
    others = [i for i in range(25) if i not in (3, 24)]
    assert folds == [[others[i] for i in f] for f in plain_folds]
    assert order[:-2] == [others[i] for i in plain_order]
