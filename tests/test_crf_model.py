"""The CRF's exact inference against brute-force enumeration of all label sequences."""

import itertools

import numpy as np
import pytest
import torch

from spacy_simalign.aligners.crf.features import N_FEATURES, N_NULL_FEATURES, DirectionInput
from spacy_simalign.aligners.crf.inference import marginals_batch, viterbi_batch
from spacy_simalign.aligners.crf.model import CRF, forward_logz, marginals, viterbi


def random_potentials(n, labels, seed):
    g = torch.Generator().manual_seed(seed)
    emit = torch.randn(n, labels, generator=g)
    start = torch.randn(labels, generator=g)
    trans = torch.randn(max(n - 1, 0), labels, labels, generator=g)
    return emit, start, trans


def path_score(path, emit, start, trans):
    s = start[path[0]] + emit[0, path[0]]
    for i in range(1, len(path)):
        s = s + trans[i - 1, path[i - 1], path[i]] + emit[i, path[i]]
    return s


@pytest.mark.parametrize("n,labels,seed", [(1, 3, 0), (2, 2, 1), (3, 3, 2), (4, 3, 3), (5, 2, 4), (4, 4, 5)])
def test_forward_viterbi_marginals_match_brute_force(n, labels, seed):
    emit, start, trans = random_potentials(n, labels, seed)
    paths = list(itertools.product(range(labels), repeat=n))
    scores = torch.stack([path_score(p, emit, start, trans) for p in paths])
    assert torch.allclose(forward_logz(emit, start, trans), torch.logsumexp(scores, 0), atol=1e-5)
    path, best = viterbi(emit, start, trans)
    assert tuple(path.tolist()) == paths[int(scores.argmax())]
    assert torch.allclose(best, scores.max(), atol=1e-5)
    probs = torch.softmax(scores, 0)
    expected = torch.zeros(n, labels)
    for p, pr in zip(paths, probs):
        for i, lab in enumerate(p):
            expected[i, lab] += pr
    assert torch.allclose(marginals(emit, start, trans), expected, atol=1e-5)
    e, s, t = emit.double().numpy(), start.double().numpy(), trans.double().numpy()
    assert tuple(viterbi_batch(e[None], s[None], t[None])[0].tolist()) == paths[int(scores.argmax())]
    assert torch.allclose(torch.from_numpy(marginals_batch(e[None], s[None], t[None])[0]).float(), expected, atol=1e-5)


def test_restricted_forward_sums_only_allowed_paths():
    emit, start, trans = random_potentials(4, 3, 7)
    allowed = torch.tensor([[1, 0, 0], [0, 1, 1], [1, 1, 1], [0, 0, 1]], dtype=torch.bool)
    paths = [p for p in itertools.product(range(3), repeat=4) if all(allowed[i, lab] for i, lab in enumerate(p))]
    scores = torch.stack([path_score(p, emit, start, trans) for p in paths])
    assert torch.allclose(forward_logz(emit, start, trans, allowed), torch.logsumexp(scores, 0), atol=1e-5)


def test_crf_nll_on_candidate_lattice_matches_enumeration():
    """The CRF's own potentials on a padded candidate lattice: NLL = -log p(gold) by enumeration."""
    torch.manual_seed(0)
    cand = torch.tensor([[0, 1, -1], [1, 2, 3], [2, -1, -1]])
    feats, null = torch.randn(3, 3, N_FEATURES).numpy(), torch.randn(3, N_NULL_FEATURES).numpy()
    x = DirectionInput(cand.numpy(), feats, null, n_target=4)
    x.gold = np.array([[0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]], dtype=bool)
    crf = CRF(hidden=8)
    emit, start, trans = crf.potentials(x)
    valid = [[0] + [k + 1 for k in range(3) if cand[i, k] >= 0] for i in range(3)]
    paths = list(itertools.product(*valid))
    scores = torch.stack([path_score(p, emit, start, trans) for p in paths])
    gold_path = (1, 2, 0)
    expected = torch.logsumexp(scores, 0) - path_score(gold_path, emit, start, trans)
    assert torch.allclose(crf.nll(x), expected, atol=1e-4)
    best, marg = (torch.from_numpy(a) for a in crf.decode_many([x])[0])
    assert torch.allclose(marg.sum(1), torch.ones(3), atol=1e-5)
    top = paths[int(scores.argmax())]
    full = torch.cat([torch.full((3, 1), -1), cand], 1)
    assert best.tolist() == [int(full[i, lab]) for i, lab in enumerate(top)]


def test_pair_tfidf_equals_scikit_learn(deplain_pairs):
    """The aligner's own TF-IDF (fast on small documents) computes what TfidfVectorizer does."""
    from spacy_simalign.aligners.crf.tfidf import _csr, _tfidf_cells
    from spacy_simalign.similarity.backends import TfidfSimilarity

    record = deplain_pairs[3]
    texts = [t for side in ("complex", "simple") for p in record[side]["paragraphs"] for t in p]
    for analyzer, ngram in (("word", 1), ("char", 3)):
        ours = _csr(_tfidf_cells(texts, analyzer), len(texts))
        ref = TfidfSimilarity(analyzer, ngram).vectorizer().fit_transform(texts)
        assert abs((ours @ ours.T).toarray() - (ref @ ref.T).toarray()).max() < 1e-9
