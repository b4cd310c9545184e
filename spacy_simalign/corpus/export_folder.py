"""The folder an export is published in: all the export's files or none of them, and never mixed
with the files of another export.

Every file is first written into a staging folder beside the output folder (hidden, named
`.OUT.partial-XXXXXXXX`) and moved into place only once all of them are written: a failure (a
full disk, a write error) removes the staging folder and leaves the output folder as it was, or
absent. A folder that already holds an export (a data card of ours, or any file this
export writes) is refused unless `overwrite` is given; then the files of the earlier export, as its
data card lists them, are replaced or removed, and any other file in the folder (an input of this
export among them) is left alone. A run stopped while it writes (Ctrl+C, or SIGTERM, which the
command line turns into an exception) removes the staging folder too; one killed outright (SIGKILL)
leaves only that hidden folder."""

import os
import re
import shutil
import tempfile
from contextlib import contextmanager
from typing import Iterator, List, Sequence

from ..core.errors import InputError, OutputError, disk_full_reason, is_disk_full
from ..core.output_paths import same_file

CARD = "README.md"
CARD_MARK = "exported by spacy-simalign"  # what every data card says (export.data_card)
FILES_HEADING = "## Files"
LISTED = re.compile(r"^- `([^`/\\]+)`$")


def export_name(name: str) -> bool:
    """Can `name` be a file an export writes (its card, `hf_dataset`, a `pairs.*` file)? The names
    an earlier card lists are trusted only as far as this: a card edited to list `../x` or another
    file of the folder does not make --overwrite remove it."""
    return name in (CARD, "hf_dataset") or name.startswith("pairs.")


def listed_files(card_text: str) -> List[str]:
    """The file names the `## Files` section of a data card lists (export names only)."""
    names: List[str] = []
    inside = False
    for line in card_text.splitlines():
        if line.startswith("## "):
            inside = line.strip() == FILES_HEADING
            continue
        found = LISTED.match(line.strip()) if inside else None
        if found and export_name(found.group(1)):
            names.append(found.group(1))
    return names


def earlier_export(folder: str) -> List[str]:
    """The files of an earlier export in `folder` that are still there, as its data card lists
    them (the card included); [] when the folder holds no data card of ours."""
    card = os.path.join(folder, CARD)
    try:
        with open(card, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return []
    if CARD_MARK not in text:
        return []
    names = [CARD] + [n for n in listed_files(text) if n != CARD]
    return [n for n in dict.fromkeys(names) if os.path.lexists(os.path.join(folder, n))]


def check_free(folder: str, names: Sequence[str], overwrite: bool, card: bool = True) -> List[str]:
    """Refuse (InputError) a `folder` that holds another export, or any file of `names` (what this
    export writes), unless `overwrite`; the earlier export's files (earlier_export). `card`: the
    writer publishes a data card; a writer of other files (`klexikon`) passes False, and only its
    own `names` are refused and replaced, whatever else the folder holds."""
    if not os.path.isdir(folder):
        return []
    earlier = earlier_export(folder) if card else []
    clashing = list(dict.fromkeys(earlier + [n for n in names if os.path.lexists(os.path.join(folder, n))]))
    if clashing and not overwrite:
        shown = ", ".join(clashing[:4]) + (f" and {len(clashing) - 4} more" if len(clashing) > 4 else "")
        what = "files of another export" if earlier else f"files this {'export' if card else 'command'} writes"
        raise InputError(f"output folder holds {what} ({shown}): give --overwrite to replace them", folder)
    return earlier


def _staging_error(err: OSError, folder: str) -> InputError:
    full = disk_full_reason(err)
    if full:
        return OutputError(f"cannot write: {full} (nothing was written; free some space)", folder)
    return InputError(f"cannot write beside the output folder: {err.strerror}", folder)


def _missing_parents(path: str) -> List[str]:
    """The folders above `path` that do not exist, the highest first."""
    missing: List[str] = []
    parent = os.path.dirname(path)
    while parent and not os.path.exists(parent) and parent != os.path.dirname(parent):
        missing.insert(0, parent)
        parent = os.path.dirname(parent)
    return missing


def _place(staged: str, target: str) -> None:
    """Move one staged file (or the `hf_dataset` folder) to `target`; a symbolic link there is
    written through (its target gets the file, the link stays), as atomic_output does."""
    dest = os.path.realpath(target)
    if os.path.isdir(staged) and os.path.isdir(dest):
        shutil.rmtree(dest)
    try:
        os.replace(staged, dest)
    except OSError:  # a link to another file system: copied there
        shutil.move(staged, dest)


@contextmanager
def staged_export(
    folder: str, names: Sequence[str], overwrite: bool = False, inputs: Sequence[str] = (), card: bool = True
) -> Iterator[str]:
    """A staging folder to write an export's files into, moved to `folder` when the block ends
    without an error and removed when it fails (see the module docstring). `names`: the files
    this export writes, checked against the folder first (check_free, with `card`); `inputs`: files
    this export reads, never removed even where an earlier export's card lists them."""
    earlier = check_free(folder, names, overwrite, card)
    final = os.path.realpath(folder)
    created = _missing_parents(final)
    try:
        os.makedirs(os.path.dirname(final), exist_ok=True)
        stage = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.partial-", dir=os.path.dirname(final))
    except OSError as err:
        _remove_folders(created)
        raise _staging_error(err, folder) from None
    try:
        yield stage
        if not os.path.isdir(final):
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(stage, 0o777 & ~umask)  # mkdtemp makes a 0700 folder: give the output the usual mode
            os.replace(stage, final)
            return
        written = set(os.listdir(stage))
        for name in sorted(written):
            _place(os.path.join(stage, name), os.path.join(final, name))
        for name in earlier:
            path = os.path.join(final, name)
            if name not in written and not any(same_file(path, source) for source in inputs):
                _remove(path)
        os.rmdir(stage)
    except BaseException as err:
        shutil.rmtree(stage, ignore_errors=True)
        _remove_folders(created)
        if isinstance(err, OSError) and is_disk_full(err):
            raise _staging_error(err, folder) from None
        if isinstance(err, InputError) and err.path and os.path.realpath(err.path).startswith(stage + os.sep):
            inside = os.path.relpath(os.path.realpath(err.path), stage)  # named where it was to go
            raise type(err)(err.reason, os.path.join(folder, inside), err.line) from None
        raise


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _remove_folders(created: Sequence[str]) -> None:
    """Remove the folders this export created above its output, if they are still empty."""
    for path in reversed(created):
        try:
            os.rmdir(path)
        except OSError:
            break
