"""``pii_peer_tagger``: a token tagger that proposes names, organisations and places,
taught by a peer NER.

en_core_web_md's ``ner`` finds names that ``pii_ner`` misses on text people wrote, but its
transition decoder costs more than the whole default pipeline (``configs/README.md``). This
component learns its entities as one IOB tag per token (:mod:`spacy_pii.core.entity_tags`)
from a window of token vectors, through one maxout layer: a few matrix products per token
on top of an encoder the pipeline runs anyway. The shipped pipeline trains it with
``spacy train`` (``configs/peer_tagger.cfg``) on the peer's entities, corrected by the gold
spans where a document has them (``training/peer_silver.py``), listening to the shipped
``tok2vec`` frozen, so adding it changes nothing else in the pipeline.

It writes its entities to ``doc.spans[spans_key]``, never ``doc.ents``, which another
component of the user's pipeline may own; ``pii_peer_spans`` turns them into candidates for
``pii_merge`` where our own detectors found nothing. A token is inside an entity when the
tagger gives ``O`` less than the threshold of the type it leans to (``outside_thresholds``).

Built on spaCy's ``Tagger``: its loss, update and serialization. The tags are the
component's data (its ``cfg``, written by ``initialize``); the settings live in
``config.cfg``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from spacy.language import Language
from spacy.pipeline import Tagger
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example
from spacy.util import registry
from thinc.api import (
    Config,
    Maxout,
    Model,
    Softmax,
    chain,
    expand_window,
    list2ragged,
    ragged2list,
    with_array,
)
from thinc.types import Floats2d

from ..adapters.listened_windows import has_vectors, head_in_windows, listened_head
from ..adapters.token_batches import TokenBoundedPipe
from ..core.entity_tags import entities_from_scores, tag_names
from ..errors import ConfigError, validated_settings

# The standalone default has a small tok2vec of its own (as spaCy's tagger does);
# configs/peer_tagger.cfg listens to the pipeline's shared tok2vec instead.
DEFAULT_PEER_TAGGER_MODEL = Config().from_str(
    """
[model]
@architectures = "pii.peer_tagger_model.v1"
hidden_width = 128
window_size = 1
maxout_pieces = 3
dropout = 0.1

[model.tok2vec]
@architectures = "spacy.HashEmbedCNN.v2"
pretrained_vectors = null
width = 96
depth = 4
embed_size = 2000
window_size = 1
maxout_pieces = 3
subword_features = true
"""
)["model"]

ENTITY_TYPES = ("PERSON", "ORG", "LOCATION")
ENTITIES_KEY = "pii_peer_entities"
DEFAULT_PEER_TAGGER_CONFIG: dict[str, Any] = {
    "model": DEFAULT_PEER_TAGGER_MODEL,
    "entity_types": list(ENTITY_TYPES),
    "outside_thresholds": dict.fromkeys(ENTITY_TYPES, 0.5),
    "spans_key": ENTITIES_KEY,
    "scorer": {"@scorers": "pii.spans_scorer.v1", "spans_key": ENTITIES_KEY},
}


class PiiPeerTaggerSettings(BaseModel):
    """``pii_peer_tagger``'s settings (all but the model and scorer), validated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entity_types: tuple[str, ...] = Field(default=ENTITY_TYPES, min_length=1)
    outside_thresholds: dict[str, float] = Field(
        default_factory=lambda: dict.fromkeys(ENTITY_TYPES, 0.5)
    )
    spans_key: str = Field(default=ENTITIES_KEY, min_length=1)

    @model_validator(mode="after")
    def _one_threshold_per_type(self) -> PiiPeerTaggerSettings:
        if set(self.outside_thresholds) != set(self.entity_types):
            raise ValueError("outside_thresholds must name each of entity_types, and only those")
        if not all(0.0 < value <= 1.0 for value in self.outside_thresholds.values()):
            raise ValueError("each outside threshold must lie in (0, 1]")
        return self


@Language.factory(
    "pii_peer_tagger",
    assigns=["doc.spans"],
    default_config=DEFAULT_PEER_TAGGER_CONFIG,
    default_score_weights={
        "spans_pii_peer_entities_f": 1.0,
        "spans_pii_peer_entities_p": 0.0,
        "spans_pii_peer_entities_r": 0.0,
        "spans_pii_peer_entities_per_type": None,
    },
)
def make_pii_peer_tagger(
    nlp: Language,
    name: str,
    model: Model[list[Doc], list[Floats2d]],
    entity_types: list[str],
    outside_thresholds: dict[str, float],
    spans_key: str,
    scorer: Callable | None,
) -> PiiPeerTagger:
    """A tagger of entities over token vectors, written to ``doc.spans[spans_key]``.

    Args:
        model: the tagger (``pii.peer_tagger_model.v1``): token vectors in, one
            distribution over the tags per token out.
        entity_types: the entity types it tags; its tags are ``O`` and ``B-``/``I-`` of each.
        outside_thresholds: per entity type, a token leaning to that type is inside an
            entity when ``O`` scores below it.
        spans_key: the ``doc.spans`` key to write; ``pii_peer_spans`` reads it
            (its ``entities_key``).
        scorer: scores ``doc.spans[spans_key]`` against the reference's group of that key.
    """
    settings = validated_settings(PiiPeerTaggerSettings, "pii_peer_tagger", locals())
    return PiiPeerTagger(nlp.vocab, model, name, settings=settings, scorer=scorer)


