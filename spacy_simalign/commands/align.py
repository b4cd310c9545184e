"""`align INPUT.jsonl OUTPUT.jsonl [--method NAME] [--model PATH] [--lang LANG]`: pair JSONL in,
alignment JSONL out (FORMATS.md), one output line per input line, in input order.

Built for corpora of hundreds of thousands of pairs: the input is validated first (a
bad line is reported as `error: FILE:LINE: what` before any work), then streamed in
fixed batches through an engine (this process, `--n-process N` local processes, or
`--engine dask`), with memory flat in the number of pairs. Lines are written whole to
OUTPUT.partial and fsynced per batch; a run killed at any moment continues with
`--resume` and ends with exactly the bytes of an uninterrupted run. OUTPUT appears only
when the run is complete."""
import argparse
import json
import os
import sys

from ..engines import ENGINES, AlignJob, batches, make_engine
from ..errors import InputError
from ..formats import read_pairs
from ..methods import DEFAULT_SENTENCE_METHOD, SENTENCE_METHODS
from ..progress import Progress
from ..resume import PartialOutput

NAME = "align"
HELP = "Align the sentences of each complex/simple pair of a pair JSONL file."
DEFAULT_BATCH_SIZE = 32


def add_arguments(parser):
    parser.add_argument("input", help="pair JSONL (FORMATS.md)")
    parser.add_argument("output", help="alignment JSONL to write")
    parser.add_argument("--method", default=DEFAULT_SENTENCE_METHOD, choices=sorted(SENTENCE_METHODS),
                        help="sentence aligner (default: crf, the shipped neural CRF)")
    parser.add_argument("--model", default=None, help="trained pipeline folder or CRF weights file")
    parser.add_argument("--lang", default=None, help="language of pairs that have no 'lang' field")
    parser.add_argument("--n-process", type=int, default=1, metavar="N",
                        help="local worker processes (with --engine dask and no scheduler: LocalCluster workers)")
    parser.add_argument("--engine", default="local", choices=ENGINES,
                        help="local (this machine) or dask (an existing cluster with --scheduler, else a LocalCluster)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (needs --engine dask)")
    parser.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, metavar="PAIRS",
                        help=f"pairs per batch: the unit of encoding, scheduling and fsync (default {DEFAULT_BATCH_SIZE})")
    parser.add_argument("--threads", type=int, default=0,
                        help="BLAS/encoder threads per process (default: the cores shared among the processes)")
    parser.add_argument("--resume", action="store_true",
                        help="continue an interrupted run from OUTPUT.partial (same options as the first run)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="progress bar on stderr (default: only when stderr is a terminal and not in CI)")


def validate(path: str, default_lang: str = None) -> int:
    """Read the whole input once: every line must be a valid pair with a unique id, and
    every string must be writable as UTF-8 (a JSON escape can smuggle in a lone
    surrogate). Returns the number of pairs."""
    count = last = 0
    try:
        for record in read_pairs(path, default_lang=default_lang):
            try:
                json.dumps(record.raw, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError as err:
                raise InputError(f"text is not valid Unicode (lone surrogate \\u{ord(err.object[err.start]):04x})",
                                 path, record.line) from None
            count, last = count + 1, record.line
    except RecursionError:  # json.loads on thousands of nested brackets
        raise InputError("invalid JSON (nested too deeply)", path, next_content_line(path, last)) from None
    return count


def next_content_line(path: str, after: int) -> int:
    """The number of the first non-blank line after line `after`."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number > after and raw.strip():
                return number
    return after + 1


def check_options(args) -> None:
    if args.batch_size < 1:
        raise InputError(f"--batch-size must be at least 1, got {args.batch_size}")
    if args.threads < 0:
        raise InputError(f"--threads must be 0 or more, got {args.threads}")
    if args.model and not os.path.exists(args.model):
        raise InputError(f"model not found: {args.model}")
    if args.scheduler and args.engine != "dask":
        raise InputError("--scheduler needs --engine dask")
    if args.n_process < 1:
        raise InputError(f"--n-process must be at least 1, got {args.n_process}")


def run(args) -> int:
    check_options(args)
    total = validate(args.input, args.lang)
    model = os.path.abspath(args.model) if args.model else None
    job = AlignJob(args.method, model, args.batch_size, args.threads)
    output = PartialOutput(args.output, dict(job.settings(), lang=args.lang))
    # ids were checked unique by validate(): later reads need not hold them all again
    done = output.open((r.id for r in read_pairs(args.input, default_lang=args.lang, unique_ids=False)),
                       resume=args.resume)
    progress = Progress(total, start=done, enabled=args.progress)
    try:
        with make_engine(args.engine, args.n_process, args.scheduler) as engine:
            stream = batches(read_pairs(args.input, default_lang=args.lang, unique_ids=False), job.batch_size,
                             first=done)
            for start, lines in engine.map(job, stream):
                new = lines[max(0, done - start):]
                output.write(new)
                progress.update(len(new))
        output.finish()
    except BaseException:
        if output.abort():
            print(f"note: {output.done} of {total} pairs are saved in {output.partial}; "
                  "run again with --resume to continue", file=sys.stderr)
        raise
    finally:
        progress.close()
    return 0
