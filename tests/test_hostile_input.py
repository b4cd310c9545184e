"""Hostile input to `align`: each case has its documented behaviour, either a one-line
error naming file and line (exit 2, nothing written at OUTPUT, no partial file left), or
a correct result with every input id once, in order (nothing lost). The cases run `main()` in
this process; one test runs `python -m spacy_simalign` itself (exit status and stderr of __main__)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_simalign.__main__ import main

METHOD = ["--method", "tfidf"]
# VmHWM is the peak RSS of this process image; getrusage's ru_maxrss would carry over the
# parent's peak across fork + exec, and RUSAGE_CHILDREN would count earlier tests' children.
MEASURED_ALIGN = """
import re, sys
from spacy_simalign.__main__ import main
code = main(["align", *sys.argv[1:]])
with open("/proc/self/status") as status:
    peak = re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)
print("peak-rss-kib", peak, file=sys.stderr)
sys.exit(code)
"""


def dump(obj) -> bytes:
    return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")


def pair_from(dev, pair_id="p", **changes):
    obj = json.loads(json.dumps(dev))
    obj["id"] = pair_id
    obj.pop("gold", None)
    obj.update(changes)
    return obj


def run_align(tmp_path, data: bytes, *extra):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(data)
    code = main(["align", str(src), str(out), *METHOD, *extra])
    return code, src, out


def assert_located_error(capsys, tmp_path, code, src, line, expected):
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {src}:{line}: "), err
    assert expected in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def read_output(out):
    return [json.loads(line) for line in out.read_bytes().split(b"\n") if line]


def error_cases(dev):
    good = pair_from(dev, "first")
    number_sentence = pair_from(dev)
    number_sentence["complex"] = {"paragraphs": [["Ein Satz.", 42]]}
    no_id = pair_from(dev)
    del no_id["id"]
    no_lang = pair_from(dev)
    del no_lang["lang"]
    no_complex = pair_from(dev)
    del no_complex["complex"]
    empty_paragraph = pair_from(dev)
    empty_paragraph["complex"]["paragraphs"].append([])
    return {
        "not-utf8": (dump(good) + b'{"id": "\xff\xfe"}\n', 2, "not UTF-8"),
        "invalid-json": (dump(good) + b'{"id": "x", "lang": }\n', 2, "invalid JSON"),
        "truncated-last-line": (dump(good) + dump(pair_from(dev, "x"))[:40], 2, "invalid JSON"),
        "bom": (b"\xef\xbb\xbf" + dump(good), 1, "invalid JSON"),
        "deeply-nested": (dump(good) + b"\n" + b"[" * 100_000 + b"\n", 3, "nested too deeply"),
        "array-not-object": (dump(good) + b"[1, 2]\n", 2, "expected a JSON object"),
        "missing-id": (dump(good) + dump(no_id), 2, "missing field 'id'"),
        "missing-lang": (dump(good) + dump(no_lang), 2, "missing field 'lang'"),
        "missing-side": (dump(good) + dump(no_complex), 2, "missing side 'complex'"),
        "side-without-text": (dump(good) + dump(pair_from(dev, complex={"sentences": ["a"]})), 2, "has no sentences"),
        "empty-paragraph": (dump(good) + dump(empty_paragraph), 2, "has no sentences"),
        "gold-out-of-range": (dump(good) + dump(pair_from(dev, gold=dev["gold"] + [[[9999], [0]]])), 2, "out of range"),
        "unknown-lang": (dump(good) + dump(pair_from(dev, lang="xx")), 2, "unknown language 'xx'"),
        "unknown-lang-simple": (
            dump(good) + dump(pair_from(dev, lang_simple="klingon")),
            2,
            "unknown language 'klingon'",
        ),
        "duplicate-id": (
            dump(good) + dump(pair_from(dev, "second")) + dump(pair_from(dev, "first")),
            3,
            "duplicate id 'first'",
        ),
        "number-id": (dump(good) + dump(pair_from(dev, 7)), 2, "'id' must be a string, got int"),
        "number-lang": (dump(good) + dump(pair_from(dev, lang=1)), 2, "'lang' must be a string"),
        "number-sentence": (dump(good) + dump(number_sentence), 2, "must be a string, got int"),
        "number-text": (dump(good) + dump(pair_from(dev, simple={"text": 3.5})), 2, "'simple.text' must be a string"),
        "lone-surrogate": (
            dump(good) + b'{"id": "s", "lang": "de", "complex": {"text": "a\\ud800b"}, "simple": {"text": "c"}}\n',
            2,
            "lone surrogate",
        ),
    }


CASES = [
    "not-utf8",
    "invalid-json",
    "truncated-last-line",
    "bom",
    "deeply-nested",
    "array-not-object",
    "missing-id",
    "missing-lang",
    "missing-side",
    "side-without-text",
    "empty-paragraph",
    "gold-out-of-range",
    "unknown-lang",
    "unknown-lang-simple",
    "duplicate-id",
    "number-id",
    "number-lang",
    "number-sentence",
    "number-text",
    "lone-surrogate",
]


@pytest.mark.parametrize("case", CASES)
def test_bad_line_is_a_located_error_and_nothing_is_written(tmp_path, capsys, deplain_pairs, case):
    data, line, expected = error_cases(deplain_pairs[0])[case]
    code, src, out = run_align(tmp_path, data)
    assert_located_error(capsys, tmp_path, code, src, line, expected)


def test_the_module_entry_point_exits_2_with_one_located_line(tmp_path, deplain_pairs):
    """The one run of `python -m spacy_simalign` here: __main__'s exit status and stderr, as a shell sees them."""
    data, line, expected = error_cases(deplain_pairs[0])["unknown-lang"]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(data)
    result = subprocess.run(
        [sys.executable, "-m", "spacy_simalign", "align", str(src), str(out), *METHOD], capture_output=True, text=True
    )
    err = result.stderr.strip()
    assert result.returncode == 2, err
    assert len(err.splitlines()) == 1 and err.startswith(f"error: {src}:{line}: ") and expected in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]


