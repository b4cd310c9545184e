"""Output that survives being killed at any moment: lines go to OUTPUT.partial, each
written whole and fsynced per batch, beside a small OUTPUT.partial.json with the
settings that shape the output. `--resume` keeps the complete lines that match the
input's ids in order, cuts a torn or corrupt tail, and carries on; at the end the
partial file is renamed to OUTPUT, so OUTPUT itself is never half-written. `--resume` on a
finished run (no partial file, OUTPUT holding every input id in order) has nothing to do.

What a line was made from is checked too (each line's `made_from`, engines.job): a kept line
whose pair was edited since is aligned again, from the start of its batch (a batch's output
depends on all its records, so that the result is the bytes of an uninterrupted run on the
edited input); an OUTPUT made with other settings is refused, as a partial one is. Lines that do
not record the sentences they aligned (`made_from.sentences`: an older version wrote them) are
aligned again too, so that every line of the result can be checked against its pair's text.

OUTPUT given as a symbolic link is written through: the partial files lie beside the link's
target and the finished file replaces the target, so the link stays a link.

A full disk is an OutputError (one line, exit 2): a torn batch is cut off again at once, and a
partial output that holds no pair yet is removed.

What a run says it saved (`done`) is what the partial file holds: Ctrl+C or SIGTERM may land
anywhere, between a batch's bytes reaching the file and their being counted too, so the batch
being written is settled when the run stops (`abort`): counted when the file holds all of it,
else cut off. Where the file ends and how many lines it holds are one value (`saved`), set in
one step, so that settling never counts a batch twice."""

import fcntl
import json
import os
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from ..core.errors import InputError, OutputError, disk_full_reason
from ..formats.jsonl import atomic_output

# what --resume reads of the input: each pair's id and made_from digest, in input order
Expected = Iterable[Tuple[str, str]]


class InputIndex:
    """The input's (id, pair digest) in order, kept by the validation pass for resuming: the ids
    in a list and the digests (16 hex digits) packed as 8 bytes each, so that checking a saved
    output does not read the input again."""

    def __init__(self) -> None:
        self.ids: List[str] = []
        self.digests = bytearray()

    def add(self, pair_id: str, pair_digest: str) -> None:
        self.ids.append(pair_id)
        self.digests += bytes.fromhex(pair_digest)

    def __iter__(self) -> Iterator[Tuple[str, str]]:
        for k, pair_id in enumerate(self.ids):
            yield pair_id, self.digests[8 * k : 8 * k + 8].hex()


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


def line_source(obj: Dict[str, Any]) -> Tuple[Optional[str], Optional[str]]:
    """(pair digest, settings digest) an output line says it was made from (None where it does not)."""
    made = obj.get("made_from")
    if not isinstance(made, dict):
        return None, None
    return made.get("pair"), made.get("settings")


def records_sentences(obj: Dict[str, Any]) -> bool:
    """Does an output line record the sentences it aligned (`made_from.sentences`, engines.job)?"""
    made = obj.get("made_from")
    return isinstance(made, dict) and isinstance(made.get("sentences"), dict)


