"""Every command and component that needs an optional extra says, in one line, which extra to
install when its module is missing (simulated: sys.modules[name] = None makes an import fail as
for a module that is not installed), and a command exits 2 having written nothing."""

import configparser
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.core.extras import EXTRAS, MissingExtra, require
from spacy_simalign.core.registries import similarity_registry
from spacy_simalign.docmatch.index import FlatIndex, HnswIndex, IvfIndex

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
ROWS = "Document ID,Complex,Simple\n1,Een lange zin.,Een zin.\n"


def hint(extra: str) -> str:
    return f'pip install "spacy-simalign[{extra}]"'


def missing(monkeypatch, *modules: str) -> None:
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def test_extras_are_those_of_setup_cfg():
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg")
    assert set(EXTRAS) == set(parser["options.extras_require"]) - {"test"}


def test_require_names_the_extra(monkeypatch):
    missing(monkeypatch, "flask")
    with pytest.raises(MissingExtra) as err:
        require("review", "flask", "the review page")
    assert str(err.value) == f"the review page needs the 'review' extra (flask is not installed): {hint('review')}"
    assert require("docmatch", "matplotlib").__name__ == "matplotlib"


def run_refused(argv, capsys, tmp_path: Path, extra: str, before):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.rstrip("\n").endswith(hint(extra)) and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def one_pair(tmp_path: Path) -> Path:
    pairs = tmp_path / "in.jsonl"
    pairs.write_bytes(DEV.read_bytes().splitlines(keepends=True)[0])
    return pairs


def test_review_without_flask(tmp_path, capsys, monkeypatch):
    pairs = one_pair(tmp_path)
    before = pairs.read_bytes()
    missing(monkeypatch, "flask")
    run_refused(["review", str(pairs), "--port", "0"], capsys, tmp_path, "review", ["in.jsonl"])
    assert pairs.read_bytes() == before


def test_dask_engine_without_distributed(tmp_path, capsys, monkeypatch):
    pairs = one_pair(tmp_path)
    missing(monkeypatch, "distributed")
    argv = ["align", str(pairs), str(tmp_path / "out.jsonl"), "--method", "tfidf", "--engine", "dask"]
    run_refused(argv, capsys, tmp_path, "distributed", ["in.jsonl"])


def test_hf_export_without_datasets(tmp_path, capsys, monkeypatch):
    (tmp_path / "rows.csv").write_text(ROWS, encoding="utf-8")
    missing(monkeypatch, "datasets")
    argv = ["export", str(tmp_path / "out"), "--rows", str(tmp_path / "rows.csv"), "--lang", "nl"]
    run_refused([*argv, "--formats", "jsonl,hf"], capsys, tmp_path, "datasets", ["rows.csv"])


def test_histogram_without_matplotlib(tmp_path, capsys, monkeypatch):
    aligned = tmp_path / "aligned.jsonl"
    aligned.write_text(json.dumps({"id": "a", "alignments": [], "doc_score": 0.5}) + "\n", encoding="utf-8")
    missing(monkeypatch, "matplotlib", "matplotlib.pyplot")
    argv = ["stats", str(aligned), "--histogram", str(tmp_path / "h.png"), "--per-pair", str(tmp_path / "p.jsonl")]
    run_refused(argv, capsys, tmp_path, "docmatch", ["aligned.jsonl"])


@pytest.mark.parametrize("index", [FlatIndex().faiss, HnswIndex(), IvfIndex()], ids=["flat", "hnsw", "ivf"])
def test_faiss_indexes_without_faiss(monkeypatch, index):
    missing(monkeypatch, "faiss")
    rng = np.random.default_rng(0)
    base = rng.standard_normal((40, 8)).astype(np.float32)
    with pytest.raises(MissingExtra, match=r"needs the 'docmatch' extra \(faiss is not installed\)"):
        index(base[:3], base, 5)


def test_sentence_transformers_similarity_without_the_extra(tmp_path, monkeypatch):
    missing(monkeypatch, "sentence_transformers")
    factory = similarity_registry.get("spacy-simalign.SentenceTransformerSimilarity.v1")
    with pytest.raises(MissingExtra) as err:
        factory(str(tmp_path))
    assert str(err.value) == (
        "a sentence-transformers similarity needs the 'transformers' extra (sentence_transformers is not "
        f"installed): {hint('transformers')}"
    )


def test_amsterdam_keeps_the_missing_extra_message(tmp_path, capsys, monkeypatch):
    """`amsterdam --similarity MODEL_FOLDER` without the extra is not an unknown similarity."""
    pairs = one_pair(tmp_path)
    (tmp_path / "model").mkdir()
    missing(monkeypatch, "sentence_transformers")
    argv = ["amsterdam", str(pairs), str(tmp_path / "out"), "--similarity", str(tmp_path / "model")]
    run_refused(argv, capsys, tmp_path, "transformers", ["in.jsonl", "model"])


def test_a_real_process_prints_one_line(tmp_path):
    """In a fresh interpreter whose importer finds no flask: exit 2, the one line, no traceback."""
    pairs = one_pair(tmp_path)
    script = (
        "import sys\n"
        "class NoFlask:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'flask':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, NoFlask())\n"
        "from spacy_simalign.__main__ import main\n"
        f"sys.exit(main(['review', {str(pairs)!r}, '--port', '0']))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"error: the review page needs the 'review' extra (flask is not installed): {hint('review')}\n"
    )


def test_training_the_crf_without_torch(tmp_path, capsys, monkeypatch):
    """Training (here `adapt`) is the one use of torch: without it, the 'train' extra is named."""
    gold = one_pair(tmp_path)
    missing(monkeypatch, "torch")
    run_refused(["adapt", str(gold), str(tmp_path / "adapted")], capsys, tmp_path, "train", ["in.jsonl"])


# torch and what cannot be installed without it (the test venv has them, a user's install may not)
NO_TORCH = (
    "import sys\n"
    "class NoTorch:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in ('torch', 'spacy_transformers', 'transformers', 'sentence_transformers'):\n"
    "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
    "sys.meta_path.insert(0, NoTorch())\n"
    "from spacy_simalign.__main__ import main\n"
)


def test_aligning_needs_no_torch(tmp_path):
    """In a fresh interpreter that finds no torch, the shipped CRF aligns as it does beside torch;
    the CRF weights of a pipeline saved by 0.1 (model.pt, torch's format) are refused in one line
    naming the extra."""
    pairs = tmp_path / "in.jsonl"
    pairs.write_bytes(b"".join(DEV.read_bytes().splitlines(keepends=True)[:3]))
    assert main(["align", str(pairs), str(tmp_path / "with-torch.jsonl")]) == 0
    old = ROOT / "tests" / "data" / "pipeline-0.1.0" / "simalign_sentence_aligner" / "aligner"
    script = NO_TORCH + (
        f"assert main(['align', {str(pairs)!r}, 'without-torch.jsonl']) == 0\n"
        "assert 'torch' not in sys.modules\n"
        f"sys.exit(main(['align', {str(pairs)!r}, 'old.jsonl', '--model', {str(old)!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert (tmp_path / "without-torch.jsonl").read_bytes() == (tmp_path / "with-torch.jsonl").read_bytes()
    weights = old / "model.pt"
    assert done.stderr.splitlines()[-1] == (
        f"error: {weights}: CRF weights in model.pt (saved by spacy-simalign 0.1.0) are read with torch, the "
        f"'train' extra: {hint('train')}; saved again, they are model.npz, which needs no torch"
    )
    assert not (tmp_path / "old.jsonl").exists()
