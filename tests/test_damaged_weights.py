"""A damaged trained pipeline or CRF weights folder (model.npz, or an older pipeline's model.pt,
cut short, a byte changed, emptied; arrays of another shape; config.json not JSON; the pipeline's
own config.cfg or meta.json garbled) is one line naming the damaged file: an InputError from
spacy.load, `error: ...` and exit 2 from `align --model`, with nothing written."""

import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import spacy

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.crf.weights_files import read_state
from spacy_simalign.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ROOT / "tests" / "data" / "pipeline-0.1.0"
WEIGHTS = ROOT / "spacy_simalign" / "weights" / "crf"
ALIGNER = Path("simalign_sentence_aligner") / "aligner"
DEV = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"


def damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flipped":  # one bit of a tensor's bytes, in the middle of the archive
        changed = bytearray(data)
        changed[len(data) // 2] ^= 0x10
        path.write_bytes(bytes(changed))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "not JSON":
        path.write_bytes(data[: len(data) // 3])
    else:
        raise ValueError(how)


# the pipeline saved by spacy-simalign 0.1.0 holds model.pt (torch.save); the shipped weights model.npz
DAMAGES = [
    ("model.pt", "truncated", "not a whole torch archive"),
    ("model.pt", "flipped", "checksum mismatch in model.pt/"),
    ("model.pt", "empty", "empty file"),
    ("config.json", "not JSON", "not JSON ("),
    ("wide/model.pt", "flipped", "checksum mismatch in model.pt/"),
]
WEIGHTS_DAMAGES = [
    ("model.npz", "truncated", "not a whole npz archive"),
    ("model.npz", "flipped", "checksum mismatch in "),
    ("model.npz", "empty", "empty file"),
    ("config.json", "not JSON", "not JSON ("),
    ("wide/model.npz", "flipped", "checksum mismatch in "),
]


def expected(path: Path, reason: str) -> str:
    return f"{path}: damaged CRF weights: {reason}"


@pytest.mark.parametrize("name,how,reason", DAMAGES)
def test_spacy_load_names_the_damaged_file(tmp_path, name, how, reason):
    pipeline = tmp_path / "pipeline"
    shutil.copytree(PIPELINE, pipeline)
    damaged = pipeline / ALIGNER / name
    damage(damaged, how)
    with pytest.raises(InputError) as err:
        spacy.load(pipeline)
    message = str(err.value)
    assert message.startswith(expected(damaged, reason)), message
    assert "\n" not in message and message.endswith("copy the folder again from where they were saved")


def align_with_model(tmp_path: Path, model: Path, capsys) -> str:
    pairs = tmp_path / "in.jsonl"
    pairs.write_bytes(DEV.read_bytes().splitlines(keepends=True)[0])
    out = tmp_path / "out.jsonl"
    assert main(["align", str(pairs), str(out), "--model", str(model)]) == 2
    assert not out.exists() and not any(p.name.startswith("out.jsonl") for p in tmp_path.iterdir())
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.rstrip("\n")


@pytest.mark.parametrize("name,how,reason", DAMAGES[:4])
def test_align_model_pipeline_folder(tmp_path, capsys, name, how, reason):
    pipeline = tmp_path / "pipeline"
    shutil.copytree(PIPELINE, pipeline)
    damaged = pipeline / ALIGNER / name
    damage(damaged, how)
    assert align_with_model(tmp_path, pipeline, capsys).startswith("error: " + expected(damaged, reason))


@pytest.mark.parametrize("name,how,reason", WEIGHTS_DAMAGES)
def test_align_model_weights_folder(tmp_path, capsys, name, how, reason):
    weights = tmp_path / "weights"
    shutil.copytree(WEIGHTS, weights)
    damaged = weights / name
    damage(damaged, how)
    assert align_with_model(tmp_path, weights, capsys).startswith("error: " + expected(damaged, reason))


@pytest.mark.parametrize(
    "name,content,message",
    [
        (
            "config.cfg",
            b"[nlp\nlang = 'de'\n",
            "config.cfg:1: damaged pipeline file: not a spaCy config (File contains",
        ),
        ("meta.json", b'{"lang": "de",', "meta.json: damaged pipeline file: not JSON ("),
    ],
)
def test_align_model_names_a_damaged_spacy_file(tmp_path, capsys, name, content, message):
    pipeline = tmp_path / "pipeline"
    shutil.copytree(PIPELINE, pipeline)
    (pipeline / name).write_bytes(content)
    assert align_with_model(tmp_path, pipeline, capsys).startswith(f"error: {pipeline}/{message}")


def test_arrays_of_another_model_are_refused(tmp_path, capsys):
    """Weights whose arrays do not fit the config's model (another width, a missing layer, another
    type) are refused by name, not loaded into a broken model."""
    state = read_state(WEIGHTS / "model.npz")
    changes = {
        "emission.pair.0.weight has shape (32, 16)": dict(
            state, **{"emission.pair.0.weight": state["emission.pair.0.weight"][:, 1:]}
        ),
        "not the weights of this config's model (no transition.g)": {
            k: v for k, v in state.items() if k != "transition.g"
        },
        "not float32 arrays": dict(state, **{"transition.g": state["transition.g"].astype(np.float64)}),
    }
    for k, (reason, changed) in enumerate(changes.items()):
        weights = tmp_path / f"weights-{k}"
        shutil.copytree(WEIGHTS, weights)
        with zipfile.ZipFile(weights / "model.npz", "w") as archive:
            for key, value in changed.items():
                with archive.open(f"{key}.npy", "w") as entry:
                    np.lib.format.write_array(entry, value)
        assert align_with_model(tmp_path, weights, capsys).startswith(
            "error: " + expected(weights / "model.npz", reason)
        )


def test_intact_copy_still_loads(tmp_path):
    """The checks pass the pipeline as saved (and its checksums are those torch wrote)."""
    pipeline = tmp_path / "pipeline"
    shutil.copytree(PIPELINE, pipeline)
    nlp = spacy.load(pipeline)
    assert nlp.pipe_names == ["simalign_segmenter", "simalign_sentence_aligner"]
