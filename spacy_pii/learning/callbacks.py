"""Registered functions that ``spacy train`` configs name; entry points, so no ``--code``.

- ``pii.initialize_frozen_transformer.v1`` is the ``[initialize] before_init`` callback of
  ``configs/trf_frozen.cfg``. Importing this module imports no torch: spacy-transformers is
  touched only through the pipeline the callback receives.
- ``pii.copy_encoder_weights.v1`` is the ``[initialize] after_init`` callback of
  ``configs/cpu.cfg``: it starts our ``tok2vec`` from en_core_web_md's NER encoder. That
  encoder was trained on OntoNotes 5 (news, web text, conversation and broadcast
  transcripts), which is where it learned what English names look like, and its
  architecture is our ``tok2vec``'s (``spacy.Tok2Vec.v2``: ``MultiHashEmbed`` width 96 over
  NORM, PREFIX, SUFFIX and SHAPE, rows 5000, 1000, 2500, 2500, the md static vectors, four
  ``MaxoutWindowEncoder`` layers). The span categorizer then fine-tunes features that know
  names in real text instead of learning them from our corpus alone (configs/README.md has
  the measurement). The static-vector projection needs the donor's own table, row for row:
  ``training/vectors.py`` exports en_core_web_md's, and the callback checks the shapes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import spacy
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.util import registry
from thinc.api import Model

from ..errors import ConfigError


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


@registry.callbacks("pii.copy_encoder_weights.v1")
def copy_encoder_weights(
    source: str | None, component: str = "ner", target: str = "tok2vec"
) -> Callable[[Language], Language]:
    """An ``[initialize] after_init`` callback: copy a pretrained encoder into ``target``.

    Args:
        source: a pipeline folder or installed package holding the donor (en_core_web_md);
            ``None`` leaves the encoder as initialized (the smoke run has no donor).
        component: the donor component whose encoder is copied: its ``tok2vec`` reference,
            or its whole model for a ``tok2vec`` component.
        target: our ``tok2vec`` component, whose model must have the same architecture.
    """

    def after_init(nlp: Language) -> Language:
        if source is None:
            return nlp
        donor = spacy.load(source)
        ours = _model_of(nlp, target)
        # A parser-style model wraps its encoder (tok2vec >> list2array >> linear), so the
        # encoder is the node whose layer structure is the same as ours.
        encoder = next((n for n in _model_of(donor, component).walk() if n.name == ours.name), None)
        if encoder is None:
            raise ConfigError(f"the donor's {component} holds no encoder shaped like {target}")
        donor_vectors, our_vectors = donor.vocab.vectors.shape, nlp.vocab.vectors.shape
        if donor_vectors != our_vectors:
            raise ConfigError(
                f"the donor's vectors are {donor_vectors}, ours {our_vectors}: the encoder's "
                "static-vector projection needs the same table"
            )
        try:
            ours.from_bytes(encoder.to_bytes())
        except ValueError as err:
            raise ConfigError(f"{target} and the donor's encoder differ: {err}") from None
        return nlp

    return after_init


def _model_of(nlp: Language, name: str) -> Model:
    pipe = nlp.get_pipe(name)
    if not isinstance(pipe, TrainablePipe):
        raise ConfigError(f"{name} has no model to copy an encoder to or from")
    return pipe.model
