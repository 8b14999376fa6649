"""Documents and spans as plain, validated data, and the JSONL interchange format.

Gold and predicted spans share one model, so that scoring compares like with like: the only
difference is provenance.
Labels fold through the taxonomy on the way in; a label the taxonomy drops is kept apart
as a :class:`DroppedSpan` (not scored, still masked in reports); an unknown label raises.
JSONL lines are ``{"text", "spans": [{"start", "end", "label", "score"?}], "id"?}``.
Every error names a line or an index, never the text.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import PiiError, SpanOffsetError, UnknownLabel


class CorpusLineError(PiiError, ValueError):
    """A JSONL line is malformed or does not align. The message names the line, never text."""

    def __init__(self, line: int, reason: str) -> None:
        self.line = line
        self.reason = reason
        super().__init__(f"line {line}: {reason}")


class AlignmentError(PiiError, ValueError):
    """Gold and predicted documents do not pair up (count or text). Indices only."""


class FrozenModel(BaseModel):
    # hide_input_in_errors: a validation error must never echo a document's text.
    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return self.model_dump(mode="json")

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent)


def _taxonomy_from(context: Any) -> Taxonomy:
    if isinstance(context, Mapping) and context.get("taxonomy") is not None:
        return load_taxonomy(context["taxonomy"])
    return load_taxonomy()


class Span(FrozenModel):
    """A typed character span, gold or predicted. ``end`` is exclusive.

    ``label`` is folded to its public type when the span is built (pass a taxonomy with
    ``model_validate(data, context={"taxonomy": ...})``; the shipped one otherwise).
    ``score`` is the detector's calibrated probability, or ``None`` for a match without
    one (docs/how-it-works.md: Scores); scoring ignores it, calibration reads it.
    """

    start: int = Field(ge=0)
    end: int = Field(gt=0)
    label: str = Field(min_length=1)
    score: float | None = Field(default=None, ge=0.0, le=1.0)

    @field_validator("label")
    @classmethod
    def _fold(cls, value: str, info: ValidationInfo) -> str:
        folded = _taxonomy_from(info.context).fold(value)  # UnknownLabel propagates as is
        if folded is None:
            raise ValueError("label is an explicit drop in the taxonomy; skip it before")
        return folded

    @model_validator(mode="after")
    def _ordered(self) -> Span:
        if self.end <= self.start:
            raise ValueError(f"span {self.start}:{self.end} is empty or inverted")
        return self

    @property
    def key(self) -> tuple[int, int, str]:
        """The identity used for exact-span matching."""
        return (self.start, self.end, self.label)

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


class DroppedSpan(FrozenModel):
    """A span whose label the taxonomy drops: not scored, but still masked in reports.

    ``label`` is the source label, unfolded. Dropped types (a date, a place, a title) are
    not PII on their own, yet they are quasi-identifiers, so a report hides them too.
    """

    start: int = Field(ge=0)
    end: int = Field(gt=0)
    label: str = Field(min_length=1)
    score: float | None = Field(default=None, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _ordered(self) -> DroppedSpan:
        if self.end <= self.start:
            raise ValueError(f"span {self.start}:{self.end} is empty or inverted")
        return self


class Document(FrozenModel):
    """A text with its scored spans and the spans skipped because the taxonomy drops them."""

    text: str
    spans: tuple[Span, ...] = ()
    id: str | None = None
    dropped_spans: tuple[DroppedSpan, ...] = ()

    @property
    def dropped(self) -> dict[str, int]:
        """Spans skipped, counted per source label."""
        return dict(sorted(Counter(s.label for s in self.dropped_spans).items()))

    @model_validator(mode="after")
    def _inside_text(self) -> Document:
        every: tuple[Span | DroppedSpan, ...] = (*self.spans, *self.dropped_spans)
        for span in every:
            if span.end > len(self.text):
                raise ValueError(
                    f"span {span.start}:{span.end} ends beyond the text ({len(self.text)} chars)"
                )
        return self

    @classmethod
    def from_raw(
        cls,
        text: str,
        spans: Iterable[Any],
        *,
        id: str | None = None,
        taxonomy: Taxonomy | None = None,
    ) -> Document:
        """Build a document from plain span mappings, folding labels and skipping drops.

        Raises:
            UnknownLabel: a label the taxonomy does not know.
            SpanOffsetError: a span that lies outside the text.
            pydantic.ValidationError: a span of the wrong shape (no input is echoed).
        """
        taxonomy = load_taxonomy(taxonomy)
        kept: list[Span] = []
        dropped: list[DroppedSpan] = []
        for index, raw in enumerate(spans):
            label = raw.get("label") if isinstance(raw, Mapping) else None
            span: Span | DroppedSpan
            if isinstance(label, str) and taxonomy.fold(label) is None:
                span = DroppedSpan.model_validate(raw)
                dropped.append(span)
            else:
                span = Span.model_validate(raw, context={"taxonomy": taxonomy})
                kept.append(span)
            if span.end > len(text):
                raise SpanOffsetError(
                    f"span {index} ({span.start}:{span.end}) ends beyond the text "
                    f"({len(text)} characters)"
                )
        return cls(text=text, spans=tuple(kept), id=id, dropped_spans=tuple(dropped))


def check_alignment(gold: Sequence[Document], pred: Sequence[Document]) -> None:
    """Refuse pairs that do not describe the same texts in the same order."""
    if len(gold) != len(pred):
        raise AlignmentError(f"{len(gold)} gold documents but {len(pred)} predicted documents")
    for index, (g, p) in enumerate(zip(gold, pred, strict=True)):
        if g.text != p.text:
            raise AlignmentError(f"document {index + 1}: predicted text differs from gold text")


# -- JSONL interchange ----------------------------------------------------------------------


def describe_validation_error(err: ValidationError) -> str:
    """A validation error's locations and messages, never the offending input."""
    parts = []
    for item in err.errors(include_input=False, include_url=False):
        where = ".".join(str(p) for p in item.get("loc", ())) or "document"
        parts.append(f"{where}: {item.get('msg', 'invalid')}")
    return "; ".join(parts)


