"""Aligning a pair JSONL file into an alignment JSONL file: the whole input is validated
first, then streamed in fixed batches through an engine, each batch's lines written whole to
OUTPUT.partial and fsynced (resume.PartialOutput), OUTPUT appearing only when the run is
complete. What `align` runs; usable from Python too.

A run stopped by Ctrl+C or SIGTERM (a job scheduler's stop, `kill`) keeps its partial
output and says on stderr how to resume; `--resume` on a finished run has nothing to do."""

import json
import os
import sys
import time
from dataclasses import dataclass
from typing import Optional

from ..core.errors import OutputError, disk_full_reason, sigterm_as_exception
from ..core.output_paths import Paths, check_paths
from ..core.terminal_text import say
from ..formats.pair_jsonl import read_pairs, validate_pairs
from . import EngineChoice, batches, make_engine
from .job import pair_digest
from .progress import progress_bar
from .resume import InputIndex, PartialOutput, complete_output
from .stream_input import rereadable
from .work import AlignJob


@dataclass
class AlignSummary:
    """What a run did: input pairs, pairs aligned by this run and their beads, wall seconds;
    `complete` when --resume found OUTPUT already finished."""

    pairs: int
    aligned_now: int
    seconds: float
    beads: int = 0
    complete: bool = False


def align_file(
    input_path: str,
    output_path: str,
    job: AlignJob,
    engine: EngineChoice = EngineChoice(),
    resume: bool = False,
    lang: Optional[str] = None,
    progress: Optional[bool] = None,
    paths_checked: bool = False,
) -> AlignSummary:
    """Align every pair of `input_path` (`-`: standard input; a stream is read once, see
    stream_input) into `output_path` (see the module docstring); on a failure after some
    batches, the partial output is kept and a note on stderr says how to resume. The paths are
    checked first (output_paths.check_paths) unless the caller did (`paths_checked`: the command
    line checks every command's paths before it runs)."""
    t0 = time.monotonic()
    if not paths_checked:
        check_paths(Paths([input_path], PartialOutput.files(output_path)))
    spool_dir = os.path.dirname(PartialOutput.real_files(output_path)[0])
    with rereadable(input_path, spool_dir) as (path, shown):
        summary = _align(path, shown, output_path, job, engine, resume, lang, progress)
    summary.seconds = time.monotonic() - t0
    return summary


def _align(path, shown, output_path, job, engine, resume, lang, progress) -> AlignSummary:
    """align_file on an input that can be read several times (`path`, named `shown` in messages)."""

    # Two passes over the input: this one checks every line before any work and, when resuming, keeps
    # each pair's id and digest (what the saved output is checked against); the alignment pass reads
    # the pairs again, one batch at a time.
    expected = InputIndex()
    keep = (lambda record: expected.add(record.id, pair_digest(record))) if resume else None
    total = validate_pairs(
        path, lang, warn=lambda message: print(message.replace(path, shown), file=sys.stderr), each=keep
    )
    output = PartialOutput(output_path, dict(job.settings(), lang=lang), job.digest())
    if resume and not os.path.exists(output.partial):
        done, why = complete_output(output_path, expected, job.digest())
        if done is not None:
            return AlignSummary(total, 0, 0.0, complete=True)
        if why:
            print(f"note: {output_path}: {why}", file=sys.stderr)
    done = output.open(expected, resume=resume)
    if output.edited:
        line, pair_id = output.edited
        print(
            f"note: {output.partial}: pair {pair_id!r} (line {line}) was edited since it was aligned: "
            f"aligning again from pair {done + 1}",
            file=sys.stderr,
        )
    if output.older:
        print(
            f"note: {output.partial}: line {output.older} does not record the sentences it aligned (an older "
            f"version wrote it): aligning again from pair {done + 1}",
            file=sys.stderr,
        )
    bar = progress_bar(total, initial=done, enabled=progress)
    first, beads = done, 0
    try:
        with sigterm_as_exception(), make_engine(engine) as runner:
            stream = batches(read_pairs(path, default_lang=lang, unique_ids=False), job.batch_size, first=done)
            for start, lines in runner.map(job, stream):
                new = lines[max(0, done - start) :]
                output.write(new)
                done += len(new)
                beads += sum(len(json.loads(line)["alignments"]) for line in new)
                bar.update(len(new))
        output.finish()
    except BaseException as err:
        kept = output.abort()
        full = disk_full_reason(err)
        if full:
            saved = (
                f"{output.done} of {total} pairs are saved in {output.partial}: free some space, then run again "
                "with --resume to continue"
                if kept
                else "nothing was written"
            )
            raise OutputError(f"cannot write: {full}; {saved}", output.path) from None
        if kept:
            say(
                f"note: {output.done} of {total} pairs are saved in {output.partial}; "
                "run again with --resume to continue",
                err=True,
            )
        raise
    finally:
        bar.close()
    return AlignSummary(total, done - first, 0.0, beads)
