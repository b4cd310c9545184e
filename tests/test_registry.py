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
    import spacy_simalign.core.registries  # noqa: F401  (creates the registry)

    assert registry.simalign_similarity.get(name) is not None


@pytest.mark.parametrize("group,name,target", [e for e in entry_points() if e[0] == "spacy_simalign_aligners"])
def test_aligners_resolve_to_their_entry_point(group, name, target):
    import spacy_simalign.core.registries  # noqa: F401  (creates the registry)

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
    """The components' default aligners, filled as spaCy fills them, are the `crf` and `jiang` methods'
    (which leave out the settings accepted only at their off value, crf/retired.py)."""
    from spacy_simalign.aligners.methods import (
        DEFAULT_PARAGRAPH_METHOD,
        DEFAULT_SENTENCE_METHOD,
        method_config,
        without_retired_keys,
    )

    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_paragraph_aligner")
    nlp.add_pipe("simalign_sentence_aligner")
    components = nlp.config["components"]
    filled = without_retired_keys(components["simalign_sentence_aligner"]["aligner"].copy())
    assert filled == method_config(DEFAULT_SENTENCE_METHOD)["aligner"]
    assert (
        components["simalign_paragraph_aligner"]["aligner"]
        == method_config(DEFAULT_PARAGRAPH_METHOD, paragraph=True)["aligner"]
    )


def _signature_defaults(function):
    """The defaults of a registered function's settings, less those accepted only at their off
    value (crf/retired.py), which a named method's config leaves out."""
    import inspect

    from spacy_simalign.aligners.crf.retired import Retired

    retired = {k for k, rule in getattr(function, "setting_ranges", {}).items() if isinstance(rule, Retired)}
    return {
        k: p.default
        for k, p in inspect.signature(function).parameters.items()
        if k != "similarity" and k not in retired and p.default is not inspect.Parameter.empty
    }


@pytest.mark.parametrize("paragraph", [False, True])
def test_named_methods_are_the_registered_functions_defaults(paragraph):
    """A named method's config is the registry-filled one: every value of the registered
    function is shown and equals its signature default, but for the settings that make the
    method (only cats-c3g-seq's strategy); no value is written in two places."""
    from spacy_simalign.aligners.methods import PARAGRAPH_METHODS, SENTENCE_METHODS, method_config

    for name, method in (PARAGRAPH_METHODS if paragraph else SENTENCE_METHODS).items():
        config = method_config(name, paragraph=paragraph)["aligner"]
        function = registry.simalign_aligners.get(method.aligner)
        values = {k: v for k, v in config.items() if k not in ("@simalign_aligners", "similarity")}
        defaults = {**_signature_defaults(function), **method.settings}
        for key, value in list(values.items()):  # a sub-config: its registered name, filled with its defaults
            if isinstance(value, dict):
                sub = registry.simalign_aligners.get(value["@simalign_aligners"])
                assert {k: v for k, v in value.items() if k != "@simalign_aligners"} == _signature_defaults(sub), key
                assert defaults[key]["@simalign_aligners"] == value["@simalign_aligners"], key
                values[key] = defaults[key]
        assert values == defaults, name
        assert set(method.settings) <= {"strategy"}, name
        backend = registry.simalign_similarity.get(config["similarity"]["@simalign_similarity"])
        assert {k: v for k, v in config["similarity"].items() if k[0] != "@"} == _signature_defaults(backend)
    assert SENTENCE_METHODS["cats-c3g-seq"].settings == {"strategy": "closest-seq"}


def test_init_config_prints_the_filled_config(capsys):
    from spacy_simalign.__main__ import main

    assert main(["init-config", "bead-dp"]) == 0
    out = capsys.readouterr().out
    assert 'concatenation = "candidates"' in out and "threads = 0" in out and "max_align = 5" in out
    assert main(["init-config", "jiang", "--paragraph"]) == 0
    assert "sublinear_tf = false" in capsys.readouterr().out


@pytest.mark.parametrize("group,name,target", [e for e in entry_points() if e[0].startswith("spacy_simalign_doc_")])
def test_docmatch_names_resolve_to_their_entry_point(group, name, target):
    import spacy_simalign.core.registries  # noqa: F401  (creates the registries)

    module, _, attr = target.partition(":")
    table = getattr(registry, "simalign_" + group[len("spacy_simalign_") :])
    assert table.get(name) is getattr(importlib.import_module(module), attr)
