"""Pipelines saved by 0.1.0 keep loading and aligning the same: tests/data/pipeline-0.1.0 (a default
pipeline saved with `nlp.to_disk`) holds settings that spacy-simalign does not offer, at their off
value (crf/retired.py); another value of such a setting is refused in one line, and so is a model
width (`hidden`) in a saved pipeline's config.cfg that its weights do not have."""

import json
import shutil
from pathlib import Path

import pytest
import spacy
from conftest import SMALL, load_deplain

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.core.errors import InputError
from spacy_simalign.pipeline import doc_pair as pair

SAVED = Path(__file__).resolve().parent / "data" / "pipeline-0.1.0"
CRF = "spacy-simalign.CRFAligner.v2"
DEFAULT_CRF = "spacy-simalign.CRFAligner.v3"  # what a pipeline saved with the defaults names
TRAINING = "spacy-simalign.CRFTraining.v1"
WHY = "which spacy-simalign does not offer (measured and not kept: docs/crf-experiments.md)"


def fresh_default():
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_segmenter")
    nlp.add_pipe("simalign_sentence_aligner")
    return nlp


def aligned(nlp, records, raw: bool):
    """(sentences of each side, beads) of each record aligned by `nlp`, from its paragraphs or (raw)
    from its text, which the pipeline's segmenter splits."""
    out = []
    for r in records:
        sides = [r[s]["paragraphs"] for s in ("complex", "simple")]
        if raw:
            sides = ["\n\n".join(" ".join(p) for p in paragraphs) for paragraphs in sides]
        doc = nlp(pair.make_pair(nlp, *sides, "de", id=r["id"]))
        sentences = [[s.text for s in pair.side_sents(doc, name)] for name in ("complex", "simple")]
        out.append((sentences, [(b.complex, b.simple, b.score) for b in doc._.beads]))
    return out


def test_the_saved_config_holds_the_settings_that_are_not_offered():
    """What makes this pipeline a test of old configs (if it held none, the test below would not be one)."""
    config = spacy.util.load_config(SAVED / "config.cfg")["components"]["simalign_sentence_aligner"]["aligner"]
    assert (config["emission"], config["cross_encoder_path"], config["clauses"]) == ("features", None, False)
    assert (config["training"]["linked_only_weight"], config["training"]["bead_text_floor"]) == (1.0, 0.0)
    weights = json.loads((SAVED / "simalign_sentence_aligner" / "aligner" / "config.json").read_text(encoding="utf-8"))
    assert (weights["emission"], weights["cross_encoder_path"]) == ("features", None)


@pytest.mark.parametrize("raw", [False, True], ids=["paragraphs", "raw text"])
def test_a_pipeline_saved_by_0_1_0_aligns_as_a_fresh_default_pipeline(raw):
    records = [r for r in load_deplain() if r["id"] in SMALL]
    assert len(records) == len(SMALL)
    saved = spacy.load(SAVED)
    assert saved.pipe_names == ["simalign_segmenter", "simalign_sentence_aligner"]
    got, want = aligned(saved, records, raw), aligned(fresh_default(), records, raw)
    assert all(beads for _, beads in got)
    assert got == want


@pytest.mark.parametrize(
    "settings,message",
    [
        ({"clauses": True}, f"{CRF}: clauses = true: switches on the clause features, {WHY}; only false is accepted"),
        (
            {"emission": "cross-encoder"},
            f'{CRF}: emission = "cross-encoder": switches on the cross-encoder emission, {WHY}; only "features" is accepted',
        ),
        (
            {"cross_encoder_path": "models/minilm"},
            f'{CRF}: cross_encoder_path = "models/minilm": switches on the cross-encoder emission, {WHY}; only null is accepted',
        ),
        (
            {"training": {"@simalign_aligners": TRAINING, "linked_only_weight": 0.5}},
            f"{TRAINING}: linked_only_weight = 0.5: switches on linked-only training, {WHY}; only 1.0 is accepted",
        ),
        (
            {"training": {"@simalign_aligners": TRAINING, "bead_text_floor": 0.05}},
            f"{TRAINING}: bead_text_floor = 0.05: switches on the joined-text bead stage, {WHY}; only 0.0 is accepted",
        ),
    ],
)
def test_a_setting_that_is_not_offered_is_refused_at_any_other_value(settings, message):
    nlp = spacy.blank("de")
    with pytest.raises(InputError) as err:
        nlp.add_pipe("simalign_sentence_aligner", config={"aligner": {"@simalign_aligners": CRF, **settings}})
    assert str(err.value) == message


