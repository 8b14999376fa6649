"""Masking a text: the placeholder format, spans to checked rows, and :func:`redact`."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import TypeGuard

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import ConfigError, InvalidInput, OverlapError, SpanOffsetError
from .operators import _digest, _fake, _partial, _Plan

logger = logging.getLogger(__name__)


# A placeholder as a model may write it back: any case, a space or an underscore between the
# parts, spaces just inside the brackets (<email_1>, < EMAIL 1 >, <IP ADDRESS 1>, <EMAIL_1_0>).
# No number: a bare <SECRET>. Every repetition is bounded, so a scan is linear in the text.
PLACEHOLDER = re.compile(
    r"<[ \t]{0,3}([A-Za-z]{1,32}(?:[ _][A-Za-z]{1,32}){0,4})"
    r"(?:[ _][ \t]{0,2}(\d{1,9})(?:[ _][ \t]{0,2}(\d{1,9}))?)?[ \t]{0,3}>"
)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _span_fields(span: object) -> tuple[object, object, object]:
    # spaCy's Span has token indices in .start/.end: its character offsets win.
    if isinstance(span, tuple) and len(span) == 3:
        return span
    if hasattr(span, "start_char") and hasattr(span, "end_char"):
        return span.start_char, span.end_char, getattr(span, "label_", None)
    if hasattr(span, "start") and hasattr(span, "end"):
        label = getattr(span, "label", None)
        return span.start, span.end, label if label is not None else getattr(span, "type", None)
    raise InvalidInput(span, expected="a span (Hit, spaCy Span or (start, end, label))")


def _rows(spans: Iterable[object], length: int, taxonomy: Taxonomy) -> list[tuple[int, int, str]]:
    """Fold, check and sort spans; labels the taxonomy drops on purpose are left unmasked."""
    rows = []
    for span in spans:
        start, end, label = _span_fields(span)
        if not (_is_int(start) and _is_int(end)):
            raise SpanOffsetError("span offsets must be integers")
        if not 0 <= start < end <= length:
            raise SpanOffsetError(
                f"span {start}:{end} is empty or outside a text of {length} characters"
            )
        if not isinstance(label, str):
            raise InvalidInput(label, expected="a str label")
        type_name = taxonomy.fold(label)
        if type_name is not None:
            rows.append((start, end, type_name))
    rows.sort()
    for (s1, e1, _), (s2, e2, _) in pairwise(rows):
        if s2 < e1:
            raise OverlapError((s1, e1), (s2, e2))
    return rows


def _canonical(match: re.Match[str]) -> tuple[str, str]:
    """``(type, token)`` in the form redact writes: ``("EMAIL", "<EMAIL_1_0>")``."""
    type_name = "_".join(re.split(r"[ _]", match.group(1))).upper()
    numbers = [group for group in match.groups()[1:] if group is not None]
    return type_name, "<" + "_".join((type_name, *numbers)) + ">"


def _reserved(texts: Iterable[str]) -> set[str]:
    """Placeholder-shaped tokens already present in the source: never hand them out."""
    return {_canonical(match)[1] for text in texts for match in PLACEHOLDER.finditer(text)}


def _mask_text(
    text: str,
    rows: list[tuple[int, int, str]],
    plan: _Plan,
    *,
    suffix: str = "",
    reserved: set[str] | frozenset[str] = frozenset(),
) -> tuple[str, dict[str, str]]:
    counters: dict[str, int] = {}
    assigned: dict[tuple[str, str], str] = {}
    vault: dict[str, str] = {}
    pieces: list[str] = []
    cursor = 0
    for start, end, type_name in rows:
        value = text[start:end]
        op = plan.operator(type_name)
        if plan.irreversible(type_name):
            token = f"<{type_name}>"
        elif op.name == "placeholder":
            token = assigned.get((type_name, value), "")
            if not token:
                number = counters.get(type_name, 0)
                # A token the source already contains would be restored into that literal
                # too, so it is skipped: the round trip stays exact.
                while not token or token in reserved:
                    number += 1
                    token = f"<{type_name}_{number}{suffix}>"
                counters[type_name] = number
                assigned[(type_name, value)] = token
                vault[token] = value
        elif op.name == "partial":
            token = _partial(value, op)
        elif op.name == "hash":
            digest = _digest(plan.key, "hash", type_name, value).hex()  # type: ignore[arg-type]
            token = f"<{type_name}_h:{digest[: op.length]}>"
        else:
            token = _fake(plan.key, type_name, value, op)  # type: ignore[arg-type]
        # Offsets index the untouched source, so joining its slices with the tokens gives
        # the same result as replacing from the right, in one linear pass.
        pieces.append(text[cursor:start])
        pieces.append(token)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), vault


def redact(
    source: object,
    spans: Iterable[object] | None = None,
    *,
    taxonomy: Taxonomy | str | None = None,
    operators: Mapping[str, object] | None = None,
    key: bytes | str | None = None,
    spans_key: str = "pii",
) -> tuple[str, dict[str, str]]:
    """Mask spans in a text and return the masked text and the vault.

    Placeholders are ``<TYPE_N>``, numbered from 1 per type, left to right; a repeat of the
    same ``(type, value)`` reuses its placeholder. A type whose taxonomy mask is
    ``irreversible`` becomes ``<TYPE>`` (``<SECRET>``) and never enters the vault. A number
    whose token the source already contains is skipped, so ``restore`` gives back the
    source exactly. The function keeps nothing: store the vault yourself.

    Args:
        source: a ``str``, or a spaCy ``Doc`` (anything with ``.text`` and ``.spans``).
        spans: for a ``str``, the spans to mask: :class:`~spacy_pii.core.hits.Hit`, spaCy
            ``Span`` or ``(start, end, label)``. For a ``Doc`` it defaults to
            ``doc.spans[spans_key]``. Labels fold through the taxonomy.
        taxonomy: a taxonomy, a shipped version, or ``None`` for the default.
        operators: per-type operators, see :func:`parse_operators` and the module docs.
        key: the HMAC key for ``hash`` and ``fake``; required when either is configured.
        spans_key: the ``Doc`` span group to read when ``spans`` is ``None``.

    Returns:
        ``(masked, vault)``; the vault maps each placeholder to its original slice.

    Raises:
        InvalidInput: ``source`` is neither text nor a ``Doc``, or a ``str`` came without spans.
        SpanOffsetError: a span is empty or outside the text.
        OverlapError: two spans overlap (offsets only in the message).
        UnknownLabel: a span label the taxonomy does not know.
        ConfigError: a bad operator, or ``hash``/``fake`` without a key.
    """
    if hasattr(source, "spans") and hasattr(source, "text"):
        text = source.text
        if spans is None:
            if spans_key not in source.spans:
                raise ConfigError(f"the Doc has no span group {spans_key!r}; run pii_merge")
            spans = source.spans[spans_key]
    elif isinstance(source, str):
        text = source
        if spans is None:
            raise InvalidInput(spans, expected="spans for a str source")
    else:
        raise InvalidInput(source, expected="str or Doc")
    tax = load_taxonomy(taxonomy)
    plan = _Plan(tax, operators, key)
    rows = _rows(spans, len(text), tax)
    masked, vault = _mask_text(text, rows, plan, reserved=_reserved([text]))
    logger.debug("redact: %d spans masked, %d vault entries", len(rows), len(vault))
    return masked, vault
