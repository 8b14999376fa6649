"""Redaction with a reversible vault, restore of model answers, and tool-call masking.

The loop this module serves: mask a prompt (:func:`redact`), send it to a model, put the real
values back into the answer (:func:`restore`) and check that answer for personal data the
prompt never carried. :func:`mask_mapping` and :func:`restore_mapping` do the same for the
nested arguments of a tool call. Every function is pure: the vault belongs to the caller, and
nothing here keeps state. No spaCy import: a ``Doc`` and a pipeline are used by duck typing.

Operators (per public type, as Presidio's anonymizer users know them) and what the vault gets:

============== ============================================ ==============================
operator       output                                       in the vault
============== ============================================ ==============================
placeholder    ``<EMAIL_1>``, numbered left to right         yes: placeholder -> value
partial        ``**********0101`` (last N kept)              no: not reversible
hash           ``<EMAIL_h:9f86d081884c7d65>`` (keyed HMAC)    no: one-way by design
fake           a Faker value, stable per key and value       no: not reversible
               (for one Faker version and locale)
(irreversible) ``<SECRET>`` for a type whose taxonomy mask    never, whatever the operator
               is ``irreversible``
============== ============================================ ==============================

Secrets never enter a vault: restoring one would write a password into a ticket, a log or a
second prompt. ``restore`` therefore always reports ``<SECRET>`` as unresolved.

Decode before you scan. A JSON-escaped payload such as ``"ada\\u0040example.com"`` holds no
``@`` in its raw form, so no detector sees an e-mail address there; ``json.loads`` produces
the real value, and :func:`mask_mapping` scans that. Pass decoded trees, never raw JSON text.

What is safe to log: ``MaskResult.to_dict()``, ``RestoreResult.to_dict()`` and the ``repr``
of every result class (values and restored text are left out of both). A vault, a restored
text and ``UnknownSpan.text`` hold personal data by design; they are returned to the caller,
never logged here.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, TypeGuard

from .errors import ConfigError, InvalidInput, OverlapError, PiiError, SpanOffsetError
from .taxonomy import Taxonomy, load_taxonomy

__all__ = [
    "MaskHit",
    "MaskResult",
    "MissingExtra",
    "Operator",
    "RestoreMappingResult",
    "RestoreResult",
    "UnknownSpan",
    "mask_mapping",
    "parse_operators",
    "redact",
    "restore",
    "restore_mapping",
]

logger = logging.getLogger(__name__)

# A placeholder as a model may write it back: any case, a space or an underscore between the
# parts, spaces just inside the brackets (<email_1>, < EMAIL 1 >, <IP ADDRESS 1>, <EMAIL_1_0>).
# No number: a bare <SECRET>. Every repetition is bounded, so a scan is linear in the text.
PLACEHOLDER = re.compile(
    r"<[ \t]{0,3}([A-Za-z]{1,32}(?:[ _][A-Za-z]{1,32}){0,4})"
    r"(?:[ _][ \t]{0,2}(\d{1,9})(?:[ _][ \t]{0,2}(\d{1,9}))?)?[ \t]{0,3}>"
)

OPERATORS = ("placeholder", "partial", "hash", "fake")
DEFAULT_KEY = "DEFAULT"
# PCI DSS v4.0 requirement 3.4.1 lets a display show at most the last four digits of a PAN.
DEFAULT_PARTIAL_KEEP = 4
# 16 hex characters = 64 bits of HMAC-SHA256. NIST SP 800-107r1 section 5.3.4 allows a
# truncated HMAC of at least 32 bits; 64 bits keeps the birthday chance that two distinct
# values of one type share a token under about 3e-8 for a million values (n^2 / 2^65).
DEFAULT_HASH_LENGTH = 16
MIN_HASH_LENGTH = 8
# Faker method per public type; a value's shape picks a variant (IBAN, IPv6) where it matters.
FAKE_PROVIDERS: dict[str, str] = {
    "PERSON": "name",
    "EMAIL": "email",
    "PHONE": "phone_number",
    "ADDRESS": "address",
    "IP_ADDRESS": "ipv4",
    "PAYMENT": "credit_card_number",
    "GOV_ID": "ssn",
    "USERNAME": "user_name",
    "DATE_OF_BIRTH": "date_of_birth",
    "ORG": "company",
}


class MissingExtra(PiiError, ImportError):
    """An operator needs an optional dependency that is not installed."""


# -- operators -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Operator:
    """How one type is masked. Build it from config with :func:`parse_operators`.

    Attributes:
        name: ``placeholder``, ``partial``, ``hash`` or ``fake``.
        keep: ``partial``: characters kept at the end, never more than half the value.
        char: ``partial``: the masking character.
        length: ``hash``: hex characters of the HMAC kept (8 to 64).
        locale: ``fake``: the Faker locale.
    """

    name: str = "placeholder"
    keep: int = DEFAULT_PARTIAL_KEEP
    char: str = "*"
    length: int = DEFAULT_HASH_LENGTH
    locale: str = "en_US"

    @property
    def needs_key(self) -> bool:
        return self.name in ("hash", "fake")

    def to_dict(self) -> dict[str, Any]:
        return {
            "operator": self.name,
            "keep": self.keep,
            "char": self.char,
            "length": self.length,
            "locale": self.locale,
        }


def _operator(type_name: str, spec: object) -> Operator:
    if isinstance(spec, Operator):
        return spec
    if isinstance(spec, str):
        spec = {"operator": spec}
    if not isinstance(spec, Mapping):
        raise ConfigError(f"operator for {type_name} must be a name or a mapping")
    params = dict(spec)
    name = params.pop("operator", "placeholder")
    unknown = sorted(set(params) - {"keep", "char", "length", "locale"})
    if unknown:
        raise ConfigError(f"operator for {type_name} has unknown settings {unknown}")
    try:
        op = Operator(name=name, **params)
    except TypeError:
        raise ConfigError(f"operator for {type_name} has settings of the wrong type") from None
    if op.name not in OPERATORS:
        raise ConfigError(f"operator for {type_name} must be one of {list(OPERATORS)}")
    if not isinstance(op.keep, int) or isinstance(op.keep, bool) or op.keep < 0:
        raise ConfigError(f"operator for {type_name}: keep must be an integer >= 0")
    if not isinstance(op.char, str) or len(op.char) != 1:
        raise ConfigError(f"operator for {type_name}: char must be one character")
    if not isinstance(op.length, int) or not MIN_HASH_LENGTH <= op.length <= 64:
        raise ConfigError(f"operator for {type_name}: length must lie in {MIN_HASH_LENGTH}..64")
    if not isinstance(op.locale, str) or not op.locale:
        raise ConfigError(f"operator for {type_name}: locale must be a non-empty string")
    return op


def parse_operators(
    operators: Mapping[str, object] | None, taxonomy: Taxonomy | None = None
) -> dict[str, Operator]:
    """Validate an operator config: ``{type or "DEFAULT": name | {"operator": name, ...}}``.

    ``DEFAULT`` applies to every reversible type not named. An irreversible type (SECRET)
    accepts only ``placeholder``: its output is always ``<SECRET>``.

    Raises:
        ConfigError: an unknown operator or setting, or a non-placeholder operator for an
            irreversible type.
        UnknownType: a key is neither ``DEFAULT`` nor a type of the taxonomy.
    """
    taxonomy = load_taxonomy(taxonomy)
    if operators is None:
        return {}
    if not isinstance(operators, Mapping):
        raise ConfigError("operators must be a mapping of type name to operator")
    parsed: dict[str, Operator] = {}
    for type_name, spec in operators.items():
        if type_name != DEFAULT_KEY:
            pii_type = taxonomy.get(type_name)
            op = _operator(type_name, spec)
            if pii_type.mask == "irreversible" and op.name != "placeholder":
                raise ConfigError(f"{type_name} is irreversible; its only operator is placeholder")
            parsed[type_name] = op
        else:
            parsed[type_name] = _operator(type_name, spec)
    return parsed


def _key_bytes(key: bytes | str | None) -> bytes | None:
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes):
        raise ConfigError("key must be bytes or str")
    if not key:
        raise ConfigError("key is empty")
    return key


class _Plan:
    """Operators resolved against a taxonomy, with the key checked once, before any work."""

    def __init__(
        self, taxonomy: Taxonomy, operators: Mapping[str, object] | None, key: bytes | str | None
    ) -> None:
        self.taxonomy = taxonomy
        self.operators = parse_operators(operators, taxonomy)
        self.key = _key_bytes(key)
        keyed = sorted(name for name, op in self.operators.items() if op.needs_key)
        if keyed and self.key is None:
            raise ConfigError(f"operators for {keyed} need a key (hash, fake); none was given")
        for type_name, op in self.operators.items():
            if op.name == "fake":
                _check_fake(type_name, op)
        self._default = self.operators.get(DEFAULT_KEY, Operator())

    def irreversible(self, type_name: str) -> bool:
        return self.taxonomy.get(type_name).mask == "irreversible"

    def operator(self, type_name: str) -> Operator:
        return self.operators.get(type_name, self._default)


def _digest(key: bytes, purpose: str, type_name: str, value: str) -> bytes:
    # The purpose and the type separate domains: a hash token reveals nothing about a fake
    # seed, and the same string typed EMAIL and USERNAME gets unrelated tokens.
    message = "\x00".join((purpose, type_name, value)).encode("utf-8", "surrogatepass")
    return hmac.new(key, message, hashlib.sha256).digest()


def _partial(value: str, op: Operator) -> str:
    kept = min(op.keep, len(value) // 2)
    return op.char * (len(value) - kept) + value[len(value) - kept :]


def _check_fake(type_name: str, op: Operator) -> None:
    """Fail at start-up, not on the first matching line: Faker, its locale, a provider."""
    try:
        from faker.config import AVAILABLE_LOCALES
    except ImportError:
        raise MissingExtra(
            "the 'fake' operator needs Faker: pip install 'spacy-pii[fake]'"
        ) from None
    if op.locale not in AVAILABLE_LOCALES:
        raise ConfigError(f"operator for {type_name}: Faker has no locale {op.locale!r}")
    if type_name != DEFAULT_KEY and type_name not in FAKE_PROVIDERS:
        raise ConfigError(f"the 'fake' operator has no Faker provider for {type_name}")


_FAKERS: dict[str, Any] = {}
# Seeding and drawing must not interleave between threads that share one Faker instance.
_FAKER_LOCK = threading.Lock()


def _fake(key: bytes, type_name: str, value: str, op: Operator) -> str:
    try:
        from faker import Faker
    except ImportError:
        raise MissingExtra(
            "the 'fake' operator needs Faker: pip install 'spacy-pii[fake]'"
        ) from None
    method = FAKE_PROVIDERS.get(type_name)
    if method is None:
        raise ConfigError(f"the 'fake' operator has no Faker provider for {type_name}")
    if type_name == "PAYMENT" and value[:2].isalpha():
        method = "iban"
    elif type_name == "IP_ADDRESS" and ":" in value:
        method = "ipv6"
    # Seeding from a keyed HMAC makes a fake stable per (key, type, value) and unlinkable
    # without the key: an unkeyed seed would let anyone confirm a guessed value.
    seed = int.from_bytes(_digest(key, "fake", type_name, value)[:8], "big")
    with _FAKER_LOCK:
        faker = _FAKERS.get(op.locale)
        if faker is None:
            try:
                faker = _FAKERS[op.locale] = Faker(op.locale)
            except AttributeError:
                raise ConfigError(f"Faker has no locale {op.locale!r}") from None
        faker.seed_instance(seed)
        result = getattr(faker, method)()
    if type_name == "DATE_OF_BIRTH":
        return result.isoformat()
    return str(result).replace("\n", ", ")


# -- spans -----------------------------------------------------------------------------------


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
        spans: for a ``str``, the spans to mask: :class:`~spacy_pii.hits.Hit`, spaCy
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


# -- restore ---------------------------------------------------------------------------------


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
    tokens = [match.span() for match in PLACEHOLDER.finditer(text)]
    found = []
    for start, end, type_name in _doc_rows(doc, spans_key, taxonomy, wanted):
        value = text[start:end]
        if value in values or any(s < end and start < e for s, e in tokens):
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


# -- tool calls ------------------------------------------------------------------------------

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,99}")


def _child_path(path: str, key: object) -> str:
    if isinstance(key, str) and _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}" if path else key
    shown = json.dumps(key) if isinstance(key, str) else repr(key)
    return f"{path}[{shown}]"


def _walk(value: Any, path: str, visit: Any, active: set[int]) -> Any:
    """Rebuild ``value`` with ``visit(path, leaf)`` applied to each str leaf, depth first."""
    if isinstance(value, str):
        return visit(path, value)
    if isinstance(value, (dict, list, tuple)):
        if id(value) in active:
            raise InvalidInput(value, expected="an acyclic tree")
        active.add(id(value))
        try:
            if isinstance(value, dict):
                out = value.copy()  # keeps OrderedDict, defaultdict and friends
                for key, item in value.items():
                    out[key] = _walk(item, _child_path(path, key), visit, active)
                return out
            items = [_walk(item, f"{path}[{i}]", visit, active) for i, item in enumerate(value)]
            if isinstance(value, list):
                return type(value)(items) if type(value) is not list else items
            if hasattr(value, "_fields"):  # a namedtuple
                return type(value)._make(items)  # type: ignore[attr-defined]  # namedtuple
            return type(value)(items)
        finally:
            active.discard(id(value))
    return value


def _leaves(value: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def record(path: str, leaf: str) -> str:
        found.append((path, leaf))
        return leaf

    _walk(value, "", record, set())
    return found


def _replace_leaves(value: Any, replacements: list[Any]) -> Any:
    supply = iter(replacements)
    return _walk(value, "", lambda _path, _leaf: next(supply), set())


@dataclass(frozen=True, slots=True)
class MaskHit:
    """One string leaf that was masked: where, which types (first appearance), how many."""

    path: str
    types: tuple[str, ...]
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "types": list(self.types), "count": self.count}


@dataclass(frozen=True, slots=True)
class MaskResult:
    """What :func:`mask_mapping` returns. ``vault`` holds real values: it is not in ``repr``."""

    value: Any
    vault: dict[str, str] = field(repr=False)
    hits: tuple[MaskHit, ...]

    def to_dict(self) -> dict[str, Any]:
        """A summary safe to log: the masked tree, the paths and the types, no value."""
        return {
            "value": self.value,
            "hits": [hit.to_dict() for hit in self.hits],
            "placeholders": len(self.vault),
        }


def mask_mapping(
    value: Any,
    nlp: Any,
    *,
    types: Iterable[str] | None = None,
    operators: Mapping[str, object] | None = None,
    key: bytes | str | None = None,
    taxonomy: Taxonomy | str | None = None,
    spans_key: str = "pii",
) -> MaskResult:
    """Mask every string leaf of a nested dict/list/tuple, e.g. a tool call's arguments.

    The copy keeps the structure and every non-string leaf, so the tool still parses it.
    Dict keys are field names: they are neither scanned nor masked, and they appear in
    paths; a mapping keyed by personal data must be reshaped by the caller first. Only
    ``str`` leaves are scanned: decode bytes and JSON text first (see the module docs).

    Placeholders are unique across the tree: each carries the index of its string leaf
    (depth first, in insertion order), ``<EMAIL_1_0>`` in leaf 0 and ``<EMAIL_1_1>`` in leaf
    1, so restoring never writes one leaf's value into another. Paths join keys with dots
    and put list indices in brackets: ``customer.email``, ``items[0].email``, ``[2]`` for a
    top-level list; a key that is not an identifier is quoted, ``meta["x.y"]``.

    Args:
        value: the tree to mask.
        nlp: a pipeline that writes ``doc.spans[spans_key]``; ``nlp.pipe`` is used to batch.
        types: mask only these types; ``None`` masks every type the pipeline finds.
        operators, key, taxonomy: as for :func:`redact`.
        spans_key: the span group ``nlp`` writes.

    Returns:
        A :class:`MaskResult` with the masked tree, the vault and one hit per masked leaf.
    """
    if not callable(nlp):
        raise InvalidInput(nlp, expected="a pipeline (a callable returning a Doc)")
    tax = load_taxonomy(taxonomy)
    plan = _Plan(tax, operators, key)
    wanted = None if types is None else frozenset(tax.check_types(tuple(types)))
    leaves = _leaves(value)
    texts = [text for _, text in leaves]
    reserved = _reserved(texts)
    vault: dict[str, str] = {}
    hits: list[MaskHit] = []
    masked_leaves: list[str] = []
    for index, ((path, text), doc) in enumerate(zip(leaves, _docs(nlp, texts), strict=True)):
        rows = _doc_rows(doc, spans_key, tax, wanted)
        masked, leaf_vault = _mask_text(text, rows, plan, suffix=f"_{index}", reserved=reserved)
        masked_leaves.append(masked)
        vault.update(leaf_vault)
        if rows:
            found = tuple(dict.fromkeys(type_name for _, _, type_name in rows))
            hits.append(MaskHit(path, found, len(rows)))
    result = MaskResult(_replace_leaves(value, masked_leaves), vault, tuple(hits))
    logger.debug("mask_mapping: %d of %d leaves masked", len(hits), len(leaves))
    return result


@dataclass(frozen=True, slots=True)
class RestoreMappingResult(_RestoreVerdict):
    """What :func:`restore_mapping` returns; fields as :class:`RestoreResult`, per tree."""

    value: Any = field(repr=False)
    resolved: tuple[str, ...]
    unresolved: tuple[str, ...]
    unknown: tuple[UnknownSpan, ...]
    ok: bool = field(init=False)

    def to_dict(self) -> dict[str, Any]:
        """A summary safe to log: tokens, types, offsets and paths; no value."""
        return self._summary()


def restore_mapping(
    value: Any,
    vault: Mapping[str, str],
    *,
    nlp: Any = None,
    types: Iterable[str] | None = None,
    taxonomy: Taxonomy | str | None = None,
    spans_key: str = "pii",
) -> RestoreMappingResult:
    """Restore every string leaf of a nested dict/list/tuple, as :func:`restore` does.

    ``unknown`` rows carry the leaf's ``path``; offsets index that leaf's raw text.
    Non-string leaves and the structure come back unchanged.
    """
    vault, tax, wanted, known, irreversible = _restore_setup(vault, types, taxonomy)
    leaves = _leaves(value)
    texts = [text for _, text in leaves]
    values = frozenset(vault.values())
    unknown: list[UnknownSpan] = []
    if nlp is not None:
        for (path, text), doc in zip(leaves, _docs(nlp, texts), strict=True):
            unknown.extend(_unknown(text, doc, values, spans_key, tax, wanted, path))
    resolved: dict[str, None] = {}
    unresolved: dict[str, None] = {}
    restored = []
    for text in texts:
        new_text, leaf_resolved, leaf_unresolved = _substitute(text, vault, known, irreversible)
        restored.append(new_text)
        resolved.update(dict.fromkeys(leaf_resolved))
        unresolved.update(dict.fromkeys(leaf_unresolved))
    result = RestoreMappingResult(
        _replace_leaves(value, restored), tuple(resolved), tuple(unresolved), tuple(unknown)
    )
    logger.debug(
        "restore_mapping: %d resolved, %d unresolved, %d unknown",
        len(resolved),
        len(unresolved),
        len(unknown),
    )
    return result
