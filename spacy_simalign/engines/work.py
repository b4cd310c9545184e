"""The unit of work every engine runs: align one fixed batch of pair records into
alignment JSONL lines, in any process (this one, a local pool worker, a Dask worker).

A batch's output depends on the batch's records only, never on what the process did
before: that is what makes a resumed run, an N-process run and a Dask run write
exactly the bytes of a plain run. Two things would otherwise leak history into the
output: the encoder's in-memory embedding cache and the micro-batching of the
sentence encoder (USE results differ in the last float bits with batch composition).
So each batch first clears the encoder cache, then encodes all the batch's sentences
together (this is also the encoder batching across pairs), and batch boundaries are a
function of the input position alone (engines.batches)."""
import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from ..formats import PairRecord, alignment_record, dump_line
from ..pair import pair_from_record, side_of
from ..pipeline import alignment_pipeline

ALIGNER_FACTORY = "simalign_sentence_aligner"
# A blank pipeline's vocab keeps every token string it has seen; rebuild it past this size
# so that memory stays flat over hundreds of thousands of pairs.
MAX_VOCAB = 300_000


@dataclass(frozen=True)
class AlignJob:
    """What to run on every batch: the sentence method, optional model, batch size and the
    BLAS/encoder threads each process may use (0: the libraries' default)."""

    method: str
    model: Optional[str] = None
    batch_size: int = 32
    threads: int = 0

    def settings(self) -> Dict[str, Any]:
        """The settings that change the output (recorded beside a partial output for --resume)."""
        return {"method": self.method, "model": self.model, "batch_size": self.batch_size}


_LOCK = threading.Lock()  # one batch at a time per process: the pipelines and caches are shared
_PREPARED: Dict[str, Any] = {}
STATS = {"batches": 0, "pairs": 0, "pipelines_built": 0}


def prepare_process(job: AlignJob) -> None:
    """Once per process: cap BLAS and encoder threads so that N processes share the cores."""
    if _PREPARED.get("threads") == job.threads:
        return
    _PREPARED["threads"] = job.threads
    if job.threads:
        from threadpoolctl import threadpool_limits

        _PREPARED["limits"] = threadpool_limits(job.threads)
        from ..similarity import make_use_similarity

        make_use_similarity().threads = job.threads
        try:
            import torch

            torch.set_num_threads(job.threads)
        except ImportError:  # pragma: no cover - torch is a dependency
            pass


def pipeline_for(lang: str, job: AlignJob):
    """The process's cached pipeline (built once per language, method and model)."""
    before = alignment_pipeline.cache_info().misses
    nlp = alignment_pipeline(lang, job.method, job.model)
    if alignment_pipeline.cache_info().misses != before:
        STATS["pipelines_built"] += 1
    return nlp


def aligner_position(nlp) -> int:
    """Index of the sentence aligner in the pipeline (the encoder is primed just before it)."""
    for k, name in enumerate(nlp.pipe_names):
        if nlp.get_pipe_meta(name).factory == ALIGNER_FACTORY:
            return k
    return len(nlp.pipe_names)


def sentence_encoder(component, job: AlignJob):
    """The sentence encoder the aligner uses, if it has one (an EmbeddingSimilarity)."""
    encoder = getattr(component, "encoder", None)
    if encoder is None and job.method == "crf":
        encoder = getattr(getattr(component, "aligner", None), "encoder", None)
    return encoder if hasattr(encoder, "encode") else None


def clear_encoder_cache(encoder) -> None:
    clear = getattr(encoder, "clear_cache", None)
    if clear is not None:
        clear()


def prime_encoder(encoder, sides) -> None:
    """Encode every sentence of the batch's sides in one call per language (first-seen order)."""
    by_lang: Dict[str, Dict[str, None]] = {}
    for side in sides:
        by_lang.setdefault(side.lang, {}).update(dict.fromkeys(side.sentences))
    for lang, texts in by_lang.items():
        if texts:
            encoder.encode(list(texts), lang)


def refresh_pipelines() -> None:
    """Drop the cached pipelines (and the other languages' tokenizers of pair.py) so that
    their vocabularies start empty again (the rebuilt aligners read their weights again)."""
    alignment_pipeline.cache_clear()
    from .. import pair

    tokenizers = getattr(pair, "_tokenizer_for", None)
    if hasattr(tokenizers, "cache_clear"):
        tokenizers.cache_clear()


def output_record(record: PairRecord, doc, sides) -> Dict[str, Any]:
    """The alignment JSONL object of one aligned Doc pair (FORMATS.md), its (complex, simple)
    sides as segmented: sentences are included for the sides given as raw text."""
    sentences = {name: side.sentences for name, side in zip(("complex", "simple"), sides)
                 if not record.is_presegmented(name)}
    return alignment_record(record.id, doc._.beads, sentences.get("complex"), sentences.get("simple"))


def align_records(records: Sequence[PairRecord], job: AlignJob) -> List[Dict[str, Any]]:
    """Align a batch of records in this process; see the module docstring for why the
    encoder cache is cleared and primed per batch."""
    with _LOCK:
        prepare_process(job)
        staged = []
        for record in records:
            nlp = pipeline_for(record.lang, job)
            cut = aligner_position(nlp)
            doc = pair_from_record(nlp, record)
            for _, proc in nlp.pipeline[:cut]:
                doc = proc(doc)
            # segmented once here: the aligner after `cut` sets beads, not sentences
            staged.append((nlp, cut, doc, (side_of(doc, "complex"), side_of(doc, "simple"))))
        encoders = {}
        for nlp, cut, _, _ in staged:
            if cut < len(nlp.pipeline):
                encoder = sentence_encoder(nlp.pipeline[cut][1], job)
                if encoder is not None:
                    encoders[id(encoder)] = encoder
        for encoder in encoders.values():
            clear_encoder_cache(encoder)
            prime_encoder(encoder, [side for *_, sides in staged for side in sides])
        out = []
        for record, (nlp, cut, doc, sides) in zip(records, staged):
            for _, proc in nlp.pipeline[cut:]:
                doc = proc(doc)
            out.append(output_record(record, doc, sides))
        for encoder in encoders.values():
            clear_encoder_cache(encoder)
        if any(len(nlp.vocab) > MAX_VOCAB for nlp, *_ in staged):
            refresh_pipelines()
        STATS["batches"] += 1
        STATS["pairs"] += len(records)
        return out


def align_batch(job: AlignJob, start: int, records: Sequence[PairRecord]):
    """Engine task: (start, [alignment JSONL line per record]) for the batch at `start`."""
    return start, [dump_line(obj) for obj in align_records(records, job)]


def worker_stats() -> Dict[str, int]:
    """This process's counters (tests check that a worker builds its model once)."""
    return dict(STATS)
