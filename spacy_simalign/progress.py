"""A one-line progress display for long corpus runs: items done, items/s and ETA on
stderr, redrawn in place; silent when stderr is not a terminal or in CI, so logs stay clean."""
import os
import sys
import time
from typing import Optional, TextIO


def interactive(stream: TextIO) -> bool:
    """Show progress only to a person watching a terminal: not in CI, not when redirected."""
    if os.environ.get("CI") or os.environ.get("SPACY_SIMALIGN_NO_PROGRESS"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def format_duration(seconds: float) -> str:
    seconds = int(max(seconds, 0))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"


class Progress:
    """Counts finished items against a known total. `enabled=None` decides from the stream
    (see `interactive`); redraws at most every `interval` seconds. The rate counts only the
    items done in this run (`start` marks those skipped by --resume)."""

    def __init__(self, total: int, unit: str = "pairs", start: int = 0, enabled: Optional[bool] = None,
                 stream: TextIO = None, interval: float = 0.5):
        self.stream = stream or sys.stderr
        self.enabled = interactive(self.stream) if enabled is None else enabled
        self.total, self.unit, self.start, self.done = total, unit, start, start
        self.interval = interval
        self.t0 = time.monotonic()
        self._last = 0.0

    def rate(self) -> float:
        elapsed = time.monotonic() - self.t0
        return (self.done - self.start) / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        rate = self.rate()
        left = self.total - self.done
        eta = format_duration(left / rate) if rate > 0 else "--:--"
        pct = 100.0 * self.done / self.total if self.total else 100.0
        return f"{self.done}/{self.total} {self.unit} ({pct:.0f}%)  {rate:.1f} {self.unit}/s  ETA {eta}"

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self._last >= self.interval or self.done >= self.total):
            self._last = now
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            elapsed = format_duration(time.monotonic() - self.t0)
            self.stream.write("\r" + self.line().split("  ETA")[0] + f"  in {elapsed}\x1b[K\n")
            self.stream.flush()
