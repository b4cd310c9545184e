"""The TF-IDF aligner reads its similarities in column blocks (similarity.scores),
so its memory is bounded by a block, not by sentences squared, and its beads are those of the
dense matrix. The 20,000 x 20,000 peak is measured by benchmarks/scripts/bench_align_scale.py --big."""

import numpy as np
import pytest

from spacy_simalign.aligners import best_match
from spacy_simalign.aligners import lexical_aligners as lexical
from spacy_simalign.aligners.methods import build_aligner, method_config
from spacy_simalign.core.structures import Side
from spacy_simalign.similarity import scores as scores_module
from spacy_simalign.similarity.backends import TfidfSimilarity

SETTINGS = [
    {},  # the default: inside paragraph links
    {"use_paragraphs": False},  # one block, the whole document
    {"both_directions": True, "group": False},  # the Amsterdam corpus's candidates
]


class Counting:
    """A scores object that records the size of every block asked for."""

    def __init__(self, inner, seen):
        self.inner, self.seen = inner, seen

    def block(self, rows, cols):
        self.seen.append(len(rows) * len(cols))
        return self.inner.block(rows, cols)


def dense_reference(sim, rows, cols, threshold, both_directions):
    """The matches of the dense argmax the aligner used before the blocks."""
    out = []
    for c in cols:
        values = sim[rows, c]
        k = int(np.argmax(values))
        if values[k] >= threshold:
            out.append((rows[k], c, float(values[k])))
    if both_directions:
        for r in rows:
            values = sim[r, cols]
            k = int(np.argmax(values))
            if values[k] >= threshold:
                out.append((r, cols[k], float(values[k])))
    return out


@pytest.mark.parametrize("both", [False, True])
def test_blocks_give_the_dense_matches_ties_included(monkeypatch, both):
    rng = np.random.default_rng(0)
    sim = np.round(rng.random((37, 53)), 1).astype(np.float32)  # rounding makes ties
    monkeypatch.setattr(scores_module, "BLOCK_CELLS", 40)
    rows, cols = list(range(3, 37)), list(range(0, 53, 2))
    found = best_match.best_matches(scores_module.DenseScores(sim), rows, cols, 0.3, both)
    assert found == dense_reference(sim, rows, cols, 0.3, both)


def test_tfidf_blocks_are_the_dense_cells():
    a = ["Der Hund bellt laut.", "Die Katze schläft.", "Ein Hund und eine Katze."]
    b = ["Ein Hund bellt.", "Katzen schlafen viel.", "!!!"]
    backend = TfidfSimilarity()
    dense = backend.matrix(a, b)
    block = backend.scores(a, b).block([2, 0], [1])
    assert block.tobytes() == dense[np.ix_([2, 0], [1])].tobytes()


@pytest.mark.parametrize("settings", SETTINGS)
def test_tfidf_aligner_never_asks_for_more_than_a_block(monkeypatch, deplain_pairs, settings):
    """With 200-cell blocks the beads are those of the whole matrix, and no block is larger."""
    config = method_config("tfidf")
    config["aligner"].update(settings)
    pairs = sorted(deplain_pairs, key=lambda p: -sum(map(len, p["complex"]["paragraphs"])))[:4]
    sides = [
        (Side.from_paragraphs(p["complex"]["paragraphs"]), Side.from_paragraphs(p["simple"]["paragraphs"]))
        for p in pairs
    ]
    expected = [build_aligner(config).align(c, s) for c, s in sides]
    seen = []
    original = lexical.pair_scores
    monkeypatch.setattr(scores_module, "BLOCK_CELLS", 200)
    monkeypatch.setattr(lexical, "pair_scores", lambda *args: Counting(original(*args), seen))
    monkeypatch.setattr(TfidfSimilarity, "matrix", None)  # the dense matrix is never made
    assert [build_aligner(config).align(c, s) for c, s in sides] == expected
    assert seen and max(seen) <= 200 + max(len(c) for c, _ in sides)
