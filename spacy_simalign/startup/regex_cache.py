"""Compiled code of very long regular expressions, kept on disk between processes.

spaCy's French tokenizer compiles a 1.4 MB pattern (its hyphen and elision exceptions) at import:
1.8 s of every process that touches French, more than it then takes to align a document. Python
cannot pickle a compiled pattern, but what `re` builds from the text is a list of integers that
`_sre.compile` turns into the same pattern object. This module keeps, per module (a spaCy
language) and version, each long pattern's text with that list; before the module is imported it
puts the pattern objects into `re`'s own cache, where `re.compile` looks first. `re`'s functions
are never replaced: a pattern not found there is compiled as usual. A file is written only when
the pattern rebuilt from its code equals the one `re` compiled (text, flags and code), so
tokenization cannot change; any part of `re` or `_sre` laid out otherwise only misses the cache.

The files are in the start-up cache's `regex` folder (startup/disk_cache.py, which says where and how
to turn it off)."""

import contextlib
import hashlib
import json
import os
import re
import sys
import threading
from array import array
from typing import Dict, Iterator, List, Optional, Set, Tuple

try:  # Python 3.11 on
    from re import _compiler, _parser  # type: ignore[attr-defined]  # private: typeshed leaves them out
except ImportError:  # pragma: no cover - Python 3.9/3.10
    import sre_compile as _compiler
    import sre_parse as _parser

import _sre  # type: ignore[import-not-found]  # CPython's internal module: no stub

from .disk_cache import cache_folder, store
from .shortcuts import shortcut_off

SHORTCUT = "the start-up cache of spaCy's long token patterns"
MIN_LENGTH = 50_000  # shorter patterns compile in milliseconds: not worth a file
FORMAT = 1
_LOCK = threading.Lock()
_STORED: Set[str] = set()  # files this process filled (or tried to): one more compile of a pattern is enough

Key = Tuple[str, int]  # (pattern text, flags given to re.compile): re's cache key, less the type


def _file(folder: str, module: str) -> str:
    top = sys.modules.get(module.split(".")[0])
    sre = f"{getattr(_sre, 'MAGIC', '')}|{getattr(_sre, 'CODESIZE', '')}"
    tag = f"{module}|{getattr(top, '__version__', '')}|{sys.version}|{sys.byteorder}|{sre}|{FORMAT}"
    return os.path.join(folder, f"{module}-{hashlib.sha256(tag.encode()).hexdigest()[:24]}.patterns")


def _re_caches() -> List[dict]:
    """re's pattern caches (`_cache`, and `_cache2` from Python 3.12), or none when re keeps them
    otherwise."""
    caches = [getattr(re, name, None) for name in ("_cache", "_cache2")]
    return [c for c in caches if type(c) is dict]


def _read(path: str) -> Dict[Key, dict]:
    """The entries of a patterns file by key; empty when missing, damaged (checksum) or not ours."""
    try:
        with open(path, "rb") as handle:
            header = json.loads(handle.readline())
            body = handle.read()
        if hashlib.sha256(body).hexdigest() != header["sha256"] or header["format"] != FORMAT:
            return {}
        entries, at = {}, 0
        for entry in header["entries"]:
            text = body[at : at + entry["text_bytes"]].decode("utf-8", "surrogatepass")
            at += entry["text_bytes"]
            code = array("I")
            code.frombytes(body[at : at + 4 * entry["code_length"]])
            at += 4 * entry["code_length"]
            entries[(text, entry["key_flags"])] = {**entry, "code": code.tolist()}
        return entries if at == len(body) else {}
    except Exception:  # noqa: BLE001 - a file that does not read back is a cache miss
        return {}


def _write(path: str, entries: Dict[Key, dict]) -> None:
    parts, header = [], []
    for (text, key_flags), entry in entries.items():
        data = text.encode("utf-8", "surrogatepass")
        parts += [data, array("I", entry["code"]).tobytes()]
        fields = {k: entry[k] for k in ("flags", "groups", "groupindex", "indexgroup")}
        header.append({**fields, "key_flags": key_flags, "text_bytes": len(data), "code_length": len(entry["code"])})
    body = b"".join(parts)
    line = json.dumps({"format": FORMAT, "sha256": hashlib.sha256(body).hexdigest(), "entries": header})

    def write(handle):
        handle.write(line.encode() + b"\n")
        handle.write(body)

    store(path, write)


def _pattern(text: str, entry: dict):
    """The pattern object of one entry (`_sre` checks the code it is given)."""
    indexgroup = tuple(entry["indexgroup"])
    return _sre.compile(text, entry["flags"], entry["code"], entry["groups"], dict(entry["groupindex"]), indexgroup)


