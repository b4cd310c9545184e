"""A whole UTF-8 text file read with one located error: spreadsheet programs and editors may
start a file with a byte-order mark, which is not part of the text."""

import codecs

from ..core.errors import InputError


def read_utf8(path: str) -> str:
    """The text of a UTF-8 file, without its byte-order mark if it has one. Bytes that are not
    UTF-8 are an InputError naming their line and byte offset in the file (counted with the
    mark): decoded whole, the offset is the file's, not that of a read buffer."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror}", path) from None
    skip = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as err:
        offset = skip + err.start
        raise InputError(f"not UTF-8 at byte offset {offset}", path, data.count(b"\n", 0, offset) + 1) from None
