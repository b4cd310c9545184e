"""Every setting's range is checked on the config before anything is built or
aligned (ranges.py), with the config path in one line; a [aligner.similarity] naming an aligner
is refused there too."""

import pytest

from spacy_simalign.aligners.methods import build_aligner, method_config
from spacy_simalign.errors import InputError

BAD = [
    ("tfidf", "threshold", float("nan"), "aligner.threshold = nan: must be a finite number"),
    ("tfidf", "threshold", float("inf"), "aligner.threshold = inf: must be a finite number"),
    ("crf", "top_k", -3, "aligner.top_k = -3: must be at least 1"),
    ("crf", "top_k", 0, "aligner.top_k = 0: must be at least 1"),
    ("crf", "band", -1, "aligner.band = -1: must be at least 0"),
    ("crf", "neighbours", -1, "aligner.neighbours = -1: must be at least 0"),
    ("crf", "threshold", 1.5, "aligner.threshold = 1.5: must be between 0 and 1"),
    ("bead-dp", "top_k", 0, "aligner.top_k = 0: must be at least 1"),
    ("massalign", "slack", -0.1, "aligner.slack = -0.1: must be between 0 and 1"),
]


@pytest.mark.parametrize("method,key,value,message", BAD)
def test_out_of_range_settings_are_refused_with_their_path(method, key, value, message):
    config = method_config(method)
    config["aligner"][key] = value
    with pytest.raises(InputError, match="invalid \\[aligner\\] config: " + message.replace(".", "\\.", 1)):
        build_aligner(config, "c.cfg")


def test_nested_settings_and_paragraph_aligners_are_checked():
    config = method_config("crf")
    config["aligner"]["training"]["epochs"] = 0
    config["aligner"]["translations"]["top_k"] = -1
    with pytest.raises(InputError) as err:
        build_aligner(config)
    assert "aligner.training.epochs = 0: must be at least 1" in str(err.value)
    assert "aligner.translations.top_k = -1: must be at least 1" in str(err.value)
    config = method_config("jiang", paragraph=True)
    config["aligner"]["tau2"] = 2.0
    with pytest.raises(InputError, match="aligner.tau2 = 2.0: must be between 0 and 1"):
        build_aligner(config, kind="paragraph")


def test_similarity_slot_naming_an_aligner_is_refused():
    config = method_config("tfidf")
    config["aligner"]["similarity"] = {"@simalign_aligners": "spacy-simalign.CATS.v1"}
    with pytest.raises(InputError, match="aligner.similarity: names spacy-simalign.CATS.v1 of @simalign_aligners"):
        build_aligner(config)


def test_settings_in_range_and_null_crf_settings_pass():
    config = method_config("crf")
    config["aligner"].update({"top_k": 1, "band": 0, "neighbours": 0, "threshold": None})
    assert hasattr(build_aligner(config), "align")
