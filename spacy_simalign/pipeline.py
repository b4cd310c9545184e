"""Building the alignment pipelines that the command line and `demo` use: a blank
pipeline for the language with our segmenter and the sentence aligner, or a trained
pipeline folder (`--model`)."""
import os
from functools import lru_cache
from typing import Optional

import spacy
from spacy.language import Language

from . import pair
from .errors import InputError


@lru_cache(maxsize=16)
def alignment_pipeline(lang: str, method: str = "crf", model: Optional[str] = None) -> Language:
    """spacy.blank(lang) + simalign_segmenter + simalign_sentence_aligner(method); `model` may
    be a spaCy pipeline folder (config.cfg inside) or a CRF weights file for method crf."""
    pair.install_extensions()
    if model and os.path.isdir(model) and os.path.exists(os.path.join(model, "config.cfg")):
        return spacy.load(model)
    if model and not os.path.exists(model):
        raise InputError(f"model not found: {model}")
    nlp = spacy.blank(lang)
    nlp.add_pipe("simalign_segmenter")
    config = {"method": method}
    if model:
        config["weights"] = model
    nlp.add_pipe("simalign_sentence_aligner", config=config)
    return nlp
