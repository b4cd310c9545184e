"""startup/regex_cache.py: a module's long patterns are read from the start-up cache into re's own cache
before its import, and stored after it only when rebuilt to the very pattern re made; re's
functions are never replaced, and every part of re or _sre laid out otherwise, a damaged file or an
evicted entry only costs the compile."""

import _sre
import hashlib
import importlib
import json
import re
import subprocess
import sys
import types
import uuid

import pytest

from spacy_simalign.startup import disk_cache as startup_cache
from spacy_simalign.startup import regex_cache


def french_words(shared_data):
    """A pattern over the first French sentences of TransRead, long enough to be cached, and the
    words."""
    with open(shared_data("transread-dev-en-fr/pairs.jsonl"), encoding="utf-8") as handle:
        record = json.loads(handle.readline())
    assert record["lang_simple"] == "fr"
    words = sorted({w for para in record["simple"]["paragraphs"] for s in para for w in re.findall(r"\w+", s)})
    pattern = "(?iu)" + "|".join(f"(?:^{re.escape(w)}[-’'][\\w]+$)" for w in words)
    while len(pattern) < regex_cache.MIN_LENGTH:
        pattern += "|(?:^" + re.escape(pattern[-40:]) + "$)"
    return pattern, words


class LongPatternModule:
    """A module that compiles a long pattern at import and keeps its `match`, as spaCy's French
    tokenizer exceptions do; `load()` imports it afresh (re's cache emptied) inside
    cached_long_patterns and returns its pattern."""

    def __init__(self, folder, pattern):
        self.name = f"long_pattern_{uuid.uuid4().hex[:8]}"
        self.pattern = pattern
        (folder / f"{self.name}.py").write_text(
            "import re\n"
            "import _sre\n"
            "SEEN = (re.compile, re._compiler.compile, re._compiler._sre, _sre.compile)\n"
            f"TOKEN_MATCH = re.compile({pattern!r}).match\n",
            encoding="utf-8",
        )

    def load(self):
        sys.modules.pop(self.name, None)
        regex_cache._STORED.clear()
        re.purge()
        with regex_cache.cached_long_patterns(self.name):
            module = importlib.import_module(self.name)
        self.module = module
        return module.TOKEN_MATCH.__self__


