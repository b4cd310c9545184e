"""`python -m spacy_simalign COMMAND ...`: finds the subcommands in spacy_simalign.commands.

Before a command runs, the paths it declares (its `paths(args)`) are checked by
outputs.check_paths: an output that cannot be written, or that is one of the inputs, stops
it before any work. Bad input (InputError) prints one line `error: FILE:LINE: what` and
exits with status 2, as does a full disk met anywhere (the writers that know their file name it:
errors.OutputError; this is the net below them).

Every entry point (`python -m spacy_simalign`, the `spacy-simalign` console script, `python -m
spacy simalign`) runs main, which ends by writing out standard output: output that could not be
written (standard output closed, a full disk) is one line on stderr and status 2; a reader that
went away (`| head`) ends the run quietly with status 141, as Unix tools do."""

import argparse
import atexit
import importlib
import io
import os
import pkgutil
import sys
from typing import List, Optional

from . import commands
from .core.errors import InputError, OutputError, Terminated, disk_full_reason, sigterm_as_exception
from .core.output_paths import check_paths
from .core.terminal_text import safe

PROG = "python -m spacy_simalign"


def build_parser(command: Optional[str] = None, prog: str = PROG) -> argparse.ArgumentParser:
    """Every command's sub-parser; with `command`, only that one gets its arguments (the others'
    add_arguments import what they need for their defaults: docmatch's config, ...), so that a
    short job pays for no other command's imports (a short run's start-up is mostly imports).
    `prog` is how the usage lines name the program: the way in that the user typed."""
    parser = argparse.ArgumentParser(
        prog=prog, description="Align two versions of a text: paragraphs, sentences, documents."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name)
    for info in modules:
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        if not hasattr(module, "NAME"):
            continue
        cmd = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        if module.NAME == command:  # the top-level help lists commands, not their arguments
            module.add_arguments(cmd)
        cmd.set_defaults(_run=module.run, _paths=getattr(module, "paths", None))
    return parser


def command_of(argv: List[str]) -> Optional[str]:
    """The command that `argv` names: its first word that is not an option (the top-level parser
    has no option but --help)."""
    return next((word for word in argv if not word.startswith("-")), None)


def report(err: InputError) -> int:
    """Print the one line of a bad input or an unwritable output (when stderr is open); its exit status (2)."""
    if sys.stderr is not None:  # print(file=None) would write to stdout
        print(f"error: {safe(str(err), newlines=False)}", file=sys.stderr)
    return 2


class ClosedOutput(io.TextIOBase):
    """Standard output when the process was started with it closed (`>&-`): what a command
    prints is noted, so that the run ends as one whose output could not be written."""

    def __init__(self):
        self.lost = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.lost = self.lost or bool(text)
        return len(text)


def discard_stdout() -> None:
    """Point file descriptor 1 at /dev/null, so that what is left in stdout's buffer goes nowhere
    (the interpreter's own flush at exit would fail again and print a traceback)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def written_out(code: int) -> int:
    """`code`, once standard output is written out; 2 with one line when it could not be (closed,
    a full disk, another write error; nothing more when the command already failed), 141 when its
    reader went away."""
    stream = sys.stdout
    if isinstance(stream, ClosedOutput):
        if stream.lost and code == 0:
            return report(OutputError("cannot write the output: standard output is closed"))
        return code
    try:
        stream.flush()
    except BrokenPipeError:
        discard_stdout()
        return code or 141
    except (OSError, ValueError) as err:
        discard_stdout()
        if code:
            return code
        reason = disk_full_reason(err) or str(getattr(err, "strerror", None) or err).lower()
        return report(OutputError(f"cannot write the output to standard output: {reason}"))
    return code


def program_name() -> str:
    """How this process was started, for the usage lines: the console script's name
    (`spacy-simalign`), else `python -m spacy_simalign`."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return PROG if not name or name.endswith(".py") else name


def main(argv: Optional[List[str]] = None, prog: Optional[str] = None) -> int:
    """Run the command that `argv` (default: the program's arguments) names; its exit status.
    `prog` names the program in usage lines (default: as the process was started)."""
    if sys.stdout is None:
        sys.stdout = ClosedOutput()
    if argv is None:
        argv, prog = sys.argv[1:], prog or program_name()
    return written_out(run_command(list(argv), prog or PROG))


def run_command(argv: List[str], prog: str = PROG) -> int:
    parser = build_parser(command_of(argv), prog)
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        with sigterm_as_exception():  # every command cleans up on SIGTERM as on Ctrl+C
            if args._paths is not None:
                check_paths(args._paths(args))
            return int(args._run(args) or 0)
    except InputError as err:
        return report(err)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("error: terminated (SIGTERM)", file=sys.stderr)
        return 143
    except BrokenPipeError:  # the reader of stdout went away (`... | head`): stop quietly, as Unix tools do
        discard_stdout()
        return 141
    except OSError as err:  # after BrokenPipeError, an OSError too
        reason = disk_full_reason(err)
        if reason is None:
            raise
        return report(OutputError(f"cannot write: {reason} (free some space, then run again)", err.filename))


def leave(code: int) -> None:
    """Exit with `code`, skipping the interpreter's teardown when nothing needs it: freeing a
    finished command's objects (spaCy's vocabularies, torch, the encoder's tables) takes longer than
    many a short command itself. The exit handlers still run (temporary folders,
    logging, coverage), then the standard streams are flushed; with a child process or a
    non-daemon thread alive, or SPACY_SIMALIGN_FULL_EXIT set, it exits the usual way."""
    import threading

    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    children = "multiprocessing" in sys.modules and sys.modules["multiprocessing"].active_children()
    if others or children or os.environ.get("SPACY_SIMALIGN_FULL_EXIT") or not hasattr(atexit, "_run_exitfuncs"):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:  # a stream the process was started without
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    leave(main())
