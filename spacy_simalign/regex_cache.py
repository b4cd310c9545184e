"""Compiled code of very long regular expressions, kept on disk between processes.

spaCy's French tokenizer compiles a 1.4 MB pattern (its hyphen and elision exceptions) at import:
1.8 s of every process that touches French, more than it then takes to align a document. Python
cannot pickle a compiled pattern, but what `re` builds from the text is a list of integers that
`_sre.compile` turns into the same pattern object; this module stores that list per pattern
text, flags and Python version, so the next process skips the parsing. The pattern is the same
object `re` would build (same code), so tokenization cannot change.

The files are in the start-up cache's `regex` folder (startup_cache.py, which says where and how
to turn it off)."""

import contextlib
import hashlib
import json
import os
import sys
import threading
from array import array
from typing import Iterator

try:  # Python 3.11 on
    from re import _compiler as _sre_compiler  # type: ignore[attr-defined]  # private: typeshed leaves it out
except ImportError:  # pragma: no cover - Python 3.9/3.10
    import sre_compile as _sre_compiler

import _sre  # type: ignore[import-not-found]  # CPython's internal module: no stub

from .startup_cache import cache_folder, store

MIN_LENGTH = 50_000  # shorter patterns compile in milliseconds: not worth a file
_LOCK = threading.Lock()


def _key(pattern: str, flags: int) -> str:
    digest = hashlib.sha256(pattern.encode("utf-8", "surrogatepass"))
    digest.update(f"|{flags}|{sys.version}|{_sre.MAGIC}|{_sre.CODESIZE}".encode())
    return digest.hexdigest()[:32]


def _load(path: str, pattern: str):
    """The pattern object from a cached file, or None: missing, unreadable, damaged or not ours
    (`_sre` validates the code it is given; any failure here is only a cache miss)."""
    try:
        with open(path, "rb") as handle:
            header = json.loads(handle.readline())
            code = array("I")
            code.frombytes(handle.read())
        if len(code) != header["length"]:
            return None
        indexgroup = tuple(header["indexgroup"])
        return _sre.compile(pattern, header["flags"], code.tolist(), header["groups"], header["groupindex"], indexgroup)
    except Exception:  # noqa: BLE001 - a cache file that does not read back is ignored
        return None


def _store(path: str, args) -> None:
    """Keep the arguments of one `_sre.compile` call (startup_cache.store: whole or not at all)."""
    _, flags, code, groups, groupindex, indexgroup = args
    header = {
        "flags": flags,
        "groups": groups,
        "groupindex": dict(groupindex),
        "indexgroup": list(indexgroup),
        "length": len(code),
    }

    def write(handle):
        handle.write(json.dumps(header).encode() + b"\n")
        handle.write(array("I", code).tobytes())

    store(path, write)


class _Recorder:
    """Stands in for the `_sre` module inside `re`'s compiler for one compile: records the
    arguments of its `_sre.compile` call."""

    def __init__(self):
        self.args = None

    def __getattr__(self, name):
        return getattr(_sre, name)

    def compile(self, *args):
        self.args = args
        return _sre.compile(*args)


def _compile_with_cache(original, folder: str):
    def compile(pattern, flags=0):
        if not isinstance(pattern, str) or len(pattern) < MIN_LENGTH:
            return original(pattern, flags)
        path = os.path.join(folder, _key(pattern, flags) + ".code")
        cached = _load(path, pattern)
        if cached is not None:
            return cached
        recorder = _Recorder()
        _sre_compiler._sre = recorder
        try:
            compiled = original(pattern, flags)
        finally:
            _sre_compiler._sre = _sre
        if recorder.args is not None:
            _store(path, recorder.args)
        return compiled

    return compile


@contextlib.contextmanager
def cached_long_patterns() -> Iterator[None]:
    """While active, `re.compile` of a pattern of MIN_LENGTH characters or more reads its code
    from the cache folder, or compiles and stores it there. Meant for the few moments in which
    a spaCy language is imported; other threads compile as usual meanwhile (they hold no lock)."""
    folder = cache_folder("regex")
    if folder is None or getattr(_sre_compiler, "_sre", None) is not _sre:
        yield
        return
    with _LOCK:
        original = _sre_compiler.compile
        _sre_compiler.compile = _compile_with_cache(original, folder)
        try:
            yield
        finally:
            _sre_compiler.compile = original


__all__ = ["cached_long_patterns", "MIN_LENGTH"]
