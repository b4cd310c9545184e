"""`spacy.blank(lang)` for the pipelines and tokenizers this package builds itself, started
quickly: only this package's component factories are loaded, and spaCy's very long tokenizer
patterns (French) are compiled from the start-up cache (startup/regex_cache.py).

spaCy imports every installed package's factory entry points whenever it makes a Language; with
spacy-transformers installed that imports transformers, 1-3 s of every `align` process, for
components our pipelines never hold. Only the thread that builds our pipeline skips them: any
other thread (a user's `spacy.load`, say) sees every entry point, even at that moment."""

import contextlib
import threading
from typing import Iterator, Optional

from .regex_cache import cached_long_patterns
from .shortcuts import shortcut_off

OWN_MODULES = "spacy_simalign."
SHORTCUT = "loading only this package's spaCy factories"
_THIS_THREAD = threading.local()  # own_only: True while this thread builds one of our pipelines
_SETUP = threading.Lock()
_PER_THREAD: Optional[type] = None


def _per_thread_class(base: type) -> type:
    """catalogue's Registry whose `entry_points` reads False in a thread inside
    own_factories_only, and the value it was given everywhere else."""

    def get(self):
        if getattr(_THIS_THREAD, "own_only", False):
            return False
        return self.__dict__.get("entry_points", False)

    def set_(self, value):
        self.__dict__["entry_points"] = value

    return type("PerThreadEntryPointsRegistry", (base,), {"entry_points": property(get, set_), "__doc__": base.__doc__})


def _entry_points_per_thread(points) -> bool:
    """Give spaCy's entry-point registry a per-thread `entry_points` (once per process; every
    thread outside own_factories_only reads exactly what it read before). False, and nothing
    changed, when the registry is not catalogue's Registry as this module knows it."""
    global _PER_THREAD
    with _SETUP:
        if _PER_THREAD is not None and type(points) is _PER_THREAD:
            return True
        try:
            import catalogue

            known = (
                type(points) is catalogue.Registry
                and vars(points).get("entry_points") is True
                and not hasattr(catalogue.Registry, "entry_points")
                and callable(getattr(points, "_get_entry_points", None))
            )
            if not known:
                return False
            cls = _PER_THREAD or _per_thread_class(catalogue.Registry)
            points.__class__ = cls  # TypeError if the layouts differ: nothing changed then
        except Exception:  # noqa: BLE001 - another spaCy/catalogue layout: spaCy loads them all
            return False
        _PER_THREAD = cls
        return True


@contextlib.contextmanager
def own_factories_only() -> Iterator[None]:
    """While active, a Language made in this thread loads the factory entry points of this
    package only; other threads are not affected."""
    from spacy.util import registry

    points = getattr(registry, "_entry_point_factories", None)
    if getattr(_THIS_THREAD, "own_only", False):
        yield  # nested: the outer one holds
        return
    if points is None or not _entry_points_per_thread(points):
        shortcut_off(SHORTCUT, "spaCy's entry-point registry is laid out otherwise")
        yield  # another spaCy/catalogue layout: load them all, as spaCy does
        return
    for entry in points._get_entry_points():
        if entry.value.startswith(OWN_MODULES):
            entry.load()  # its @Language.factory registers it
    _THIS_THREAD.own_only = True
    try:
        yield
    finally:
        _THIS_THREAD.own_only = False


def blank_language(lang: str):
    """spacy.blank(lang) with our factories and spaCy's own, built fast (see the module)."""
    import spacy

    with own_factories_only(), cached_long_patterns(f"spacy.lang.{lang}"):
        return spacy.blank(lang)
