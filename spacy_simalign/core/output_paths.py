"""The check every command runs on its paths before it reads or aligns anything: each output
can be written where it is asked for, and no output is one of the command's inputs.

Why before any work: a command that aligned for minutes and then found its output folder
missing, or its output path a folder, would die with a traceback and leave partial files
behind; and a command whose output was its own input (`align same.jsonl same.jsonl`, an
`--output` naming the gold file) would replace the input with its results and exit 0. Identity
is checked through symbolic links (os.path.realpath) and hard links (st_dev and st_ino), and
two outputs of one command must differ too (`align-xling OUT --dropped OUT`).

A command that reads every file of a folder as a document (`pairs COMPLEX SIMPLE`, `align` of two
folders, `klexikon`) declares those folders: each of their files is an input (a symbolic link in
the folder stands for its target), and an output may not be written into one even as a new file,
since the next run would read it as one more document.

The installed package's own files (its weights, resources, templates, code) are inputs of every
run: no output and no output folder may be in the package's folder, whatever path names it (a
symbolic link to it, a folder above a link). Writing there would change what every later run on
that install aligns with. The shipped weights are written on purpose only by the project's
`train-crf` recipe (project/train_crf.py), which saves them through the library from a checkout
and declares no paths: nothing a command or engines.align_file writes goes there.

Commands declare their paths with a `paths(args) -> Paths` function; `__main__` runs
`check_paths` on them. Library functions that write (engines.align_file) call it as well."""

import os
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from .errors import InputError

# the installed package's folder (spacy_simalign/), symbolic links resolved
PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

# what stands for standard input as an input; as an output only a command that prints one
# stream takes it (rank --output), and it declares no output path for it
STDOUT = "-"


@dataclass
class Paths:
    """What a command reads and writes. `outputs`: files it writes (each replaced atomically);
    `folders`: folders it writes files into, created when missing (their files are listed in
    `outputs` too); `inputs`: files or folders it reads; `document_folders`: input folders whose
    every file is read as a document (a path there that is not a folder is ignored: the one-file
    form lists it in `inputs`). None entries (unset options) are ignored."""

    inputs: Sequence[Optional[str]] = field(default_factory=list)
    outputs: Sequence[Optional[str]] = field(default_factory=list)
    folders: Sequence[Optional[str]] = field(default_factory=list)
    document_folders: Sequence[Optional[str]] = field(default_factory=list)


