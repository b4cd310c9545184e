"""Every setting a registered aligner or similarity declares (core/setting_checks.py) is checked on every way
in, with one message: `nlp.add_pipe`, an `align --config` file, `spacy train`'s pipeline and
`spacy.load` of a saved pipeline whose config was edited all refuse a value outside it before
anything is aligned. The in-process forms run for every declared setting; the command lines for a
few (slow)."""

import copy
import inspect
import json
import re
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest
import spacy
from conftest import FAKE_ENCODER, with_fake_encoder
from thinc.api import Config

from spacy_simalign.aligners.crf import aligner_settings
from spacy_simalign.aligners.crf.retired import ANY, Retired
from spacy_simalign.aligners.methods import build_aligner, method_config
from spacy_simalign.core.errors import InputError
from spacy_simalign.core.registries import aligner_registry, similarity_registry
from spacy_simalign.core.setting_checks import EMBEDS, Choice, Range, Required, declared_ranges, registered_name

ROOT = Path(__file__).resolve().parents[1]
SAVED = ROOT / "tests" / "data" / "pipeline-0.1.0"
COMPONENT = "components.simalign_sentence_aligner"
# the settings blocks of the CRF: [aligner.training], [aligner.translations]
NESTED = {
    "spacy-simalign.CRFTraining.v1": "training",
    "spacy-simalign.CRFTranslations.v1": "translations",
    "spacy-simalign.CRFTranslations.v2": "translations",
    "spacy-simalign.CRFTranslations.v3": "translations",
}
CRF = "spacy-simalign.CRFAligner.v3"
# the blocks of the CRF's settings (crf/aligner_settings.py), which a form takes as sub-configs: v2 and
# v3 take the same settings flat, checked by the same declarations; a block checks its own when made
SETTING_BLOCKS = {registered_name(cls): cls for cls in aligner_settings.BLOCKS.values()}
PARAGRAPH = {
    "spacy-simalign.JiangParagraphs.v1",
    "spacy-simalign.JiangWikiParagraphs.v1",
    "spacy-simalign.MASSAlignParagraphs.v1",
    "spacy-simalign.TfidfParagraphs.v1",
}


def outside(rule, annotation):
    """A value the rule refuses (None: the rule accepts every value but null)."""
    if isinstance(rule, Required):
        return outside(rule.rule, annotation)
    if isinstance(rule, Range):
        whole = int in (annotation, *getattr(annotation, "__args__", ()))
        value = rule.low - 1 if rule.low is not None else rule.high + 1
        return int(value) if whole else float(value)
    if isinstance(rule, Choice):
        return "bogus"
    if isinstance(rule, Retired):
        if rule.off is ANY:
            return None
        if isinstance(rule.off, bool):
            return not rule.off
        if isinstance(rule.off, float):
            return rule.off + 1.0
        return "bogus"
    return None


def own(table):
    return sorted((name, f) for name, f in table.get_all().items() if name.startswith("spacy-simalign."))


def cases(blocks=False):
    """(kind, registered name, setting, a value it refuses) of every declared setting; blocks: those of
    the CRF's settings blocks, else of the rest."""
    out = []
    for kind, table in (("aligner", aligner_registry), ("similarity", similarity_registry)):
        for name, function in own(table):
            if (name in SETTING_BLOCKS) != blocks:
                continue
            parameters = inspect.signature(function).parameters
            for key, rule in declared_ranges(function).items():
                if key not in parameters or rule is EMBEDS:
                    continue
                value = outside(rule, parameters[key].annotation)
                if value is not None:
                    out.append((kind, name, key, value))
    return out


def null_cases(blocks=False):
    """Null for each setting declared Required whose type admits null (confection refuses null
    for the others before the function runs)."""
    out = []
    for kind, table in (("aligner", aligner_registry), ("similarity", similarity_registry)):
        for name, function in own(table):
            if (name in SETTING_BLOCKS) != blocks:
                continue
            parameters = inspect.signature(function).parameters
            for key, rule in declared_ranges(function).items():
                if isinstance(rule, Required) and type(None) in typing.get_args(parameters[key].annotation):
                    out.append((kind, name, key, None))
    return out


