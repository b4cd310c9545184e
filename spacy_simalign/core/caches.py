"""The per-process caches, in one place with one reset: things that are expensive to build
and safe to share within a process (the USE model, the shipped CRF weights as read from
disk, the alignment pipelines). `reset()` empties them all (tests; a long-running worker
that wants fresh vocabularies)."""

import threading
from typing import Any, Callable, Dict, Hashable, Tuple

_ENTRIES: Dict[Tuple[str, Hashable], Any] = {}
_LOCK = threading.RLock()
stats: Dict[str, int] = {}  # how often each kind was built (tests check "once per worker")


def shared(kind: str, key: Hashable, build: Callable[[], Any]) -> Any:
    """The cached value of (kind, key), built by `build()` the first time."""
    with _LOCK:
        if (kind, key) not in _ENTRIES:
            _ENTRIES[kind, key] = build()
            stats[kind] = stats.get(kind, 0) + 1
        return _ENTRIES[kind, key]


def drop(kind: str) -> None:
    """Forget every value of one kind."""
    with _LOCK:
        for entry in [k for k in _ENTRIES if k[0] == kind]:
            del _ENTRIES[entry]


def reset() -> None:
    """Forget everything (the counters too)."""
    with _LOCK:
        _ENTRIES.clear()
        stats.clear()
