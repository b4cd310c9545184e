"""The CRF aligner's config: one default per setting in the registered function, sub-configs for
the translation decoder and the training, the old form (null = the weights' value), the trainer
that takes the aligner it trains, and configs/crf.cfg, which sets only what differs from the
defaults."""

import ast
import inspect
import json
import typing
from pathlib import Path

import pytest
import spacy
from spacy.language import DEFAULT_CONFIG as SPACY_DEFAULTS
from spacy.util import load_config, load_model_from_config, registry

from spacy_simalign.aligners.crf import aligner as crf_aligner
from spacy_simalign.aligners.crf.aligner import (
    DEFAULT_WEIGHTS,
    VALUED,
    CRFAligner,
    make_crf_aligner,
    make_crf_aligner_v3,
    read_weights,
)
from spacy_simalign.aligners.crf.choice import WIDE_RECORD
from spacy_simalign.aligners.crf.encoders import similarity_from_spec
from spacy_simalign.aligners.crf.legacy import make_crf_aligner_v1
from spacy_simalign.aligners.crf.summaries import SUMMARY_RATIO, SUMMARY_WORD_FLOOR
from spacy_simalign.aligners.crf.train import TrainingSettings
from spacy_simalign.aligners.crf.translations import TranslationSettings
from spacy_simalign.core.errors import InputError
from spacy_simalign.core.setting_checks import Required
from spacy_simalign.formats.pair_jsonl import parse_pair
from spacy_simalign.similarity.backends import make_use_similarity

OLD_FORM = (
    "combination",
    "threshold",
    "top_k",
    "top_k_lexical",
    "band",
    "neighbours",
    "hidden",
    "emission",
    "identical",
    "split_fill",
    "bead_threshold",
)


def default_pipeline():
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_segmenter")
    nlp.add_pipe("simalign_sentence_aligner")
    return nlp


def test_filled_config_shows_every_value_that_runs():
    """No null (the default form, v3, has none of the settings that 0.1.0's pipelines keep at null,
    crf/retired.py); the values are the shipped weights' own, with the translation decoder and the
    training as sub-configs, and the word floor of summaries."""
    block = default_pipeline().config["components"]["simalign_sentence_aligner"]["aligner"]
    assert block["@simalign_aligners"] == "spacy-simalign.CRFAligner.v3"
    nulls = sorted(
        k for section in (block, block["translations"], block["training"]) for k, v in section.items() if v is None
    )
    assert nulls == []
    assert (block["summary_ratio"], block["summary_word_floor"]) == (SUMMARY_RATIO, SUMMARY_WORD_FLOOR)
    saved, _ = read_weights(DEFAULT_WEIGHTS)
    for key, value in block.items():
        if key in saved:
            assert saved[key] == value, key
    assert block["translations"]["@simalign_aligners"] == "spacy-simalign.CRFTranslations.v3"
    assert block["training"]["@simalign_aligners"] == "spacy-simalign.CRFTraining.v1"
    assert block["training"]["epochs"] == 20


def test_the_aligner_runs_the_configured_values():
    nlp = spacy.blank("de")
    nlp.add_pipe(
        "simalign_sentence_aligner",
        config={
            "aligner": {
                "@simalign_aligners": "spacy-simalign.CRFAligner.v2",
                "top_k": 8,
                "bead_max_split": 6,
                "translations": {
                    "@simalign_aligners": "spacy-simalign.CRFTranslations.v1",
                    "length_ratio": 1.5,
                    "window": 3,
                },
                "training": {"@simalign_aligners": "spacy-simalign.CRFTraining.v1", "epochs": 7},
            }
        },
    )
    aligner = nlp.get_pipe("simalign_sentence_aligner").aligner
    assert aligner.config["top_k"] == 8 and aligner.config["bead_max_split"] == 6
    assert aligner.translations.length_ratio == 1.5 and aligner.settings.epochs == 7
    assert aligner.bead_dp.window == 3 and aligner.bead_dp.similarity is aligner.encoder


CRF_CFG = Path(__file__).resolve().parent.parent / "configs" / "crf.cfg"
# kept although equal to a default (crf.cfg's header): the variables other sections refer to, and
# what `spacy train` reads before it fills in the defaults
REQUIRED = {
    ("paths", "train"),
    ("paths", "dev"),
    ("system", "seed"),
    ("system", "gpu_allocator"),
    ("training", "seed"),
    ("training", "gpu_allocator"),
}