@pytest.fixture
def long_module(tmp_path, monkeypatch, shared_data):
    pattern, _ = french_words(shared_data)
    (tmp_path / "modules").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path / "modules"))
    monkeypatch.setenv(startup_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(regex_cache, "_STORED", set())
    return LongPatternModule(tmp_path / "modules", pattern)


@pytest.fixture
def plain(long_module):
    """The pattern as re compiles it, without any cache."""
    re.purge()
    compiled = re.compile(long_module.pattern)
    re.purge()
    return compiled


@pytest.fixture
def long_compiles(monkeypatch):
    """The long patterns that re's compiler compiles (the cache missed), in order."""
    seen = []
    original = re._compiler.compile

    def counting(p, flags=0):
        if isinstance(p, str) and len(p) >= regex_cache.MIN_LENGTH:
            seen.append(p)
        return original(p, flags)

    monkeypatch.setattr(re._compiler, "compile", counting)
    return seen


def cache_files(tmp_path):
    return sorted((tmp_path / "cache" / "regex").glob("*.patterns"))


def test_a_long_pattern_from_the_cache_is_the_pattern_re_builds(
    long_module, plain, long_compiles, tmp_path, shared_data
):
    cold = long_module.load()  # compiled by re, then its code stored
    assert len(long_compiles) == 1 and len(cache_files(tmp_path)) == 1
    warm = long_module.load()  # read from the file, not compiled
    assert len(long_compiles) == 1
    assert cold == plain and warm == plain  # Pattern equality compares the compiled code too
    _, words = french_words(shared_data)
    probes = [f"{w}-test" for w in words[:50]] + [f"{w}x" for w in words[:50]]
    assert [bool(warm.match(p)) for p in probes] == [bool(plain.match(p)) for p in probes]
    assert any(warm.match(p) for p in probes) and not all(warm.match(p) for p in probes)


def test_re_is_untouched_while_the_cache_is_filled_and_read(long_module, monkeypatch, tmp_path):
    """At the language's import (inside the window) and while the code is rebuilt and stored, re's
    compile functions and its _sre are the ones the process started with."""
    originals = (re.compile, re._compiler.compile, re._compiler._sre, _sre.compile)
    seen = []
    entry = regex_cache._entry

    def watched(*args):
        seen.append((re.compile, re._compiler.compile, re._compiler._sre, _sre.compile))
        return entry(*args)

    monkeypatch.setattr(regex_cache, "_entry", watched)
    long_module.load()
    cold = long_module.module.SEEN
    long_module.load()
    assert len(seen) == 1 and len(cache_files(tmp_path)) == 1  # the cache was filled, then read
    for identities in (cold, long_module.module.SEEN, seen[0]):
        assert all(a is b for a, b in zip(identities, originals))


def damaged_copies(data: bytes):
    """A cache file's bytes damaged each way: truncated, one byte of the code flipped, the header
    not JSON, and code that _sre refuses under a checksum that matches it."""
    header, _, body = data.partition(b"\n")
    flipped = bytearray(data)
    flipped[-100] ^= 0x01
    meta = json.loads(header)
    text_bytes = meta["entries"][0]["text_bytes"]
    invalid = body[:text_bytes] + b"\xff" * (len(body) - text_bytes)
    meta["sha256"] = hashlib.sha256(invalid).hexdigest()
    return {
        "truncated": data[:-10],
        "flipped": bytes(flipped),
        "header": b"{not json" + data[len(header) :],
        "invalid code": json.dumps(meta).encode() + b"\n" + invalid,
    }


def test_a_damaged_cache_file_costs_only_the_compile_and_is_rebuilt(long_module, plain, long_compiles, tmp_path):
    long_module.load()
    (path,) = cache_files(tmp_path)
    good = path.read_bytes()
    for name, data in damaged_copies(good).items():
        path.write_bytes(data)
        before = len(long_compiles)
        assert long_module.load() == plain, name
        assert len(long_compiles) == before + 1, name  # compiled by re, never built from the damage
        assert path.read_bytes() == good, name  # stored again, whole


def _another_sre_compile(monkeypatch, long_module):
    def compile(pattern, flags, code, groups, groupindex):  # a CPython that takes other arguments
        return _sre.compile(pattern, flags, code, groups, groupindex, ())

    monkeypatch.setattr(
        regex_cache, "_sre", types.SimpleNamespace(MAGIC=_sre.MAGIC, CODESIZE=_sre.CODESIZE, compile=compile)
    )


def _no_code_function(monkeypatch, long_module):
    monkeypatch.setattr(regex_cache, "_compiler", types.SimpleNamespace())


def _code_of_another_pattern(monkeypatch, long_module):
    code = re._compiler._code

    def other(parsed, flags):  # valid code, but another pattern's: what a wrong record would store
        return code(re._parser.parse("(?iu)^autre$", 0), 0)

    monkeypatch.setattr(regex_cache, "_compiler", types.SimpleNamespace(_code=other))


def _parse_with_another_signature(monkeypatch, long_module):
    monkeypatch.setattr(regex_cache, "_parser", types.SimpleNamespace(parse=lambda text: re._parser.parse(text)))


def _re_cache_of_another_type(monkeypatch, long_module):
    class Cache(dict):
        pass

    monkeypatch.setattr(re, "_cache", Cache())


@pytest.mark.parametrize(
    "otherwise, reads",
    [
        (_another_sre_compile, False),
        (_no_code_function, True),
        (_code_of_another_pattern, True),
        (_parse_with_another_signature, True),
        (_re_cache_of_another_type, False),
    ],
)
def test_re_laid_out_otherwise_only_misses_the_cache(
    otherwise, reads, long_module, plain, long_compiles, tmp_path, monkeypatch, said
):
    """Cold (nothing stored): the import works, the pattern is the one re builds, no file is
    written from what could not be checked, and a warning says the shortcut is off. Warm (a good
    file there): the file is read where the part that reads it is as this module knows it, else
    re compiles; it is never replaced."""
    with monkeypatch.context() as patched:
        otherwise(patched, long_module)
        assert long_module.load() == plain
        assert cache_files(tmp_path) == [] and len(long_compiles) == 1
        assert [
            m.startswith("spacy-simalign: the start-up cache of spaCy's long token patterns is off (") for m in said()
        ] == [True]
    long_module.load()
    (path,) = cache_files(tmp_path)
    good, stamp = path.read_bytes(), path.stat().st_mtime_ns
    with monkeypatch.context() as patched:
        otherwise(patched, long_module)
        assert long_module.load() == plain
        assert len(long_compiles) == (2 if reads else 3)
    assert path.read_bytes() == good and path.stat().st_mtime_ns == stamp


def test_a_pattern_evicted_from_res_cache_before_the_import_is_compiled_and_the_file_kept(
    long_module, plain, long_compiles, tmp_path, monkeypatch
):
    long_module.load()
    (path,) = cache_files(tmp_path)
    stamp = path.stat().st_mtime_ns
    seed = regex_cache._seed

    def seed_then_evict(entries):
        seed(entries)
        re.purge()  # as if other threads' compiles had pushed it out of re's cache

    monkeypatch.setattr(regex_cache, "_seed", seed_then_evict)
    assert long_module.load() == plain
    assert len(long_compiles) == 2 and path.stat().st_mtime_ns == stamp


THREADS = r"""
import json, os, random, re, sys, threading
import spacy
from spacy_simalign.startup.blank_pipelines import blank_language

text, saved = sys.argv[1], sys.argv[2]
start = threading.Barrier(8 + 3)
built, errors, stop = [], [], threading.Event()

def build():
    try:
        start.wait()
        built.append(blank_language("fr"))
    except BaseException as error:
        errors.append(repr(error))

def compile_small(seed):
    rng = random.Random(seed)
    start.wait()
    while not stop.is_set():
        words = ["".join(rng.choice("abcdéèàç-'") for _ in range(rng.randint(1, 8))) for _ in range(6)]
        re.compile("|".join(map(re.escape, words)), rng.choice([0, re.I]))

def load():
    start.wait()
    while not stop.is_set():
        assert spacy.load(saved).pipe_names == []

others = [threading.Thread(target=compile_small, args=(k,)) for k in range(2)] + [threading.Thread(target=load)]
builders = [threading.Thread(target=build) for _ in range(8)]
for thread in others + builders:
    thread.start()
for thread in builders:
    thread.join()
stop.set()
for thread in others:
    thread.join()
assert not errors and len(built) == 8, errors
tokens = {json.dumps([t.text for t in nlp(text)]) for nlp in built}
assert len(tokens) == 1
from spacy.lang.fr.tokenizer_exceptions import TOKEN_MATCH
pattern = TOKEN_MATCH.__self__
re.purge()
assert pattern == re.compile(pattern.pattern)
print(tokens.pop())
"""


@pytest.mark.slow
def test_french_built_in_eight_threads_while_others_compile_and_load_tokenizes_as_without_the_cache(
    tmp_path, shared_data
):
    """Fresh processes (the cache cold, then warm): 8 threads build French pipelines while others
    compile small patterns and spacy.load a pipeline; every tokenizer, on real French text, gives
    the tokens of one built with the start-up cache off."""
    import os

    import spacy

    with open(shared_data("transread-dev-en-fr/pairs.jsonl"), encoding="utf-8") as handle:
        record = json.loads(handle.readline())
    text = "\n".join(s for para in record["simple"]["paragraphs"] for s in para)
    assert record["lang_simple"] == "fr" and "'" in text.replace("’", "'") and "-" in text
    saved = tmp_path / "blank-de"
    spacy.blank("de").to_disk(saved)
    runs = {}
    for run, setting in (("off", "off"), ("cold", str(tmp_path / "cache")), ("warm", str(tmp_path / "cache"))):
        env = {**os.environ, startup_cache.ENV: setting}
        result = subprocess.run(
            [sys.executable, "-c", THREADS, text, str(saved)], capture_output=True, text=True, timeout=600, env=env
        )
        assert result.returncode == 0, result.stderr[-3000:]
        runs[run] = json.loads(result.stdout)
        if run == "cold":
            (path,) = (tmp_path / "cache" / "regex").glob("spacy.lang.fr-*.patterns")
            stamp = path.stat().st_mtime_ns
    assert len(runs["off"]) > 100 and runs["cold"] == runs["off"] and runs["warm"] == runs["off"]
    assert path.stat().st_mtime_ns == stamp  # the warm run read the file, wrote nothing