CASES = cases() + null_cases()
BLOCK_CASES = cases(blocks=True) + null_cases(blocks=True)


def sentence_aligner(kind, name, key, value):
    """([aligner] block, component) that puts `name` with key = value where it is used."""
    if kind == "similarity":  # under an aligner that takes any similarity
        return {
            "@simalign_aligners": "spacy-simalign.Tfidf.v1",
            "similarity": {"@simalign_similarity": name, key: value},
        }
    if name in NESTED:
        block = copy.deepcopy(dict(with_fake_encoder(method_config("crf"))["aligner"]))
        block[NESTED[name]] = {"@simalign_aligners": name, key: value}
        return block
    return {"@simalign_aligners": name, "similarity": {"@simalign_similarity": FAKE_ENCODER}, key: value}


def component_of(name):
    return "simalign_paragraph_aligner" if name in PARAGRAPH else "simalign_sentence_aligner"


def refused_by_add_pipe(kind, name, key, value) -> str:
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_segmenter")
    with pytest.raises(InputError) as err:
        nlp.add_pipe(component_of(name), config={"aligner": sentence_aligner(kind, name, key, value)})
    return str(err.value)


def expected(kind, name, key, value) -> str:
    return f"{name}: {key} = {json.dumps(value)}"


def training_config(kind, name, key, value) -> Config:
    """The saved 0.1.0 pipeline's config (a full `spacy train` config) with the aligner under test."""
    config = Config().from_disk(SAVED / "config.cfg", interpolate=False)
    component = component_of(name)
    config["components"][component] = {"factory": component, "aligner": sentence_aligner(kind, name, key, value)}
    if component not in config["nlp"]["pipeline"]:
        config["nlp"]["pipeline"].append(component)
    return config


@pytest.mark.parametrize("kind,name,key,value", CASES, ids=[f"{c[1]}-{c[2]}" for c in CASES])
def test_a_value_outside_a_declared_setting_is_refused_on_every_way_in(kind, name, key, value, tmp_path):
    from spacy.training.initialize import init_nlp

    message = refused_by_add_pipe(kind, name, key, value)
    assert message.startswith(expected(kind, name, key, value) + ": "), message
    assert "\n" not in message

    if component_of(name) == "simalign_sentence_aligner":  # an [aligner] config file, as align --config reads it
        with pytest.raises(InputError) as err:
            build_aligner(Config({"aligner": sentence_aligner(kind, name, key, value)}), "c.cfg")
        assert str(err.value) == f"c.cfg: invalid [aligner] config: {message}"

    config = training_config(kind, name, key, value)
    with pytest.raises(InputError) as err:  # spacy train builds its pipeline so
        init_nlp(config)
    assert str(err.value) == message

    folder = tmp_path / "pipeline"
    shutil.copytree(SAVED, folder)
    config.to_disk(folder / "config.cfg")
    with pytest.raises(InputError) as err:
        spacy.load(folder)
    assert str(err.value) == message


@pytest.mark.parametrize("kind,name,key,value", BLOCK_CASES, ids=[f"{c[1]}-{c[2]}" for c in BLOCK_CASES])
def test_a_settings_block_refuses_what_the_flat_forms_refuse(kind, name, key, value):
    """A block of the CRF's settings, resolved from a config as a form's sub-config is, refuses a value
    outside its declaration in one line naming it; v3, which takes the setting flat, refuses it with
    the same words (one declaration)."""
    from confection import registry

    with pytest.raises(InputError) as err:
        registry.resolve(Config({"block": {"@simalign_aligners": name, key: value}}))
    message = str(err.value)
    assert message.startswith(expected(kind, name, key, value) + ": ") and "\n" not in message
    assert refused_by_add_pipe(kind, CRF, key, value) == message.replace(name, CRF, 1)


