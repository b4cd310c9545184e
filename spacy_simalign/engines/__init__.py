"""Engines that run `align` over a stream of pair records: in this process, in N local
processes, or on a Dask cluster. All of them cut the input into the same fixed batches
and yield each batch's output lines in input order, with a bounded number of batches in
flight, so memory stays flat in the number of pairs and the output is the same bytes
whichever engine ran it."""

from dataclasses import dataclass
from itertools import islice
from typing import Iterable, Iterator, List, Optional, Tuple

from ..core.errors import InputError
from ..core.setting_checks import AT_LEAST_1, Options, check_settings
from ..formats.pair_jsonl import PairRecord
from .job import AlignJob

Batch = Tuple[int, List[PairRecord]]
ENGINES = ("local", "dask")
ENGINE_OPTIONS = Options(n_process=AT_LEAST_1)


def batches(records: Iterable[PairRecord], batch_size: int, first: int = 0) -> Iterator[Batch]:
    """(start index, records) for input positions [k*batch_size, (k+1)*batch_size), from the
    batch that holds position `first` on; earlier records are read and dropped."""
    skip = (first // batch_size) * batch_size
    iterator = iter(records)
    for _ in islice(iterator, skip):
        pass
    start = skip
    while True:
        chunk = list(islice(iterator, batch_size))
        if not chunk:
            return
        yield start, chunk
        start += len(chunk)


class LocalEngine:
    """Aligns in this process, one batch after the other."""

    name = "local"

    def __init__(self):
        self.workers = 1

    def map(self, job: AlignJob, stream: Iterable[Batch]) -> Iterator[Tuple[int, List[str]]]:
        from .work import align_batch

        for start, records in stream:
            yield align_batch(job, start, records)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@dataclass(frozen=True)
class EngineChoice:
    """Where the batches run (`--engine`, `--n-process`, `--scheduler`), checked once when made:
    `local` with n_process 1 is this process, above 1 a pool of local processes; `dask` the
    cluster at `scheduler`, or a LocalCluster of n_process workers."""

    name: str = "local"
    n_process: int = 1
    scheduler: Optional[str] = None

    def __post_init__(self) -> None:
        if self.name not in ENGINES:
            raise InputError(f"unknown engine '{self.name}' (known: {', '.join(ENGINES)})")
        if self.scheduler and self.name != "dask":
            raise InputError("--scheduler needs --engine dask")
        check_settings(ENGINE_OPTIONS, {"n_process": self.n_process}, True)


def make_engine(choice: EngineChoice):
    """The engine of a checked EngineChoice."""
    if choice.name == "dask":
        from .dask_cluster import DaskEngine

        return DaskEngine(choice.scheduler, n_workers=choice.n_process)
    if choice.n_process == 1:
        return LocalEngine()
    from .multiprocess import ProcessEngine

    return ProcessEngine(choice.n_process)


__all__ = ["AlignJob", "batches", "make_engine", "EngineChoice", "LocalEngine", "ENGINES"]