def leaves(section, prefix=()):
    for key, value in section.items():
        if isinstance(value, dict):
            yield from leaves(value, prefix + (key,))
        else:
            yield prefix + (key,), value


def function_names(section):
    """A config section with its registered-function names and factories only, no values."""
    out = {}
    for key, value in section.items():
        if isinstance(value, dict):
            out[key] = function_names(value)
        elif key.startswith("@") or key == "factory":
            out[key] = value
    return out


def lookup(section, path):
    for key in path:
        if not isinstance(section, dict) or key not in section:
            return KeyError  # no default: any value differs
        section = section[key]
    return section


def default_of(config, defaults, path):
    """The value spaCy and the registered functions give `path` where the config says nothing:
    in a section whose function is not the default one, that function's own default."""
    section, default_section = lookup(config, path[:-1]), lookup(defaults, path[:-1])
    names = [key for key in section if key.startswith("@")]
    if names and lookup(default_section, names[:1]) != section[names[0]]:
        return registry.fill({"x": function_names(section)}, validate=False)["x"].get(path[-1], KeyError)
    return lookup(defaults, path)


def test_crf_cfg_sets_only_what_differs_from_the_defaults():
    config = load_config(CRF_CFG, interpolate=False)
    nlp = spacy.blank(config["nlp"]["lang"])
    for name in config["nlp"]["pipeline"]:
        block = function_names(config["components"][name])
        nlp.add_pipe(block.pop("factory"), name=name, config=block)
    defaults = nlp.config
    for key in ("lang", "pipeline"):  # the pipeline's shape, built from the file above
        defaults["nlp"][key] = SPACY_DEFAULTS["nlp"][key]
    same = [
        ".".join(path)
        for path, value in leaves(config)
        if not (path[-1].startswith("@") or path[-1] == "factory" or path in REQUIRED)
        and default_of(config, defaults, path) == value
    ]
    assert same == []


def test_crf_cfg_trains_a_fresh_crf_with_the_shipped_recipe(tmp_path, deplain_pairs):
    """spacy train fills crf.cfg as below: the aligner is an untrained CRF whose training settings
    are CRFTraining.v1's defaults, and spaCy makes as many passes as the CRF's epochs."""
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(deplain_pairs[0], ensure_ascii=False) + "\n", encoding="utf-8")
    config = load_config(CRF_CFG, overrides={"paths.train": str(gold), "paths.dev": str(gold)}, interpolate=False)
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    aligner = nlp.get_pipe("sentence_aligner").aligner
    assert aligner.settings == TrainingSettings() and not aligner.ready
    assert nlp.config.interpolate()["training"]["max_epochs"] == TrainingSettings().epochs


def test_model_shape_comes_from_loaded_weights():
    """Loaded weights bring their width: the default (32) and null are theirs; another width that
    is not theirs is refused, naming both; a fresh model takes the config's."""
    encoder = make_use_similarity()
    for hidden in (32, None):
        assert make_crf_aligner(hidden=hidden, similarity=encoder).config["hidden"] == 32
    with pytest.raises(InputError) as err:
        make_crf_aligner(hidden=64, similarity=encoder)
    assert str(err.value) == (
        "spacy-simalign.CRFAligner.v2: hidden = 64: the loaded weights have hidden = 32 (the shipped weights); "
        "a loaded model's width is its weights'"
    )
    fresh = make_crf_aligner(weights=None, hidden=16, similarity=encoder)
    assert fresh.config["hidden"] == 16
    with pytest.raises(
        InputError, match="hidden = 16: the loaded weights have hidden = 32 \\(the CRF aligner's bytes\\)"
    ):
        fresh.from_bytes(make_crf_aligner(similarity=encoder).to_bytes())