def test_every_registered_function_is_checked():
    """Each of the plugin's registered aligners and similarities checks its own arguments (NaN, types)."""
    for table in (aligner_registry, similarity_registry):
        for name, function in own(table):
            assert hasattr(function, "setting_ranges"), name


@pytest.mark.parametrize(
    "kind,name,key,value,problem",
    [
        ("aligner", "spacy-simalign.Tfidf.v1", "threshold", "0.3", "must be a number, not a string"),
        ("aligner", "spacy-simalign.CATS.v1", "strategy", "bogus", 'must be one of "closest", "closest-seq"'),
        ("similarity", "spacy-simalign.TfidfSimilarity.v1", "analyzer", "bogus", 'must be one of "word", "char"'),
        ("aligner", CRF, "band", -1, "must be at least 0"),
        ("aligner", CRF, "bead_max_merge", 10**9, "must be between 1 and 50"),
        ("aligner", "spacy-simalign.BeadDP.v1", "max_align", 10**9, "must be between 2 and 20"),
    ],
)
def test_types_choices_and_bounds(kind, name, key, value, problem):
    assert refused_by_add_pipe(kind, name, key, value) == f"{name}: {key} = {json.dumps(value)}: {problem}"


def test_bead_dp_over_a_similarity_that_cannot_embed_is_refused_when_read():
    block = {
        "@simalign_aligners": "spacy-simalign.BeadDP.v1",
        "similarity": {"@simalign_similarity": "spacy-simalign.TfidfSimilarity.v1"},
    }
    nlp = spacy.blank("de")
    with pytest.raises(InputError, match="spacy-simalign.BeadDP.v1: similarity = TfidfSimilarity: cannot embed"):
        nlp.add_pipe("simalign_sentence_aligner", config={"aligner": block})
    with pytest.raises(InputError, match="invalid \\[aligner\\] config: spacy-simalign.BeadDP.v1: similarity ="):
        build_aligner(Config({"aligner": block}))


def test_not_a_finite_number_is_refused():
    """(spaCy itself refuses NaN in add_pipe's config: a config file can hold it.)"""
    config = method_config("tfidf")
    config["aligner"]["threshold"] = float("nan")
    with pytest.raises(InputError, match="spacy-simalign.Tfidf.v1: threshold = nan: must be a finite number"):
        build_aligner(config)


def test_nested_settings_and_several_problems_are_named_in_one_line():
    config = method_config("crf")
    config["aligner"]["training"]["epochs"] = 0
    with pytest.raises(InputError, match="spacy-simalign.CRFTraining.v1: epochs = 0: must be at least 1"):
        build_aligner(config)
    config = method_config("crf")
    config["aligner"].update({"top_k": 0, "band": -1})
    with pytest.raises(InputError) as err:
        build_aligner(config)
    assert str(err.value).endswith(f"{CRF}: top_k = 0: must be at least 1; band = -1: must be at least 0")


def test_similarity_slot_naming_an_aligner_is_refused():
    config = method_config("tfidf")
    config["aligner"]["similarity"] = {"@simalign_aligners": "spacy-simalign.CATS.v1"}
    with pytest.raises(InputError, match="spacy-simalign.Tfidf.v1: similarity = LexicalAligner: not a similarity"):
        build_aligner(config)


def test_null_crf_settings_with_a_value_are_refused_in_v2_and_v3_only():
    """v3, the default, and v2 refuse null where a setting has a value (threshold = null was the
    default, 0.5); the old form, v1, takes it as the weights' value."""
    assert ("aligner", CRF, "threshold", None) in CASES
    config = method_config("crf")
    config["aligner"]["threshold"] = None
    with pytest.raises(InputError, match=f"{CRF}: threshold = null: needs a value"):
        build_aligner(config)
    v2 = {"@simalign_aligners": "spacy-simalign.CRFAligner.v2", "threshold": None}
    with pytest.raises(InputError, match="spacy-simalign.CRFAligner.v2: threshold = null: needs a value"):
        build_aligner(Config({"aligner": v2}))
    block = {"@simalign_aligners": "spacy-simalign.CRFAligner.v1", "threshold": None, "top_k": None}
    assert build_aligner(Config({"aligner": block})).config["threshold"] == 0.5


