"""The start-up cache: what every process would otherwise rebuild from the same files before its
first pair (the compiled code of spaCy's longest token patterns, startup/regex_cache.py; the USE model's
parsed tokenizer and inflated weights, similarity/use_startup.py), kept in a folder between runs.

The folder: $SPACY_SIMALIGN_STARTUP_CACHE, else $XDG_CACHE_HOME/spacy-simalign (~/.cache/...); a
sub-folder per kind. `SPACY_SIMALIGN_STARTUP_CACHE=off` turns it off; a folder that cannot be
written only costs the time the cache saves. Files are written whole (a temporary file moved into
place), named by what they were made from (so environments that hold the same files share them;
none is ever removed: delete the folder to reclaim it), checked on read, and a file that does not
read back is ignored and stored again."""

import os
import tempfile
from typing import Optional

ENV = "SPACY_SIMALIGN_STARTUP_CACHE"


def cache_folder(kind: str) -> Optional[str]:
    """The folder of one kind of cached files, or None when the cache is turned off."""
    setting = os.environ.get(ENV, "")
    if setting.lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        return os.path.join(setting, kind)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "spacy-simalign", kind)


def store(path: str, write) -> None:
    """Write a cache file whole: `write(handle)` fills a temporary file beside `path`, which then
    replaces it; a failure (read-only folder, full disk) leaves no file and is not an error."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as handle:
                write(handle)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except (OSError, OverflowError, ValueError):
        pass