def test_weights_of_another_width_load_with_their_width_or_the_default(tmp_path):
    """Weights 64 wide: `align --model` (whose config has the default 32) and hidden = 64 load them;
    hidden = 16 is refused, naming both widths and the folder."""
    from spacy_simalign.aligners.crf.aligner import training_module
    from spacy_simalign.pipeline.build import alignment_pipeline

    pytest.importorskip("torch")
    wide64 = CRFAligner.load(DEFAULT_WEIGHTS, overrides={"hidden": 64})
    wide64.model = training_module("model").CRF(64)  # untrained: only its width matters here
    wide64.attach_wide(None)
    wide64.save(tmp_path / "w64")
    model = alignment_pipeline("de", model=str(tmp_path / "w64"))
    assert model.get_pipe("simalign_sentence_aligner").aligner.config["hidden"] == 64
    assert make_crf_aligner(weights=str(tmp_path / "w64"), hidden=64).config["hidden"] == 64
    with pytest.raises(InputError) as err:
        make_crf_aligner(weights=str(tmp_path / "w64"), hidden=16)
    assert str(err.value) == (
        f"spacy-simalign.CRFAligner.v2: hidden = 16: the loaded weights have hidden = 64 ({tmp_path / 'w64'}); "
        "a loaded model's width is its weights'"
    )


def test_old_form_nulls_decode_as_the_weights_values(deplain_pairs):
    """A config saved before the defaults has null for these settings: in the old form they are
    the weights'."""
    encoder = make_use_similarity()
    old = make_crf_aligner_v1(similarity=encoder, **dict.fromkeys(OLD_FORM))
    new = make_crf_aligner(similarity=encoder)
    assert old.config == new.config
    pair = parse_pair(deplain_pairs[0]).training_pair()
    assert old.align(pair.complex, pair.simple) == new.align(pair.complex, pair.simple)


@pytest.mark.parametrize("key", VALUED)
def test_v2_refuses_null_for_a_setting_with_a_value(key):
    """In v2 null is not the weights' value: `threshold = None` is refused, not taken as 0.5 (a
    config refuses it on every way in: test_config_ranges.py)."""
    with pytest.raises(InputError) as err:
        make_crf_aligner(similarity=make_use_similarity(), **{key: None})
    assert str(err.value) == (
        f"spacy-simalign.CRFAligner.v2: {key} = null: needs a value "
        "(null is the weights' value only in the old form, spacy-simalign.CRFAligner.v1)"
    )


def test_v2_nulls_that_mean_something_keep_their_meaning():
    """weights = null: a fresh CRF; similarity = null: the weights' encoder; cross_encoder_path =
    null: off; split_fill = null: the weights' own (none for weights saved before it); hidden =
    null: the weights' width."""
    fresh = make_crf_aligner(weights=None, similarity=None, cross_encoder_path=None, hidden=None)
    assert not fresh.ready and fresh.config["hidden"] == 32 and fresh.config["encoder"] == "use"
    loaded = make_crf_aligner(split_fill=None, cross_encoder_path=None)
    assert loaded.ready and loaded.config["split_fill"] == 0.4  # the shipped weights' own


def test_saved_config_keeps_the_keys_of_the_shipped_weights(tmp_path):
    """Settings added later are saved only where they differ from the default: saving the shipped
    weights writes their config.json again, byte for byte, with the record of the wide CRF saved
    beside it."""
    shipped = CRFAligner.default(encoder=make_use_similarity())
    shipped.save(tmp_path / "crf")
    recorded = json.loads((DEFAULT_WEIGHTS / "config.json").read_bytes())
    assert recorded[WIDE_RECORD] is True
    assert (DEFAULT_WEIGHTS / "config.json").read_text(encoding="utf-8") == json.dumps(
        recorded, indent=2, sort_keys=True
    ) + "\n"
    assert (tmp_path / "crf" / "config.json").read_bytes() == (DEFAULT_WEIGHTS / "config.json").read_bytes()
    changed = CRFAligner.load(tmp_path / "crf", encoder=shipped.encoder, overrides={"bead_max_split": 6})
    changed.save(tmp_path / "changed")
    assert CRFAligner.load(tmp_path / "changed", encoder=shipped.encoder).config["bead_max_split"] == 6


def test_sub_configs_have_one_default_each():
    assert crf_aligner.DEFAULT_CONFIG["top_k"] == 6
    assert TranslationSettings().decoder(make_use_similarity()).max_align == 5
    assert TrainingSettings().combination_epochs == TrainingSettings().epochs == 20
    with pytest.raises(Exception):
        TranslationSettings(mode="nope")


