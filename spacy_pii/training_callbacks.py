"""Registered functions that ``spacy train`` configs name; entry points, so no ``--code``.

``pii.initialize_frozen_transformer.v1`` is the ``[initialize] before_init`` callback of
``configs/trf_frozen.cfg``. Importing this module imports no torch: spacy-transformers is
touched only through the pipeline the callback receives.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from spacy.language import Language
from spacy.util import registry


@registry.callbacks("pii.initialize_frozen_transformer.v1")
def initialize_frozen_transformer(name: str = "transformer") -> Callable[[Language], Language]:
    """A ``[initialize] before_init`` callback for a frozen transformer backbone.

    ``spacy train`` skips the initialization of frozen components, so a frozen
    ``transformer`` would never load its weights nor tell its listeners their width, and
    the heads could not be built. This initializes it once, before the other components.
    The Hugging Face libraries are kept offline: the config names a local folder, and
    nothing may come from the network.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

    def before_init(nlp: Language) -> Language:
        # spaCy types get_pipe as a plain callable; this one is spacy-transformers' component.
        transformer: Any = nlp.get_pipe(name)
        transformer.initialize(lambda: [], nlp=nlp)
        # During training the frozen component is disabled, so its initialize() does not
        # reach the listeners it already has: give them the width by hand.
        width = transformer.model.get_dim("nO")
        for listener in transformer.listeners:
            if listener.has_dim("nO") is None:
                listener.set_dim("nO", width)
        return nlp

    return before_init
