"""The checks of a pipeline with a spacy-transformers `transformer` component that run before
spaCy initializes it for training (configs/transformer.cfg's [initialize.before_init]): the
model folder it names exists and holds a Hugging Face model, and is read from disk only (a name
that is not a folder would otherwise be looked up on the Hugging Face hub, with a traceback)."""

import os
from typing import Any, Callable, Iterator, Tuple

from spacy.language import Language
from spacy.util import registry

from ..core.config_errors import InitializeInputError
from ..core.errors import InputError

TRANSFORMER_FACTORY = "transformer"


def check_model_folder(name) -> None:
    """An InputError unless `name` is a folder holding a Hugging Face model (its config.json)."""
    if not isinstance(name, str) or not name:
        raise InputError(
            "the transformer has no model folder: give --paths.transformer_model, a Hugging Face model folder on disk"
        )
    if not os.path.isdir(name):
        raise InputError("transformer model folder not found (a Hugging Face model folder on disk)", name)
    if not os.path.isfile(os.path.join(name, "config.json")):
        raise InputError("not a Hugging Face model folder: it holds no config.json", name)


def transformer_components(nlp: Language) -> Iterator[Tuple[str, Any]]:
    """(name, component) of each spacy-transformers `transformer` component of `nlp`, in pipeline order."""
    for name in nlp.pipe_names:
        if nlp.get_pipe_meta(name).factory == TRANSFORMER_FACTORY:
            yield name, nlp.get_pipe(name)


def check_transformer_models(nlp: Language) -> None:
    """check_model_folder for each `transformer` component of `nlp`, as one message of spaCy's CLI."""
    for _, component in transformer_components(nlp):
        try:
            model = getattr(component, "model", None)
            check_model_folder(model.attrs.get("name") if model is not None else None)
        except InputError as err:
            raise InitializeInputError(err) from None


@registry.callbacks("spacy-simalign.check_transformer_models.v1")
def make_transformer_check() -> Callable[[Language], Language]:
    """Before initialize: every transformer's model folder exists and holds a Hugging Face model."""

    def before_init(nlp: Language) -> Language:
        check_transformer_models(nlp)
        return nlp

    return before_init
