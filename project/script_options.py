"""The options that train_crf.py and eval_adapt_folds.py share: `--set KEY=VALUE`, `--output FILE`
(what the script prints, also kept in FILE: weasel runs a script without a shell, so without
`> FILE`) and `--json FILE`, and the seeded folds by document. The user's project imports nothing
from benchmarks/ or lab/; their scripts have the same in benchmarks/helpers/ (script_output.py,
gold_folds.py), whose folds tests/test_project.py checks to be these."""

import argparse
import contextlib
import io
import json
import os
import random
import sys
from typing import List

from spacy_simalign.formats.jsonl import atomic_output


def setting(text: str):
    """KEY=VALUE of a script's --set, the value read as JSON (a bare word is a string): an argparse type."""
    key, _, value = text.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def add_set_option(parser: argparse.ArgumentParser, help: str) -> None:
    """A script's repeatable `--set KEY=VALUE` option (values read by `setting`), into args.set."""
    parser.add_argument("--set", action="append", default=[], type=setting, metavar="KEY=VALUE", help=help)


def add_output_option(parser: argparse.ArgumentParser) -> None:
    """The `--output FILE` option that run_main reads."""
    parser.add_argument(
        "--output",
        default=None,
        metavar="FILE",
        help="also write what is printed to FILE (kept only when the run succeeds)",
    )


class _Copy(io.StringIO):
    """Stdout kept in memory while it goes on to the terminal."""

    def __init__(self, terminal):
        super().__init__()
        self.terminal = terminal

    def write(self, text: str) -> int:
        self.terminal.write(text)
        return super().write(text)

    def flush(self) -> None:
        self.terminal.flush()

    def isatty(self) -> bool:
        return self.terminal.isatty()


def run_main(main, argv=None) -> int:
    """`main(argv)` of a script whose parser has an `--output FILE` option: what it prints is also
    written to FILE, only when main returns 0 (a failed run leaves the old report in place)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    peek = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    peek.add_argument("--output", default=None)
    path = peek.parse_known_args(argv)[0].output
    if not path:
        return main(argv)
    printed = _Copy(sys.stdout)
    with contextlib.redirect_stdout(printed):
        status = main(argv)
    if not status:
        _write(path, printed.getvalue())
    return status


def write_json(path, value) -> None:
    """A script's `--json FILE` figures, indented; nothing without a path."""
    if path:
        _write(path, json.dumps(value, indent=2) + "\n")


def _write(path, text: str) -> None:
    """`text` into `path`, its folder created, the file replaced only when whole."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_output(str(path)) as handle:
        handle.write(text)


def folds_of(n: int, k: int, seed: int) -> List[List[int]]:
    """k test folds of the indices 0..n-1: a seeded shuffle dealt out round-robin, each fold sorted."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [sorted(order[f::k]) for f in range(k)]
