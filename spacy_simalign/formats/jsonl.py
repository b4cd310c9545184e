"""JSON Lines plumbing every format shares: decoded lines with their numbers, one JSON
object per line with a located error, and atomic output files (a failed run leaves no
half-written file and an existing one untouched)."""

import fcntl
import json
import os
import sys
import tempfile
import time
import unicodedata
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Tuple

from ..core.errors import InputError, OutputError, disk_full_reason, is_disk_full


def iter_lines(path: str) -> Iterator[Tuple[int, str]]:
    """Yield (line number, decoded line) of a UTF-8 file, skipping blank lines; a line that
    is not UTF-8 is an InputError naming the line and the byte offset in the file."""
    try:
        handle = open(path, "rb")
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror}", path) from None
    offset = 0
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(f"not UTF-8 at byte offset {offset + err.start}", path, number) from None
            offset += len(raw)
            if text.strip():
                yield number, text


def json_error_place(err: json.JSONDecodeError) -> str:
    """What json found wrong and its column: some of its messages end with " at" and expect the
    position after them ("Invalid control character at column 64"), the others take it after a
    comma ("Expecting value, column 21")."""
    joint = " " if err.msg.endswith(" at") else ", "
    return f"{err.msg}{joint}column {err.colno}"


def parse_json_line(text: str, path: str, number: int) -> Dict[str, Any]:
    """One JSON object; anything else (invalid, too deeply nested, not an object) is a located error."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON ({json_error_place(err)})", path, number) from None
    except RecursionError:
        raise InputError("invalid JSON (nested too deeply)", path, number) from None
    except ValueError as err:  # e.g. an integer of thousands of digits
        message = str(err).splitlines()[0]
        if "integer string conversion" in message:
            message = f"a number of more than {sys.get_int_max_str_digits()} digits"
        raise InputError(f"invalid JSON ({message[:120]})", path, number) from None
    if not isinstance(obj, dict):
        raise InputError(f"expected a JSON object, got {type(obj).__name__}", path, number)
    return obj


def read_jsonl(path: str) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """Stream (line number, object) from any JSONL file, with located errors."""
    for number, text in iter_lines(path):
        yield number, parse_json_line(text, path, number)


def id_key(value: str) -> str:
    """What makes two ids the same: equal after Unicode NFC normalisation ("é" typed as one code
    point or as e + combining accent is one id; two such lines are duplicates)."""
    return unicodedata.normalize("NFC", value)


def duplicate_id_message(value: str, first_line: int, first_value: str) -> str:
    """The error for an id met before (on `first_line`, 0 when not read from a file, written
    `first_value`)."""
    notes = [f"first on line {first_line}"] if first_line else []
    if value != first_value:
        notes.append("written with other Unicode code points: the same id once normalised, NFC")
    return f"duplicate id '{value}'" + (f" ({', '.join(notes)})" if notes else "")


class UniqueIds:
    """Refuses a repeated id while a file is read line by line (ids compared by `id_key`)."""

    def __init__(self, path: str):
        self.path = path
        self.seen: Dict[str, Tuple[int, str]] = {}  # id_key: (line, id as written)

    def check(self, value: str, number: int) -> None:
        """`number`: the line of `value` (0 for a record not read from a file)."""
        key = id_key(value)
        if key in self.seen:
            raise InputError(duplicate_id_message(value, *self.seen[key]), self.path, number or None)
        self.seen[key] = number, value


def dump_line(obj: Dict[str, Any]) -> str:
    """One JSONL line (UTF-8 text as it is, not \\u-escaped)."""
    return json.dumps(obj, ensure_ascii=False) + "\n"


def check_unicode(obj: Any, path: str, number: int) -> None:
    """Every string must be writable as UTF-8: a JSON escape can smuggle in a lone surrogate."""
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as err:
        raise InputError(
            f"text is not valid Unicode (lone surrogate \\u{ord(err.object[err.start]):04x})", path, number
        ) from None


TEMP_PREFIX = ".tmp-"
STALE_AFTER_S = 60.0  # a temporary copy older than this and locked by no process is a killed run's


def temporary_name(name: str, target_name: str) -> bool:
    """Is `name` one of atomic_output's temporary copies of `target_name` (.tmp-XXXXXXXX<name>)?"""
    return name.startswith(TEMP_PREFIX) and name.endswith(target_name) and len(name) == len(target_name) + 13


def clean_stale_temporaries(path: str) -> List[str]:
    """Remove the temporary copies of `path` that a killed writer left (SIGKILL between creating
    one and moving it into place): those no live writer holds locked and older than
    STALE_AFTER_S. Returns the removed paths; a copy that cannot be removed is left alone."""
    target = os.path.realpath(path)
    directory, base = os.path.dirname(target) or ".", os.path.basename(target)
    removed: List[str] = []
    try:
        names = [n for n in os.listdir(directory) if temporary_name(n, base)]
    except OSError:
        return removed
    now = time.time()
    for name in names:
        tmp = os.path.join(directory, name)
        try:
            fd = os.open(tmp, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held by a writer still at work: not stale
            st = os.fstat(fd)
            if now - st.st_mtime > STALE_AFTER_S and os.path.samestat(st, os.stat(tmp)):
                os.unlink(tmp)
                removed.append(tmp)
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


@contextmanager
def atomic_output(path: str, mode: str = "w"):
    """Write to a temporary file beside `path` and move it into place only on success,
    so a failed run leaves no half-written output (and an existing file untouched). A
    symbolic link is written through: its target gets the new content, the link stays.

    The temporary copy is locked (flock) while it is written, so that the next writer of the
    same file can tell a killed run's leftover from a copy in progress and remove it
    (clean_stale_temporaries). A full disk is an OutputError naming `path`: one line, exit 2."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target) or "."
    if not os.path.isdir(directory):
        raise InputError(f"output folder does not exist: {directory}", path)
    if os.path.isdir(target):
        raise InputError("output path is a folder, not a file", path)
    clean_stale_temporaries(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, suffix=os.path.basename(target), dir=directory)
    except OSError as err:
        raise _write_error(err, path) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(handle.fileno(), 0o666 & ~umask)  # mkstemp makes 0600 files: give the output the usual mode
            os.replace(tmp, target)  # still locked until the handle closes: never an unlocked copy
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(err, OSError) and is_disk_full(err):
            raise _write_error(err, path) from None
        raise


def _write_error(err: OSError, path: str) -> InputError:
    full = disk_full_reason(err)
    if full:
        return OutputError(f"cannot write: {full} (nothing was written; free some space)", path)
    return InputError(f"cannot write output: {err.strerror}", path)


def write_jsonl(path: str, objects) -> int:
    """Write objects as JSONL atomically; returns how many lines were written."""
    count = 0
    with atomic_output(path) as handle:
        for obj in objects:
            handle.write(dump_line(obj))
            count += 1
    return count
