"""What the demo API accepts and how it refuses: request models, the body guard, error bodies.

Every refusal has one shape, ``{"ok": false, "error", "message", "hint"}``, and none repeats
what the request carried: messages give lengths, limits, field positions and, for a type or
type, the name only when it is shaped like one. Pydantic's own error text is not used
(it quotes the input); each problem is rebuilt from its field path and kind. Dictionary keys
in a path (a vault's placeholders) are shown as ``[key]``.

The body is read by :func:`read_json_body`, which refuses a declared ``Content-Length`` over
the limit before reading anything and stops reading as soon as the bytes received pass it,
so an oversized or endless body is never buffered or parsed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "ApiError",
    "DetectRequest",
    "RestoreRequest",
    "body_limit_for",
    "describe_validation_error",
    "read_json_body",
    "type_shaped",
]

# A JSON string spends at most 12 bytes on one character (a non-BMP character escaped as
# a surrogate pair, "\ud83d\ude00"). A restore request carries the answer and a vault whose
# values come from one text, so two texts' worth of escaped characters, plus room for the
# keys, types and operators, bound every request a valid text can make.
BYTES_PER_CHAR = 12
ENVELOPE_BYTES = 64 * 1024

# Only a name shaped like a taxonomy type is repeated in a refusal ("PASSPORT"): anything
# else may be a pasted value.
_TYPE_SHAPED = re.compile(r"[A-Z][A-Z0-9_]{0,31}")


def body_limit_for(max_chars: int) -> int:
    """The largest request body (bytes) that a request with a valid text can need."""
    return 2 * BYTES_PER_CHAR * max_chars + ENVELOPE_BYTES


def type_shaped(value: object) -> str | None:
    """``value`` when it is shaped like a type name (upper case, digits, ``_``), else ``None``."""
    return value if isinstance(value, str) and _TYPE_SHAPED.fullmatch(value) else None


class ApiError(Exception):
    """A refusal with its HTTP status; the body is :meth:`to_dict`."""

    def __init__(self, status: int, error: str, message: str, hint: str = "") -> None:
        super().__init__(error)
        self.status = status
        self.error = error
        self.message = message
        self.hint = hint

    def to_dict(self) -> dict[str, Any]:
        return {"ok": False, "error": self.error, "message": self.message, "hint": self.hint}


class _Request(BaseModel):
    # strict: a number is not silently turned into a text, nor "0.5" into a float.
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


OperatorSpec = str | dict[str, str | int]


class DetectRequest(_Request):
    """``POST /api/detect``.

    Attributes:
        text: the text to scan.
        pipeline: a name from ``/api/pipelines``.
        types: the public types to keep; ``None`` keeps the pipeline's default-on types.
        min_score: the score floor for every type; a higher calibrated threshold stays.
        drop_unscored: also drop shape-only matches, which have no score.
        operators: per-type redaction operators, as :func:`spacy_pii.redact` takes them.
    """

    text: str
    pipeline: str = "rules"
    types: list[str] | None = None
    min_score: float = Field(default=0.0, ge=0.0, le=1.0, allow_inf_nan=False)
    drop_unscored: bool = False
    operators: dict[str, OperatorSpec] | None = None


class RestoreRequest(_Request):
    """``POST /api/restore``.

    Attributes:
        text: the model's answer, with placeholders.
        vault: placeholder -> value, from ``/api/detect``.
        pipeline: when given, the raw answer is scanned for personal data the vault never
            held (``unknown``).
        types: report only these types in ``unknown``.
    """

    text: str
    vault: dict[str, str]
    pipeline: str | None = None
    types: list[str] | None = None


_FIELDS = frozenset(DetectRequest.model_fields) | frozenset(RestoreRequest.model_fields)


def _location(loc: tuple[Any, ...]) -> str:
    parts = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif part in _FIELDS and not parts:
            parts.append(str(part))
        elif part in ("str", "dict[str,union[str,int]]", "int"):
            continue  # the branch names pydantic adds inside a union
        else:
            parts.append("[key]")
    return "".join(parts) or "body"


def describe_validation_error(err: ValidationError, limit: int = 5) -> str:
    """One line per problem, ``field: kind``, without any input value."""
    problems = []
    for item in err.errors(include_input=False, include_url=False, include_context=False):
        if item["type"] == "extra_forbidden":
            problems.append(f"{_location(item['loc'][:1])}: not a field of this request")
        elif item["type"] == "model_type":
            problems.append("body: must be a JSON object")
        else:
            problems.append(f"{_location(item['loc'])}: {item['msg']}")
    unique = list(dict.fromkeys(problems))
    shown = "; ".join(unique[:limit])
    return shown + (f"; and {len(unique) - limit} more" if len(unique) > limit else "")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def read_json_body(request: Any, limit: int) -> Any:
    """Read and parse a JSON body of at most ``limit`` bytes.

    Raises:
        ApiError: 415 when the body is not declared as JSON, 413 when it is larger than
            ``limit`` (declared or received), 422 when it is not valid UTF-8 JSON.
    """
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise ApiError(
            415,
            "unsupported_media_type",
            "the body must be sent as application/json",
            "set the header Content-Type: application/json",
        )
    declared = request.headers.get("content-length")
    too_large_hint = "send a shorter text; GET /api/health gives the limits"
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(422, "malformed_request", "Content-Length is not a number", "")
        if int(declared) > limit:
            raise ApiError(
                413,
                "body_too_large",
                f"the body has {int(declared)} bytes; the limit is {limit}",
                too_large_hint,
            )
    chunks: list[bytes] = []
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise ApiError(
                413,
                "body_too_large",
                f"the body passed the limit of {limit} bytes",
                too_large_hint,
            )
        chunks.append(chunk)
    return parse_json(b"".join(chunks))


def parse_json(body: bytes) -> Any:
    """Parse a JSON body; errors give the position only."""
    hint = 'send one JSON object, e.g. {"text": "...", "pipeline": "rules"}'
    try:
        return json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except UnicodeDecodeError as err:
        raise ApiError(
            422, "malformed_json", f"the body is not UTF-8 (byte {err.start})", hint
        ) from None
    except json.JSONDecodeError as err:
        raise ApiError(
            422,
            "malformed_json",
            f"the body is not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}",
            hint,
        ) from None
    except ValueError:
        raise ApiError(422, "malformed_json", "NaN and Infinity are not JSON", hint) from None
    except RecursionError:
        raise ApiError(422, "malformed_json", "the body is nested too deeply", hint) from None
