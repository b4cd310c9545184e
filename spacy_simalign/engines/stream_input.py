"""`align` reads its input more than once (validated whole before any work, then the ids for
--resume, then the pairs to align), which a pipe cannot give: `cat pairs.jsonl | align - out`,
`align /dev/stdin out` or `align <(...) out` would find the stream empty on the second read
and write an empty OUTPUT with exit 0. A stream (`-` for standard input, a FIFO, a character
device) is therefore read once into a spool file, an anonymous temporary file in the output's
folder that no crash can leave behind (unlinked from the start on Linux, read again through
/proc/self/fd), and aligned from there; messages name the stream, not the spool."""

import os
import shutil
import stat
import sys
import tempfile
from contextlib import contextmanager
from typing import IO, Iterator, Tuple

from ..core.errors import InputError, OutputError, disk_full_reason

STDIN = "-"


def is_stream(path: str) -> bool:
    """Standard input (`-`), or a path that is not a regular file (a pipe, a device): read once."""
    if path == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # a missing file: reading it says so
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _spool_file(directory: str) -> Tuple[IO[bytes], str]:
    """(file object, a path that reads it again from the start)."""
    if os.path.isdir("/proc/self/fd"):
        handle: IO[bytes] = tempfile.TemporaryFile(dir=directory)
        return handle, f"/proc/self/fd/{handle.fileno()}"
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix=".tmp-spool-")
    return handle, handle.name


@contextmanager
def rereadable(path: str, spool_dir: str) -> Iterator[Tuple[str, str]]:
    """(a path to read as often as needed, the name to show in messages) for `path`; a stream is
    copied once into a spool in `spool_dir`, and InputErrors naming the spool name the stream."""
    if not is_stream(path):
        yield path, path
        return
    shown = "<stdin>" if path == STDIN else path
    try:
        source = sys.stdin.buffer if path == STDIN else open(path, "rb")
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror}", path) from None
    handle, reread = _spool_file(spool_dir or ".")
    with handle:
        try:
            shutil.copyfileobj(source, handle)
            handle.flush()
        except OSError as err:
            full = disk_full_reason(err)
            if full:
                raise OutputError(f"cannot copy the input stream here: {full}", spool_dir) from None
            raise InputError(f"cannot read the input stream: {err.strerror}", shown) from None
        finally:
            if source is not sys.stdin.buffer:
                source.close()
        try:
            yield reread, shown
        except InputError as err:
            if err.path != reread:
                raise
            raise type(err)(err.reason, shown, err.line) from None
