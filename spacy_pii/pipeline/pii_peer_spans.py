"""``pii_peer_spans``: a peer NER's ``doc.ents`` as one more candidate group for ``pii_merge``.

The peer is any spaCy component that writes ``doc.ents`` and runs before this one, such as
en_core_web_md's ``ner`` sourced into the pipeline (``spacy_pii.load("wide")`` does that).
Which entities become candidates, and with which bounds, is
:func:`spacy_pii.core.peer_entities.peer_candidates`; this component reads the tokens, the
entities and the spans of the groups it yields to, and writes ``doc.spans[spans_key]``.

The peer gives no probability, so its spans carry no score (``null``), like a rule's
shape-only hit: they survive thresholds unless ``pii_merge`` is asked to ``drop_unscored``.
Settings come from the config only; the component holds no data.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from ..core.peer_entities import DEFAULT_PEER_LABELS, PeerRules, peer_candidates
from ..errors import validated_settings

DEFAULT_PEER_SPANS_CONFIG: dict[str, Any] = {
    "spans_key": "pii_peer",
    "labels": dict(DEFAULT_PEER_LABELS),
    "yield_to": ["pii_rules", "pii_ner"],
    "detector": "peer_ner",
}


class PiiPeerSpansSettings(BaseModel):
    """``pii_peer_spans``'s settings, validated; built from the factory's arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spans_key: str = Field(default="pii_peer", min_length=1)
    labels: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_PEER_LABELS))
    yield_to: tuple[str, ...] = ("pii_rules", "pii_ner")
    detector: str = Field(default="peer_ner", min_length=1)


@Language.factory(
    "pii_peer_spans",
    assigns=["doc.spans"],
    requires=["doc.ents"],
    default_config=DEFAULT_PEER_SPANS_CONFIG,
)
def make_pii_peer_spans(
    nlp: Language,
    name: str,
    spans_key: str,
    labels: dict[str, str],
    yield_to: list[str],
    detector: str,
) -> PiiPeerSpans:
    """Copy a peer NER's entities into ``doc.spans[spans_key]`` as candidates.

    Args:
        spans_key: the ``doc.spans`` key to write; list it in ``pii_merge``'s
            ``candidate_keys``.
        labels: the peer's label → a public type; entities with other labels are skipped.
        yield_to: span groups of our own detectors: an entity touching one of their PERSON
            spans is skipped, and one touching another span keeps only its parts outside it
            that read as a name. A group absent from a doc is skipped.
        detector: the detector id written in ``attrs["detectors"]``.
    """
    settings = validated_settings(PiiPeerSpansSettings, "pii_peer_spans", locals())
    return PiiPeerSpans(name, settings)


class PiiPeerSpans:
    """The ``pii_peer_spans`` component: see the module docstring."""

    def __init__(self, name: str, settings: PiiPeerSpansSettings) -> None:
        self.name = name
        self.settings = settings
        self.rules = PeerRules(labels=settings.labels)

    def __call__(self, doc: Doc) -> Doc:
        words = [token.text for token in doc]
        breaks = ["\n" in token.text or "\n" in token.whitespace_ for token in doc]
        entities = [(ent.start, ent.end, ent.label_) for ent in doc.ents]
        taken = [
            (span.start, span.end, span.label_)
            for key in self.settings.yield_to
            for span in doc.spans.get(key, ())
        ]
        kept = peer_candidates(words, breaks, entities, taken, self.rules)
        spans = [Span(doc, first, last, label=public) for first, last, public in kept]
        group = SpanGroup(doc, name=self.settings.spans_key, spans=spans)
        group.attrs["scores"] = [None] * len(kept)
        group.attrs["detectors"] = [self.settings.detector] * len(kept)
        group.attrs["kinds"] = ["model"] * len(kept)
        doc.spans[self.settings.spans_key] = group
        return doc
