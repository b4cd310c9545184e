"""The unit of work every engine runs: align one fixed batch of pair records into
alignment JSONL lines, in any process (this one, a local pool worker, a Dask worker).

A batch's output depends on the batch's records only, never on what the process did
before: that is what makes a resumed run, an N-process run and a Dask run write exactly
the bytes of a plain run. The batch goes through `nlp.pipe` as one batch per language, and
the sentence-aligner component encodes the batch's sentences together from an empty cache
(aligners/protocol.py); batch boundaries are a function of the input position alone
(engines.batches), and the encoder's vectors do not depend on the thread count."""

import importlib.util
import threading
from typing import Any, Dict, List, Sequence

from ..core import caches
from ..formats.alignments import alignment_record
from ..formats.jsonl import dump_line
from ..formats.pair_jsonl import PairRecord
from ..pipeline.build import alignment_pipeline, refresh_pipelines
from ..pipeline.doc_pair import pair_from_record, side_of
from .job import AlignJob, made_from

# A blank pipeline's vocab keeps every token string it has seen; rebuild it past this size
# so that memory stays flat over hundreds of thousands of pairs.
MAX_VOCAB = 300_000


_LOCK = threading.Lock()  # one batch at a time per process: the pipelines and caches are shared


def prepare_process(job: AlignJob) -> None:
    """Once per process: cap BLAS and encoder threads so that N processes share the cores."""
    if job.threads:
        caches.shared("process-threads", job.threads, lambda: _limit_threads(job.threads))


def _limit_threads(threads: int) -> bool:
    from ..similarity.backends import make_use_similarity
    from ..similarity.blas_threads import limit_the_process

    make_use_similarity().threads = threads
    # torch where it is installed: spaCy's thinc imports it, and transformer encoders use it
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(threads)
    limit_the_process(threads)  # for the life of the process
    return True


def output_record(record: PairRecord, doc) -> Dict[str, Any]:
    """The alignment JSONL object of one aligned Doc pair (FORMATS.md): sentences are
    included for the sides given as raw text."""
    sentences = {
        name: side_of(doc, name).sentences for name in ("complex", "simple") if not record.is_presegmented(name)
    }
    return alignment_record(record.id, doc._.beads, sentences.get("complex"), sentences.get("simple"))


def preload_encoders(nlp) -> None:
    """Start reading the sentence encoders' models in the background (the USE model: 0.6 s, most
    of it outside the interpreter's lock) while the batch's Doc pairs are built."""
    for _, component in nlp.pipeline:
        encoders = getattr(getattr(component, "aligner", None), "encoders", None)
        for encoder in encoders() if callable(encoders) else []:
            preload = getattr(encoder, "preload", None)
            if callable(preload):
                preload()


def align_records(records: Sequence[PairRecord], job: AlignJob) -> List[Dict[str, Any]]:
    """Align a batch of records in this process: one nlp.pipe batch per language."""
    with _LOCK:
        prepare_process(job)
        by_lang: Dict[str, List[int]] = {}
        for k, record in enumerate(records):
            by_lang.setdefault(record.lang, []).append(k)
        by_position: Dict[int, Dict[str, Any]] = {}
        vocab_sizes = []
        for lang, positions in by_lang.items():
            nlp = alignment_pipeline(lang, job.aligner, job.model, job.config())
            preload_encoders(nlp)
            docs = (pair_from_record(nlp, records[k]) for k in positions)
            for k, doc in zip(positions, nlp.pipe(docs, batch_size=len(positions))):
                by_position[k] = output_record(records[k], doc)
            vocab_sizes.append(len(nlp.vocab))
        if any(size > MAX_VOCAB for size in vocab_sizes):
            refresh_pipelines()
        caches.stats["batches"] = caches.stats.get("batches", 0) + 1
        caches.stats["pairs"] = caches.stats.get("pairs", 0) + len(records)
        return [by_position[k] for k in range(len(records))]


def align_batch(job: AlignJob, start: int, records: Sequence[PairRecord]):
    """Engine task: (start, [alignment JSONL line per record]) for the batch at `start`."""
    objects = align_records(records, job)
    settings = job.digest()
    return start, [dump_line(dict(obj, made_from=made_from(r, settings, obj))) for r, obj in zip(records, objects)]


def worker_stats() -> Dict[str, int]:
    """This process's counters (tests check that a worker builds its pipeline once)."""
    return dict(caches.stats)
