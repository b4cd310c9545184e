"""Worker processes that end with the process that started them. SIGKILL gives the parent no
chance to stop its workers: without a watch, `align --n-process 2` killed that way would leave
them running under PID 1, each holding its models, blocked on their pipe for good. A worker therefore asks the
kernel for a signal when its parent dies (Linux: prctl PR_SET_PDEATHSIG), and watches its
parent's pid as well (any system, and the case of a parent that died before the prctl)."""

import ctypes
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1  # linux/prctl.h
WATCH_INTERVAL_S = 0.5


def parent_death_signal(signum: int = signal.SIGKILL) -> bool:
    """Linux: have the kernel send `signum` to this process when its parent dies. True if set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int) -> None:
    event = threading.Event()
    while not event.wait(WATCH_INTERVAL_S):
        if os.getppid() != parent_pid:
            os._exit(1)


def die_with_parent(parent_pid: int) -> None:
    """In a worker: end this process as soon as `parent_pid` (the process that started it) is gone."""
    parent_death_signal()
    if os.getppid() != parent_pid:  # the parent died before the signal was asked for
        os._exit(1)
    threading.Thread(target=_watch, args=(parent_pid,), name="simalign-parent-watch", daemon=True).start()
