"""Every registered name resolves (entry points included): cheap, and catches broken entry points."""
import configparser
import importlib
from pathlib import Path

import pytest
import spacy
from spacy.util import registry

ROOT = Path(__file__).resolve().parent.parent


def entry_points():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    out = []
    for group, body in cfg["options.entry_points"].items():
        for line in body.strip().splitlines():
            if "=" in line:
                name, target = (x.strip() for x in line.split("=", 1))
                out.append((group, name, target))
    return out


@pytest.mark.parametrize("group,name,target", entry_points())
def test_entry_point_target_imports(group, name, target):
    module, _, attr = target.partition(":")
    assert callable(getattr(importlib.import_module(module), attr))


@pytest.mark.parametrize("group,name,target", [e for e in entry_points() if e[0] == "spacy_factories"])
def test_factories_resolve_by_name(group, name, target):
    nlp = spacy.blank("de")
    assert nlp.get_factory_meta(name).factory == name


@pytest.mark.parametrize("group,name,target", [e for e in entry_points() if e[0] == "spacy_simalign_similarity"])
def test_similarity_backends_resolve(group, name, target):
    import spacy_simalign.registry  # noqa: F401  (creates the registry)

    assert registry.simalign_similarity.get(name) is not None


@pytest.mark.parametrize("group,name,target", [e for e in entry_points() if e[0] == "spacy_simalign_aligners"])
def test_aligners_resolve_to_their_entry_point(group, name, target):
    import spacy_simalign.registry  # noqa: F401  (creates the registry)

    module, _, attr = target.partition(":")
    assert registry.simalign_aligners.get(name) is getattr(importlib.import_module(module), attr)


def test_every_named_method_builds_its_aligner():
    from spacy_simalign.aligners.methods import PARAGRAPH_METHODS, SENTENCE_METHODS, build_aligner, method_config

    for name in SENTENCE_METHODS:
        assert hasattr(build_aligner(method_config(name)), "align")
    for name in PARAGRAPH_METHODS:
        assert hasattr(build_aligner(method_config(name, paragraph=True), kind="paragraph"), "align_paragraphs")


def test_scorer_resolves():
    from spacy_simalign.pipeline.scorer import score_examples

    assert registry.scorers.get("spacy-simalign.alignment_scorer.v1")() is score_examples


def test_component_defaults_are_the_named_default_methods():
    """The components (a lower layer than methods.py) keep their own copy of the default
    [aligner] config; it must stay the `crf` and `jiang` methods' (taus left to their defaults)."""
    import inspect

    from confection import Config

    from spacy_simalign.aligners.methods import DEFAULT_PARAGRAPH_METHOD, DEFAULT_SENTENCE_METHOD, method_config
    from spacy_simalign.aligners.paragraphs import make_jiang_paragraphs
    from spacy_simalign.pipeline import paragraph_aligner, sentence_aligner

    sentence = Config().from_str(sentence_aligner.DEFAULT_CONFIG_STR)["sentence_aligner"]["aligner"]
    assert sentence == method_config(DEFAULT_SENTENCE_METHOD)["aligner"]
    paragraph = dict(Config().from_str(paragraph_aligner.DEFAULT_CONFIG_STR)["paragraph_aligner"]["aligner"])
    named = dict(method_config(DEFAULT_PARAGRAPH_METHOD, paragraph=True)["aligner"])
    defaults = {k: p.default for k, p in inspect.signature(make_jiang_paragraphs).parameters.items()
                if k.startswith("tau")}
    assert named == {**paragraph, **defaults}