def same_file(a: str, b: str) -> bool:
    """True when the two paths name one file: the same path after resolving symbolic links,
    or the same inode on the same device (a hard link, a bind mount)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def inside(path: str, folder: str) -> bool:
    """True when `path` is `folder` or in it, once symbolic links are resolved in both (a path
    that does not exist yet is resolved as far as it does)."""
    real, real_folder = os.path.realpath(path), os.path.realpath(folder)
    return real == real_folder or real.startswith(real_folder.rstrip(os.sep) + os.sep)


def check_outside_package(path: str, what: str = "output") -> None:
    """Refuse (InputError) a path to write that is in the installed package's folder: its files are
    inputs of every run (see the module docstring)."""
    if inside(path, PACKAGE):
        raise InputError(
            f"{what} is inside the installed spacy_simalign package ({PACKAGE}), whose files every run reads: "
            "write it elsewhere (nothing was written)",
            path,
        )


def _folder_file(out: str, folder: str) -> Optional[str]:
    """The file of `folder` that the output `out` would replace, or None: the same path once
    symbolic links are resolved (the output's, the folder's, its files'), or a hard link to it.
    Inodes are compared only for an output with several links: any other is known by its path."""
    real_out, real_folder = os.path.realpath(out), os.path.realpath(folder)
    try:
        stat = os.stat(out)
        inode = (stat.st_dev, stat.st_ino) if stat.st_nlink > 1 else None
    except OSError:
        inode = None
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    if not entry.is_file():  # through a link; a subfolder or a dangling link is no file
                        continue
                    linked = entry.is_symlink()
                    real = os.path.realpath(entry.path) if linked else os.path.join(real_folder, entry.name)
                    if real == real_out:
                        return entry.path
                    if inode is not None and (entry.stat().st_dev, entry.stat().st_ino) == inode:
                        return entry.path
                except OSError:
                    continue  # gone or unreadable: the command's reader says so, in its words
    except OSError:
        pass  # an unreadable folder: the command's reader says so
    return None


def _overwrites(out: str, source: str) -> InputError:
    """The error of an output that is the input `source` (named unless it is the same path)."""
    what = "the input" if os.path.abspath(source) == os.path.abspath(out) else f"the input {source}"
    return InputError(f"output would overwrite {what}: choose another output path (nothing was written)", out)


def _check_document_folder(out: str, folder: str) -> None:
    """An output that is one of the folder's files, or that would be a new file in it, stops the
    command (see the module docstring)."""
    source = _folder_file(out, folder)
    if source is not None:
        raise _overwrites(out, source)
    if os.path.dirname(os.path.realpath(out)) == os.path.realpath(folder):
        raise InputError(
            f"output is in the input folder {folder}, whose files are all read as documents (the next run "
            "would read it too): write it elsewhere (nothing was written)",
            out,
        )


def _nearest_existing(path: str) -> str:
    path = os.path.abspath(path)
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def _check_folder(folder: str) -> None:
    """A folder to write files into: a folder if it exists, else creatable (its nearest existing
    ancestor is a folder this process may write in)."""
    if os.path.exists(folder):
        if not os.path.isdir(folder):
            raise InputError("output folder is a file, not a folder", folder)
        if not os.access(folder, os.W_OK | os.X_OK):
            raise InputError("cannot write in output folder (permission denied)", folder)
        return
    ancestor = _nearest_existing(folder)
    if not os.path.isdir(ancestor):
        raise InputError(f"cannot create output folder: {ancestor} is a file", folder)
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise InputError(f"cannot create output folder: no permission to write in {ancestor}", folder)


def _check_output(path: str, folders: Iterable[str]) -> None:
    """A file to write: its folder exists (or is one the command creates) and is writable, and
    the path is not a folder or a device (an atomic replace would put a file in its place)."""
    if os.path.isdir(path):
        raise InputError("output path is a folder, not a file", path)
    if os.path.exists(path) and not os.path.isfile(path):
        raise InputError("output path exists and is not a regular file", path)
    directory = os.path.dirname(os.path.realpath(path))  # a link is written through to its target
    if any(directory == os.path.realpath(f) for f in folders):
        return
    if not os.path.isdir(directory):
        shown = directory if os.path.islink(path) else (os.path.dirname(path) or ".")
        raise InputError(f"output folder does not exist: {shown}", path)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"cannot write in the output folder {directory} (permission denied)", path)


def check_paths(paths: Paths) -> None:
    """Raise InputError (naming the output) when an output cannot be written, is in the installed
    package, or would overwrite an input or another output; see the module docstring."""
    inputs = [p for p in paths.inputs if p]
    outputs = [p for p in paths.outputs if p]
    folders = [p for p in paths.folders if p]
    documents = [p for p in paths.document_folders if p and os.path.isdir(p)]
    if STDOUT in outputs or STDOUT in folders:
        raise InputError(
            f"output '{STDOUT}' would be standard output, but this command's outputs are files written "
            "atomically (and resumable), which a stream cannot be: give a file name"
        )
    for folder in folders:
        check_outside_package(folder, "output folder")
    for out in outputs:
        check_outside_package(out)
    for folder in folders:
        _check_folder(folder)
        for source in inputs:
            if os.path.isfile(source) and same_file(folder, source):
                raise InputError(f"output folder is the input file {source}", folder)
    for k, out in enumerate(outputs):
        for source in inputs:
            if same_file(out, source):
                raise _overwrites(out, source)
        for folder in documents:
            _check_document_folder(out, folder)
        for other in outputs[:k]:
            if same_file(out, other):
                raise InputError(f"two outputs are the same file ({other} and {out})", out)
        _check_output(out, folders)
