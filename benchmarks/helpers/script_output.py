"""The tables the scripts of the benchmarks and the lab print, also written to a file (their
`--output FILE` option): a spaCy project command needs an output file to record, and weasel runs a
script without a shell, so without `> FILE`; and their `--set` and `--json FILE` options. Their
commands put this folder on PYTHONPATH; the user's project has its own (project/script_options.py)."""

import argparse
import contextlib
import json
import os
import sys

from spacy_simalign.formats.jsonl import atomic_output


class _Both:
    """A text stream that writes to two streams (the terminal and the report file). The file is
    flushed at each write: a child forked later (multiprocessing flushes the streams it inherits
    when it ends) then holds no buffered text to write a second time."""

    def __init__(self, first, second):
        self.first, self.second = first, second

    def write(self, text: str) -> int:
        self.second.write(text)
        self.second.flush()
        return self.first.write(text)

    def flush(self) -> None:
        self.first.flush()
        self.second.flush()

    def __getattr__(self, name):  # isatty, encoding, fileno...: the terminal's
        return getattr(self.first, name)


class _Failed(Exception):
    """A script's main returned a non-zero status: its report is not kept."""


@contextlib.contextmanager
def printed_to(path):
    """Inside, what is printed to stdout also goes to `path` (its folder created), which is replaced
    only when the block ends without an error; with `path` None, nothing changes."""
    if not path:
        yield
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_output(str(path)) as handle, contextlib.redirect_stdout(_Both(sys.stdout, handle)):
        yield


def run_main(main, argv=None) -> int:
    """`main(argv)` of a script whose parser has an `--output FILE` option: what it prints is also
    written to FILE, kept only when main returns 0 (a failed run leaves the old report in place)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    peek = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    peek.add_argument("--output", default=None)
    path = peek.parse_known_args(argv)[0].output
    try:
        with printed_to(path):
            status = main(argv)
            if status and path:
                raise _Failed(status)
    except _Failed as failed:
        return failed.args[0]
    return status


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


def write_json(path, value) -> None:
    """A script's `--json FILE` figures: indented JSON, its folder created, the file replaced only
    when whole (nothing half-written if the disk fills)."""
    if not path:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_output(str(path)) as handle:
        handle.write(json.dumps(value, indent=2) + "\n")