def test_weights_saved_with_such_a_setting_on_are_refused_naming_their_file(tmp_path):
    folder = tmp_path / "weights"
    shutil.copytree(SAVED / "simalign_sentence_aligner" / "aligner", folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, "clauses": True}), encoding="utf-8")
    with pytest.raises(InputError) as err:
        CRFAligner.load(folder)
    where = folder.resolve() / "config.json"
    assert str(err.value) == f"{where}: clauses = true: switches on the clause features, {WHY}; only false is accepted"
    assert "\n" not in str(err.value)


def test_a_config_to_start_from_shows_only_the_settings_offered():
    """`init-config crf` (method_config) leaves out what is accepted only for old configs."""
    from spacy_simalign.aligners.methods import method_config

    config = method_config("crf")["aligner"]
    assert {"top_k", "wide", "training"} <= set(config)
    assert not {"emission", "cross_encoder_path", "clauses", "bead_text_weights", "bead_text_floor"} & set(config)
    assert "epochs" in config["training"]
    assert not {"encoder_learn_rate", "linked_only_weight", "bead_text_floor"} & set(config["training"])


@pytest.fixture(scope="module")
def saved_default(tmp_path_factory):
    folder = tmp_path_factory.mktemp("saved") / "pipeline"
    fresh_default().to_disk(folder)
    return folder


def edited(saved: Path, tmp_path: Path, **changes) -> Path:
    """A copy of the saved pipeline whose aligner block in config.cfg has `changes`."""
    folder = tmp_path / "pipeline"
    shutil.copytree(saved, folder)
    config = spacy.util.load_config(folder / "config.cfg", interpolate=False)
    config["components"]["simalign_sentence_aligner"]["aligner"].update(changes)
    config.to_disk(folder / "config.cfg")
    return folder


@pytest.mark.parametrize(
    "weights,where",
    [("shipped", "the shipped weights"), (None, "{folder}/simalign_sentence_aligner/aligner")],
    ids=["weights shipped", "weights null (a trained pipeline)"],
)
def test_a_width_that_is_not_the_weights_is_refused(saved_default, tmp_path, capsys, weights, where):
    """hidden = 64 in config.cfg was ignored (the weights fix the width, the beads were the same):
    it is refused, naming both widths, by spacy.load and by align --model."""
    from spacy_simalign.__main__ import main

    folder = edited(saved_default, tmp_path, weights=weights, hidden=64)
    message = (
        f"{DEFAULT_CRF}: hidden = 64: the loaded weights have hidden = 32 ({where.format(folder=folder)}); "
        "a loaded model's width is its weights'"
    )
    with pytest.raises(InputError) as err:
        spacy.load(folder)
    assert str(err.value) == message
    if weights is not None:  # spacy train builds the pipeline from its config (a fresh CRF takes any width)
        from spacy.training.initialize import init_nlp

        with pytest.raises(InputError) as err:
            init_nlp(spacy.util.load_config(folder / "config.cfg"))
        assert str(err.value) == message
    pairs = tmp_path / "in.jsonl"
    pairs.write_text(json.dumps(load_deplain(1)[0], ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["align", str(pairs), str(tmp_path / "out.jsonl"), "--model", str(folder)]) == 2
    assert capsys.readouterr().err == f"error: {folder}/config.cfg: {message}\n"


@pytest.mark.parametrize("hidden", [32, None])
def test_the_default_width_and_null_load_any_weights(saved_default, tmp_path, hidden):
    """32 (the default: a config cannot tell it from a width it did not set) and null never are."""
    folder = edited(saved_default, tmp_path, weights=None, hidden=hidden)
    aligner = spacy.load(folder).get_pipe("simalign_sentence_aligner").aligner
    assert aligner.ready and aligner.config["hidden"] == 32 and aligner.wide is not None
