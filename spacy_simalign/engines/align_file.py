"""Aligning a pair JSONL file into an alignment JSONL file: the whole input is validated
first, then streamed in fixed batches through an engine, each batch's lines written whole to
OUTPUT.partial and fsynced (resume.PartialOutput), OUTPUT appearing only when the run is
complete. What `align` runs; usable from Python too."""
import sys
import time
from dataclasses import dataclass
from typing import Optional

from ..formats.pairs import read_pairs, validate_pairs
from ..outputs import Paths, check_paths
from ..progress import progress_bar
from ..resume import PartialOutput
from . import batches, make_engine
from .work import AlignJob


@dataclass
class AlignSummary:
    pairs: int
    aligned_now: int
    seconds: float


def align_file(input_path: str, output_path: str, job: AlignJob, engine: str = "local", n_process: int = 1,
               scheduler: Optional[str] = None, resume: bool = False, lang: Optional[str] = None,
               progress: Optional[bool] = None) -> AlignSummary:
    """Align every pair of `input_path` into `output_path` (see the module docstring); on a
    failure after some batches, the partial output is kept and a note on stderr says how to resume."""
    t0 = time.monotonic()
    check_paths(Paths([input_path], [output_path, output_path + ".partial", output_path + ".partial.json"]))
    total = validate_pairs(input_path, lang)
    output = PartialOutput(output_path, dict(job.settings(), lang=lang))
    # ids were checked unique by validate_pairs(): later reads need not hold them all again
    done = output.open((r.id for r in read_pairs(input_path, default_lang=lang, unique_ids=False)), resume=resume)
    bar = progress_bar(total, initial=done, enabled=progress)
    first = done
    try:
        with make_engine(engine, n_process, scheduler) as runner:
            stream = batches(read_pairs(input_path, default_lang=lang, unique_ids=False), job.batch_size, first=done)
            for start, lines in runner.map(job, stream):
                new = lines[max(0, done - start):]
                output.write(new)
                done += len(new)
                bar.update(len(new))
        output.finish()
    except BaseException:
        if output.abort():
            print(f"note: {output.done} of {total} pairs are saved in {output.partial}; "
                  "run again with --resume to continue", file=sys.stderr)
        raise
    finally:
        bar.close()
    return AlignSummary(total, done - first, time.monotonic() - t0)
