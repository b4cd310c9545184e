"""Issue 25 item 11: terminal escapes from input never reach the terminal: `demo` and the
one-line errors print control characters escaped (terminal.safe)."""

import json

from spacy_simalign.__main__ import main
from spacy_simalign.terminal import safe

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
