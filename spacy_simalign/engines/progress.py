"""The progress bar of long corpus runs (tqdm, which spaCy installs): items done, items/s and
ETA on stderr; shown only to a person watching a terminal, so logs and CI stay clean."""

import argparse
import os
import sys
from typing import Optional, TextIO


def interactive(stream: TextIO) -> bool:
    """Show progress only in a terminal, and not in CI or with SPACY_SIMALIGN_NO_PROGRESS set."""
    if os.environ.get("CI") or os.environ.get("SPACY_SIMALIGN_NO_PROGRESS"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def progress_bar(
    total: int, initial: int = 0, unit: str = "pairs", enabled: Optional[bool] = None, stream: Optional[TextIO] = None
):
    """A tqdm bar; `initial` items are already done (skipped by --resume: the rate counts only
    this run's); enabled=None decides from the stream (see `interactive`)."""
    from tqdm import tqdm

    stream = stream or sys.stderr
    show = interactive(stream) if enabled is None else enabled
    return tqdm(
        total=total,
        initial=initial,
        unit=f" {unit}",
        file=stream,
        disable=not show,
        dynamic_ncols=True,
        mininterval=0.5,
        smoothing=0.1,
    )


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """A command's --progress / --no-progress option (None: `interactive` decides)."""
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: only when stderr is a terminal and not in CI)",
    )
