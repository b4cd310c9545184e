"""A damaged trained pipeline or CRF weights folder (model.npz, or an older pipeline's model.pt,
cut short, a byte changed, emptied; arrays of another shape; config.json not JSON; the pipeline's
own config.cfg or meta.json garbled; weights that are not finite numbers, as a diverged training
run saves them; a wide CRF that config.json records and the folder lacks) is one line naming the
damaged file: an InputError from spacy.load, `error: ...` and exit 2 from `align --model`, with
nothing written."""

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import spacy

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner
from spacy_simalign.aligners.crf.choice import WIDE_FOLDER, WIDE_RECORD
from spacy_simalign.aligners.crf.weights_files import read_state, state_bytes
from spacy_simalign.core.errors import InputError

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


# -- weights that are not finite numbers, a missing wide CRF ---------------------------------------
SAVED_ALIGNER = Path("simalign_sentence_aligner") / "aligner"
NOT_FINITE = "CRF weights that are not finite numbers: "
DIVERGED = "what a training run that diverged saves; train again (a lower learn_rate)"


@pytest.fixture(scope="module")
def saved_pipeline(tmp_path_factory):
    """A default pipeline saved with nlp.to_disk: the shipped CRF pair as model.npz, wide/ beside it."""
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_segmenter")
    nlp.add_pipe("simalign_sentence_aligner")
    folder = tmp_path_factory.mktemp("saved") / "pipeline"
    nlp.to_disk(folder)
    return folder


def copy_of(source: Path, tmp_path: Path) -> Path:
    folder = tmp_path / source.name
    shutil.copytree(source, folder)
    return folder


def all_nan(path: Path) -> None:
    """model.npz rewritten with every float NaN: a whole archive with the right checksums."""
    state = read_state(path)
    path.write_bytes(state_bytes({name: np.full_like(value, np.nan) for name, value in state.items()}))


@pytest.mark.parametrize("name", ["model.npz", "wide/model.npz"])
def test_nan_weights_are_refused_on_loading_naming_the_file(saved_pipeline, tmp_path, capsys, name):
    pipeline = copy_of(saved_pipeline, tmp_path)
    nan = pipeline / SAVED_ALIGNER / name
    all_nan(nan)
    message = f"{nan}: {NOT_FINITE}emission.null.0.bias holds NaN, {DIVERGED}"
    with pytest.raises(InputError) as err:
        spacy.load(pipeline)
    assert str(err.value) == message
    assert align_with_model(tmp_path, pipeline, capsys) == f"error: {message}"


def test_nan_weights_folder_is_refused_by_align_model(tmp_path, capsys):
    weights = copy_of(WEIGHTS, tmp_path)
    all_nan(weights / "model.npz")
    assert align_with_model(tmp_path, weights, capsys) == (
        f"error: {weights / 'model.npz'}: {NOT_FINITE}emission.null.0.bias holds NaN, {DIVERGED}"
    )


@pytest.mark.parametrize(
    "key,index,value,said",
    [
        ("bead_weights", 3, float("nan"), "bead_weights[3] is NaN"),
        ("combination_weights", 0, 1e999, "combination_weights[0] is infinity"),
    ],
)
def test_config_json_weights_that_are_not_finite_are_refused(tmp_path, capsys, key, index, value, said):
    """config.json's learned stages (json writes NaN and Infinity, and reads them back)."""
    weights = copy_of(WEIGHTS, tmp_path)
    config = json.loads((weights / "config.json").read_text(encoding="utf-8"))
    config[key][index] = value
    (weights / "config.json").write_text(json.dumps(config), encoding="utf-8")
    message = f"{weights / 'config.json'}: {NOT_FINITE}{said}, {DIVERGED}"
    with pytest.raises(InputError) as err:
        CRFAligner.load(weights)
    assert str(err.value) == message
    assert align_with_model(tmp_path, weights, capsys) == f"error: {message}"


