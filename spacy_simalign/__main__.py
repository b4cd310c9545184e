"""`python -m spacy_simalign COMMAND ...`: finds the subcommands in spacy_simalign.commands.

Before a command runs, the paths it declares (its `paths(args)`) are checked by
outputs.check_paths: an output that cannot be written, or that is one of the inputs, stops
it before any work. Bad input (InputError) prints one line `error: FILE:LINE: what` and
exits with status 2, as does a full disk met anywhere (the writers that know their file name it:
errors.OutputError; this is the net below them)."""

import argparse
import atexit
import importlib
import os
import pkgutil
import sys
from typing import List, Optional

from . import commands
from .errors import InputError, OutputError, Terminated, is_disk_full
from .outputs import check_paths
from .terminal import safe


def build_parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """Every command's sub-parser; with `command`, only that one gets its arguments (the others'
    add_arguments import what they need for their defaults: docmatch's config, ...), so that a
    short job pays for no other command's imports (start-up, issue 25 item 15)."""
    parser = argparse.ArgumentParser(
        prog="python -m spacy_simalign", description="Align two versions of a text: paragraphs, sentences, documents."
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
    """Print the one line of a bad input or an unwritable output; its exit status (2)."""
    print(f"error: {safe(str(err), newlines=False)}", file=sys.stderr)
    return 2


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(command_of(argv))
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
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
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 141
    except OSError as err:  # after BrokenPipeError, an OSError too
        if not is_disk_full(err):
            raise
        return report(
            # a full disk's OSError has an errno, hence a strerror
            OutputError(f"cannot write: {err.strerror.lower()} (free some space, then run again)", err.filename)  # type: ignore[union-attr]
        )


def leave(code: int) -> None:
    """Exit with `code`, skipping the interpreter's teardown when nothing needs it: freeing a
    finished command's objects (spaCy's vocabularies, torch, the encoder's tables) takes 0.4-0.8 s
    of every short run (issue 23's speed target). The exit handlers still run (temporary folders,
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
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    leave(main())
