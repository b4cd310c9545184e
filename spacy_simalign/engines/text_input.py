"""`align COMPLEX SIMPLE OUTPUT`: the pair JSONL of two text files or folders (formats.text_files),
written whole into an anonymous spool file in OUTPUT's folder before anything is aligned (every file
read and checked, nothing written on bad input), then aligned from there as any pair JSONL file."""

import os
from contextlib import contextmanager
from typing import Callable, Iterator, Tuple

from ..core.errors import InputError, OutputError, is_disk_full
from ..formats.jsonl import dump_line
from ..formats.text_files import TextOptions, read_text_pairs
from .resume import PartialOutput
from .stream_input import _spool_file


def shown_name(complex_path: str, simple_path: str) -> str:
    """How messages name the input of the two-file form."""
    return f"{complex_path} + {simple_path}"


@contextmanager
def text_pairs_file(
    complex_path: str, simple_path: str, output_path: str, options: TextOptions, warn: Callable[[str], None]
) -> Iterator[Tuple[str, str]]:
    """(a pair JSONL path to align, the name to show for it) of two text files or folders; the
    file lives beside OUTPUT's partial files and disappears with the context."""
    spool_dir = os.path.dirname(PartialOutput.real_files(output_path)[0]) or "."
    shown = shown_name(complex_path, simple_path)
    handle, path = _spool_file(spool_dir)
    with handle:
        try:
            for obj in read_text_pairs(complex_path, simple_path, options, warn):
                handle.write(dump_line(obj).encode("utf-8"))
            handle.flush()
        except OSError as err:
            if is_disk_full(err):
                raise OutputError(
                    f"cannot spool the pairs here: {(err.strerror or str(err)).lower()}", spool_dir
                ) from None
            raise
        try:
            yield path, shown
        except InputError as err:
            if err.path != path:
                raise
            raise type(err)(err.reason, shown, err.line) from None
