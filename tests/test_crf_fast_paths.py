"""The CRF's fast inference paths compute what the reference paths compute: numpy potentials
(inference.py, what aligning uses) against the torch networks that training updates, padded batch decoding against brute force, dense against sparse
lexical products, one candidate chunk against many, the NUL-joined tokenisation against
scikit-learn."""

import itertools

import numpy as np
import pytest
import torch

from spacy_simalign.aligners.crf import inference, tfidf
from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.crf.candidate_labels import _top, candidate_sets, matmul_t
from spacy_simalign.aligners.crf.inference import marginals_batch, pad_potentials, viterbi_batch
from spacy_simalign.aligners.crf.model import CRF, jump_features
from spacy_simalign.formats.pair_jsonl import parse_pair
from spacy_simalign.similarity.backends import TfidfSimilarity


@pytest.fixture(scope="module")
def pair_input(deplain_pairs, fake_encoder):
    """The shipped CRF on the fake encoder: the paths compared here must agree on any vectors."""
    aligner = CRFAligner.default(encoder=fake_encoder)
    gold = parse_pair(deplain_pairs[5]).training_pair()
    return aligner, gold, aligner.featurize(gold.complex, gold.simple)


def brute_force(emit, start, trans):
    """(best path, marginals) by enumerating every label sequence."""
    n, labels = emit.shape
    paths = list(itertools.product(range(labels), repeat=n))
    scores = np.array(
        [
            start[p[0]] + sum(emit[i, p[i]] for i in range(n)) + sum(trans[i - 1, p[i - 1], p[i]] for i in range(1, n))
            for p in paths
        ]
    )
    probs = np.exp(scores - scores.max())
    probs /= probs.sum()
    marg = np.zeros((n, labels))
    for p, pr in zip(paths, probs):
        marg[np.arange(n), list(p)] += pr
    return np.array(paths[int(scores.argmax())]), marg


def test_padded_batch_decoding_matches_brute_force_per_sequence():
    rng = np.random.default_rng(0)
    shapes = [(1, 3), (4, 2), (3, 4), (5, 3), (2, 1)]
    potentials = [
        (rng.normal(size=(n, k)) * 2, rng.normal(size=k), rng.normal(size=(n - 1, k, k)) * 2) for n, k in shapes
    ]
    emit, start, trans = pad_potentials(potentials)
    paths, margs = viterbi_batch(emit, start, trans), marginals_batch(emit, start, trans)
    for b, (n, k) in enumerate(shapes):
        best, marg = brute_force(*potentials[b])
        assert paths[b, :n].tolist() == best.tolist()
        assert np.allclose(margs[b, :n, :k], marg, atol=1e-9)
        assert np.allclose(margs[b, :n, k:], 0.0)


def test_numpy_potentials_equal_the_torch_networks(pair_input):
    aligner, _, pair = pair_input
    for model in (aligner.model, CRF(hidden=8)):
        for x in (pair.s2c, pair.c2s):
            with torch.no_grad():
                emit, start, trans = (t.double().numpy() for t in model.potentials(x))
            ours = model.weights().potentials(x)
            for a, b in zip(ours, (emit, start, trans)):
                assert a.shape == b.shape
                assert np.allclose(a, b, atol=1e-4)


def test_jump_scores_follow_the_weights():
    """The decoder reads the weights as they are now: after a training step, new jump scores."""
    model = CRF(hidden=8)
    before = model.weights().jump_scores(-3, 3).copy()
    with torch.no_grad():
        for p in model.transition.jump.parameters():
            p.add_(0.5)
    after = model.weights().jump_scores(-3, 3)
    assert not np.allclose(before, after)
    with torch.no_grad():
        expected = model.transition.jump(jump_features(torch.arange(-3, 4))).squeeze(-1).double().numpy()
    assert np.allclose(after, expected, atol=1e-5)


def test_jump_features_equal_torch_over_the_jumps_of_long_documents():
    """The same float32 features as the torch network's for every jump of fewer than 428 sentences
    (torch rounds some logarithms beyond that one unit apart; numpy rounds the float64 value)."""
    jumps = torch.arange(-427, 428)
    assert np.array_equal(inference.jump_features(jumps.numpy()), jump_features(jumps).numpy())
    far = torch.arange(-20000, 20000, 7)
    assert np.allclose(inference.jump_features(far.numpy()), jump_features(far).numpy(), rtol=1e-6, atol=0)


def test_dense_and_sparse_lexical_products_agree(pair_input, monkeypatch):
    _, gold, _ = pair_input
    texts = list(gold.complex.sentences) + list(gold.simple.sentences)
    nc = len(gold.complex)
    rows = np.repeat(np.arange(nc), len(gold.simple))
    cols = np.tile(np.arange(len(gold.simple)), nc)
    for analyzer in ("word", "char"):
        cells = tfidf._tfidf_cells(texts, analyzer)
        dense = tfidf.PairProducts(cells, nc, len(texts))
        monkeypatch.setattr(tfidf, "DENSE_CELLS", 0)
        sparse = tfidf.PairProducts(cells, nc, len(texts))
        monkeypatch.undo()
        assert dense.full is not None and sparse.full is None
        for src_is_complex, (r, c) in ((True, (rows, cols)), (False, (cols, rows))):
            assert np.allclose(dense.pairs(r, c, src_is_complex), sparse.pairs(r, c, src_is_complex), atol=1e-12)
            assert np.allclose(dense.matrix(1, 4, src_is_complex), sparse.matrix(1, 4, src_is_complex), atol=1e-12)


