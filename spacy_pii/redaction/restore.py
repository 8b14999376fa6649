"""Restoring a model's answer: vault values back in, and what could not be trusted."""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import ConfigError, InvalidInput
from .mask import PLACEHOLDER, _canonical, _rows

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class UnknownSpan:
    """Personal data in a model's answer that the vault never held.

    ``start``/``end`` index the raw answer (before restoration); ``path`` names the leaf for
    :func:`restore_mapping`. ``text`` is the value itself: it is returned so the caller can
    act on it, and left out of ``repr`` and :meth:`to_dict` so that logging a result is safe.
    """

    type: str
    start: int
    end: int
    text: str = field(repr=False)
    path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Type, offsets and path; never the text."""
        return {"type": self.type, "start": self.start, "end": self.end, "path": self.path}


class _RestoreVerdict:
    """What :class:`RestoreResult` and :class:`RestoreMappingResult` share: ``ok`` and a
    summary that is safe to log (tokens, types and offsets, no value)."""

    __slots__ = ()
    resolved: tuple[str, ...]
    unresolved: tuple[str, ...]
    unknown: tuple[UnknownSpan, ...]
    ok: bool

    def __post_init__(self) -> None:
        object.__setattr__(self, "ok", not self.unresolved and not self.unknown)

    def _summary(self) -> dict[str, Any]:
        return {
            "resolved": list(self.resolved),
            "unresolved": list(self.unresolved),
            "unknown": [span.to_dict() for span in self.unknown],
            "ok": self.ok,
        }


@dataclass(frozen=True, slots=True)
class RestoreResult(_RestoreVerdict):
    """What :func:`restore` found. ``text`` holds real values: it is not in ``repr``.

    Attributes:
        text: the restored string.
        resolved: placeholders found and replaced, in order of first appearance.
        unresolved: placeholder-shaped tokens left in the text, as written (``<SECRET>``,
            an invented ``<PERSON_9>``). Never ignore them.
        unknown: personal data in the raw answer that the vault never held.
        ok: ``True`` only when ``unresolved`` and ``unknown`` are both empty.
    """

    text: str = field(repr=False)
    resolved: tuple[str, ...]
    unresolved: tuple[str, ...]
    unknown: tuple[UnknownSpan, ...]
    ok: bool = field(init=False)

    def to_dict(self) -> dict[str, Any]:
        """A summary safe to log: tokens, types and offsets, the text's length, no value."""
        return {**self._summary(), "chars": len(self.text)}


def _check_vault(vault: object) -> Mapping[str, str]:
    if not isinstance(vault, Mapping):
        raise InvalidInput(vault, expected="a vault mapping")
    # A None, a number or bytes would restore as "None", "42" or "b'...'", or raise deep
    # inside the substitution: a vault is placeholders to strings, checked before any work.
    for key, value in vault.items():
        if not isinstance(key, str):
            raise InvalidInput(key, expected="a vault key of type str")
        if not isinstance(value, str):
            raise InvalidInput(value, expected=f"a str vault value for {_shown_key(key)}")
    return vault


def _shown_key(key: str) -> str:
    # A placeholder names a type and a number; anything else could be data: not shown.
    return key if PLACEHOLDER.fullmatch(key) else "a key"


def _substitute(
    text: str, vault: Mapping[str, str], known_types: frozenset[str], irreversible: frozenset[str]
) -> tuple[str, list[str], list[str]]:
    resolved: list[str] = []
    unresolved: list[str] = []

    def replace(match: re.Match[str]) -> str:
        type_name, token = _canonical(match)
        if match.group(2) is None:
            # A bare <TYPE> matters only for irreversible types; <b> or <html> is not ours.
            if type_name in irreversible and match.group(0) not in unresolved:
                unresolved.append(match.group(0))
            return match.group(0)
        if token in vault:
            if token not in resolved:
                resolved.append(token)
            return vault[token]
        # Only a known type makes a token ours: "<step 1>" is prose, and reporting an
        # arbitrary "<Ada Lovelace 1>" would copy a name into a log-safe field.
        if type_name in known_types and match.group(0) not in unresolved:
            unresolved.append(match.group(0))
        return match.group(0)

    return PLACEHOLDER.sub(replace, text), resolved, unresolved


def _docs(nlp: Any, texts: list[str]) -> Iterator[Any]:
    if hasattr(nlp, "pipe"):
        return iter(nlp.pipe(texts))
    return (nlp(text) for text in texts)