def test_a_whole_number_beyond_64_bits_in_a_config_is_one_line_from_the_module(tmp_path):
    """`python -m spacy_simalign align --config` with summary_ratio = 2^64, which spaCy's check of a
    component's config cannot hold (a traceback of its E961 otherwise): exit 2, one line naming the
    setting and the file, nothing written, the config as it was."""
    example = Path(__file__).resolve().parents[1] / "spacy_simalign" / "resources" / "example-de.jsonl"
    bad, out = tmp_path / "bad.cfg", tmp_path / "out.jsonl"
    bad.write_text(
        '[aligner]\n@simalign_aligners = "spacy-simalign.CRFAligner.v3"\nsummary_ratio = 18446744073709551616\n'
    )
    before = bad.read_bytes()
    result = subprocess.run(
        [sys.executable, "-m", "spacy_simalign", "align", str(example), str(out), "--config", str(bad)],
        capture_output=True,
        text=True,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {bad}: invalid [aligner] config: spacy-simalign.CRFAligner.v3: summary_ratio = 18446744073709551616: "
        "is beyond the whole numbers a spaCy config holds (-2^63 to 2^64 - 1)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.cfg"] and bad.read_bytes() == before


def test_a_missing_input_file_is_a_clear_error(tmp_path, capsys):
    assert main(["align", str(tmp_path / "nope.jsonl"), str(tmp_path / "out.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "nope.jsonl" in err and "cannot read file" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_error_cases_cover_the_parametrised_list(deplain_pairs):
    assert sorted(error_cases(deplain_pairs[0])) == sorted(CASES)


def test_a_bad_line_keeps_an_existing_output_and_resume_state(tmp_path, capsys, deplain_pairs):
    out = tmp_path / "out.jsonl"
    out.write_text("earlier\n")
    code, src, out = run_align(tmp_path, dump(pair_from(deplain_pairs[0], 5)))
    assert code == 2 and out.read_text() == "earlier\n"
    assert "'id' must be a string" in capsys.readouterr().err


def test_missing_lang_is_taken_from_the_option(tmp_path, deplain_pairs):
    obj = pair_from(deplain_pairs[0])
    del obj["lang"]
    code, _, out = run_align(tmp_path, dump(obj), "--lang", "de")
    assert code == 0 and [r["id"] for r in read_output(out)] == ["p"]


@pytest.mark.parametrize("data", [b"", b"\n\n  \n"], ids=["empty", "blank-lines"])
def test_empty_file_gives_an_empty_output(tmp_path, data):
    code, _, out = run_align(tmp_path, data)
    assert code == 0
    assert out.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]


def test_empty_sides_give_no_beads_and_nothing_is_lost(tmp_path, deplain_pairs):
    rows = [
        {"id": "both-empty-pre", "lang": "de", "complex": {"paragraphs": []}, "simple": {"paragraphs": []}},
        {"id": "both-empty-raw", "lang": "de", "complex": {"text": ""}, "simple": {"text": "\n\n"}},
        pair_from(deplain_pairs[1], "simple-empty", simple={"text": " "}),
        pair_from(deplain_pairs[1], "complex-empty", complex={"paragraphs": []}),
        pair_from(deplain_pairs[1], "normal"),
    ]
    code, _, out = run_align(tmp_path, b"".join(dump(r) for r in rows) + b"\n")
    assert code == 0
    got = read_output(out)
    assert [r["id"] for r in got] == [r["id"] for r in rows]
    assert [r["alignments"] for r in got[:4]] == [[], [], [], []]
    assert got[1]["complex_sentences"] == [] and got[1]["simple_sentences"] == []
    assert got[2]["simple_sentences"] == []
    assert got[4]["alignments"], "the normal pair after the empty ones is still aligned"


def test_unusual_whitespace_and_line_separators_round_trip(tmp_path, deplain_pairs):
    """CRLF line ends, U+2028/U+0085 inside sentences: one output line per pair, read back in binary."""
    sentences = ["Erster\u2028Satz mit Trenner.", "Zweiter\x85Satz.", "Dritter Satz\u00a0hier."]
    row = {"id": "seps", "lang": "de", "complex": {"paragraphs": [sentences]}, "simple": {"paragraphs": [sentences]}}
    data = dump(row).replace(b"\n", b"\r\n") + dump(pair_from(deplain_pairs[2], "after"))
    code, _, out = run_align(tmp_path, data)
    assert code == 0
    lines = out.read_bytes().split(b"\n")
    assert len(lines) == 3 and lines[2] == b""
    got = read_output(out)
    assert [r["id"] for r in got] == ["seps", "after"]
    assert {(tuple(b["complex"]), tuple(b["simple"])) for b in got[0]["alignments"]} >= {((0,), (0,)), ((1,), (1,))}


def test_a_sentence_of_100000_characters(tmp_path):
    long_sentence = " ".join(f"wort{k % 997}" for k in range(20_000))[:100_000]
    rows = [
        {
            "id": "raw",
            "lang": "de",
            "complex": {"text": long_sentence},
            "simple": {"text": "Ein Satz. " + long_sentence[:500]},
        },
        {
            "id": "pre",
            "lang": "de",
            "complex": {"paragraphs": [[long_sentence]]},
            "simple": {"paragraphs": [["Kurz.", long_sentence[:300]]]},
        },
        {
            "id": "no-spaces",
            "lang": "de",
            "complex": {"paragraphs": [["x" * 100_000]]},
            "simple": {"text": "y" * 100_000},
        },
    ]
    code, _, out = run_align(tmp_path, b"".join(dump(r) for r in rows))
    assert code == 0
    got = read_output(out)
    assert [r["id"] for r in got] == ["raw", "pre", "no-spaces"]
    assert "".join(got[0]["complex_sentences"]).replace(" ", "") == long_sentence.replace(" ", "")
    assert got[2]["simple_sentences"] == ["y" * 100_000]
    for r, n_complex in zip(got, (len(got[0]["complex_sentences"]), 1, 1)):
        for bead in r["alignments"]:
            assert all(0 <= i < n_complex for i in bead["complex"])


@pytest.mark.slow
def test_a_side_of_20000_sentences_within_the_memory_budget(tmp_path, deplain_pairs):
    """20,000 complex sentences (in 4,000 paragraphs) against a real simple side, in a child process
    whose peak resident memory must stay under the 2 GB budget."""
    sentences = [s for p in deplain_pairs for para in p["complex"]["paragraphs"] for s in para]
    side = [sentences[k % len(sentences)] + ("" if k < len(sentences) else f" ({k})") for k in range(20_000)]
    row = pair_from(deplain_pairs[0], "huge", complex={"paragraphs": [side[i : i + 5] for i in range(0, 20_000, 5)]})
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_bytes(dump(row))
    result = subprocess.run(
        [sys.executable, "-c", MEASURED_ALIGN, str(src), str(out), *METHOD], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    peak_kib = int(result.stderr.strip().splitlines()[-1].split()[-1])
    assert peak_kib > 50 * 1024
    assert peak_kib < 2 * 1024 * 1024, f"peak RSS {peak_kib // 1024} MiB"
    got = read_output(out)
    n_simple = sum(len(p) for p in row["simple"]["paragraphs"])
    assert [r["id"] for r in got] == ["huge"] and got[0]["alignments"]
    used = [i for b in got[0]["alignments"] for i in b["complex"]]
    assert all(0 <= i < 20_000 for i in used) and len(used) == len(set(used))
    assert all(0 <= j < n_simple for b in got[0]["alignments"] for j in b["simple"])


@pytest.mark.parametrize(
    "digits, expected",
    [
        (5000, "invalid JSON (a number of more than 4300 digits)"),
        (4000, "'gold[0]' complex index 999999... (4000 digits) is out of range (side has"),
    ],
)
def test_a_gold_index_of_thousands_of_digits_is_a_short_located_error(
    tmp_path, capsys, deplain_pairs, digits, expected
):
    """json.dumps cannot even write such a number: the line is built as text."""
    line = dump(pair_from(deplain_pairs[0], "huge", gold=[[[0], [0]]])).replace(
        b"[[[0], [0]]]", b"[[[" + b"9" * digits + b"], [0]]]"
    )
    code, src, out = run_align(tmp_path, dump(pair_from(deplain_pairs[1], "first")) + line)
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith(f"error: {src}:2: ") and expected in err, err[:300]
    assert len(err) < 200 and not out.exists()


def test_a_predicted_index_of_thousands_of_digits_is_a_short_located_error(tmp_path, capsys, deplain_pairs):
    gold = tmp_path / "gold.jsonl"
    gold.write_bytes(dump(deplain_pairs[0]))
    pred = tmp_path / "pred.jsonl"
    pred.write_bytes(
        b'{"id": "%s", "alignments": [{"complex": [%s], "simple": [0]}]}\n'
        % (deplain_pairs[0]["id"].encode(), b"7" * 3000)
    )
    assert main(["evaluate", str(gold), str(pred)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {pred}:1: 'alignments[0]' complex index 777777... (3000 digits) is out of range")
    assert len(err) < 200
