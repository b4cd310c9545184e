"""The folder `export` writes: every requested format, even with no row; all files or none; and
another export in the folder refused unless --overwrite, which then replaces only that export's files."""

import errno
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import write_jsonl

from spacy_simalign.__main__ import main
from spacy_simalign.corpus import export as export_module
from spacy_simalign.corpus.export_folder import listed_files

EVERY_FORMAT = "jsonl,csv,tsv,moses,tmx,bitext"
XLING_PAIRS = Path(__file__).parent / "data" / "xling" / "pairs.jsonl"


@pytest.fixture
def gold(tmp_path, deplain_pairs):
    """(pairs, alignments): two DEplain-web pairs and their gold beads as an aligner's output."""
    pairs, align = tmp_path / "pairs.jsonl", tmp_path / "align.jsonl"
    write_jsonl(pairs, deplain_pairs[:2])
    beads = [
        {"id": p["id"], "alignments": [{"complex": c, "simple": s, "score": 0.9} for c, s in p["gold"]]}
        for p in deplain_pairs[:2]
    ]
    write_jsonl(align, beads)
    return pairs, align


def export(out, pairs, align, *extra):
    return main(["export", str(out), "--pairs", str(pairs), "--alignments", str(align), *extra])


def files(folder: Path):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_no_row_left_still_writes_every_format(tmp_path, gold):
    pairs, align = gold
    for out, extra in ((tmp_path / "high", ("--min-score", "2")), (tmp_path / "empty", ())):
        if not extra:
            align.write_bytes(b"")  # an alignment file without a line
        assert export(out, pairs, align, "--formats", EVERY_FORMAT, *extra) == 0
        got = files(out)
        assert sorted(got) == sorted(
            ["README.md", "pairs.jsonl", "pairs.csv", "pairs.tsv", "pairs.complex", "pairs.simple"]
            + ["pairs.tmx", "pairs.bitext.tsv"]
        )
        assert got["pairs.complex"] == got["pairs.simple"] == got["pairs.jsonl"] == got["pairs.bitext.tsv"] == b""
        assert got["pairs.csv"].decode("utf-8").splitlines() == ["Document ID,Complex,Simple,origin"]
        assert ET.parse(out / "pairs.tmx").getroot().findall("body/tu") == []
        card = got["README.md"].decode("utf-8")
        assert "- sentence pairs: 0" in card
        assert sorted(listed_files(card)) == sorted(n for n in got if n != "README.md")


def test_a_translation_with_no_row_left_names_its_moses_files_by_language(tmp_path):
    aligned = tmp_path / "aligned.jsonl"
    assert main(["align-xling", str(XLING_PAIRS), str(aligned)]) == 0
    out = tmp_path / "out"
    assert export(out, XLING_PAIRS, aligned, "--formats", "moses", "--min-score", "2") == 0
    assert files(out).keys() == {"README.md", "pairs.de-fr.de", "pairs.de-fr.fr"}


def test_another_export_in_the_folder_is_refused_and_overwrite_replaces_only_its_files(tmp_path, gold, capsys):
    pairs, align = gold
    out = tmp_path / "out"
    assert export(out, pairs, align, "--formats", "jsonl,csv,moses") == 0
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    first = files(out)
    capsys.readouterr()
    assert export(out, pairs, align, "--formats", "tsv") == 2
    assert capsys.readouterr().err == (
        f"error: {out}: output folder holds files of another export (README.md, pairs.jsonl, pairs.csv, "
        "pairs.complex and 1 more): give --overwrite to replace them\n"
    )
    assert files(out) == first
    assert export(out, pairs, align, "--formats", "tsv", "--overwrite") == 0
    got = files(out)
    assert sorted(got) == ["README.md", "notes.txt", "pairs.tsv"] and got["notes.txt"] == b"mine"
    assert listed_files(got["README.md"].decode("utf-8")) == ["pairs.tsv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["align.jsonl", "out", "pairs.jsonl"]  # no staging left


def test_a_folder_with_a_file_the_export_writes_is_refused(tmp_path, gold, capsys):
    pairs, align = gold
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("# My project\n", encoding="utf-8")
    (out / "data.txt").write_text("other", encoding="utf-8")
    assert export(out, pairs, align, "--formats", "jsonl") == 2
    assert capsys.readouterr().err == (
        f"error: {out}: output folder holds files this export writes (README.md): give --overwrite to replace them\n"
    )
    assert files(out) == {"README.md": b"# My project\n", "data.txt": b"other"}
    assert export(tmp_path / "fresh", pairs, align, "--formats", "jsonl") == 0  # a folder with other files is fine
    (out / "README.md").unlink()
    assert export(out, pairs, align, "--formats", "jsonl") == 0
    assert sorted(files(out)) == ["README.md", "data.txt", "pairs.jsonl"]


def test_overwrite_removes_no_file_a_card_was_edited_to_list(tmp_path, gold):
    pairs, align = gold
    out = tmp_path / "out"
    assert export(out, pairs, align, "--formats", "jsonl") == 0
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    card = (out / "README.md").read_text(encoding="utf-8")
    (out / "README.md").write_text(card + "- `notes.txt`\n- `../pairs.jsonl`\n", encoding="utf-8")
    assert export(out, pairs, align, "--formats", "csv", "--overwrite") == 0
    assert sorted(files(out)) == ["README.md", "notes.txt", "pairs.csv"]
    assert pairs.exists()


def test_a_failed_export_leaves_the_folder_as_it_was(tmp_path, gold, capsys, monkeypatch):
    """The Moses files are written, then the TMX meets a full disk: nothing of the export is left,
    in a new folder or in one holding an earlier export."""
    pairs, align = gold

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(export_module, "write_tmx", full_disk)
    out = tmp_path / "deep" / "out"
    assert export(out, pairs, align, "--formats", "moses,tmx") == 2
    message = "cannot write: no space left on device (nothing was written; free some space)"
    assert capsys.readouterr().err == f"error: {out}: {message}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["align.jsonl", "pairs.jsonl"]

    monkeypatch.undo()
    assert export(out, pairs, align, "--formats", "jsonl") == 0
    earlier = files(out)
    monkeypatch.setattr(export_module, "write_tmx", full_disk)
    assert export(out, pairs, align, "--formats", "moses,tmx", "--overwrite") == 2
    assert files(out) == earlier and sorted(p.name for p in out.parent.iterdir()) == ["out"]


def test_overwrite_never_removes_an_input(tmp_path, gold):
    """Rows exported as JSONL, then read back from the folder to export them as CSV in their place."""
    pairs, align = gold
    out = tmp_path / "out"
    assert export(out, pairs, align, "--formats", "jsonl") == 0
    rows = (out / "pairs.jsonl").read_bytes()
    args = ["export", str(out), "--rows", str(out / "pairs.jsonl"), "--lang", "de", "--formats", "csv", "--overwrite"]
    assert main(args) == 0
    assert sorted(files(out)) == ["README.md", "pairs.csv", "pairs.jsonl"]
    assert (out / "pairs.jsonl").read_bytes() == rows
    assert listed_files((out / "README.md").read_text(encoding="utf-8")) == ["pairs.csv"]
