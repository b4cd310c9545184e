"""`spacy.blank(lang)` for the pipelines and tokenizers this package builds itself, started
quickly: only this package's component factories are loaded, and spaCy's very long tokenizer
patterns (French) are compiled from the start-up cache (regex_cache.py).

spaCy imports every installed package's factory entry points whenever it makes a Language; with
spacy-transformers installed that imports transformers, 1-3 s of every `align` process, for
components our pipelines never hold. `spacy.load` of a user's pipeline is not touched."""

import contextlib
import threading
from typing import Iterator

from .regex_cache import cached_long_patterns

OWN_MODULES = "spacy_simalign."
_LOCK = threading.Lock()


@contextlib.contextmanager
def own_factories_only() -> Iterator[None]:
    """While active, spaCy's Language loads the factory entry points of this package only."""
    from spacy.util import registry

    points = registry._entry_point_factories
    if not getattr(points, "entry_points", False) or not hasattr(points, "_get_entry_points"):
        yield  # another spaCy/catalogue layout: load them all, as spaCy does
        return
    with _LOCK:
        for entry in points._get_entry_points():
            if entry.value.startswith(OWN_MODULES):
                entry.load()  # its @Language.factory registers it
        points.entry_points = False
        try:
            yield
        finally:
            points.entry_points = True


def blank_language(lang: str):
    """spacy.blank(lang) with our factories and spaCy's own, built fast (see the module)."""
    import spacy

    with own_factories_only(), cached_long_patterns():
        return spacy.blank(lang)
