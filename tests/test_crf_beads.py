"""The bead decoder (crf/bead_decoder.py) and the split fill (crf/combine.py): splits and merges chosen
as units over the CRF's link-level beads, on real DEplain-web documents."""

import json
import shutil

import numpy as np
import pytest
import srsly

from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner, train_aligner
from spacy_simalign.aligners.crf.bead_decoder import N_BEAD_FEATURES, candidate_beads, monotone_chain
from spacy_simalign.aligners.crf.combine import DirectionOutput, combine, fill_splits
from spacy_simalign.aligners.crf.train import TrainingSettings, heldout_folds
from spacy_simalign.formats.pair_jsonl import parse_pair

BIBLE = "bible_verified"


@pytest.fixture(scope="module")
def bible_pairs(deplain_pairs):
    return [parse_pair(r).training_pair() for r in deplain_pairs if r.get("corpus") == BIBLE]


def test_monotone_chain_takes_the_best_set_of_non_crossing_beads():
    cands = np.array([[0, 0, 0, 0], [0, 0, 0, 1], [1, 1, 2, 2], [1, 1, 1, 1], [2, 2, 0, 0]])
    gain = np.array([0.5, 0.8, 0.3, 0.4, 5.0])
    # (2, 2, 0, 0) alone beats every chain that it crosses
    assert monotone_chain(cands, gain) == [4]
    gain[4] = 0.2
    # 0.8 + 0.3 beats 0.5 + 0.4; (2, 2, 0, 0) crosses both
    assert monotone_chain(cands, gain) == [1, 2]
    assert monotone_chain(cands, np.full(5, -0.1)) == []


def test_split_fill_adds_only_unlinked_simple_sentences_above_the_floor():
    s2c = DirectionOutput(
        links=[(0, 0), (0, 1), (1, 2), (2, 3)], probs={(0, 0): 0.9, (0, 1): 0.45, (1, 2): 0.3, (2, 3): 0.6, (3, 0): 0.2}
    )
    kept = {(0, 0): 0.8, (2, 3): 0.7, (3, 3): 0.6}
    assert fill_splits(kept, s2c, 0.4) == {(0, 0): 0.8, (2, 3): 0.7, (3, 3): 0.6, (0, 1): 0.45}
    assert fill_splits(kept, s2c, None) == kept
    c2s = DirectionOutput(links=[(0, 0)], probs={(0, 0): 0.9})
    weights = np.array([0, 0, 0, 2.0, 2.0, 0, -3.0])  # both Viterbi paths needed for a kept link
    beads = combine(s2c, c2s, "learned", weights, 0.5, split_fill=0.4)
    assert [(b.complex, b.simple) for b in beads] == [((0,), (0, 1)), ((2,), (3,))]


def test_candidates_hold_most_gold_beads_of_the_bible_documents(shipped, bible_pairs):
    """The candidates are built around the links the CRF finds likely: the long splits of the
    bible documents are among them (the decoder can only choose what is there)."""
    found = total = 0
    for pair in bible_pairs:
        x = shipped.featurize(pair.complex, pair.simple, pair.paragraph_links)
        ctx, base = shipped.bead_context(x, *shipped.decode(x))
        cands = candidate_beads(ctx, base)
        assert (cands[:, 0] <= cands[:, 1]).all() and (cands[:, 2] <= cands[:, 3]).all()
        assert cands[:, 1].max() < len(pair.complex) and cands[:, 3].max() < len(pair.simple)
        keys = {tuple(r) for r in cands.tolist()}
        gold = [(b.complex[0], b.complex[-1], b.simple[0], b.simple[-1]) for b in pair.gold]
        found += sum(g in keys for g in gold)
        total += len(gold)
    assert total > 150 and found / total >= 0.85


def test_decoded_beads_partition_the_aligned_sentences(shipped, deplain_pairs):
    for record in deplain_pairs[:12]:
        pair = parse_pair(record).training_pair()
        beads = shipped.align(pair.complex, pair.simple)
        complex_seen = [c for b in beads for c in b.complex]
        simple_seen = [s for b in beads for s in b.simple]
        assert len(complex_seen) == len(set(complex_seen)) and len(simple_seen) == len(set(simple_seen))
        assert all(0 <= b.score <= 1 for b in beads)
        assert max(complex_seen) < len(pair.complex) and max(simple_seen) < len(pair.simple)


def test_shipped_weights_carry_a_bead_decoder(shipped):
    assert len(shipped.config["bead_weights"]) == N_BEAD_FEATURES
    assert shipped.config["split_fill"] == 0.4


