"""`align INPUT.jsonl OUTPUT.jsonl [--method NAME | --config FILE] [--model PATH] [--lang LANG]`:
pair JSONL in, alignment JSONL out (FORMATS.md), one output line per input line, in input
order. `align COMPLEX SIMPLE OUTPUT.jsonl --lang LANG` reads two text files or folders instead
(formats.text_files: the pairs that the `pairs` command writes). Built for corpora of hundreds of thousands of pairs: see engines.align_file (validate
first, stream in fixed batches through an engine, resumable, OUTPUT only when complete)."""

import os
import sys
from typing import Optional, Tuple

from ..aligners.methods import (
    DEFAULT_SENTENCE_METHOD,
    SENTENCE_METHODS,
    build_aligner,
    load_aligner_config,
    method_config,
)
from ..core.errors import InputError
from ..core.output_paths import Paths
from ..core.pair_kinds import KIND_ROUTINGS, PAIR_KINDS
from ..core.setting_checks import AT_LEAST_0, AT_LEAST_1, Options, check_settings
from ..core.terminal_text import say
from ..engines import ENGINES, AlignJob, EngineChoice
from ..engines.progress import add_progress_option
from ..engines.resume import PartialOutput
from .pairs import add_text_arguments, options_of

NAME = "align"
HELP = "Align the sentences of each complex/simple pair of a pair JSONL file."
DEFAULT_BATCH_SIZE = 32


USAGE = """%(prog)s PAIRS.jsonl OUTPUT.jsonl [options]
       %(prog)s COMPLEX SIMPLE OUTPUT.jsonl --lang LANG [--lang-simple LANG] [--one-sentence-per-line] [options]"""


def add_arguments(parser):
    parser.usage = USAGE
    parser.add_argument(
        "input",
        help="pair JSONL (FORMATS.md); `-` for standard input (a stream is read once); "
        "or COMPLEX, a text file or a folder of them",
    )
    parser.add_argument(
        "output", help="alignment JSONL to write (a symbolic link is written through); or SIMPLE, a text file or folder"
    )
    parser.add_argument(
        "text_output",
        nargs="?",
        default=None,
        metavar="OUTPUT",
        help="after COMPLEX and SIMPLE: the alignment JSONL to write (folders pair their files by stem)",
    )
    parser.add_argument(
        "--method",
        default=None,
        choices=sorted(SENTENCE_METHODS),
        help="sentence aligner by name (default: crf, the shipped neural CRF)",
    )
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="an [aligner] config instead of --method (any registered aligner and its settings; "
        "`init-config NAME` prints one to start from)",
    )
    parser.add_argument("--model", default=None, help="trained pipeline folder or CRF weights folder")
    parser.add_argument(
        "--pair-kind",
        default=None,
        choices=PAIR_KINDS,
        help="what the pairs are, for an aligner that routes them (crf): auto (default: two languages are a "
        "translation, one a simplification), translation, simplification, comparable",
    )
    parser.add_argument(
        "--lang", default=None, help="language of pairs that have no 'lang' field; of COMPLEX, for two text files"
    )
    add_text_arguments(parser)
    parser.add_argument(
        "--n-process",
        type=int,
        default=1,
        metavar="N",
        help="local worker processes (with --engine dask and no scheduler: LocalCluster workers)",
    )
    parser.add_argument(
        "--engine",
        default="local",
        choices=ENGINES,
        help="local (this machine) or dask (an existing cluster with --scheduler, else a LocalCluster)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (needs --engine dask)",
    )
    parser.add_argument(
        "--batch-size",
        type=int,
        default=DEFAULT_BATCH_SIZE,
        metavar="PAIRS",
        help=f"pairs per batch: the unit of encoding, scheduling and fsync (default {DEFAULT_BATCH_SIZE})",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="BLAS/encoder threads per process (default: the cores shared among the processes)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run from OUTPUT.partial (same options as the first run)",
    )
    add_progress_option(parser)


def text_paths(args) -> Optional[Tuple[str, str, str]]:
    """(COMPLEX, SIMPLE, OUTPUT) when align was given two text files or folders, else None."""
    return (args.input, args.output, args.text_output) if args.text_output is not None else None


