"""The demo service: one page and a small JSON API over the package's public functions.

============ ================== ===========================================================
method       path               what it does
============ ================== ===========================================================
GET          ``/``              the page (``static/index.html``), no build step, no CDN
GET          ``/api/health``    liveness, the version and the limits
GET          ``/api/pipelines`` the pipelines it can run, each with ``ready``
GET          ``/api/types``     the taxonomy rows: type, class, rank, severity, default, ...
POST         ``/api/detect``    spans, masked text, vault, secrets never stored, findings
POST         ``/api/restore``   the restored answer with resolved, unresolved and unknown
============ ================== ===========================================================

Refusals are ``{"ok": false, "error", "message", "hint"}``: 422 for bad input (malformed
JSON, a wrong field, an unknown type or pipeline, a pipeline not ready, a text over the
limit, a bad operator), 413 for a body over the byte limit (refused before it is parsed),
415 for a body not sent as JSON, 404 and 405 for a wrong path or method, 500 for a failure
inside, named by its type only. No refusal and no log line carries the text; the service
keeps nothing between requests. ``hash`` operators use ``$SPACY_PII_KEY`` when it is set,
else a random key that lives as long as the process.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from .. import __version__
from ..errors import PiiError, UnknownLabel
from ..quasi import find_combinations
from ..redact import parse_operators, redact, restore
from ..taxonomy import Taxonomy, load_taxonomy
from .pipelines import PipelineRegistry, PipelineSlot, default_types, detect_doc, model_slots
from .protocol import (
    ApiError,
    DetectRequest,
    RestoreRequest,
    body_limit_for,
    describe_validation_error,
    read_json_body,
    type_shaped,
)

logger = logging.getLogger(__name__)
access_logger = logging.getLogger("spacy_pii.serve.access")

STATIC = Path(__file__).parent / "static"
DEFAULT_MAX_CHARS = 20_000
KEY_ENV = "SPACY_PII_KEY"

# The page loads nothing from elsewhere; a pasted text can never run as script.
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}


class _SecurityHeaders:
    """Plain ASGI middleware: add :data:`SECURITY_HEADERS` to every HTTP response, and log
    each request by method, path and status. The query string is left out of the log (a
    text could be put there), so the server's own access log is meant to be off."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                access_logger.info(
                    "%s %s %d", scope.get("method"), scope.get("path"), message["status"]
                )
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                for name, value in SECURITY_HEADERS.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class _Service:
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


def _validated(model: type, body: Any) -> Any:
    try:
        return model.model_validate(body)
    except ValidationError as err:
        raise ApiError(
            422,
            "invalid_request",
            describe_validation_error(err),
            "see the API table: GET / explains the fields",
        ) from None


def _detect(service: _Service, slot: PipelineSlot, request: DetectRequest) -> dict[str, Any]:
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


