"""``pii_peer_spans``: a peer NER's ``doc.ents`` as one more candidate group for ``pii_merge``.

The peer is any spaCy component that writes ``doc.ents`` (or a span group,
``entities_key``) and runs before this one: en_core_web_md's ``ner`` sourced into the
pipeline (``spacy_pii.load("wide")``), or ``pii_peer_tagger``, which learned from it.
Which entities become candidates, and with which bounds, is
:func:`spacy_pii.core.peer_entities.peer_candidates`; this component reads the tokens, the
entities and the spans of the groups it yields to, and writes ``doc.spans[spans_key]``.

The peer gives no probability. Its score per public type is data: the share of its
candidates of that type that are right on a calibration set, measured by
``training/peer_scores.py`` and given to :meth:`PiiPeerSpans.initialize`. A type without a
measured share (a type the calibration set does not label) gets no score (``null``), like a
rule's shape-only hit: it survives thresholds unless ``pii_merge`` is asked to
``drop_unscored``. Settings come from the config; the scores are saved by ``to_disk``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example
from spacy.util import SimpleFrozenList

from ..adapters.component_data import data_from_bytes, data_from_disk, data_to_bytes, data_to_disk
from ..core.peer_entities import DEFAULT_PEER_LABELS, PeerRules, peer_candidates
from ..errors import ConfigError, validated_settings

DEFAULT_PEER_SPANS_CONFIG: dict[str, Any] = {
    "spans_key": "pii_peer",
    "labels": dict(DEFAULT_PEER_LABELS),
    "yield_to": ["pii_rules", "pii_ner"],
    "detector": "peer_ner",
    "entities_key": None,
}
# The data record and its file in the component's folder (the name is an exclude key).
DATA_FILES = {"scores": ".json"}


class PiiPeerSpansSettings(BaseModel):
    """``pii_peer_spans``'s settings, validated; built from the factory's arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spans_key: str = Field(default="pii_peer", min_length=1)
    labels: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_PEER_LABELS))
    yield_to: tuple[str, ...] = ("pii_rules", "pii_ner")
    detector: str = Field(default="peer_ner", min_length=1)
    entities_key: str | None = Field(default=None, min_length=1)


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
    entities_key: str | None,
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
        entities_key: the ``doc.spans`` key the peer writes its entities to (as
            ``pii_peer_tagger`` does); ``null`` reads ``doc.ents``.
    """
    settings = validated_settings(PiiPeerSpansSettings, "pii_peer_spans", locals())
    return PiiPeerSpans(name, settings)


class PiiPeerSpans:
    """The ``pii_peer_spans`` component: see the module docstring."""

    def __init__(self, name: str, settings: PiiPeerSpansSettings) -> None:
        self.name = name
        self.settings = settings
        self.rules = PeerRules(labels=settings.labels)
        self.scores: dict[str, float] = {}

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]] | None = None,
        *,
        nlp: Language | None = None,
        scores: dict[str, float] | None = None,
    ) -> None:
        """Load the measured score per public type (``srsly.read_json.v1``); optional.

        Raises:
            ConfigError: a score that is not a number in [0, 1].
        """
        checked: dict[str, float] = {}
        for type_name, value in (scores or {}).items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"pii_peer_spans: the score for {type_name} must be a number")
            if not 0.0 <= float(value) <= 1.0:
                raise ConfigError(f"pii_peer_spans: the score for {type_name} must lie in [0, 1]")
            checked[str(type_name)] = float(value)
        self.scores = checked

    def __call__(self, doc: Doc) -> Doc:
        key = self.settings.entities_key
        peer = doc.ents if key is None else doc.spans.get(key, ())
        entities = [(ent.start, ent.end, ent.label_) for ent in peer]
        kept: list[tuple[int, int, str]] = []
        # Reading every token builds a Python object per token; most documents have no
        # entity to bound, so they skip it.
        if entities:
            words: list[str] = []
            breaks: list[bool] = []
            for token in doc:
                words.append(token.text)
                breaks.append("\n" in token.text or "\n" in token.whitespace_)
            taken = [
                (span.start, span.end, span.label_)
                for key in self.settings.yield_to
                for span in doc.spans.get(key, ())
            ]
            kept = peer_candidates(words, breaks, entities, taken, self.rules)
        spans = [Span(doc, first, last, label=public) for first, last, public in kept]
        group = SpanGroup(doc, name=self.settings.spans_key, spans=spans)
        group.attrs["scores"] = [self.scores.get(public) for _, _, public in kept]
        group.attrs["detectors"] = [self.settings.detector] * len(kept)
        group.attrs["kinds"] = ["model"] * len(kept)
        doc.spans[self.settings.spans_key] = group
        return doc

    # -- serialization: data only; the settings live in config.cfg ----------------

    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        return data_to_bytes({"scores": self.scores}, exclude)

    def from_bytes(
        self, bytes_data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiPeerSpans:
        self.initialize(scores=data_from_bytes(bytes_data, DATA_FILES, exclude).get("scores"))
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()) -> None:
        data_to_disk(path, {"scores": self.scores}, DATA_FILES, exclude)

    def from_disk(
        self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiPeerSpans:
        self.initialize(scores=data_from_disk(path, DATA_FILES, exclude).get("scores"))
        return self
