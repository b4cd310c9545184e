"""Terminal escapes from input never reach the terminal: `demo` and the
one-line errors print control characters escaped (terminal.safe)."""

import json
import shutil
from pathlib import Path

from spacy_simalign.__main__ import main
from spacy_simalign.core.terminal_text import safe

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"


def test_safe_escapes_controls_and_keeps_text():
    assert safe(f"a{CLEAR}b{TITLE}\u202ec\tü\n") == "a\\x1b[2Jb\\x1b]0;pwned\\x07\\u202ec\tü\n"
    assert safe("x\ny", newlines=False) == "x\\ny"


def test_demo_and_duplicate_id_error_print_no_escape(tmp_path, capsys):
    pair = {
        "id": f"evil{TITLE}",
        "lang": "de",
        "complex": {"paragraphs": [[f"Der Hund bellt{CLEAR} laut.", "Die Katze schläft."]]},
        "simple": {"paragraphs": [[f"Der Hund bellt{TITLE}.", "Die Katze schläft."]]},
    }
    path = tmp_path / "evil.jsonl"
    path.write_text(json.dumps(pair) + "\n", encoding="utf-8")
    assert main(["demo", str(path), "--method", "tfidf", "--width", "100"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\\x1b[2J" in out
    path.write_text((json.dumps(pair) + "\n") * 2, encoding="utf-8")
    assert main(["align", str(path), str(tmp_path / "out.jsonl"), "--method", "tfidf"]) == 2
    err = capsys.readouterr().err
    assert "duplicate id" in err and "\x1b" not in err and "\x07" not in err and "\\x1b]0;pwned\\x07" in err


def test_commands_echo_paths_and_warnings_escaped(tmp_path, capsys, deplain_pairs):
    """The lines that echo paths or input values (align's summary and
    its `warning:` line, render, evaluate, convert-deplain, match-docs, stats) print them escaped."""
    folder = tmp_path / f"evil{CLEAR}{TITLE}"
    folder.mkdir()
    pair = dict(deplain_pairs[0], lang="en")
    pairs = folder / "pairs.jsonl"
    pairs.write_text(json.dumps(pair) + "\n", encoding="utf-8")
    out = folder / "out.jsonl"
    runs = [
        ["align", str(pairs), str(out), "--method", "tfidf", "--lang", "de"],
        ["render", str(pairs), str(out), str(folder / "page.html")],
        ["evaluate", str(pairs), str(out)],
        ["match-docs", str(folder / "docs.jsonl"), str(folder / "empty.jsonl"), str(folder / "matches.jsonl")],
    ]
    shutil.copy(Path(__file__).parent / "data" / "xling" / "de.jsonl", folder / "docs.jsonl")
    (folder / "empty.jsonl").write_text("", encoding="utf-8")
    line = {"id": "a", "complex_sentences": ["x y", "z"], "simple_sentences": ["x y"], "doc_score": 0.5}
    (folder / "xling.jsonl").write_text(json.dumps(dict(line, alignments=[[[0], [0]]])) + "\n", encoding="utf-8")
    runs.append(["stats", str(folder / "xling.jsonl"), "--histogram", str(folder / "h.png")])
    for argv in runs:
        assert main(argv) == 0, argv
    printed = capsys.readouterr()
    both = printed.out + printed.err
    assert "warning: " in printed.err and "aligned 1 of 1 pairs" in printed.err and "wrote 1 pairs" in printed.out
    assert "\x1b" not in both and "\x07" not in both
    assert both.count(safe(str(folder))) >= 5