def test_saved_encoder_specs_load_the_registered_backends():
    assert similarity_from_spec("use") is make_use_similarity()
    assert similarity_from_spec("c3g").name == "tfidf-char3"
    assert similarity_from_spec("spacy-simalign.JaccardSimilarity.v1").name == "jaccard"


def test_the_trainer_does_not_import_the_aligner():
    source = Path(crf_aligner.__file__).with_name("train.py").read_text(encoding="utf-8")
    imported = {node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)}
    assert "aligner" not in imported and not any(m and m.endswith(".aligner") for m in imported)


OLD_PIPELINE_BLOCK = """
[aligner]
@simalign_aligners = "spacy-simalign.CRFAligner.v1"
weights = "shipped"
combination = null
threshold = null
top_k = null
top_k_lexical = null
band = null
neighbours = null
hidden = null
emission = null
cross_encoder_path = null
learn_rate = 0.01
encoder_learn_rate = 3e-05
cross_lingual_rate = 0.25
combination_epochs = 10
combination_holdout = 0.2
seed = 0
translations = "bead-dp"
translation_length_ratio = 1.25
identical = null
split_fill = null
bead_threshold = null
bead_folds = 5

[aligner.similarity]
@simalign_similarity = "spacy-simalign.USESimilarity.v1"
threads = 0
"""


def test_a_pipeline_saved_with_the_v1_form_loads_and_decodes_as_v2(deplain_pairs):
    """The [aligner] block every pipeline saved before v2 holds (flat training keys, nulls)."""
    from thinc.api import Config

    block = Config().from_str(OLD_PIPELINE_BLOCK)["aligner"]
    old = spacy.blank("de")
    old.add_pipe("simalign_sentence_aligner", config={"aligner": block})
    old_aligner = old.get_pipe("simalign_sentence_aligner").aligner
    new_aligner = default_pipeline().get_pipe("simalign_sentence_aligner").aligner
    assert old_aligner.config == new_aligner.config
    assert old_aligner.settings.combination_epochs == 10 and old_aligner.translations.length_ratio == 1.25
    pair = parse_pair(deplain_pairs[1]).training_pair()
    assert old_aligner.align(pair.complex, pair.simple) == new_aligner.align(pair.complex, pair.simple)


def test_align_model_folder_decodes_with_the_settings_it_was_saved_with(tmp_path, deplain_pairs):
    """`align --model FOLDER` puts the folder's saved settings in the config it shows and runs."""
    from spacy_simalign.pipeline.build import alignment_pipeline

    shipped = CRFAligner.default(encoder=make_use_similarity())
    strict = CRFAligner.load(DEFAULT_WEIGHTS, encoder=shipped.encoder, overrides={"threshold": 0.9})
    strict.save(tmp_path / "strict")
    nlp = alignment_pipeline("de", model=str(tmp_path / "strict"))
    assert nlp.config["components"]["simalign_sentence_aligner"]["aligner"]["threshold"] == 0.9
    aligner = nlp.get_pipe("simalign_sentence_aligner").aligner
    pair = parse_pair(deplain_pairs[2]).training_pair()
    assert aligner.config["threshold"] == 0.9
    assert aligner.align(pair.complex, pair.simple) == strict.align(pair.complex, pair.simple)


FORM_ARGUMENTS = {"weights", "similarity", "translations", "training"}  # a form's own, not settings


def test_every_setting_of_v2_and_v3_is_declared_once_in_a_block():
    """v2's and v3's flat signatures are made from the blocks of aligner_settings.py (confection reads
    each registered function's own): each setting is a field of exactly one block, with the block's
    default, type and rule, so that the forms and the blocks cannot drift."""
    import dataclasses
    import inspect

    from spacy_simalign.aligners.crf.aligner_settings import BLOCKS
    from spacy_simalign.aligners.crf.retired import ALIGNER as RETIRED

    fields = [f for cls in BLOCKS.values() for f in dataclasses.fields(cls)]
    declared = {f.name: f for f in fields}
    assert len(declared) == len(fields)  # no setting in two blocks
    owner = {f.name: cls for cls in BLOCKS.values() for f in dataclasses.fields(cls)}
    v2 = inspect.signature(make_crf_aligner).parameters
    v3 = inspect.signature(make_crf_aligner_v3).parameters
    assert set(v2) - FORM_ARGUMENTS - set(RETIRED) == set(v3) - FORM_ARGUMENTS - {"summary_ratio", "summary_word_floor"}
    assert set(v3) - FORM_ARGUMENTS == set(declared)
    for form, parameters in (("spacy-simalign.CRFAligner.v2", v2), ("spacy-simalign.CRFAligner.v3", v3)):
        function = registry.simalign_aligners.get(form)
        for name in set(parameters) - FORM_ARGUMENTS - set(RETIRED):
            block = owner[name]
            assert parameters[name].default == declared[name].default, (form, name)
            assert function.setting_ranges.get(name) == block.setting_ranges.get(name), (form, name)
            # v3 admits null in every setting's type (the ranges refuse it in one line); v2 in the old form's only
            annotation = inspect.signature(block).parameters[name].annotation
            assert parameters[name].annotation in (annotation, typing.get_args(annotation)[0]), (form, name)


