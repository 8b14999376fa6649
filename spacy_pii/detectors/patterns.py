"""User data for the rule lane: regex patterns and a deny-list, each with a public type.

``pii_rules`` receives both through ``initialize()`` (from the ``[initialize.components]``
block, e.g. ``srsly.read_jsonl.v1``) and saves them with ``to_disk``:

- a pattern is ``{"id": "employee_id", "type": "GOV_ID", "pattern": "(?<![A-Z0-9])EMP-\\d{6}",
  "validator": "luhn"}``. Every pattern is checked against catastrophic backtracking
  before it is accepted (:func:`~spacy_pii.detectors.regex_safety.check_pattern`). A match
  scores 1.0 when its validator (:mod:`spacy_pii.detectors.registry`) confirms the slice;
  with a validator that says no, the match is dropped; without a validator it has no
  score (``None``), as every shape-only rule;
- a deny-list entry is ``{"value": "Project Nightingale", "type": "ORG"}``: the value is
  always reported where it occurs as a whole word (case-sensitive), with score 1.0,
  because the user has confirmed it.

The types are checked against the taxonomy by the component. Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.hits import Hit
from ..errors import ConfigError, settings_error
from .regex_safety import check_pattern
from .registry import get_validator

PATTERN_DETECTOR_PREFIX = "patterns."
DENY_LIST_DETECTOR = "deny_list"
# Deny-list values are literal, joined into one alternation; the scan costs at most
# O(len(text) * entries), so the number of entries is capped, as propagation's is.
MAX_DENY_ENTRIES = 10_000
MAX_VALUE_CHARS = 200


class UserPattern(BaseModel):
    """One regex pattern with the public type of what it matches."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.\-]+$")
    type: str = Field(min_length=1)
    pattern: str = Field(min_length=1)
    validator: str | None = None


class DenyEntry(BaseModel):
    """A value that is always reported, with its public type."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: str = Field(min_length=1, max_length=MAX_VALUE_CHARS)
    type: str = Field(min_length=1)


def parse_patterns(records: Iterable[object]) -> tuple[UserPattern, ...]:
    """Validate pattern records (dicts); raise :class:`ConfigError` naming the bad field."""
    return tuple(_parse(UserPattern, records, "pii_rules patterns"))


def parse_deny_list(records: Iterable[object]) -> tuple[DenyEntry, ...]:
    """Validate deny-list records (dicts); raise :class:`ConfigError` naming the bad field."""
    entries = tuple(_parse(DenyEntry, records, "pii_rules deny_list"))
    if len(entries) > MAX_DENY_ENTRIES:
        raise ConfigError(
            f"the deny-list has {len(entries)} entries; the limit is {MAX_DENY_ENTRIES}"
        )
    return entries


def _parse(model: type[BaseModel], records: Iterable[object], what: str) -> Iterator:
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise ConfigError(f"{what}[{index}] must be a mapping, not {type(record).__name__}")
        try:
            yield model.model_validate(record)
        except ValidationError as err:
            problems = [{**e, "loc": (index, *e["loc"])} for e in err.errors()]
            raise settings_error(what, problems) from None


class PatternDetector:
    """Runs the user's patterns; each hit is named ``patterns.<id>``."""

    kind = "rule"

    def __init__(self, patterns: Sequence[UserPattern]) -> None:
        ids = [p.id for p in patterns]
        if len(set(ids)) != len(ids):
            raise ConfigError("pattern ids must be unique")
        self.id = "patterns"
        self.types = frozenset(p.type for p in patterns)
        self._compiled = [
            (
                p,
                check_pattern(p.pattern, p.id),
                get_validator(p.validator) if p.validator else None,
            )
            for p in patterns
        ]

    def find(self, text: str) -> Iterator[Hit]:
        for pattern, compiled, validator in self._compiled:
            for match in compiled.finditer(text):
                start, end = match.span()
                if start == end:
                    continue
                score = None
                if validator is not None:
                    if not validator(match.group()):
                        continue
                    score = 1.0
                yield Hit(start, end, pattern.type, score, PATTERN_DETECTOR_PREFIX + pattern.id)


class DenyListDetector:
    """Reports every whole-word occurrence of a deny-listed value, with score 1.0."""

    kind = "rule"

    def __init__(self, entries: Sequence[DenyEntry]) -> None:
        self.id = DENY_LIST_DETECTOR
        self.types = frozenset(e.type for e in entries)
        self._types: dict[str, str] = {}
        for entry in entries:
            if self._types.setdefault(entry.value, entry.type) != entry.type:
                raise ConfigError("a deny-listed value is given two types")
        # Longest first, so that "Ada Lovelace" wins over "Ada" at the same position; the
        # values are escaped, so the pattern has no quantifier of its own.
        values = sorted(self._types, key=lambda v: (-len(v), v))
        self._pattern = (
            re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, values)) + r")(?![\w-])")
            if values
            else None
        )

    def find(self, text: str) -> Iterator[Hit]:
        if self._pattern is None:
            return
        for match in self._pattern.finditer(text):
            start, end = match.span()
            yield Hit(start, end, self._types[match.group()], 1.0, DENY_LIST_DETECTOR)
