"""Linked-only training pairs (TrainingPair.linked_only, issue 24): the Simple German Corpus dev
documents hold only the sentences of gold beads, so the CRF learns links from them, not nulls, and
they calibrate neither the combination nor the bead decoder."""

import dataclasses

import pytest

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
        assert not f.gold[:, 0].any()  # as ordinary gold: no sentence may stay unaligned
        assert x.gold[:, 0].all()  # linked-only: unaligned is never wrong
        assert (x.gold[:, 1:] == f.gold[:, 1:]).all() and f.gold[:, 1:].any(dim=1).all()


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
