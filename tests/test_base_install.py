"""`make demo` installs only the required dependencies: the command line and the demo must run
without any extra (Flask, Dask, faiss, usearch, matplotlib, sentence-transformers, datasets). Checked in a
fresh interpreter where importing an extra fails as if it were not installed."""

import subprocess
import sys

import pytest

EXTRAS = ("flask", "dask", "distributed", "faiss", "usearch", "matplotlib", "datasets", "sentence_transformers")
# (spacy-transformers and transformers stay importable: spaCy loads the entry points of every installed
# package, and they are installed in the test environment; our code imports neither at start-up)

BLOCK = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in EXTRAS)


def run_without_extras(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, timeout=300)


def test_every_command_loads_without_any_extra():
    result = run_without_extras(
        "from spacy_simalign.__main__ import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit as e:\n    raise SystemExit(e.code)\n"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "demo" in result.stdout and "render" in result.stdout


@pytest.mark.slow
def test_demo_runs_without_any_extra():
    result = run_without_extras("from spacy_simalign.__main__ import main\nraise SystemExit(main(['demo']))\n")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip(), "demo printed nothing"
