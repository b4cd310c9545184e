"""Bad input to the command line: one located error line, exit status 2, nothing written.
Empty sides are valid and give no beads."""
import json
import subprocess
import sys

import pytest
from conftest import load_deplain

GOOD = None


def good_pair():
    global GOOD
    if GOOD is None:
        GOOD = load_deplain(limit=1)[0]
    return json.loads(json.dumps(GOOD))


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "spacy_simalign", *args], capture_output=True, text=True)


def write_lines(path, lines):
    with open(path, "wb") as handle:
        for line in lines:
            handle.write(line if isinstance(line, bytes) else (line + "\n").encode("utf-8"))


def bad_cases():
    missing_side = good_pair()
    del missing_side["simple"]
    unknown_lang = good_pair()
    unknown_lang["lang"] = "xx"
    no_sentences = good_pair()
    no_sentences["complex"] = {"sentences": ["a"]}
    empty_paragraph = good_pair()
    empty_paragraph["complex"]["paragraphs"].append([])
    number_id = good_pair()
    number_id["id"] = 17
    gold_out_of_range = good_pair()
    gold_out_of_range["gold"].append([[9999], [0]])
    return {
        "invalid-json": ["{not json", "invalid JSON"],
        "missing-side": [json.dumps(missing_side), "missing side 'simple'"],
        "unknown-language": [json.dumps(unknown_lang), "unknown language 'xx'"],
        "no-sentences": [json.dumps(no_sentences), "has no sentences"],
        "empty-paragraph": [json.dumps(empty_paragraph), "has no sentences"],
        "number-id": [json.dumps(number_id), "'id' must be a string"],
        "gold-out-of-range": [json.dumps(gold_out_of_range), "out of range"],
        "not-utf8": [b"\xff\xfe{\"id\": 1}\n", "not UTF-8"],
    }


@pytest.mark.parametrize("case", sorted(bad_cases()))
def test_bad_input_is_one_located_line_and_no_output(tmp_path, case):
    line, expected = bad_cases()[case]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    first = json.dumps(good_pair())
    write_lines(src, [first, line])
    result = run_cli("align", str(src), str(out), "--method", "tfidf")
    assert result.returncode == 2, result.stderr
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {src}:2: "), err
    assert expected in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [src]


def test_bad_input_keeps_an_existing_output(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_lines(src, ["[1, 2]"])
    out.write_text("previous results\n")
    result = run_cli("align", str(src), str(out), "--method", "tfidf")
    assert result.returncode == 2
    assert out.read_text() == "previous results\n"


def test_empty_sides_are_valid_and_have_no_beads(tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    empty_simple = good_pair()
    empty_simple["simple"] = {"text": ""}
    empty_simple.pop("gold")
    both_empty = {"id": "empty", "lang": "de", "complex": {"paragraphs": []}, "simple": {"text": "  \n\n "}}
    write_lines(src, [json.dumps(empty_simple), json.dumps(both_empty)])
    result = run_cli("align", str(src), str(out), "--method", "tfidf")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [empty_simple["id"], "empty"]
    assert rows[0]["alignments"] == [] and rows[0]["simple_sentences"] == []
    assert rows[1]["alignments"] == []


def test_missing_input_file_is_a_clear_error(tmp_path):
    result = run_cli("align", str(tmp_path / "nope.jsonl"), str(tmp_path / "out.jsonl"))
    assert result.returncode == 2
    assert "nope.jsonl" in result.stderr and "cannot read file" in result.stderr
    assert "Traceback" not in result.stderr