def test_settings_in_range_and_null_crf_settings_pass():
    config = method_config("crf")
    config["aligner"].update({"top_k": 1, "band": 0, "neighbours": 0, "split_fill": None, "hidden": None})
    assert hasattr(build_aligner(config), "align")
    config = method_config("bead-dp")
    config["aligner"]["window"] = 0
    assert hasattr(build_aligner(with_fake_encoder(config)), "align")
    config = method_config("tfidf")
    config["aligner"]["threshold"] = -1
    assert hasattr(build_aligner(config), "align")


def test_a_wide_band_is_clipped_to_the_document(deplain_pairs):
    """band, neighbours and top_k far wider than the document align as the document's own width does."""
    from spacy_simalign.formats.pair_jsonl import parse_pair

    pair = parse_pair(deplain_pairs[0]).training_pair()
    widths = max(len(pair.complex.sentences), len(pair.simple.sentences))

    def beads(**settings):
        config = with_fake_encoder(method_config("crf"))
        config["aligner"].update(settings)
        return build_aligner(config).align(pair.complex, pair.simple)

    assert beads(band=10**9, neighbours=10**9, top_k=10**9) == beads(band=widths, neighbours=widths, top_k=widths)


# the command lines (subprocesses: slow) -------------------------------------------------------
COMMAND_CASES = [("aligner", CRF, "top_k", -3), ("aligner", "spacy-simalign.Tfidf.v1", "threshold", 2.0)]


@pytest.mark.slow
@pytest.mark.parametrize("kind,name,key,value", COMMAND_CASES)
def test_align_config_and_spacy_train_refuse_with_the_same_message(kind, name, key, value, tmp_path, deplain_pairs):
    message = refused_by_add_pipe(kind, name, key, value)
    pairs = tmp_path / "in.jsonl"
    pairs.write_text(json.dumps(deplain_pairs[0], ensure_ascii=False) + "\n", encoding="utf-8")
    bad = tmp_path / "bad.cfg"  # with the aligner's own similarity: a new process has no fake encoder
    block = {"@simalign_aligners": name, key: value}
    Config({"aligner": block}).to_disk(bad)
    out = tmp_path / "out.jsonl"
    run = subprocess.run(
        [sys.executable, "-m", "spacy_simalign", "align", str(pairs), str(out), "--config", str(bad)],
        capture_output=True,
        text=True,
    )
    assert (run.returncode, run.stderr) == (2, f"error: {bad}: invalid [aligner] config: {message}\n")
    assert not out.exists()

    train = tmp_path / "train.cfg"
    config = training_config(kind, name, key, value)
    config["components"]["simalign_sentence_aligner"]["aligner"] = block
    config.to_disk(train)
    run = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(train), "--output", str(tmp_path / "trained")],
        capture_output=True,
        text=True,
    )
    said = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", run.stdout + run.stderr).split())  # spaCy wraps at 80 columns
    assert run.returncode == 1 and "Traceback" not in said
    assert f"\u2718 {message}" in said
    assert not (tmp_path / "trained" / "model-last").exists()  # (spaCy makes the folder first)


# numbers no spaCy config holds: whole numbers beyond 64 bits, NaN and infinity ------------------------
EXAMPLE = ROOT / "spacy_simalign" / "resources" / "example-de.jsonl"  # the bundled example pair
BEYOND = "is beyond the whole numbers a spaCy config holds (-2^63 to 2^64 - 1)"
UNHELD = [
    ("summary_ratio", 2**64, BEYOND),
    ("wide_margin", 2**64, BEYOND),
    ("wide_margin", -(2**63) - 1, BEYOND),
    ("summary_ratio", float("nan"), "must be a finite number"),
    ("summary_word_floor", float("inf"), "must be a finite number"),
]
UNHELD_IDS = [f"{key}={value}" for key, value, _ in UNHELD]


