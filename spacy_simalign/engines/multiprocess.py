"""`--n-process N`: a pool of N local processes (spawned, so no thread or BLAS state is
inherited), each with its own pipeline built once by the initializer and kept for the run.
The workers end with the process that started them, even when it is killed with SIGKILL
(parent_watch)."""

import dataclasses
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Iterable, Iterator, List, Optional, Tuple

from .ordered import ordered_results
from .parent_watch import die_with_parent
from .work import AlignJob, align_batch, prepare_process


def default_threads(n_process: int) -> int:
    """BLAS/encoder threads per process so that the processes share the cores."""
    return max(1, (os.cpu_count() or 1) // max(1, n_process))


def start_worker(job: AlignJob, parent_pid: int) -> None:
    """The initializer of every worker: die with the parent, then cap the threads."""
    die_with_parent(parent_pid)
    prepare_process(job)


class ProcessEngine:
    name = "multiprocess"

    def __init__(self, n_process: int):
        self.workers = n_process
        self._pool: Optional[ProcessPoolExecutor] = None

    def map(self, job: AlignJob, stream: Iterable[Tuple[int, list]]) -> Iterator[Tuple[int, List[str]]]:
        if not job.threads:
            job = dataclasses.replace(job, threads=default_threads(self.workers))
        self._pool = pool = ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=start_worker,
            initargs=(job, os.getpid()),
        )
        yield from ordered_results(lambda batch: pool.submit(align_batch, job, *batch), stream, window=2 * self.workers)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