@pytest.mark.parametrize("crf", ["own", "wide"])
def test_a_diverged_crf_is_not_saved(tmp_path, crf):
    """Saving (a folder, or bytes) refuses NaN weights, naming the file, before anything is written."""
    torch = pytest.importorskip("torch")
    aligner = CRFAligner.load(WEIGHTS)
    diverged = aligner if crf == "own" else aligner.wide
    with torch.no_grad():
        next(diverged.model.parameters()).fill_(float("nan"))  # what a run that diverged leaves
    out = tmp_path / "crf"
    where = out / "model.npz" if crf == "own" else out / WIDE_FOLDER / "model.npz"
    with pytest.raises(InputError) as err:
        aligner.save(out)
    assert str(err.value) == f"{where}: not saved: {NOT_FINITE}emission.pair.0.weight holds NaN, {DIVERGED}"
    assert not out.exists()
    with pytest.raises(InputError, match="^the CRF aligner's bytes: not saved: CRF weights that are not finite"):
        aligner.to_bytes()


def test_diverged_stage_weights_are_not_saved(tmp_path):
    aligner = CRFAligner.load(WEIGHTS)
    aligner.config["bead_weights"] = [float("nan")] + aligner.config["bead_weights"][1:]
    with pytest.raises(InputError) as err:
        aligner.save(tmp_path / "crf")
    assert (
        str(err.value)
        == f"{tmp_path / 'crf' / 'config.json'}: not saved: {NOT_FINITE}bead_weights[0] is NaN, {DIVERGED}"
    )
    assert not (tmp_path / "crf").exists()


def test_a_saved_wide_crf_is_recorded_and_its_missing_folder_refused(saved_pipeline, tmp_path, capsys):
    """config.json records the wide CRF saved beside it; without wide/ the pipeline would load and
    align with one CRF, other scores: it is refused, naming the folder (wide/model.npz alone gone is
    refused as before, by its folder)."""
    saved = saved_pipeline / SAVED_ALIGNER
    assert json.loads((saved / "config.json").read_text(encoding="utf-8"))[WIDE_RECORD] is True
    assert WIDE_RECORD not in json.loads((saved / WIDE_FOLDER / "config.json").read_text(encoding="utf-8"))
    pipeline = copy_of(saved_pipeline, tmp_path)
    wide = pipeline / SAVED_ALIGNER / WIDE_FOLDER
    (wide / "model.npz").unlink()
    with pytest.raises(InputError, match="not a CRF aligner folder"):
        spacy.load(pipeline)
    shutil.rmtree(wide)
    message = (
        f"{wide}: missing: config.json records the wide CRF saved here; copy the folder again from where it was saved"
    )
    with pytest.raises(InputError) as err:
        spacy.load(pipeline)
    assert str(err.value) == message
    assert align_with_model(tmp_path, pipeline, capsys) == f"error: {message}"


def test_folders_without_the_record_load_with_one_crf(tmp_path):
    """A pipeline saved before the record (0.1.0's) without its wide/ loads as one CRF; a CRF saved
    without a wide one records none."""
    pipeline = copy_of(PIPELINE, tmp_path)
    shutil.rmtree(pipeline / ALIGNER / WIDE_FOLDER)
    assert spacy.load(pipeline).get_pipe("simalign_sentence_aligner").aligner.wide is None
    one = CRFAligner.load(pipeline / ALIGNER)
    one.save(tmp_path / "one")
    assert WIDE_RECORD not in json.loads((tmp_path / "one" / "config.json").read_text(encoding="utf-8"))
    assert CRFAligner.load(tmp_path / "one").wide is None


def test_the_shipped_weights_are_what_saving_writes_and_record_their_wide_crf(tmp_path):
    """The package's own weights folder carries the record too (a copy without its wide/ is refused),
    and saving the default aligner writes its files byte for byte, as a reproduction compares them."""
    shipped = DEFAULT_WEIGHTS
    assert json.loads((shipped / "config.json").read_text(encoding="utf-8"))[WIDE_RECORD] is True
    CRFAligner.default().save(tmp_path / "saved")
    for name in ("config.json", "model.npz", f"{WIDE_FOLDER}/config.json", f"{WIDE_FOLDER}/model.npz"):
        assert (tmp_path / "saved" / name).read_bytes() == (shipped / name).read_bytes(), name
    shutil.rmtree(tmp_path / "saved" / WIDE_FOLDER)
    with pytest.raises(InputError, match="config.json records the wide CRF saved here"):
        CRFAligner.load(tmp_path / "saved")


