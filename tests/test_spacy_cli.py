"""`python -m spacy simalign ...` (spacy_simalign/spacy_cli.py, spaCy's `spacy_cli` entry point):
the same words give the same output and exit status as `python -m spacy_simalign ...` (the usage
lines name the program as it was typed, as does the `spacy-simalign` script), and the module spaCy
imports before each of its commands adds nothing heavy to spaCy's own start-up."""

import subprocess
import sys
from importlib.metadata import entry_points

import pytest

ENTRY_POINT = "spacy_simalign.spacy_cli:simalign_cli"


def require_entry_point() -> None:
    """Fail, not skip, where the package was installed before the entry point existed."""
    found = {ep.name: ep.value for ep in entry_points(group="spacy_cli")}
    if found.get("simalign") != ENTRY_POINT:
        pytest.fail(
            f"spaCy's CLI entry point simalign = {ENTRY_POINT} is not installed (found {found}): "
            "reinstall the package (`make setup`, or `pip install --no-deps --no-build-isolation -e .`)"
        )


def spacy_simalign(words, cwd) -> subprocess.CompletedProcess:
    """`python -m spacy simalign WORDS` in a fresh interpreter, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "spacy", "simalign", *words], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def python_m_spacy_simalign(words, capsys):
    """(status, stdout, stderr) of `python -m spacy_simalign WORDS`, run in this process (its main)."""
    from spacy_simalign.__main__ import main

    try:
        status = main(words)
    except SystemExit as stop:  # argparse's --help and usage errors
        status = stop.code
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_entry_point_is_installed():
    require_entry_point()


@pytest.mark.parametrize(
    "words, status",
    [
        (["--help"], 0),
        (["align", "--help"], 0),
        # a bad input file, named after `--` so that it must reach our parser as it was typed
        (["align", "--", "-missing.jsonl", "out.jsonl"], 2),
    ],
    ids=["help", "align-help", "bad-input"],
)
def test_spacy_simalign_is_python_m_spacy_simalign(words, status, tmp_path, capsys, monkeypatch):
    require_entry_point()
    monkeypatch.chdir(tmp_path)
    ours = python_m_spacy_simalign(words, capsys)
    assert ours[0] == status, ours[2][-2000:]
    spacys = spacy_simalign(words, tmp_path)
    # the same text, the usage lines naming the program as it was typed
    named = tuple(text.replace("python -m spacy_simalign", "python -m spacy simalign") for text in ours[1:])
    assert (spacys.returncode, spacys.stdout, spacys.stderr) == (ours[0], *named)
    if words[-1] == "--help":
        assert spacys.stdout.startswith("usage: python -m spacy simalign ")
    if words == ["--help"]:
        for command in ("align", "evaluate", "init-config", "demo", "adapt"):
            assert f"\n    {command} " in ours[1]
    if status:
        assert ours[2] == "error: -missing.jsonl: cannot read file: No such file or directory\n"
        assert not (tmp_path / "out.jsonl").exists()


def test_the_entry_point_module_imports_nothing_beyond_spacys_cli():
    """spaCy's CLI has imported torch, numpy and thinc before it loads the entry points: what counts
    is what our module adds, which must be the module and the package's two-line __init__ only.
    Loading the entry point as spaCy does puts `simalign` among spaCy's commands."""
    require_entry_point()
    code = (
        "import sys\n"
        "import spacy.cli\n"
        "before = set(sys.modules)\n"
        "import spacy_simalign.spacy_cli\n"
        "print(sorted(set(sys.modules) - before))\n"
        "from spacy.cli import app\n"
        "from spacy.util import registry\n"
        "assert registry.cli.get_all()['simalign'] is spacy_simalign.spacy_cli.simalign_cli\n"
        "assert [c.name for c in app.registered_commands].count('simalign') == 1\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "['spacy_simalign', 'spacy_simalign.spacy_cli']"


@pytest.mark.parametrize("way", ["script", "module"])
def test_usage_lines_name_the_program_as_it_was_typed(way, tmp_path):
    """The console script's usage says `spacy-simalign`, `python -m spacy_simalign` its own."""
    import os

    script = os.path.join(os.path.dirname(sys.executable), "spacy-simalign")
    if way == "script" and not os.path.exists(script):
        pytest.fail(f"the console script {script} is not installed: reinstall the package (`make setup`)")
    command = [script] if way == "script" else [sys.executable, "-m", "spacy_simalign"]
    done = subprocess.run([*command, "align", "--help"], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    prog = "spacy-simalign" if way == "script" else "python -m spacy_simalign"
    assert done.stdout.startswith(f"usage: {prog} align PAIRS.jsonl OUTPUT.jsonl")


def test_the_entry_point_module_imports_no_private_spacy_module():
    """spaCy's private modules move between releases: the module that every spaCy command imports
    reaches spaCy through its public names only."""
    import ast
    from pathlib import Path

    import spacy_simalign.spacy_cli as module

    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    spacys = [name for name in names if name.split(".")[0] == "spacy"]
    assert spacys and [name for name in spacys if any(part.startswith("_") for part in name.split("."))] == []