def paths(args) -> Paths:
    """The input(s), the config and model it reads; OUTPUT and the files of a running align."""
    texts = text_paths(args)
    if texts:
        return Paths(
            inputs=[texts[0], texts[1], args.config, args.model],
            outputs=PartialOutput.files(texts[2]),
            document_folders=texts[:2],
        )
    return Paths(inputs=[args.input, args.config, args.model], outputs=PartialOutput.files(args.output))


OPTIONS = Options(batch_size=AT_LEAST_1, threads=AT_LEAST_0)


def check_options(args) -> EngineChoice:
    """The options checked before anything is read; returns the engine they choose (checked by EngineChoice)."""
    if args.method and args.config:
        raise InputError("give --method or --config, not both")
    check_settings(OPTIONS, {"batch_size": args.batch_size, "threads": args.threads}, True)
    engine = EngineChoice(args.engine, args.n_process, args.scheduler)
    if args.model and not os.path.exists(args.model):
        raise InputError(f"model not found: {args.model}")
    if args.pair_kind and args.model:
        raise InputError("--pair-kind goes with --method or --config (a saved model routes as it was saved)")
    if text_paths(args) is None and (args.lang_simple or args.one_sentence_per_line):
        option = "--lang-simple" if args.lang_simple else "--one-sentence-per-line"
        raise InputError(f"{option} is for two text files or folders: align COMPLEX SIMPLE OUTPUT")
    if text_paths(args) is not None and "-" in (args.input, args.output):
        raise InputError("`-` (standard input) is pair JSONL: align - OUTPUT; COMPLEX and SIMPLE are files or folders")
    return engine


def aligner_config_text(args) -> str:
    """The [aligner] config the run uses, as text, checked by building it once here (a bad name
    or setting fails before the input is read)."""
    if args.config:
        config = load_aligner_config(args.config)
        build_aligner(config, args.config)
        return with_pair_kind(config, args.pair_kind).to_str()
    return with_pair_kind(method_config(args.method or DEFAULT_SENTENCE_METHOD), args.pair_kind).to_str()


def align_job(args) -> AlignJob:
    """The run's settings as one object, its [aligner] config parsed once: what every batch runs."""
    job = AlignJob(
        aligner_config_text(args), os.path.abspath(args.model) if args.model else None, args.batch_size, args.threads
    )
    job.config()
    return job


def with_pair_kind(config, kind: Optional[str]):
    """The config with its aligner's [translations] routing by `kind` (crf/translations.py); an
    aligner without that routing takes no kind."""
    if kind is None:
        return config
    block = config["aligner"].get("translations")
    if not isinstance(block, dict):
        raise InputError(
            f"--pair-kind goes with an aligner that routes pairs by kind (crf), not {config['aligner'].get('@simalign_aligners')}"
        )
    kept = {k: v for k, v in block.items() if k not in ("@simalign_aligners", "length_ratio")}
    name = block.get("@simalign_aligners")
    # a saved length rule gives way to the routing by kind of its own decoder: its beads stay
    routing = name if name in KIND_ROUTINGS else KIND_ROUTINGS[0]
    config["aligner"]["translations"] = {"@simalign_aligners": routing, **kept, "pair_kind": kind}
    return config


def run(args) -> int:
    from ..engines.align_file import align_file

    engine = check_options(args)
    texts = text_paths(args)
    options = options_of(args) if texts else None
    job = align_job(args)
    if texts and options:
        from ..engines.text_input import text_pairs_file

        output = texts[2]
        with text_pairs_file(*texts, options, lambda message: print(message, file=sys.stderr)) as (path, shown):
            summary = align_file(path, output, job, engine, args.resume, args.lang, args.progress, paths_checked=True)
    else:
        output, shown = args.output, args.input
        summary = align_file(args.input, output, job, engine, args.resume, args.lang, args.progress, paths_checked=True)
    if summary.complete:
        say(
            f"{output} is complete: it holds all {summary.pairs} pairs of {shown}, nothing to resume "
            "(run without --resume to align again)",
            err=True,
        )
        return 0
    say(
        f"aligned {summary.aligned_now} of {summary.pairs} pairs ({summary.beads} beads) in {summary.seconds:.1f} s "
        f"-> {output}",
        err=True,
    )
    return 0
