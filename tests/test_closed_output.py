"""Every entry point (`python -m spacy_simalign`, the `spacy-simalign` console script, `python -m
spacy simalign`) ends the same way when its standard output cannot be written: closed or on a full
disk, one line on stderr and status 2, no traceback; a reader that went away (`| head -0`): quiet,
status 141, as Unix tools end."""

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "spacy-simalign"
ENTRY_POINTS = {
    "python -m spacy_simalign": [sys.executable, "-m", "spacy_simalign"],
    "console script": [str(SCRIPT)],
    "python -m spacy simalign": [sys.executable, "-m", "spacy", "simalign"],
}
OUTPUTS = {  # (shell redirection, status, stderr)
    "closed": (">&-", 2, "error: cannot write the output: standard output is closed\n"),
    "full disk": (">/dev/full", 2, "error: cannot write: no space left on device (free some space, then run again)\n"),
    "reader gone": ("| head -c 0", 141, ""),
}


def run(entry: str, output: str):
    if entry == "console script" and not SCRIPT.exists():
        pytest.fail(f"the console script is not installed at {SCRIPT}: reinstall the package (make setup)")
    redirection = OUTPUTS[output][0]
    words = shlex.join([*ENTRY_POINTS[entry], "init-config", "tfidf"])
    script = f"set -o pipefail; {words} {redirection}"
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("output", list(OUTPUTS))
def test_python_m_spacy_simalign(output):
    result = run("python -m spacy_simalign", output)
    assert (result.returncode, result.stderr) == OUTPUTS[output][1:]


@pytest.mark.slow
@pytest.mark.parametrize("output", list(OUTPUTS))
@pytest.mark.parametrize("entry", ["console script", "python -m spacy simalign"])
def test_every_entry_point_takes_the_same_exit(entry, output):
    result = run(entry, output)
    assert (result.returncode, result.stderr) == OUTPUTS[output][1:]


def test_stderr_closed_too_still_fails():
    result = subprocess.run(
        ["bash", "-c", shlex.join([sys.executable, "-m", "spacy_simalign", "init-config", "tfidf"]) + " >&- 2>&-"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2
