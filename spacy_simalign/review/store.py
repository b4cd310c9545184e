"""The pair JSONL file under review: read one pair for the page, and save its corrected
`gold` in place. A save rewrites the whole file atomically, changes only that pair's line
(every other byte, field and the line order stay as they were), and is refused when the
pair's gold changed since the page loaded it (another tab, another window, another tool).

Two review servers (or a server and another tool) may work on one file: each save reads,
changes and replaces the file under an exclusive lock on the file itself (fcntl.flock; after
the lock is taken the path must still name the locked file, since a save replaces it), and
the file must still be the version it read when it is replaced. Without the lock, two
servers saving different pairs each rewrote the file from their own reading and one of the
two saves was lost. A pairs file given as a symbolic link is written through to its target.

A save killed with SIGKILL can leave its temporary copy of the file (`.tmp-XXXXXXXXpairs.jsonl`,
beside it): the store removes such stale copies when it starts (formats.jsonl.clean_stale_temporaries:
only those no live save holds locked), and every save does as well."""

import fcntl
import hashlib
import json
import os
import threading
from contextlib import contextmanager
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..core.errors import InputError
from ..formats.alignments import load_alignments
from ..formats.bead_parser import parse_beads
from ..formats.jsonl import atomic_output, clean_stale_temporaries, dump_line
from ..formats.pair_jsonl import parse_pair
from ..formats.ranked import read_order
from .render import PairView, load_views, view_from_record


class Conflict(Exception):
    """The pair changed on disk since the client loaded it; `current` is what is there now."""

    def __init__(self, message: str, current: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.current = current


def gold_etag(gold) -> str:
    """A version tag of a pair's gold as saved: a hash of its canonical JSON (None when absent)."""
    text = json.dumps(gold, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def normalise_gold(gold: Any, n_complex: int, n_simple: int) -> List[List[List[int]]]:
    """Check beads sent by the page with the one bead rule (formats.beads, strict, as gold is
    read everywhere) and put them in a canonical order; InputError says what is wrong."""
    beads = parse_beads(gold, (n_complex, n_simple), "gold", strict=True)
    return sorted(([list(b.complex), list(b.simple)] for b in beads), key=lambda bead: (bead[0][0], bead[1][0]))


class PairStore:
    """Reads the pairs file afresh on every request, so what the page shows and what a save
    checks against is always what is on disk."""

    def __init__(self, pairs_path: str, alignments_path: Optional[str] = None, order_path: Optional[str] = None):
        self.path = pairs_path
        self.alignments_path = alignments_path
        self._lock = threading.Lock()
        clean_stale_temporaries(pairs_path)  # what a save killed with SIGKILL left
        # validate everything once at start, so a bad file fails with a located one-line error
        self.alignments = load_alignments(alignments_path) if alignments_path else {}
        views = load_views(pairs_path, alignments_path, self.alignments)
        self.ids = [v.id for v in views]
        # the order the page lists the pairs in (`rank`'s output): those ids first, the rest after
        self.order = read_order(order_path, self.ids, pairs_path) if order_path else {}

    # -------------------------------------------------------------- reading

    def _lines(self) -> List[bytes]:
        try:
            with open(self.path, "rb") as handle:
                return handle.readlines()
        except OSError as err:
            raise InputError(f"cannot read file: {err.strerror}", self.path) from None

    def _find(self, lines: Sequence[bytes], pair_id: str) -> Tuple[int, Dict[str, Any]]:
        for k, raw in enumerate(lines):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                raise InputError("invalid JSON", self.path, k + 1) from None
            if isinstance(obj, dict) and obj.get("id") == pair_id:
                return k, obj
        raise KeyError(pair_id)

    def summary(self) -> List[Dict[str, Any]]:
        """Each pair's id and whether it has gold yet / an aligner's beads: in the given order, then
        the other pairs in file order."""
        out = []
        for raw in self._lines():
            if raw.strip():
                obj = json.loads(raw)
                out.append(
                    {
                        "id": obj.get("id"),
                        "gold": obj.get("gold") is not None,
                        "alignment": obj.get("id") in self.alignments,
                    }
                )
        return sorted(out, key=lambda pair: self.order.get(pair["id"], len(self.order)))  # stable

    def view(self, pair_id: str) -> Tuple[PairView, str]:
        """The pair as the page shows it (gold if saved, else the aligner's beads) and its etag."""
        k, obj = self._find(self._lines(), pair_id)
        return self._view_of(k, obj), gold_etag(obj.get("gold"))

    def _view_of(self, k: int, obj: Dict[str, Any]) -> PairView:
        record = parse_pair(obj, self.path, k + 1)
        view = view_from_record(record, self.alignments.get(record.id))
        if record.gold is not None:
            view.beads, view.source = list(record.gold), "gold"
        return view

    # -------------------------------------------------------------- saving

    def save(self, pair_id: str, gold: Any, etag: str) -> Tuple[PairView, str]:
        """Write `gold` as the pair's gold if its saved gold still has version `etag`."""
        with self._lock, locked_file(self.path) as (target, handle):
            lines = handle.readlines()
            version = file_version(os.fstat(handle.fileno()))
            k, obj = self._find(lines, pair_id)
            current = gold_etag(obj.get("gold"))
            view = self._view_of(k, obj)
            if etag != current:
                raise Conflict(
                    f"pair '{pair_id}' was saved from another tab or window after this page loaded it; "
                    "your edits were not saved",
                    {"etag": current, **view.to_json()},
                )
            obj["gold"] = normalise_gold(gold, len(view.complex), len(view.simple))
            saved = self._view_of(k, obj)  # what training reads must accept it (parse_pair)
            ending = lines[k][len(lines[k].rstrip(b"\r\n")) :]
            lines[k] = dump_line(obj).rstrip("\n").encode("utf-8") + ending
            mode = os.stat(target).st_mode & 0o7777
            with atomic_output(target, "wb") as out:
                out.writelines(lines)
                if file_version(os.stat(target)) != version:  # written by a program that takes no lock
                    raise Conflict(
                        f"{os.path.basename(self.path)} was changed by another program while saving; "
                        "your edits were not saved: reload the pair",
                        {"etag": current, **view.to_json()},
                    )
            os.chmod(target, mode)
        return saved, gold_etag(obj["gold"])


def file_version(st: os.stat_result) -> Tuple[int, int, int, int]:
    """Which file and which content: device, inode, size, modification time (ns)."""
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


@contextmanager
def locked_file(path: str):
    """(resolved path, binary handle) of the file at `path` (through symbolic links), held under
    an exclusive flock; retried when the path was replaced while waiting for the lock."""
    target = os.path.realpath(path)
    while True:
        try:
            handle = open(target, "rb")
        except OSError as err:
            raise InputError(f"cannot read file: {err.strerror}", path) from None
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                same = os.path.samestat(os.fstat(handle.fileno()), os.stat(target))
            except FileNotFoundError:
                same = False
            if same:
                yield target, handle
                return
        finally:
            handle.close()  # closing releases the lock
