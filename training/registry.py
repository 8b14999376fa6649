"""Code file for ``spacy train|evaluate|package --code``: registers pii_ner.

It also registers the ``before_init`` callback that ``configs/trf_frozen.cfg`` needs.

Until the ``spacy_factories`` entry point for pii_ner is installed, a fresh process finds
the factory only through this import. It also keeps the Hugging Face libraries offline:
the transformer config names a local folder and nothing may come from the network.
"""

import os
from collections.abc import Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import spacy
from spacy.language import Language

import spacy_pii.pipeline.ner  # noqa: F401


@spacy.registry.callbacks("pii.initialize_frozen_transformer.v1")
def initialize_frozen_transformer(name: str = "transformer") -> Callable[[Language], Language]:
    """A ``[initialize] before_init`` callback for a frozen transformer backbone.

    ``spacy train`` skips the initialization of frozen components, so a frozen
    ``transformer`` would never load its weights nor tell its listeners their width, and
    the heads could not be built. This initializes it once, before the other components.
    """

    def before_init(nlp: Language) -> Language:
        transformer = nlp.get_pipe(name)
        transformer.initialize(lambda: [], nlp=nlp)
        # During training the frozen component is disabled, so its initialize() does not
        # reach the listeners it already has: give them the width by hand.
        width = transformer.model.get_dim("nO")
        for listener in transformer.listeners:
            if listener.has_dim("nO") is None:
                listener.set_dim("nO", width)
        return nlp

    return before_init
