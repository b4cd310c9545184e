"""Output `-`: refused by the commands whose outputs are files replaced atomically and resumable
(`align`, `export`: a stream can be neither), with one line and no file named `-`; taken as
standard output where the output is one stream (`rank --output -`, `init-config`)."""

from pathlib import Path

import pytest

from spacy_simalign.__main__ import main

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
REFUSED = (
    "error: output '-' would be standard output, but this command's outputs are files written atomically "
    "(and resumable), which a stream cannot be: give a file name\n"
)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in tmp_path, so that a file named `-` would land there."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.jsonl").write_bytes(DEV.read_bytes().splitlines(keepends=True)[0])
    (tmp_path / "rows.csv").write_text("Document ID,Complex,Simple\n1,Een lange zin.,Een zin.\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["align", "in.jsonl", "-", "--method", "tfidf"],
        ["align", "in.jsonl", "-", "--method", "tfidf", "--resume"],
        ["export", "-", "--rows", "rows.csv", "--lang", "nl"],
    ],
    ids=["align", "align-resume", "export"],
)
def test_dash_refused_as_a_file_output(in_tmp, capsys, argv):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == REFUSED and captured.out == ""
    assert sorted(p.name for p in in_tmp.iterdir()) == ["in.jsonl", "rows.csv"]


def test_rank_output_dash_is_standard_output(in_tmp, capsys):
    assert main(["rank", "in.jsonl", "--score", "null", "--output", "-"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].split("\t")[0] == "deplain-web-33"
    assert sorted(p.name for p in in_tmp.iterdir()) == ["in.jsonl", "rows.csv"]


def test_init_config_prints_to_standard_output(in_tmp, capsys):
    assert main(["init-config", "tfidf"]) == 0
    assert capsys.readouterr().out.startswith("[aligner]\n")
    assert sorted(p.name for p in in_tmp.iterdir()) == ["in.jsonl", "rows.csv"]
