"""The spaCy project's `ci` workflow, run with weasel's project_run in a copy of the project
(project.yml, configs, assets, project scripts): convert a few DEplain documents, spacy train
for two epochs, evaluate, assemble the de and en pipelines and build the de sdist."""
import json
import shutil
from pathlib import Path

import pytest
import spacy
from weasel.cli.run import project_run

from spacy_simalign import pair

ROOT = Path(__file__).resolve().parent.parent
PROJECT_FILES = ("project.yml", "configs", "assets", "project")


@pytest.fixture(scope="module")
def ci_project(tmp_path_factory):
    folder = tmp_path_factory.mktemp("project")
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, folder / name)
    project_run(folder, "ci", capture=True)
    return folder


@pytest.mark.slow
def test_ci_workflow_trains_evaluates_and_packages(ci_project):
    split = json.loads((ci_project / "corpus" / "ci" / "split.json").read_text(encoding="utf-8"))
    assert len(split["train"]) + len(split["dev"]) + len(split["test"]) == 10
    assert not set(split["train"]) & set(split["test"]) and not set(split["dev"]) & set(split["test"])
    metrics = json.loads((ci_project / "metrics" / "ci.json").read_text(encoding="utf-8"))
    assert metrics["docs"] == len(split["test"])
    for name in ("link", "bead_text", "paragraph"):
        assert set(metrics[name]) == {"p", "r", "f"} and all(0.0 <= v <= 1.0 for v in metrics[name].values())
    assert metrics["link"]["f"] > 0.3  # two epochs on seven documents already align most links
    assert (ci_project / "training" / "ci" / "model-best" / "sentence_aligner" / "aligner" / "model.pt").is_file()
    sdist = ci_project / "packages" / "ci" / "de_simalign_web-0.1.0" / "dist" / "de_simalign_web-0.1.0.tar.gz"
    assert sdist.is_file()
    packaged = json.loads((ci_project / "packages" / "ci" / "de_simalign_web-0.1.0" / "meta.json")
                          .read_text(encoding="utf-8"))
    assert any(req.startswith("spacy-simalign") for req in packaged["requirements"])


@pytest.mark.slow
def test_ci_pipelines_align_in_their_own_language(ci_project):
    """The en pipeline carries the same weights as de behind English tokenization and segmentation."""
    de = spacy.load(ci_project / "packages" / "ci" / "pipelines" / "de")
    en = spacy.load(ci_project / "packages" / "ci" / "pipelines" / "en")
    assert de.lang == "de" and en.lang == "en" and en.pipe_names == de.pipe_names
    doc = en(pair.make_pair(en, "Mr. Smith lives in London. He works at the bank near the river.",
                            "Mr. Smith lives in London. He works at a bank."))
    assert len(pair.side_of(doc, "complex")) == 2  # "Mr." does not end a sentence in English
    assert ((0,), (0,)) in {(b.complex, b.simple) for b in doc._.beads}


@pytest.mark.slow
def test_ci_rerun_skips_up_to_date_steps(ci_project):
    model = ci_project / "training" / "ci" / "model-best" / "sentence_aligner" / "aligner" / "model.pt"
    before = model.stat().st_mtime_ns
    project_run(ci_project, "ci", capture=True)
    assert model.stat().st_mtime_ns == before