def test_candidates_are_the_same_in_one_chunk_or_many(pair_input):
    aligner, gold, _ = pair_input
    ec, es = aligner.featurizer.embed(gold.complex), aligner.featurizer.embed(gold.simple)
    whole = candidate_sets(es, ec, chunk=512)
    pieces = candidate_sets(es, ec, chunk=5)
    assert np.array_equal(whole.cand, pieces.cand)
    assert np.allclose(whole.cos, pieces.cos, atol=1e-6)
    assert np.allclose(whole.row_max, pieces.row_max, atol=1e-6) and np.allclose(
        whole.col_max, pieces.col_max, atol=1e-6
    )
    valid = whole.cand >= 0
    assert np.allclose(whole.cos[valid], (es[np.nonzero(valid)[0]] * ec[whole.cand[valid]]).sum(1), atol=1e-5)


def test_equal_cosines_go_to_the_earlier_sentence(pair_input):
    """A sentence and its exact repeat score the same bits, whatever BLAS kernel and threads
    compute the product (BLAS itself promises no equal bits for equal rows at different places):
    the candidates take the earlier one first."""
    aligner, gold, _ = pair_input
    ec, es = aligner.featurizer.embed(gold.complex), aligner.featurizer.embed(gold.simple)
    m = len(ec)
    assert len(np.unique(ec, axis=0)) == m  # no repeats of its own: the repeats below are the only ties
    sims = matmul_t(es, np.concatenate([ec, ec]))  # every complex sentence twice, the repeats after the first copies
    assert np.array_equal(sims[:, m:], sims[:, :m])
    top = _top(sims, 2)
    assert (top[:, 0] < m).all()  # the first copy of the best
    assert np.array_equal(top[:, 1], top[:, 0] + m)  # then its repeat, tied with it
    assert np.array_equal(candidate_sets(es, np.concatenate([ec, ec])).row_second, sims.max(axis=1))


@pytest.mark.parametrize("chunk", [1, 3, 7, 512])
def test_repeated_rows_tie_across_blocks_and_the_other_scores_are_blas(pair_input, chunk):
    """Repeats on both sides, in any row block, score their first copy's bits; every other score
    is the plain product's (the same shapes, in the same process)."""
    from spacy_simalign.aligners.crf.candidate_labels import first_copies, tied_blocks

    aligner, gold, _ = pair_input
    ec, es = aligner.featurizer.embed(gold.complex), aligner.featurizer.embed(gold.simple)
    a = np.concatenate([es, es[::-1], es[:2]]).astype(np.float32)  # repeats in later blocks, and a reversed run
    b = np.concatenate([ec, ec[:3]]).astype(np.float32)
    fa, fb = first_copies(a), first_copies(b)
    assert (fa[: len(es)] == np.arange(len(es))).all() and (fa[len(es) :] < len(es)).all()
    blocks = list(tied_blocks(a, b, chunk))
    assert [stop - start for start, stop, _ in blocks] == [min(chunk, len(a) - s) for s in range(0, len(a), chunk)]
    sims = np.concatenate([s for _, _, s in blocks])
    assert np.array_equal(sims, sims[fa][:, fb])  # each repeat is its first copy's row and column
    for start, stop, block in blocks:  # the first copies' scores are BLAS's own
        own = (fa[start:stop] == np.arange(start, stop))[:, None] & (fb == np.arange(len(b)))[None, :]
        assert np.array_equal(block[own], (a[start:stop] @ b.T)[own])
    labels = candidate_sets(a, b, chunk=chunk)  # its scores are these, read off once or recomputed
    assert np.array_equal(labels.row_max, sims.max(axis=1)) and np.array_equal(labels.col_max, sims.max(axis=0))
    held = labels.cand >= 0
    assert np.array_equal(labels.cos[held], sims[np.nonzero(held)[0], labels.cand[held]])


def test_joined_tokenisation_handles_nul_empty_and_final_sigma():
    """Texts are joined by NUL for speed: a NUL inside a text, empty texts and context-dependent
    lower-casing (Greek final sigma) still count exactly what TfidfVectorizer counts."""
    texts = ["Ein  Test\x00mit NUL", "", "ΟΔΟΣ Σ und ΣΑΣ", "ab", "Über \t alles!", "x", "ΟΔΟΣ"]
    clean = [t.replace("\x00", " ") for t in texts]
    for analyzer, ngram in (("word", 1), ("char", 3)):
        ours = tfidf._csr(tfidf._tfidf_cells(texts, analyzer), len(texts))
        ref = TfidfSimilarity(analyzer, ngram).vectorizer().fit_transform(clean)
        assert abs((ours @ ours.T).toarray() - (ref @ ref.T).toarray()).max() < 1e-9


def test_paragraph_embeddings_are_normalised_means_on_both_paths(pair_input):
    """Small sides use a membership product, large ones grouped sums; sentences may come in any order."""
    from spacy_simalign.aligners.crf.features import _paragraph_embeddings

    aligner, gold, _ = pair_input
    emb = aligner.featurizer.embed(gold.complex)
    for repeat, count_extra in ((1, 1), (40, 3)):  # 40 copies: past the membership product's size
        e = np.tile(emb, (repeat, 1))
        paragraph = np.sort(np.random.default_rng(repeat).integers(0, 9 * repeat, len(e)))
        count = int(paragraph.max()) + 1 + count_extra
        perm = np.random.default_rng(0).permutation(len(e))
        ours = _paragraph_embeddings(e[perm], paragraph[perm], count)
        means = np.zeros((count, e.shape[1]))
        for k in range(count):
            if (paragraph == k).any():
                means[k] = e[paragraph == k].mean(axis=0)
        means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)
        assert np.allclose(ours, means, atol=1e-5)
        assert not ours[-1].any()  # the paragraphs without sentences