def _restore(
    service: _Service, slot: PipelineSlot | None, request: RestoreRequest
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


def _type_rows(taxonomy: Taxonomy) -> list[dict[str, Any]]:
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


def _error_response(err: ApiError) -> JSONResponse:
    return JSONResponse(err.to_dict(), status_code=err.status)


def create_app(
    registry: PipelineRegistry | None = None,
    *,
    models: tuple[str, ...] | list[str] = (),
    max_chars: int = DEFAULT_MAX_CHARS,
    allowed_hosts: list[str] | None = None,
    key: bytes | str | None = None,
) -> FastAPI:
    """Build the demo app.

    Args:
        registry: the pipelines; by default ``rules``, ``default`` and each of ``models``.
            They load in a background thread when the app starts.
        models: extra pipelines, ``NAME=PATH`` or a path or package name each.
        max_chars: the longest text a request may carry.
        allowed_hosts: the ``Host`` headers to accept (a guard against DNS rebinding);
            ``None`` accepts any.
        key: the HMAC key for ``hash`` operators; default ``$SPACY_PII_KEY``, else random.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    if registry is None:
        registry = PipelineRegistry([("rules", "rules"), ("default", "default")])
        registry.slots.update(
            {name: PipelineSlot(name, source) for name, source in model_slots(models)}
        )
    if key is None:
        key = os.environ.get(KEY_ENV) or secrets.token_bytes(32)
    if isinstance(key, str):
        key = key.encode("utf-8")
    service = _Service(registry, load_taxonomy(), max_chars, key)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):  # type: ignore[no-untyped-def]
        registry.start_loading()
        yield

    app = FastAPI(
        title="spacy-pii demo",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.service = service
    app.add_middleware(_SecurityHeaders)
    if allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, err: ApiError) -> JSONResponse:
        logger.info("refused: %s (%d)", err.error, err.status)
        return _error_response(err)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, err: StarletteHTTPException) -> JSONResponse:
        names = {404: "not_found", 405: "method_not_allowed"}
        return _error_response(
            ApiError(
                err.status_code,
                names.get(err.status_code, "http_error"),
                "no such path" if err.status_code == 404 else f"HTTP {err.status_code}",
                "the API lives under /api/; the page is at /",
            )
        )

    @app.exception_handler(PiiError)
    async def pii_error(_request: Request, err: PiiError) -> JSONResponse:
        # The package's typed errors carry no source text by contract.
        name = "".join("_" + c.lower() if c.isupper() else c for c in type(err).__name__)
        return _error_response(ApiError(422, name.lstrip("_"), str(err), ""))

    @app.exception_handler(Exception)
    async def internal_error(_request: Request, err: Exception) -> JSONResponse:
        logger.error("internal error: %s", type(err).__name__)
        return _error_response(
            ApiError(500, "internal", f"the service failed ({type(err).__name__})", "")
        )

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {
            "ok": True,
            "status": "ok",
            "version": __version__,
            "taxonomy_version": service.taxonomy.version,
            "max_chars": service.max_chars,
            "max_body_bytes": service.body_limit,
        }

    @app.get("/api/pipelines")
    async def pipelines() -> dict[str, Any]:
        return {"ok": True, "pipelines": registry.to_list()}

    @app.get("/api/types")
    async def types() -> dict[str, Any]:
        return {
            "ok": True,
            "taxonomy_version": service.taxonomy.version,
            "types": _type_rows(service.taxonomy),
        }

    @app.post("/api/detect")
    async def detect(request: Request) -> dict[str, Any]:
        body = await read_json_body(request, service.body_limit)
        parsed: DetectRequest = _validated(DetectRequest, body)
        service.check_length(parsed.text)
        service.check_types(parsed.types)
        service.check_operators(parsed.operators)
        slot = service.slot(parsed.pipeline)
        return await _run(_detect, service, slot, parsed)

    @app.post("/api/restore")
    async def restore_answer(request: Request) -> dict[str, Any]:
        body = await read_json_body(request, service.body_limit)
        parsed: RestoreRequest = _validated(RestoreRequest, body)
        service.check_length(parsed.text)
        vault_chars = sum(len(key) + len(value) for key, value in parsed.vault.items())
        if vault_chars > 2 * service.max_chars:
            raise ApiError(
                422,
                "vault_too_large",
                f"the vault holds {vault_chars} characters; the limit is {2 * service.max_chars}",
                "send the vault that /api/detect returned",
            )
        service.check_types(parsed.types)
        slot = service.slot(parsed.pipeline) if parsed.pipeline is not None else None
        return await _run(_restore, service, slot, parsed)

    return app


async def _run(func: Any, *args: Any) -> Any:
    """Run the CPU-bound work off the event loop.

    A failure that is neither a refusal nor a typed error becomes a 500 named by its type
    here, so no traceback (whose message could quote a value) reaches the server's log.
    """
    try:
        return await run_in_threadpool(func, *args)
    except (ApiError, PiiError):
        raise
    except Exception as err:
        logger.error("internal error: %s", type(err).__name__)
        raise ApiError(500, "internal", f"the service failed ({type(err).__name__})", "") from None