def folder_bytes(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_whole_numbers_a_spacy_config_holds_pass_and_no_others():
    """spaCy checks a component's config with srsly's ujson, which holds int64 and uint64 values:
    2^64 - 1 and -2^63 pass the check (and align), one beyond either is out of range."""
    from spacy_simalign.aligners.crf.aligner import make_crf_aligner_v3
    from spacy_simalign.core.setting_checks import setting_problems

    assert setting_problems(make_crf_aligner_v3, {"summary_ratio": 2**64 - 1, "wide_margin": 2**64 - 1}) == []
    assert setting_problems(make_crf_aligner_v3, {"summary_ratio": 2**64}) == [f"summary_ratio = {2**64}: {BEYOND}"]
    translations = aligner_registry.get("spacy-simalign.CRFTranslations.v3")  # skip: any finite number
    assert setting_problems(translations, {"skip": -(2**63)}) == []
    assert setting_problems(translations, {"skip": -(2**63) - 1}) == [f"skip = {-(2**63) - 1}: {BEYOND}"]


@pytest.mark.parametrize("key,value,problem", UNHELD, ids=UNHELD_IDS)
def test_add_pipe_leaves_an_unheld_number_to_spacys_own_refusal(key, value, problem):
    """spaCy checks add_pipe's config before the plugin runs (E961): that error stands, not a SystemError."""
    nlp = spacy.blank("de")
    with pytest.raises(ValueError, match=r"^\[E961\]"):
        nlp.add_pipe("simalign_sentence_aligner", config={"aligner": {"@simalign_aligners": CRF, key: value}})


@pytest.mark.parametrize("key,value,problem", UNHELD, ids=UNHELD_IDS)
def test_align_config_refuses_an_unheld_number_in_one_line(key, value, problem, tmp_path, capsys):
    from spacy_simalign.__main__ import main

    bad = tmp_path / "bad.cfg"
    Config({"aligner": {"@simalign_aligners": CRF, key: value}}).to_disk(bad)
    before = bad.read_bytes()
    out = tmp_path / "out.jsonl"
    assert main(["align", str(EXAMPLE), str(out), "--config", str(bad)]) == 2
    shown = json.dumps(value) if isinstance(value, int) else str(value)
    assert capsys.readouterr().err == f"error: {bad}: invalid [aligner] config: {CRF}: {key} = {shown}: {problem}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.cfg"] and bad.read_bytes() == before


@pytest.mark.parametrize("key,value,problem", UNHELD, ids=UNHELD_IDS)
def test_align_model_refuses_an_unheld_number_in_a_saved_pipeline_config(key, value, problem, tmp_path, capsys):
    """spacy.load itself raises spaCy's E961, or a SystemError from srsly's ujson, before any of the
    plugin's code runs: align --model checks config.cfg first and names the setting and the file."""
    from spacy_simalign.__main__ import main

    folder = tmp_path / "pipeline"
    shutil.copytree(SAVED, folder)
    config = Config().from_disk(folder / "config.cfg", interpolate=False)
    block = config["components"]["simalign_sentence_aligner"]["aligner"]
    block.update({"@simalign_aligners": CRF, key: value})
    for retired in ("emission", "cross_encoder_path", "clauses"):  # v2's, not v3's
        block.pop(retired)
    config.to_disk(folder / "config.cfg")
    before = folder_bytes(folder)
    out = tmp_path / "out.jsonl"
    assert main(["align", str(EXAMPLE), str(out), "--model", str(folder)]) == 2
    shown = json.dumps(value) if isinstance(value, int) else str(value)
    assert capsys.readouterr().err == f"error: {folder / 'config.cfg'}: {CRF}: {key} = {shown}: {problem}\n"
    assert not out.exists() and folder_bytes(folder) == before