class PiiPeerTagger(TokenBoundedPipe, Tagger):
    """The ``pii_peer_tagger`` component: see the module docstring."""

    def __init__(
        self,
        vocab: Any,
        model: Model,
        name: str = "pii_peer_tagger",
        *,
        settings: PiiPeerTaggerSettings,
        scorer: Callable | None = None,
    ) -> None:
        super().__init__(vocab, model, name, scorer=scorer)
        self.settings = settings

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Language | None = None,
        labels: list[str] | None = None,
    ) -> None:
        """Add the tags of ``entity_types`` and size the model from a few examples.

        The reference docs carry the tags as ``token.tag_`` and the entities as
        ``doc.spans[spans_key]`` (``training/peer_silver.py`` writes both).

        Raises:
            ConfigError: ``labels`` given that are not the tags of ``entity_types``.
        """
        tags = tag_names(self.settings.entity_types)
        if labels is not None and list(labels) != tags:
            raise ConfigError("pii_peer_tagger's labels must be the tags of its entity_types")
        self.cfg["labels"] = []
        for tag in tags:
            self.add_label(tag)
        self.model.get_ref("output_layer").set_dim("nO", len(tags))
        sample = [example.x for example in islice(get_examples(), 10)]
        if not sample:
            raise ConfigError("pii_peer_tagger needs at least one training example")
        self.model.initialize(X=sample)

    def predict(self, docs: Iterable[Doc]) -> list[Floats2d]:
        """The tag distribution of every token of each doc.

        Listening to a shared encoder, the layers after the listener run over bounded
        windows of ``doc.tensor`` (:mod:`spacy_pii.adapters.listened_windows`): the same
        distributions, without arrays that grow with a long document.
        """
        docs = list(docs)
        empty = self.model.ops.alloc2f(0, len(self.labels))
        if not any(len(doc) for doc in docs):
            return [empty for _ in docs]
        found = listened_head(self.model)
        if found is None or not all(has_vectors(doc) for doc in docs if len(doc)):
            return list(self.model.predict(docs))
        head, context = found
        scored = iter(head_in_windows(head, context, [doc.tensor for doc in docs if len(doc)]))
        return [next(scored) if len(doc) else empty for doc in docs]

    def set_annotations(self, docs: Iterable[Doc], scores: list[Floats2d]) -> None:
        tags = self.labels
        for doc, doc_scores in zip(docs, scores, strict=True):
            entities = entities_from_scores(
                self.model.ops.to_numpy(doc_scores), tags, self.settings.outside_thresholds
            )
            spans = [Span(doc, start, end, label=label) for start, end, label in entities]
            doc.spans[self.settings.spans_key] = SpanGroup(
                doc, name=self.settings.spans_key, spans=spans
            )


@registry.architectures("pii.peer_tagger_model.v1")
def build_peer_tagger_model(
    tok2vec: Model[list[Doc], list[Floats2d]],
    hidden_width: int,
    window_size: int,
    maxout_pieces: int,
    dropout: float,
    nO: int | None = None,
) -> Model[list[Doc], list[Floats2d]]:
    """Token vectors → a window of ``window_size`` tokens each side (within a doc) → one
    maxout layer → softmax over the tags (``nO``, set by the component's ``initialize``)."""
    if hidden_width < 1 or window_size < 0 or maxout_pieces < 1:
        raise ConfigError(
            "pii.peer_tagger_model.v1: hidden_width and maxout_pieces must be positive, "
            "window_size not negative"
        )
    output_layer = Softmax(nO=nO)
    model: Model = chain(
        tok2vec,
        list2ragged(),
        expand_window(window_size=window_size),
        with_array(
            chain(
                Maxout(nO=hidden_width, nP=maxout_pieces, dropout=dropout, normalize=True),
                output_layer,
            )
        ),
        ragged2list(),
    )
    model.set_ref("tok2vec", tok2vec)
    model.set_ref("output_layer", output_layer)
    return model