def parse_document(line: str, number: int, *, taxonomy: Taxonomy | None = None) -> Document:
    """Parse one JSONL line ``{"text", "spans": [{start, end, label, score?}], "id"?}``.

    ``meta`` (a mapping) is accepted and its ``id`` used when there is no top-level id;
    other top-level keys are ignored, so files from other tools load unchanged.

    Raises:
        CorpusLineError: anything wrong with the line, naming ``number`` and the cause.
    """
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise CorpusLineError(number, f"not valid JSON (column {err.colno})") from None
    if not isinstance(record, dict):
        raise CorpusLineError(number, f"expected a JSON object, got {type(record).__name__}")
    text, spans = record.get("text"), record.get("spans", [])
    if not isinstance(text, str):
        raise CorpusLineError(number, "'text' must be a string")
    if not isinstance(spans, list):
        raise CorpusLineError(number, "'spans' must be a list")
    raw_meta = record.get("meta")
    meta = raw_meta if isinstance(raw_meta, dict) else {}
    doc_id = record.get("id", meta.get("id"))
    try:
        return Document.from_raw(
            text, spans, id=None if doc_id is None else str(doc_id), taxonomy=taxonomy
        )
    except ValidationError as err:
        raise CorpusLineError(number, f"bad span ({describe_validation_error(err)})") from None
    except UnknownLabel as err:
        raise CorpusLineError(number, str(err)) from err
    except SpanOffsetError as err:
        raise CorpusLineError(number, str(err)) from err


def read_documents(path: str | Path, *, taxonomy: Taxonomy | None = None) -> list[Document]:
    """Read a JSONL file of documents. Line ``n`` holds document ``n``.

    Blank lines are refused except at the end of the file, so that a document's position
    and its line number stay the same: alignment errors can then name a line.
    """
    taxonomy = load_taxonomy(taxonomy)
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    documents = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise CorpusLineError(number, "empty line inside the file")
        documents.append(parse_document(line, number, taxonomy=taxonomy))
    return documents


def document_to_json(document: Document) -> str:
    """One JSONL line in the interchange format (scores kept when present)."""
    spans = [s.model_dump(exclude_none=True) for s in (*document.spans, *document.dropped_spans)]
    record: dict[str, Any] = {"text": document.text, "spans": spans}
    if document.id is not None:
        record["id"] = document.id
    return json.dumps(record, ensure_ascii=False)
