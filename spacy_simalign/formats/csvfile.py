"""CSV input (DEplain plan files, sentence-pair rows) read with the errors of FORMATS.md.

- UTF-8 with or without a byte-order mark: spreadsheet programs write one, and read as plain
  UTF-8 it would become part of the first column's name ("missing column(s) original").
- A field may hold up to MAX_FIELD_CHARS characters. Python's csv module stops at 128 KiB; a
  plan row's field is one sentence or a few joined ones, so a field beyond 1 MiB is a
  conversion error (a whole document in one cell) and is refused with its line.
- An error names the physical line where it occurred: csv's `line_num` counts the lines read
  completely, so the line being read when the error came is the next one."""

import contextlib
import csv
import io
from typing import Dict, Iterator, List, Sequence, Tuple

from ..core.errors import InputError
from .utf8 import read_utf8

MAX_FIELD_CHARS = 1 << 20


@contextlib.contextmanager
def field_limit(limit: int) -> Iterator[None]:
    """csv.field_size_limit raised to `limit` inside (it is the module's global setting)."""
    old = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(old)


def read_csv_rows(path: str, required: Sequence[str], what: str) -> List[Tuple[int, Dict[str, str]]]:
    """The rows of a CSV file with a header line, as (line number, row) pairs; the header must
    hold the `required` columns, and every row as many fields as the header. `what` names the
    expected file in the errors of an empty file or a missing column."""
    text = read_utf8(path)
    rows = []
    with field_limit(MAX_FIELD_CHARS):
        reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            if reader.fieldnames is None:
                raise InputError(f"empty file: expected {what} with a header line", path, 1)
            missing = [c for c in required if c not in reader.fieldnames]
            if missing:
                raise InputError(f"missing column(s) {', '.join(missing)} in the header (expected {what})", path, 1)
            for row in reader:
                line = reader.line_num
                if None in row or any(v is None for v in row.values()):
                    raise InputError(
                        f"row has {len(row) - (None in row)} fields, header has {len(reader.fieldnames)}", path, line
                    )
                rows.append((line, row))
        except csv.Error as err:
            raise InputError(f"malformed CSV ({err})", path, reader.line_num + 1) from None
    return rows