def test_the_lists_of_settings_are_derived_from_the_declarations():
    """What each setting allows, the settings null does not stand for, the settings config.json saves,
    those saved only where they differ and the saved defaults follow the declarations; the shipped
    weights' config.json holds every saved setting but the later ones, which are at their default."""
    from spacy_simalign.aligners.crf import config_defaults, weights_config
    from spacy_simalign.aligners.crf.aligner_settings import DECLARATIONS, DEFAULTS, FLAT_ORDER

    assert sorted(FLAT_ORDER) == sorted(DECLARATIONS)  # each setting once in the flat forms' order
    v2 = inspect.signature(make_crf_aligner).parameters
    rules = make_crf_aligner.setting_ranges
    assert VALUED == tuple(k for k in v2 if isinstance(rules.get(k), Required) and k != "similarity")
    saved = crf_aligner.CONFIG_SETTINGS
    assert {k: v for k, v in config_defaults.DEFAULT_CONFIG.items() if k in DECLARATIONS} == {
        k: DEFAULTS[k] for k in saved
    }
    assert set(saved) == set(v2) - {"weights", "similarity", "translations", "training", "wide"} - set(
        crf_aligner.RETIRED
    )
    shipped = json.loads((DEFAULT_WEIGHTS / "config.json").read_text(encoding="utf-8"))
    later = set(crf_aligner.LATER_SETTINGS)
    assert {k for k in shipped if k in DECLARATIONS} == set(saved) - later
    assert all(crf_aligner.DEFAULT_CONFIG[k] == DEFAULTS[k] for k in later)
    assert set(weights_config.LATER) >= set(saved) - set(weights_config.REQUIRED)
    assert all(crf_aligner.CRF_RANGES[k] == DECLARATIONS[k].rule for k in DECLARATIONS if DECLARATIONS[k].rule)


def test_a_form_taking_the_blocks_as_sub_configs_aligns_as_v3(deplain_pairs):
    """The registered blocks resolve from config sub-blocks (as a form taking them reads them) and
    build the aligner that v3 builds from the same settings flat."""
    from thinc.api import Config

    from spacy_simalign.aligners.crf.aligner import blocks_aligner
    from spacy_simalign.aligners.crf.aligner_settings import BLOCKS
    from spacy_simalign.aligners.crf.translations import AnchoredPairKindSettings
    from spacy_simalign.core.setting_checks import registered_name

    config = {key: {"@simalign_aligners": registered_name(cls)} for key, cls in BLOCKS.items()}
    config["candidates"]["top_k"], config["beads"]["bead_max_merge"] = 4, 2
    blocks = registry.resolve(Config(config))
    assert blocks["candidates"].top_k == 4 and blocks["summaries"].summary_word_floor == SUMMARY_WORD_FLOOR
    encoder = make_use_similarity()
    from_blocks = blocks_aligner(
        "a form", "shipped", encoder, list(blocks.values()), TrainingSettings(), AnchoredPairKindSettings()
    )
    flat = make_crf_aligner_v3(similarity=encoder, top_k=4, bead_max_merge=2)
    assert from_blocks.config == flat.config and from_blocks.config["top_k"] == 4
    assert (from_blocks.summary_ratio, from_blocks.summary_word_floor) == (SUMMARY_RATIO, SUMMARY_WORD_FLOOR)
    pair = parse_pair(deplain_pairs[4]).training_pair()
    assert from_blocks.align(pair.complex, pair.simple) == flat.align(pair.complex, pair.simple)