def _seed(entries: Dict[Key, dict]) -> Dict[Key, dict]:
    """Put each entry's pattern into re's cache, as re.compile would after compiling it; the
    entries that make a pattern (the others are stored again after the import)."""
    caches = _re_caches()
    good: Dict[Key, dict] = {}
    if not caches:
        return good
    for (text, key_flags), entry in entries.items():
        try:
            compiled = _pattern(text, entry)
        except Exception as err:  # noqa: BLE001 - another _sre, or code it refuses: re compiles it
            shortcut_off(SHORTCUT, f"_sre.compile refuses the stored code: {type(err).__name__}: {err}")
            continue
        if compiled.pattern == text:
            caches[0].setdefault((str, text, key_flags), compiled)
            good[(text, key_flags)] = entry
    return good


def _entry(text: str, key_flags: int, compiled) -> Optional[dict]:
    """What `re` passes to `_sre.compile` for this pattern, rebuilt from its text; None unless the
    pattern made from it equals `compiled`, the one re built."""
    try:
        parsed = _parser.parse(text, key_flags)
        code = _compiler._code(parsed, key_flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entry = {
            "flags": key_flags | parsed.state.flags,
            "groups": parsed.state.groups - 1,
            "groupindex": groupindex,
            "indexgroup": indexgroup,
            "code": list(code),
        }
        if all(isinstance(c, int) and 0 <= c < 2**32 for c in entry["code"]) and _pattern(text, entry) == compiled:
            return entry
    except Exception:  # noqa: BLE001 - another re: no file
        pass
    return None


def _long_patterns(module: str) -> List[Tuple[re.Pattern, List[int]]]:
    """The long str patterns held by `module` and its sub-modules (as a pattern or one of its bound
    methods, like spaCy's TOKEN_MATCH), each with the flags it may have been compiled with: those
    of its key in re's cache if it is still there, then 0 (flags written in the pattern) and its
    own flags."""
    found: List[re.Pattern] = []
    for name, loaded in list(sys.modules.items()):
        if name == module or name.startswith(module + "."):
            for value in list(getattr(loaded, "__dict__", {}).values()):
                value = getattr(value, "__self__", value)
                if (
                    isinstance(value, re.Pattern)
                    and isinstance(value.pattern, str)
                    and len(value.pattern) >= MIN_LENGTH
                ):
                    if not any(value is seen for seen in found):
                        found.append(value)
    keys: Dict[int, List[int]] = {id(compiled): [] for compiled in found}
    for cache in _re_caches():
        for key, compiled in list(cache.items()):
            if id(compiled) in keys and isinstance(key, tuple) and len(key) == 3 and key[0] is str:
                keys[id(compiled)].append(key[2])
    return [(c, list(dict.fromkeys([*keys[id(c)], 0, c.flags & ~re.UNICODE, c.flags]))) for c in found]


def _harvest(path: str, module: str, stored: Dict[Key, dict]) -> None:
    """Write the file again when `module` holds a long pattern that it does not: every long
    pattern of the module whose code rebuilds to the very pattern re made."""
    with _LOCK:
        if path in _STORED:
            return
        _STORED.add(path)  # one try per process: a pattern that cannot be checked costs one more compile
        try:
            held = _long_patterns(module)
            if all(any((c.pattern, f) in stored for f in flags) for c, flags in held):
                return
            entries: Dict[Key, dict] = {}
            for compiled, flags in held:
                for key in [(compiled.pattern, f) for f in flags]:
                    entry = stored.get(key) or _entry(*key, compiled)
                    if entry is not None:
                        entries[key] = entry
                        break
                else:
                    shortcut_off(
                        SHORTCUT, f"re's code of a long pattern of {module} does not rebuild to the pattern re made"
                    )
            if entries:
                _write(path, entries)
        except Exception:  # noqa: BLE001 - the cache never fails an import: the next process tries again
            pass


@contextlib.contextmanager
def cached_long_patterns(module: str) -> Iterator[None]:
    """Wrap the first import of `module` (a spaCy language: "spacy.lang.fr"): its long patterns
    come from the cache folder, or are stored there after it. Other threads are not affected."""
    folder = cache_folder("regex")
    if (
        folder is None
        or module in sys.modules
        or not _re_caches()
        or array("I").itemsize != getattr(_sre, "CODESIZE", None)
    ):
        if folder is not None and module not in sys.modules:
            shortcut_off(SHORTCUT, "Python's re keeps its compiled patterns otherwise")
        yield  # off, imported already, or a re that keeps its patterns otherwise
        return
    path = _file(folder, module)
    stored = _seed(_read(path))
    yield
    if module in sys.modules:
        _harvest(path, module, stored)


__all__ = ["cached_long_patterns", "MIN_LENGTH"]
