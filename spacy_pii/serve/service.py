"""The demo's work, without FastAPI: request checks, detect and restore over the public API.

:class:`Service` holds what every request shares (the pipelines, the taxonomy, the limits,
the hash key) and turns a bad request into an :class:`~spacy_pii.serve.protocol.ApiError`
before any pipeline runs. :func:`detect` and :func:`restore_answer` build the response
bodies from :func:`spacy_pii.redact`, :func:`spacy_pii.restore` and
:func:`spacy_pii.find_combinations`. Their log lines hold counts and timings only.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from pydantic import BaseModel, ValidationError

from ..core.quasi import find_combinations
from ..core.taxonomy import Taxonomy
from ..errors import PiiError, UnknownLabel
from ..redaction import parse_operators, redact, restore
from .pipelines import PipelineRegistry, PipelineSlot, default_types, detect_doc
from .protocol import (
    ApiError,
    DetectRequest,
    RestoreRequest,
    body_limit_for,
    describe_validation_error,
    type_shaped,
)

logger = logging.getLogger(__name__)


class Service:
    """What the routes share: the pipelines, the taxonomy, the limits and the hash key."""

    def __init__(
        self, registry: PipelineRegistry, taxonomy: Taxonomy, max_chars: int, key: bytes
    ) -> None:
        self.registry = registry
        self.taxonomy = taxonomy
        self.max_chars = max_chars
        self.body_limit = body_limit_for(max_chars)
        self.key = key

    def check_length(self, text: str, what: str = "text") -> None:
        if len(text) > self.max_chars:
            raise ApiError(
                422,
                "text_too_long",
                f"the {what} has {len(text)} characters; the limit is {self.max_chars}",
                "shorten it, or start the service with a larger --max-chars",
            )

    def slot(self, name: str) -> PipelineSlot:
        slot = self.registry.slots.get(name)
        if slot is None:
            raise ApiError(
                422,
                "unknown_pipeline",
                "no pipeline of that name",
                f"choose one of {list(self.registry.names)}",
            )
        if not slot.ready:
            detail = f" (loading failed: {slot.error})" if slot.state == "failed" else ""
            raise ApiError(
                422,
                "pipeline_not_ready",
                f"pipeline {slot.name!r} is {slot.state}{detail}",
                "wait until GET /api/pipelines reports it ready, or choose another",
            )
        return slot

    def check_types(self, types: list[str] | None) -> tuple[str, ...] | None:
        if types is None:
            return None
        for name in types:
            if name not in self.taxonomy.types:
                shown = type_shaped(name)
                raise ApiError(
                    422,
                    "unknown_type",
                    f"type {shown!r} is not in taxonomy {self.taxonomy.version}"
                    if shown
                    else f"a type name is not in taxonomy {self.taxonomy.version}",
                    "GET /api/types lists the types",
                )
        return tuple(dict.fromkeys(types))

    def check_operators(self, operators: dict[str, Any] | None) -> None:
        try:
            parse_operators(operators, self.taxonomy)
        except UnknownLabel as err:
            self.check_types([err.label])
            raise
        except PiiError as err:
            raise ApiError(
                422, "bad_operator", str(err), "operators: placeholder, partial, hash, fake"
            ) from None


def validated(model: type[BaseModel], body: Any) -> Any:
    try:
        return model.model_validate(body)
    except ValidationError as err:
        raise ApiError(
            422,
            "invalid_request",
            describe_validation_error(err),
            "see the API table: GET / explains the fields",
        ) from None


def detect(service: Service, slot: PipelineSlot, request: DetectRequest) -> dict[str, Any]:
    started = time.perf_counter()
    types = service.check_types(request.types)
    with slot.lock:
        doc = detect_doc(
            slot.nlp,
            request.text,
            types=types,
            min_score=request.min_score,
            drop_unscored=request.drop_unscored,
        )
        effective = types if types is not None else default_types(slot.nlp)
    if "pii" not in doc.spans:
        raise ApiError(
            422, "pipeline_output", f"pipeline {slot.name!r} writes no doc.spans['pii']", ""
        )
    group = doc.spans["pii"]
    scores = list(group.attrs.get("scores") or [None] * len(group))
    detectors = list(group.attrs.get("detectors") or [""] * len(group))
    spans = []
    never_stored = []
    for span, score, detector in zip(group, scores, detectors, strict=True):
        type_name = service.taxonomy.fold(span.label_) or span.label_
        row = {
            "type": type_name,
            "start": span.start_char,
            "end": span.end_char,
            "text": span.text,
            "score": None if score is None else round(float(score), 4),
            "detector": str(detector),
        }
        spans.append(row)
        if service.taxonomy.types[type_name].mask == "irreversible":
            never_stored.append({"type": type_name, "start": row["start"], "end": row["end"]})
    masked, vault = redact(doc, operators=request.operators, key=service.key)
    findings = [finding.to_dict() for finding in find_combinations(request.text)]
    elapsed = time.perf_counter() - started
    logger.info(
        "detect: pipeline=%s chars=%d spans=%d findings=%d ms=%.1f",
        slot.name,
        len(request.text),
        len(spans),
        len(findings),
        elapsed * 1000,
    )
    return {
        "ok": True,
        "pipeline": slot.name,
        "taxonomy_version": service.taxonomy.version,
        "chars": len(request.text),
        "types": list(effective) if effective is not None else None,
        "min_score": request.min_score,
        "drop_unscored": request.drop_unscored,
        "spans": spans,
        "masked": masked,
        "vault": vault,
        "never_stored": never_stored,
        "findings": findings,
        "elapsed_ms": round(elapsed * 1000, 1),
    }


def restore_answer(
    service: Service, slot: PipelineSlot | None, request: RestoreRequest
) -> dict[str, Any]:
    started = time.perf_counter()
    types = service.check_types(request.types)
    if slot is None:
        result = restore(request.text, request.vault, types=types)
    else:
        with slot.lock:
            result = restore(request.text, request.vault, nlp=slot.nlp, types=types)
    elapsed = time.perf_counter() - started
    logger.info(
        "restore: pipeline=%s chars=%d resolved=%d unresolved=%d unknown=%d ms=%.1f",
        slot.name if slot else "-",
        len(request.text),
        len(result.resolved),
        len(result.unresolved),
        len(result.unknown),
        elapsed * 1000,
    )
    return {
        "ok": True,
        "pipeline": slot.name if slot else None,
        "text": result.text,
        "resolved": list(result.resolved),
        "unresolved": list(result.unresolved),
        "unknown": [
            {"type": span.type, "start": span.start, "end": span.end, "text": span.text}
            for span in result.unknown
        ],
        "clean": result.ok,
        "elapsed_ms": round(elapsed * 1000, 1),
    }


def type_rows(taxonomy: Taxonomy) -> list[dict[str, Any]]:
    return [
        {
            "type": name,
            "class": spec.class_,
            "rank": spec.rank,
            "severity": spec.severity,
            "recall_floor": spec.recall_floor,
            "default": spec.default,
            "prefer": spec.prefer,
            "mask": spec.mask,
            "color": spec.color,
            "description": spec.description,
        }
        for name, spec in taxonomy.types.items()
    ]