def complete_output(path: str, expected: Expected, settings: str) -> Tuple[Optional[int], Optional[str]]:
    """Is a finished OUTPUT what this run would write? (number of lines, None) when it holds
    exactly the input's ids, in order, each line whole JSON, made from these very pairs with
    these settings; (None, why) when it must be aligned again (why: None when it is absent or
    of another input). An OUTPUT made with other settings is an InputError, as for a partial one."""
    pairs = iter(expected)
    count, edited, unknown = 0, None, False
    try:
        with open(path, "rb") as handle:
            for raw, obj in whole_lines(handle):
                want = next(pairs, None)
                if raw is None or want is None or obj.get("id") != want[0]:
                    return None, None
                pair, made_with = line_source(obj)
                if made_with is None:
                    unknown = True
                elif made_with != settings:
                    raise InputError(
                        "cannot resume: this output was made with other settings (--method, --config, --model, "
                        "--batch-size); use the same options, or run without --resume to align again",
                        path,
                    )
                elif not records_sentences(obj):
                    unknown = True
                elif pair != want[1] and edited is None:
                    edited = (count + 1, obj["id"])
                count += 1
    except OSError:
        return None, None
    if next(pairs, None) is not None:
        return None, None
    if unknown:
        return None, "it does not say what it was made from (an older version wrote it): aligning all pairs again"
    if edited is not None:
        return None, f"pair {edited[1]!r} (line {edited[0]}) was edited since it was written: aligning all pairs again"
    return count, None


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
        """Every file a run that writes OUTPUT `path` may write: OUTPUT, its partial, its settings
        (for a symbolic link, they lie beside its target: see `real_files`)."""
        return [path, path + ".partial", path + ".partial.json"]

    @classmethod
    def real_files(cls, path: str) -> List[str]:
        """`files` of the file `path` names: the target of a symbolic link (written through)."""
        return cls.files(os.path.realpath(path) if os.path.islink(path) else path)

    def __init__(self, path: str, settings: Dict[str, Any], digest: str = ""):
        self.path, self.partial, self.meta = self.real_files(path)
        self.settings = settings
        self.digest = digest  # what each line's made_from.settings must say
        self.fd: Optional[int] = None
        self.saved: Tuple[int, int] = (0, 0)  # (bytes, lines) of the partial file: kept from before + written now
        self.writing: Optional[Tuple[int, int]] = None  # `saved` once the batch being written is in
        self.created = False
        self.edited: Optional[Tuple[int, str]] = None  # (line, id) of the first kept line whose pair changed
        self.older: Optional[int] = None  # the first line that does not record its sentences (an older version's)

    # -- opening ---------------------------------------------------------------------
    def open(self, expected: Expected, resume: bool = False) -> int:
        """Open for writing; returns the number of input records already done (0 unless
        resuming). `expected`: the input's (id, pair digest) in order (read only when resuming)."""
        if resume and os.path.exists(self.partial) and (os.path.exists(self.meta) or os.path.getsize(self.partial)):
            # (an empty partial file without settings: killed before its first write, start over)
            self._check_settings()
            self._lock(os.O_RDWR)
            self.saved = self._keep_valid_prefix(expected)
            return self.done
        self._lock(os.O_RDWR | os.O_CREAT)
        self.created = True
        try:
            os.ftruncate(self.open_fd, 0)
            self._write_meta()
        except BaseException as err:
            self.abort()  # nothing of this run is worth keeping: no empty partial left behind
            full = disk_full_reason(err)
            if full:
                raise OutputError(f"cannot write: {full} (nothing was written)", self.partial) from None
            raise
        return self.done

    @property
    def done(self) -> int:
        """Lines in the partial file: kept from before and written by this run."""
        return self.saved[1]

    @property
    def open_fd(self) -> int:
        """The partial file's descriptor, open from `open` until `finish` or `abort`."""
        if self.fd is None:
            raise RuntimeError(f"{self.partial} is not open: call open() first")
        return self.fd

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
            json.dump({"version": 2, "settings": self.settings}, handle, sort_keys=True)

    def _check_settings(self) -> None:
        try:
            with open(self.meta, encoding="utf-8") as handle:
                meta = json.load(handle)
            stored = meta.get("settings")
        except (OSError, ValueError, AttributeError):
            raise InputError(
                "cannot resume: its settings file is missing or unreadable (run again without --resume to start over)",
                self.meta,
            ) from None
        if meta.get("version") != 2:
            raise InputError(
                "cannot resume: an older version wrote this partial output (run again without --resume to start over)",
                self.partial,
            )
        if stored != self.settings:
            diff = ", ".join(
                f"{k}={stored.get(k)!r} (now {v!r})" for k, v in self.settings.items() if stored.get(k) != v
            )
            raise InputError(
                f"cannot resume with other settings: the partial output was written with {diff}; "
                "use the same options or run without --resume",
                self.partial,
            )

    def _keep_valid_prefix(self, expected: Expected) -> Tuple[int, int]:
        """(bytes, lines) of the complete lines that belong to this input, in order, and were
        made from its pairs as they are now; truncate the rest (a line torn by the kill, bytes
        that never reached the disk, and from the start of the batch of a pair edited since or of
        a line an older version wrote, which does not record its sentences)."""
        pairs = iter(expected)
        batch = max(1, int(self.settings.get("batch_size") or 1))
        offset = count = 0
        batch_offset = 0  # where the batch of line `count` starts
        with open(self.partial, "rb") as handle:
            for raw, obj in whole_lines(handle):
                if raw is None:
                    break
                want = next(pairs, None)
                if want is None or obj["id"] != want[0]:
                    raise InputError(
                        f"line {count + 1} has id {obj['id']!r} where the input has {want and want[0]!r}: "
                        "this partial output is not from this input (run without --resume to start over)",
                        self.partial,
                    )
                if count % batch == 0:
                    batch_offset = offset
                current = line_source(obj) == (want[1], self.digest)
                if not current or not records_sentences(obj):
                    if current:
                        self.older = count + 1
                    else:
                        self.edited = (count + 1, obj["id"])
                    offset, count = batch_offset, count - count % batch
                    break
                offset += len(raw)
                count += 1
        os.ftruncate(self.open_fd, offset)
        os.lseek(self.open_fd, offset, os.SEEK_SET)
        os.fsync(self.open_fd)
        return offset, count

    # -- writing ---------------------------------------------------------------------
    def write(self, lines: List[str]) -> None:
        """Append whole lines and make them durable before counting them as done; on a failed
        write (a full disk) the bytes of this batch are cut off again, so the partial output
        ends with whole lines only. Interrupted (KeyboardInterrupt, errors.Terminated) at any
        point, `abort` settles the batch (see the module docstring)."""
        if not lines:
            return
        data = "".join(lines).encode("utf-8")
        offset, count = self.saved
        self.writing = (offset + len(data), count + len(lines))
        try:
            write_all(self.open_fd, data)
            os.fsync(self.open_fd)
        except OSError:
            self.writing = None
            self._cut(offset)
            raise
        self.saved = self.writing
        self.writing = None

    def _cut(self, offset: int) -> None:
        """Cut the partial file back to `offset` bytes, where its last whole line ends."""
        try:
            os.ftruncate(self.open_fd, offset)
            os.lseek(self.open_fd, offset, os.SEEK_SET)
        except OSError:
            pass  # --resume cuts a torn tail as well

    def _settle(self) -> None:
        """After an interruption: the batch that was being written is counted when the file
        holds all of it (made durable first), else cut off; so `done` is what the file holds."""
        writing, self.writing = self.writing, None
        if writing is None or writing[0] <= self.saved[0]:
            return  # nothing in flight, or it was counted before the interruption
        try:
            if os.fstat(self.open_fd).st_size == writing[0]:
                os.fsync(self.open_fd)
                self.saved = writing
                return
        except OSError:
            pass
        self._cut(self.saved[0])

    def finish(self) -> None:
        """Move the complete file to OUTPUT and drop the settings file."""
        os.fsync(self.open_fd)
        os.replace(self.partial, self.path)
        fsync_directory(self.path)
        os.close(self.open_fd)
        self.fd = None
        try:
            os.unlink(self.meta)
        except OSError:
            pass

    def abort(self) -> bool:
        """After a failure: keep the partial output if it holds work (returns True), else remove it."""
        if self.fd is None:
            return False
        self._settle()
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
