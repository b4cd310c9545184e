"""Building the alignment pipelines that the command line, the engines and `demo` use: a
blank pipeline for the language with our segmenter and the sentence aligner with a given
[aligner] config, or a trained pipeline folder (`--model`). Built once per process and
language (caches)."""

import copy
import os
from typing import Optional

from thinc.api import Config

from ..aligners.methods import DEFAULT_SENTENCE_METHOD, method_config
from ..core import caches
from ..core.config_sections import config_error
from ..core.errors import InputError
from ..startup.blank_pipelines import blank_language
from . import doc_pair as pair
from .saved import load_saved_pipeline

# the CRF's forms whose [aligner] block takes a weights folder's saved settings (align --model)
CRF_FORMS = ("spacy-simalign.CRFAligner.v2", "spacy-simalign.CRFAligner.v3")


def alignment_pipeline(lang: str, aligner: Optional[str] = None, model: Optional[str] = None, parsed=None):
    """spacy.blank(lang) + simalign_segmenter + simalign_sentence_aligner with the [aligner]
    config text `aligner` (default: the CRF; `parsed`: that text already parsed, as an AlignJob
    carries it); `model` may be a spaCy pipeline folder (config.cfg inside, used as it is) or a
    CRF weights folder (for the CRF aligner)."""
    aligner = aligner or method_config(DEFAULT_SENTENCE_METHOD).to_str()  # the text every caller passes
    return caches.shared("pipeline", (lang, aligner, model), lambda: _build(lang, aligner, model, parsed))


def _build(lang: str, aligner: str, model: Optional[str], parsed=None):
    from catalogue import RegistryError
    from confection import ConfigValidationError

    pair.install_extensions()
    if model and os.path.isdir(model) and os.path.exists(os.path.join(model, "config.cfg")):
        return load_saved_pipeline(model)
    if model and not os.path.exists(model):
        raise InputError(f"model not found: {model}")
    config = copy.deepcopy(parsed) if parsed is not None else Config().from_str(aligner)
    if model:
        config["aligner"]["weights"] = model
        if config["aligner"].get("@simalign_aligners") in CRF_FORMS:
            from ..aligners.crf.aligner import saved_settings

            config["aligner"].update(saved_settings(model))
    nlp = blank_language(lang)
    nlp.add_pipe("simalign_segmenter")
    try:
        nlp.add_pipe("simalign_sentence_aligner", config={"aligner": config["aligner"]})
    except (ConfigValidationError, RegistryError) as err:
        raise InputError(f"invalid [aligner] config: {config_error(err)}") from None
    return nlp


def carried_pipeline(lang: str, folder: str):
    """spacy.blank(lang) + a segmenter + the CRF aligner of the weights `folder`, named as in a
    `spacy train` pipeline (segmenter, sentence_aligner: project/assemble.py and evaluate.py read
    it as one), that carries the weights itself: its config says weights = null (with the
    folder's saved settings) and to_disk writes the weights into the pipeline's own folder, so
    spacy.load reads it on another machine, without `folder` (what `adapt --pipeline` saves)."""

    from ..aligners.crf.aligner import saved_settings

    pair.install_extensions()
    config = method_config(DEFAULT_SENTENCE_METHOD)
    config["aligner"].update(saved_settings(folder))
    config["aligner"]["weights"] = None
    nlp = blank_language(lang)
    nlp.add_pipe("simalign_segmenter", name="segmenter")
    nlp.add_pipe("simalign_sentence_aligner", name="sentence_aligner", config={"aligner": config["aligner"]})
    nlp.get_pipe("sentence_aligner").aligner.from_disk(folder)
    return nlp


def refresh_pipelines() -> None:
    """Drop the cached pipelines and the other languages' tokenizers, so that their
    vocabularies start empty again (the rebuilt aligners read their weights again)."""
    caches.drop("pipeline")
    caches.drop("tokenizer")
