"""Sentence-pair rows in CSV (`export --rows`, `anonymise`) are read by the package's one CSV
reader: a byte-order mark, as spreadsheet programs write it, changes nothing, and bytes that are
not UTF-8 are one line naming their place, with nothing written."""

import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.core.errors import InputError
from spacy_simalign.corpus.export import read_rows
from spacy_simalign.formats.csvfile import read_csv_rows

BOM = b"\xef\xbb\xbf"


@pytest.fixture(scope="module")
def amsterdam_head(shared_data) -> bytes:
    """The header and the first 12 rows of the published Amsterdam CSV, as bytes."""
    data = shared_data("amsterdam-municipal-nl/complex-simple-v1-anonymized.csv").read_bytes()
    return b"".join(data.splitlines(keepends=True)[:13])


def test_rows_with_a_byte_order_mark_read_as_without(tmp_path, amsterdam_head):
    plain, marked = tmp_path / "plain.csv", tmp_path / "marked.csv"
    plain.write_bytes(amsterdam_head)
    marked.write_bytes(BOM + amsterdam_head)
    rows = read_rows(str(plain))
    assert len(rows) == 12 and rows[0].doc_id == "1"
    assert read_rows(str(marked)) == rows


def test_export_rows_with_a_byte_order_mark(tmp_path, amsterdam_head):
    (tmp_path / "plain.csv").write_bytes(amsterdam_head)
    (tmp_path / "marked.csv").write_bytes(BOM + amsterdam_head)
    for name in ("plain", "marked"):
        argv = ["export", str(tmp_path / f"out-{name}"), "--rows", str(tmp_path / f"{name}.csv")]
        assert main([*argv, "--lang", "nl", "--formats", "jsonl,csv"]) == 0
    for produced in ("pairs.jsonl", "pairs.csv"):
        marked = (tmp_path / "out-marked" / produced).read_bytes()
        assert marked == (tmp_path / "out-plain" / produced).read_bytes()
    assert (tmp_path / "out-plain" / "pairs.jsonl").read_bytes().count(b"\n") == 12


def test_anonymise_rows_with_a_byte_order_mark(tmp_path, amsterdam_head):
    (tmp_path / "plain.csv").write_bytes(amsterdam_head)
    (tmp_path / "marked.csv").write_bytes(BOM + amsterdam_head)
    for name in ("plain", "marked"):
        argv = ["anonymise", str(tmp_path / f"{name}.csv"), str(tmp_path / f"{name}-out.csv"), "--lang", "nl"]
        assert main([*argv, "--no-ner"]) == 0
    assert (tmp_path / "marked-out.csv").read_bytes() == (tmp_path / "plain-out.csv").read_bytes()


def not_utf8(head: bytes) -> bytes:
    """`head` with its third row's first byte after the comma of the id replaced by 0xff."""
    lines = head.splitlines(keepends=True)
    lines[3] = lines[3].replace(b",", b",\xff", 1)
    return b"".join(lines)


def test_not_utf8_names_line_and_byte_offset(tmp_path, amsterdam_head):
    data = not_utf8(amsterdam_head)
    offset = data.index(b"\xff")
    for prefix, shift in ((b"", 0), (BOM, 3)):
        path = tmp_path / "bad.csv"
        path.write_bytes(prefix + data)
        with pytest.raises(InputError) as err:
            read_rows(str(path))
        assert str(err.value) == f"{path}:4: not UTF-8 at byte offset {offset + shift}"


def test_not_utf8_far_into_a_file_gives_the_file_offset(tmp_path):
    """Past the first read buffer (8 KiB) the offset is still the file's."""
    rows = "".join(f"{k},Een lange zin nummer {k} van de tekst.,Korte zin {k}.\n" for k in range(1000))
    data = ("Document ID,Complex,Simple\n" + rows).encode() + b"9,\xfe,x\n"
    path = tmp_path / "bad.csv"
    path.write_bytes(data)
    offset = data.index(b"\xfe")
    with pytest.raises(InputError, match=f"{path}:1002: not UTF-8 at byte offset {offset}$"):
        read_csv_rows(str(path), ("Document ID",), "rows")


@pytest.mark.parametrize("command", ["export", "anonymise"])
def test_not_utf8_rows_refused_by_the_commands(tmp_path, capsys, amsterdam_head, command):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(not_utf8(amsterdam_head))
    out = tmp_path / "out"
    if command == "export":
        argv = ["export", str(out), "--rows", str(bad), "--lang", "nl"]
    else:
        argv = ["anonymise", str(bad), str(out), "--lang", "nl", "--no-ner"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    offset = not_utf8(amsterdam_head).index(b"\xff")
    assert err == f"error: {bad}:4: not UTF-8 at byte offset {offset}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_missing_column_says_what_is_expected(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_bytes(BOM + b"Document ID,Complex\n1,a\n")
    with pytest.raises(InputError) as err:
        read_rows(str(path))
    assert str(err.value) == (
        f"{path}:1: missing column(s) Simple in the header (expected a CSV with the columns Document ID,Complex,Simple)"
    )
