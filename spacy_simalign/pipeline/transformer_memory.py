"""Training a `transformer` component with gradient checkpointing (configs/transformer.cfg's
[initialize.after_init]): spacy-transformers encodes all sentences of a Doc pair as one batch padded
to the longest, and backpropagation keeps every layer's activations of it, which outgrew a 24 GB
machine on articles of 300-390 sentences. Recomputing each layer in the backward pass keeps only
the layers' inputs, at the cost of one more forward pass in training; inference is unchanged."""

import warnings
from typing import Callable

from spacy.language import Language
from spacy.util import registry

from .transformer_checks import transformer_components


def recompute_layers(nlp: Language) -> int:
    """Turn on gradient checkpointing in the Hugging Face model of each initialized `transformer`
    component of `nlp` that supports it (warning once for one that does not); how many were."""
    done = 0
    for name, component in transformer_components(nlp):
        model = component.model.transformer  # the Hugging Face model of the component's TransformerModel
        if not getattr(model, "supports_gradient_checkpointing", False):
            warnings.warn(
                f"the transformer {name!r} ({type(model).__name__}) cannot recompute its layers in training: "
                "memory grows with a document's sentences (leave the longest documents out on a small machine)"
            )
            continue
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        done += 1
    return done


@registry.callbacks("spacy-simalign.recompute_transformer_layers.v1")
def make_layer_recomputation() -> Callable[[Language], Language]:
    """After initialize: every transformer trains with gradient checkpointing where its model has it."""

    def after_init(nlp: Language) -> Language:
        recompute_layers(nlp)
        return nlp

    return after_init