def test_weights_saved_before_the_split_fill_load_without_it(shipped, tmp_path):
    """A weights folder (or spaCy bytes) saved before `split_fill` existed has no such key: it
    loads with the fill off, as it decoded then, not with the new default (the fill's effect:
    test_split_fill_adds_only_unlinked_simple_sentences_above_the_floor)."""
    old = tmp_path / "old"
    shutil.copytree(DEFAULT_WEIGHTS, old)
    cfg = json.loads((old / "config.json").read_text(encoding="utf-8"))
    for key in ("split_fill", "bead_weights", "bead_threshold"):
        del cfg[key]
    (old / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    loaded = CRFAligner.load(old, encoder=shipped.encoder)
    assert loaded.config["split_fill"] is None and loaded.config["bead_weights"] is None
    msg = srsly.msgpack_loads(shipped.to_bytes())
    del msg["config"]["split_fill"]
    assert CRFAligner(encoder=shipped.encoder).from_bytes(srsly.msgpack_dumps(msg)).config["split_fill"] is None
    fresh = CRFAligner(dict(shipped.config, bead_weights=None), model=shipped.model, encoder=shipped.encoder)
    assert fresh.config["split_fill"] == 0.4  # a new config still gets the default


def test_heldout_folds_start_with_the_combination_hold_out_and_cover_every_document():
    order, folds = heldout_folds(23, TrainingSettings(bead_folds=5))
    assert sorted(order) == list(range(23)) and sorted(i for f in folds for i in f) == list(range(23))
    assert len(folds) == 5 and folds[0] == order[:5]
    order, folds = heldout_folds(23, TrainingSettings(bead_folds=0))
    assert folds == [order[:5]]


def test_training_fits_the_bead_decoder_and_a_reload_decodes_the_same(deplain_pairs, encoder, tmp_path):
    pairs = [parse_pair(r).training_pair() for r in deplain_pairs[:10]]
    aligner = train_aligner(pairs, epochs=2, settings=TrainingSettings(combination_epochs=2), encoder=encoder)
    assert len(aligner.config["bead_weights"]) == N_BEAD_FEATURES
    aligner.save(tmp_path / "crf")
    again = CRFAligner.load(tmp_path / "crf", encoder=encoder)
    for pair in pairs[:3]:
        assert aligner.align(pair.complex, pair.simple) == again.align(pair.complex, pair.simple)
    plain = train_aligner(
        pairs, epochs=2, settings=TrainingSettings(combination_epochs=2, bead_folds=0), encoder=encoder
    )
    assert plain.config["bead_weights"] is None
    assert plain.config["combination_weights"] == aligner.config["combination_weights"]


def test_the_bead_decoder_changes_the_beads_only_through_its_units(shipped, bible_pairs):
    """Without its bead weights the same model gives the link-level beads; the bead decoder's
    output differs on the bible documents (long splits), and every bead it adds is contiguous.
    Both are the DEplain-web CRF alone (an aligner made from a config has no wide CRF, crf/choice.py)."""
    deplain_crf = CRFAligner(dict(shipped.config), model=shipped.model, encoder=shipped.encoder)
    links_only = CRFAligner(dict(shipped.config, bead_weights=None), model=shipped.model, encoder=shipped.encoder)
    differ = 0
    for pair in bible_pairs:
        with_beads = deplain_crf.align(pair.complex, pair.simple)
        plain = links_only.align(pair.complex, pair.simple)
        new = set((b.complex, b.simple) for b in with_beads) - set((b.complex, b.simple) for b in plain)
        differ += bool(new)
        for c, s in new:  # a chosen unit is a block: consecutive sentences on both sides
            assert list(c) == list(range(c[0], c[-1] + 1)) and list(s) == list(range(s[0], s[-1] + 1))
    assert differ >= 2  # in-sample (the shipped model trained on them): most bible beads need no unit


def test_a_gold_bead_with_a_gap_labels_no_candidate_block():
    """A gold bead whose simple sentences skip one (0 -> 0, 2) is no block: the candidate block
    (0, 0, 0, 2), which takes sentence 1 too, must not be learned as that gold bead."""
    from spacy_simalign.aligners.crf.bead_decoder import BeadContext, bead_examples, block_of
    from spacy_simalign.core.structures import Bead

    s2c = DirectionOutput([(0, 0), (0, 1), (0, 2)], {(0, 0): 0.9, (0, 1): 0.8, (0, 2): 0.9})
    c2s = DirectionOutput([(0, 0)], {(0, 0): 0.9})
    ctx = BeadContext(
        s2c, c2s, {(0, 0): 0.9, (0, 1): 0.8, (0, 2): 0.9}, np.array([40.0]), np.array([10.0, 10.0, 10.0]), False
    )
    base = [Bead((0,), (0, 1, 2))]
    _, labels = bead_examples(ctx, [Bead((0,), (0, 2))], base)
    assert len(labels) and not labels.any()
    _, labels = bead_examples(ctx, [Bead((0,), (0, 1, 2))], base)
    assert labels.sum() == 1
    assert block_of(Bead((0,), (0, 2))) is None and block_of(Bead((1, 2), (3,))) == (1, 2, 3, 3)