# -- a config.json that is not a whole weights config ----------------------------------------------
INVALID = "invalid CRF weights config: "
REQUIRED = '"band", "combination", "combination_weights", "encoder", "hidden", "threshold", "top_k", "top_k_lexical", "torch_threads"'
BAD_CONFIGS = [
    ("threshold-nan", {"threshold": float("nan")}, "threshold = nan: must be a finite number"),
    (
        "wide_margin-2^64",
        {"wide_margin": 2**64},
        f"wide_margin = {2**64}: is beyond the whole numbers a spaCy config holds (-2^63 to 2^64 - 1)",
    ),
    ("short-bead_weights", {"bead_weights": [0.5] * 5}, "bead_weights holds 5 numbers: its stage has 23 features"),
    ("unknown-encoder", {"encoder": "nonexistent-encoder"}, 'encoder = "nonexistent-encoder": not a sentence encoder'),
    ("wide_crf-yes", {"wide_crf": "yes"}, 'wide_crf = "yes": must be true or false'),
    ("top_k-string", {"top_k": "6"}, 'top_k = "6": must be an integer, not a string'),
    ("misspelt-key", {"treshold": 0.5}, 'unknown key "treshold"'),
    ("empty", None, f"missing {REQUIRED}"),
]


def write_bad_config(config_path: Path, change) -> None:
    config = {} if change is None else {**json.loads(config_path.read_text(encoding="utf-8")), **change}
    config_path.write_text(json.dumps(config), encoding="utf-8")


@pytest.mark.parametrize("change,said", [c[1:] for c in BAD_CONFIGS], ids=[c[0] for c in BAD_CONFIGS])
def test_a_config_json_that_is_not_a_whole_weights_config_is_refused_on_every_way_in(
    saved_pipeline, tmp_path, capsys, change, said
):
    """align --model and add_pipe with a weights folder, and spacy.load of a pipeline that carries
    its weights: one line naming the file and the key, nothing written, the files as they were."""
    weights = copy_of(WEIGHTS, tmp_path)
    write_bad_config(weights / "config.json", change)
    message = f"{weights / 'config.json'}: {INVALID}{said}"
    before = (weights / "config.json").read_bytes()
    assert align_with_model(tmp_path, weights, capsys).startswith(f"error: {message}")
    nlp = spacy.blank("de")
    with pytest.raises(InputError) as err:
        nlp.add_pipe("simalign_sentence_aligner", config={"aligner": {"weights": str(weights)}})
    assert str(err.value).startswith(message) and "\n" not in str(err.value)
    assert (weights / "config.json").read_bytes() == before

    pipeline = copy_of(saved_pipeline, tmp_path)
    carried = pipeline / SAVED_ALIGNER / "config.json"
    write_bad_config(carried, change)
    with pytest.raises(InputError) as err:
        spacy.load(pipeline)
    assert str(err.value).startswith(f"{carried}: {INVALID}{said}") and "\n" not in str(err.value)


def test_the_shipped_and_older_configs_are_whole_weights_configs(tmp_path):
    """The shipped weights and their wide CRF, 0.1.0's, and a folder saved before the settings that
    came after the first weights (neighbours, identical, the bead stage, the split fill, the wide
    CRF's record, the later settings) load; the ones it lacks keep their default."""
    from spacy_simalign.aligners.crf.weights_config import LATER, weights_config_problems

    for folder in (WEIGHTS, WEIGHTS / WIDE_FOLDER, PIPELINE / ALIGNER, PIPELINE / ALIGNER / WIDE_FOLDER):
        assert weights_config_problems(json.loads((folder / "config.json").read_text(encoding="utf-8"))) == [], folder
    older = copy_of(WEIGHTS, tmp_path)
    shutil.rmtree(older / WIDE_FOLDER)
    config = json.loads((older / "config.json").read_text(encoding="utf-8"))
    (older / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k not in LATER}))
    loaded = CRFAligner.load(older)
    assert loaded.config["neighbours"] == 2 and loaded.config["bead_weights"] is None and loaded.wide is None
