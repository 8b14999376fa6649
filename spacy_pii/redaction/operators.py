"""Masking operators: ``placeholder``, ``partial``, ``hash`` and ``fake``, validated once.

See :mod:`spacy_pii.redaction` for what each writes and what the vault gets.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import ConfigError, PiiError

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
    """A feature (an operator, a pipeline) needs an optional dependency that is not installed."""


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
