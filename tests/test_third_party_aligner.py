"""A third party's aligner, installed as a distribution with an entry point in the
`spacy_simalign_aligners` group (not imported by anyone beforehand), runs from
`align --config` and from a component config."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

TOY = '''
from spacy_simalign.core.structures import Bead


class Diagonal:
    """Sentence i of one side to sentence i of the other, up to `limit` beads."""

    def __init__(self, limit):
        self.limit = limit

    def align(self, complex, simple, paragraph_links=None):
        n = min(len(complex), len(simple), self.limit)
        return [Bead((i,), (i,), 0.5) for i in range(n)]


def make_diagonal(limit: int = 1000):
    return Diagonal(limit)
'''


@pytest.fixture
def toy_distribution(tmp_path):
    """A folder that, on sys.path, holds the module and the installed-distribution metadata."""
    site = tmp_path / "site"
    (site / "toy_aligner-0.1.dist-info").mkdir(parents=True)
    (site / "toy_aligner.py").write_text(TOY, encoding="utf-8")
    (site / "toy_aligner-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toy-aligner\nVersion: 0.1\n", encoding="utf-8"
    )
    (site / "toy_aligner-0.1.dist-info" / "entry_points.txt").write_text(
        "[spacy_simalign_aligners]\ntoy.Diagonal.v1 = toy_aligner:make_diagonal\n", encoding="utf-8"
    )
    return site


def test_entry_point_aligner_runs_from_align_config(tmp_path, toy_distribution, deplain_pairs, capsys):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in deplain_pairs[:3]), encoding="utf-8")
    config = tmp_path / "toy.cfg"
    config.write_text(
        textwrap.dedent("""
        [aligner]
        @simalign_aligners = "toy.Diagonal.v1"
        limit = 4
    """),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(toy_distribution), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run(
        [sys.executable, "-m", "spacy_simalign", "align", str(pairs), str(out), "--config", str(config)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == [p["id"] for p in deplain_pairs[:3]]
    for line in lines:
        assert line["alignments"] == [{"complex": [i], "simple": [i], "score": 0.5} for i in range(4)]
    # without the distribution on the path (this process) the name is unknown: a one-line config error, no output
    from spacy_simalign.__main__ import main

    assert main(["align", str(pairs), str(tmp_path / "no.jsonl"), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {config}: invalid [aligner] config")
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "no.jsonl").exists()


def test_init_config_prints_a_config_that_align_takes(tmp_path, deplain_pairs, capsys):
    from spacy_simalign.__main__ import main

    assert main(["init-config", "tfidf"]) == 0
    text = capsys.readouterr().out
    assert '@simalign_aligners = "spacy-simalign.Tfidf.v1"' in text and "threshold = 0.3" in text
    config = tmp_path / "tfidf.cfg"
    config.write_text(text.replace("threshold = 0.3", "threshold = 0.99"), encoding="utf-8")
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps(deplain_pairs[0], ensure_ascii=False) + "\n", encoding="utf-8")
    default, strict = tmp_path / "default.jsonl", tmp_path / "strict.jsonl"
    assert main(["align", str(pairs), str(default), "--method", "tfidf"]) == 0
    assert main(["align", str(pairs), str(strict), "--config", str(config)]) == 0
    n_default = len(json.loads(default.read_text(encoding="utf-8"))["alignments"])
    n_strict = len(json.loads(strict.read_text(encoding="utf-8"))["alignments"])
    assert 0 < n_strict < n_default  # the tuned threshold keeps only near-identical sentences
