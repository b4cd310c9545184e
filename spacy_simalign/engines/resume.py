"""Output that survives being killed at any moment: lines go to OUTPUT.partial, each
written whole and fsynced per batch, beside a small OUTPUT.partial.json with the
settings that shape the output. `--resume` keeps the complete lines that match the
input's ids in order, cuts a torn or corrupt tail, and carries on; at the end the
partial file is renamed to OUTPUT, so OUTPUT itself is never half-written. `--resume` on a
finished run (no partial file, OUTPUT holding every input id in order) has nothing to do."""

import fcntl
import json
import os
from typing import Any, Dict, Iterable, List, Optional

from ..errors import InputError
from ..formats.jsonl import atomic_output


def fsync_directory(path: str) -> None:
    fd = os.open(os.path.dirname(os.path.abspath(path)) or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def complete_output(path: str, expected_ids: Iterable[str]) -> Optional[int]:
    """The number of lines of a finished OUTPUT when it holds exactly the input's ids, in
    order, each line whole JSON (what a complete run wrote); None otherwise or when absent."""
    ids = iter(expected_ids)
    count = 0
    try:
        with open(path, "rb") as handle:
            for raw, obj in whole_lines(handle):
                if raw is None or obj.get("id") != next(ids, None):
                    return None
                count += 1
    except OSError:
        return None
    return count if next(ids, None) is None else None


def whole_lines(handle):
    """(raw bytes, object) of each line of an output file opened in binary, up to the first line
    that is not whole: torn (no newline), not UTF-8 JSON, or not an object with an id; that
    line is yielded as (None, None) and ends the stream."""
    for raw in handle:
        obj = None
        if raw.endswith(b"\n"):
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                pass
        if not isinstance(obj, dict) or "id" not in obj:
            yield None, None
            return
        yield raw, obj


class PartialOutput:
    """OUTPUT.partial + OUTPUT.partial.json for one run; see the module docstring."""

    @staticmethod
    def files(path: str) -> List[str]:
        """Every file a run that writes OUTPUT `path` may write: OUTPUT, its partial, its settings."""
        return [path, path + ".partial", path + ".partial.json"]

    def __init__(self, path: str, settings: Dict[str, Any]):
        self.path, self.partial, self.meta = self.files(path)
        self.settings = settings
        self.fd: Optional[int] = None
        self.done = 0  # lines in the partial file (kept from before + written now)
        self.created = False

    # -- opening ---------------------------------------------------------------------
    def open(self, expected_ids: Iterable[str], resume: bool = False) -> int:
        """Open for writing; returns the number of input records already done (0 unless
        resuming). `expected_ids` are the input ids in order (read only when resuming)."""
        if resume and os.path.exists(self.partial) and (os.path.exists(self.meta) or os.path.getsize(self.partial)):
            # (an empty partial file without settings: killed before its first write, start over)
            self._check_settings()
            self._lock(os.O_RDWR)
            self.done = self._keep_valid_prefix(expected_ids)
        else:
            self._lock(os.O_RDWR | os.O_CREAT)
            os.ftruncate(self.fd, 0)
            self.created = True
            self._write_meta()
        return self.done

    def _lock(self, flags: int) -> None:
        try:
            self.fd = os.open(self.partial, flags, 0o644)
        except OSError as err:
            raise InputError(f"cannot write output: {err.strerror}", self.partial) from None
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            self.fd = None
            raise InputError("another align run is writing this output", self.partial) from None

    def _write_meta(self) -> None:
        with atomic_output(self.meta) as handle:
            json.dump({"version": 1, "settings": self.settings}, handle, sort_keys=True)

    def _check_settings(self) -> None:
        try:
            with open(self.meta, encoding="utf-8") as handle:
                stored = json.load(handle).get("settings")
        except (OSError, ValueError, AttributeError):
            raise InputError(
                "cannot resume: its settings file is missing or unreadable (run again without --resume to start over)",
                self.meta,
            ) from None
        if stored != self.settings:
            diff = ", ".join(
                f"{k}={stored.get(k)!r} (now {v!r})" for k, v in self.settings.items() if stored.get(k) != v
            )
            raise InputError(
                f"cannot resume with other settings: the partial output was written with {diff}; "
                "use the same options or run without --resume",
                self.partial,
            )

    def _keep_valid_prefix(self, expected_ids: Iterable[str]) -> int:
        """Count the complete lines that belong to this input, in order; truncate the rest
        (a line torn by the kill, or bytes that never reached the disk)."""
        ids = iter(expected_ids)
        offset = count = 0
        with open(self.partial, "rb") as handle:
            for raw, obj in whole_lines(handle):
                if raw is None:
                    break
                expected = next(ids, None)
                if obj["id"] != expected:
                    raise InputError(
                        f"line {count + 1} has id {obj['id']!r} where the input has {expected!r}: "
                        "this partial output is not from this input (run without --resume to start over)",
                        self.partial,
                    )
                offset += len(raw)
                count += 1
        os.ftruncate(self.fd, offset)
        os.lseek(self.fd, offset, os.SEEK_SET)
        os.fsync(self.fd)
        return count

    # -- writing ---------------------------------------------------------------------
    def write(self, lines: List[str]) -> None:
        """Append whole lines and make them durable before counting them as done."""
        if not lines:
            return
        write_all(self.fd, "".join(lines).encode("utf-8"))
        os.fsync(self.fd)
        self.done += len(lines)

    def finish(self) -> None:
        """Move the complete file to OUTPUT and drop the settings file."""
        os.fsync(self.fd)
        os.replace(self.partial, self.path)
        fsync_directory(self.path)
        os.close(self.fd)
        self.fd = None
        try:
            os.unlink(self.meta)
        except OSError:
            pass

    def abort(self) -> bool:
        """After a failure: keep the partial output if it holds work (returns True), else remove it."""
        if self.fd is None:
            return False
        os.close(self.fd)
        self.fd = None
        if self.done == 0 and self.created:
            for path in (self.partial, self.meta):
                try:
                    os.unlink(path)
                except OSError:
                    pass
            return False
        return True
