"""The wording of located input errors: bytes that are not UTF-8 are named by their byte offset in
the file, json's "... at" messages read with their column, and `amsterdam --similarity` calls
only a name that is not registered an unknown similarity."""

import json
from pathlib import Path

import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.core.errors import InputError
from spacy_simalign.corpus.klexikon import read_article
from spacy_simalign.formats.jsonl import read_jsonl

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"


def test_jsonl_not_utf8_gives_the_byte_offset_in_the_file(tmp_path):
    first = json.dumps({"id": "a"}).encode() + b"\n"
    data = first + b'{"id": "b\xff"}\n'
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError) as err:
        list(read_jsonl(str(path)))
    offset = data.index(b"\xff")
    assert str(err.value) == f"{path}:2: not UTF-8 at byte offset {offset}"


def test_text_file_not_utf8_gives_line_and_byte_offset(tmp_path):
    data = "Titel\n\nEin Satz.\n".encode() + b"Noch \xc3 einer.\n"
    path = tmp_path / "Titel.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as err:
        read_article(str(path))
    offset = data.index(b"\xc3")
    assert str(err.value) == f"{path}:4: not UTF-8 at byte offset {offset}"


@pytest.mark.parametrize(
    "line, reason",
    [
        ('{"id": "a\tb"}\n', "Invalid control character at column 10"),
        ('{"id": "a', "Unterminated string starting at column 8"),  # the last line, without its newline
        ('{"id": }\n', "Expecting value, column 8"),
    ],
)
def test_json_error_reads_with_its_column(tmp_path, line, reason):
    path = tmp_path / "bad.jsonl"
    path.write_text(line, encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(read_jsonl(str(path)))
    assert str(err.value) == f"{path}:1: invalid JSON ({reason})"


def amsterdam(tmp_path: Path, similarity: str) -> int:
    pairs = tmp_path / "in.jsonl"
    pairs.write_bytes(DEV.read_bytes().splitlines(keepends=True)[0])
    return main(["amsterdam", str(pairs), str(tmp_path / "out"), "--similarity", similarity])


def test_amsterdam_unknown_similarity(tmp_path, capsys):
    assert amsterdam(tmp_path, "tfidff") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown similarity 'tfidff': ") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_amsterdam_missing_model_folder_is_no_typo(tmp_path, capsys):
    assert amsterdam(tmp_path, str(tmp_path / "models" / "minilm")) == 2
    err = capsys.readouterr().err
    assert err == f"error: sentence-transformers model folder not found: {tmp_path / 'models' / 'minilm'}\n"


def test_amsterdam_similarity_that_needs_settings(tmp_path, capsys):
    assert amsterdam(tmp_path, "spacy-simalign.SentenceTransformerSimilarity.v1") == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "error: similarity 'spacy-simalign.SentenceTransformerSimilarity.v1' cannot be built from its name alone ("
    )
