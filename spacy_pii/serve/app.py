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
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from ..core.taxonomy import load_taxonomy
from ..errors import PiiError
from ..version import __version__
from .pipelines import PipelineRegistry, PipelineSlot, model_slots
from .protocol import ApiError, DetectRequest, RestoreRequest, read_json_body
from .service import Service, detect, restore_answer, type_rows, validated

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
    service = Service(registry, load_taxonomy(), max_chars, key)

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
            "types": type_rows(service.taxonomy),
        }

    @app.post("/api/detect")
    async def detect_route(request: Request) -> dict[str, Any]:
        body = await read_json_body(request, service.body_limit)
        parsed: DetectRequest = validated(DetectRequest, body)
        service.check_length(parsed.text)
        service.check_types(parsed.types)
        service.check_operators(parsed.operators)
        slot = service.slot(parsed.pipeline)
        return await _run(detect, service, slot, parsed)

    @app.post("/api/restore")
    async def restore_route(request: Request) -> dict[str, Any]:
        body = await read_json_body(request, service.body_limit)
        parsed: RestoreRequest = validated(RestoreRequest, body)
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
        return await _run(restore_answer, service, slot, parsed)

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
