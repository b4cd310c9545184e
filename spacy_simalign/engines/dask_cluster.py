"""`--engine dask [--scheduler ADDRESS]`: the same batches on a Dask cluster, or on a
LocalCluster when no address is given. Each worker process builds its pipeline once
(engines.work keeps it in a module-level cache that lives as long as the worker) and
runs one batch at a time; the client reads the input, keeps a bounded number of
batches in flight and writes the results in input order.

When the cluster has had no worker for NO_WORKER_TIMEOUT_S seconds (all of them died, or none
ever joined the scheduler), the run stops with a one-line error instead of waiting forever;
the batches done so far stay in OUTPUT.partial for --resume."""

import dataclasses
import logging
import time
from typing import Iterable, Iterator, List, Optional, Tuple

from ..core.errors import InputError
from ..core.extras import require
from .ordered import ordered_results
from .work import AlignJob, align_batch


class DaskEngine:
    name = "dask"
    NO_WORKER_TIMEOUT_S = 60.0  # how long a run waits for a worker to (re)appear
    POLL_S = 2.0  # how often a waiting client asks the scheduler for its workers

    def __init__(self, scheduler: Optional[str] = None, n_workers: int = 2):
        require("distributed", "dask", "the dask engine")
        distributed = require("distributed", "distributed", "the dask engine")
        Client, LocalCluster = distributed.Client, distributed.LocalCluster
        self.cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout="30s")
            except (OSError, TimeoutError) as err:
                raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
        else:
            n_workers = n_workers if n_workers > 1 else 2
            self.cluster = LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
            self.client = Client(self.cluster)
        info = self.client.scheduler_info()
        self.workers = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))

    def map(self, job: AlignJob, stream: Iterable[Tuple[int, list]]) -> Iterator[Tuple[int, List[str]]]:
        if self.cluster is not None and not job.threads:
            job = dataclasses.replace(job, threads=1)

        def submit(batch):
            start, records = batch
            return self.client.submit(align_batch, job, start, records, pure=False)

        def result(future):
            try:
                return self._wait(future)
            finally:
                future.release()

        yield from ordered_results(submit, stream, window=2 * self.workers, result=result)

    def _wait(self, future):
        """The future's result; an error when the cluster has had no worker for NO_WORKER_TIMEOUT_S."""
        alone_since = None
        while True:
            try:
                return future.result(timeout=self.POLL_S)
            except TimeoutError:
                pass
            if self.client.nthreads():
                alone_since = None
            elif alone_since is None:
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since >= self.NO_WORKER_TIMEOUT_S:
                raise InputError(
                    f"the Dask scheduler at {self.client.scheduler.address} has had no worker for "
                    f"{self.NO_WORKER_TIMEOUT_S:g} s: start workers (dask worker ADDRESS), then run "
                    "again with --resume"
                )

    def run_on_workers(self, function):
        """`function()` on every worker: {worker address: result} (tests read worker_stats)."""
        return self.client.run(function)

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
