"""One exception for bad input, so every entry point can print one line and exit 2, one for an
output that could not be written (a full disk: the same one line and exit 2), and one for a run
ended by SIGTERM (with the guard that raises it)."""

import errno
import os
import signal
import threading
from contextlib import contextmanager
from typing import Iterator, Optional


class Terminated(BaseException):
    """SIGTERM, turned into an exception so that a run ends as on Ctrl+C: partial output kept,
    a note on how to resume, one line `error: terminated`."""


@contextmanager
def sigterm_as_exception() -> Iterator[None]:
    """While the block runs, SIGTERM (a job scheduler's stop, `kill`) raises Terminated in the main
    thread instead of ending the process on the spot, so that the block's clean-up runs as on
    Ctrl+C: partial files kept where they can be resumed, staging files removed. Elsewhere than in
    the main thread, where no signal handler can be set, it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class InputError(ValueError):
    """Bad user input, located by file and line: str() is the one-line message."""

    def __init__(self, message: str, path: Optional[str] = None, line: Optional[int] = None):
        self.path, self.line, self.reason = path, line, message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)


DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def first_line(err: BaseException) -> str:
    """The first line of an exception's message (its type's name when empty), at most 200
    characters: the reason part of a one-line error."""
    text = str(err).strip()
    return (text.splitlines()[0] if text else type(err).__name__)[:200]


def is_disk_full(err: BaseException) -> bool:
    """An OSError saying the disk (or the user's quota) is full."""
    return isinstance(err, OSError) and err.errno in DISK_FULL


def disk_full_reason(err: BaseException) -> Optional[str]:
    """The OS's words for a full disk, lower case ("no space left on device"), when `err` says the
    disk (or the user's quota) is full; None for any other exception."""
    if not isinstance(err, OSError) or err.errno not in DISK_FULL:
        return None
    return (err.strerror or os.strerror(err.errno)).lower()


class OutputError(InputError):
    """An output that could not be written (no space left on the device): one line naming the
    file, exit 2, like bad input; whatever was written of it has been removed or kept resumable."""