def _doc_rows(
    doc: Any, spans_key: str, taxonomy: Taxonomy, wanted: frozenset[str] | None
) -> list[tuple[int, int, str]]:
    if spans_key not in doc.spans:
        raise ConfigError(f"the pipeline wrote no span group {spans_key!r}")
    rows = _rows(doc.spans[spans_key], len(doc.text), taxonomy)
    return [row for row in rows if wanted is None or row[2] in wanted]


def _unknown(
    text: str,
    doc: Any,
    values: frozenset[str],
    spans_key: str,
    taxonomy: Taxonomy,
    wanted: frozenset[str] | None,
    path: str | None = None,
) -> list[UnknownSpan]:
    # Spans on a placeholder are the mask itself ("<PERSON_1>" tagged as a name), not a leak.
    # Placeholders do not overlap, so their starts and ends both ascend: one bisection tells
    # whether a span touches one (comparing every pair was quadratic in a long answer).
    placeholders = [match.span() for match in PLACEHOLDER.finditer(text)]
    starts = [s for s, _ in placeholders]
    found = []
    for start, end, type_name in _doc_rows(doc, spans_key, taxonomy, wanted):
        value = text[start:end]
        before = bisect.bisect_left(starts, end)
        if value in values or (before and placeholders[before - 1][1] > start):
            continue
        found.append(UnknownSpan(type_name, start, end, value, path))
    return found


def _restore_setup(
    vault: object, types: Iterable[str] | None, taxonomy: Taxonomy | str | None
) -> tuple[Mapping[str, str], Taxonomy, frozenset[str] | None, frozenset[str], frozenset[str]]:
    vault = _check_vault(vault)
    tax = load_taxonomy(taxonomy)
    wanted = None if types is None else frozenset(tax.check_types(tuple(types)))
    known = frozenset(tax.types) | {
        _canonical(match)[0] for key in vault for match in PLACEHOLDER.finditer(str(key))
    }
    irreversible = frozenset(
        name for name, spec in tax.types.items() if spec.mask == "irreversible"
    )
    return vault, tax, wanted, known, irreversible


def restore(
    text: str,
    vault: Mapping[str, str],
    *,
    nlp: Any = None,
    types: Iterable[str] | None = None,
    taxonomy: Taxonomy | str | None = None,
    spans_key: str = "pii",
) -> RestoreResult:
    """Put vault values back into a model's answer and report what could not be trusted.

    Tolerates what models do to tokens: lower case (``<email_1>``), spaces for underscores
    and inside the brackets (``< EMAIL 1 >``). A placeholder-shaped token of a taxonomy type
    that the vault does not hold (``<PERSON_9>``, always ``<SECRET>``) stays in the text and
    is reported in ``unresolved``. The replacement is one pass, so a restored value is never
    scanned again. Outputs of the other operators (``<EMAIL_h:...>``, partial masks, fakes)
    are not placeholders: they are left alone and not reported.

    Args:
        text: the model's answer.
        vault: the vault from :func:`redact` or :func:`mask_mapping`.
        nlp: optional spaCy pipeline (any callable returning an object with ``.spans``)
            that writes ``doc.spans[spans_key]``. It scans the raw answer, before
            restoration (restoration inserts real values on purpose), and spans whose text
            the vault never held are reported in ``unknown``.
        types: report only these types in ``unknown``; ``None`` reports every type.
        taxonomy: the taxonomy used to fold labels and to know the irreversible types.
        spans_key: the span group ``nlp`` writes.

    Returns:
        A :class:`RestoreResult`.
    """
    if not isinstance(text, str):
        raise InvalidInput(text)
    vault, tax, wanted, known, irreversible = _restore_setup(vault, types, taxonomy)
    unknown: list[UnknownSpan] = []
    if nlp is not None:
        doc = next(_docs(nlp, [text]))
        unknown = _unknown(text, doc, frozenset(vault.values()), spans_key, tax, wanted)
    restored, resolved, unresolved = _substitute(text, vault, known, irreversible)
    result = RestoreResult(restored, tuple(resolved), tuple(unresolved), tuple(unknown))
    logger.debug(
        "restore: %d resolved, %d unresolved, %d unknown",
        len(resolved),
        len(unresolved),
        len(unknown),
    )
    return result
