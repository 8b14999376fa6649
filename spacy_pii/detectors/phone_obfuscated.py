"""Phone numbers spread out to dodge harvesters: ``5 5 5 2 3 4 8 7 6 1``, ``555 - 234 - 8761``.

Two written forms that the phone rule's digit runs (:mod:`.phone`) do not read: every digit
one space apart, and digit groups joined by a hyphen, dot or slash with spaces around it.
Each candidate is collapsed to the compact form (digits, the groups joined by hyphens) and
only a number that libphonenumber validates for the configured regions (or for every region
after "+") counts; the span is the whole written form. The decision rests on the number, not
on the spacing, so the score is ``1.0`` as for :class:`~.phone.PhoneDetector`. Digits in
other scripts and mathematical digits are folded before any rule sees them (:mod:`.fold`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import phonenumbers

from ..core.hits import Hit
from .anchors import Anchors
from .phone import CUE_ONLY_REGIONS

PHONE = "PHONE"

# E.164: at most 15 digits; the shortest national numbers the default regions know have 7.
_MIN_DIGITS = 7
_MAX_DIGITS = 15

# Every digit one space apart, an optional "+" first: "5 5 5 2 3 4 8 7 6 1".
_SPACED_DIGITS = re.compile(r"(?<![\w+.\-])(?:\+ ?)?[0-9](?: [0-9]){6,14}+(?![\w.\-])")
# Groups of digits with a spaced separator between them: "555 - 234 - 8761",
# "(202) 555 - 0143", "020 - 7946 - 0958".
_SPACED_GROUPS = re.compile(
    r"(?<![\w+.\-])(?:\+[0-9]{1,3} {1,2})?(?:\([0-9]{2,5}\)|[0-9]{2,5})"
    r"(?: {1,2}[\-./] {1,2}| {1,2}| ?[\-./] ?)[0-9]{2,5}"
    r"(?:(?: {1,2}[\-./] {1,2}| ?[\-./] ?| {1,2})[0-9]{2,5}){0,3}+(?![\w.\-])"
)
_SPACED_SEPARATOR = re.compile(r" [\-./]|[\-./] ")
_YEAR_RANGE = re.compile(r"(?:18|19|20)[0-9]{2} {0,2}[\-/] {0,2}(?:18|19|20)[0-9]{2}")
_SEPARATORS = re.compile(r"[\-./]")
_JOINS = re.compile(r" *[\-./] *| +")
# What each form needs at least once, found in one C-speed scan: three digits one space
# apart, or a separator with a space beside it between two digits.
_GATE = re.compile(r"[0-9] [0-9] [0-9]|[0-9] {1,2}[\-./] {0,2}[0-9]|[0-9] {0,2}[\-./] {1,2}[0-9]")


class ObfuscatedPhoneDetector:
    """Spread-out phone numbers (see module), validated by libphonenumber."""

    id = "rules.phone.spaced"
    types = frozenset({PHONE})

    def __init__(self, regions: Sequence[str] = ("US", "GB")) -> None:
        self.regions = tuple(regions)
        # Spread-out digits carry no cue, so the regions whose plans validate most digit
        # runs are left out, as the phone rule leaves them to a cue ("Saison 2019 - 2020").
        self._regions = tuple(r for r in self.regions if r not in CUE_ONLY_REGIONS) or (
            self.regions
        )

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text holds the digits of a number and a spaced form's space."""
        return anchors.digits >= _MIN_DIGITS and _GATE.search(anchors.text) is not None

    def find(self, text: str) -> Iterator[Hit]:
        """Yield a ``PHONE`` hit per spread-out number that libphonenumber validates."""
        if _GATE.search(text) is None:
            return
        for match in _SPACED_DIGITS.finditer(text):
            if self._valid(match.group().replace(" ", "")):
                yield Hit(match.start(), match.end(), PHONE, 1.0, self.id)
        for match in _SPACED_GROUPS.finditer(text):
            written = match.group()
            if _SPACED_SEPARATOR.search(written) is None:
                continue  # no spaced separator: the phone rule reads this form itself
            if len(set(_SEPARATORS.findall(written))) > 1:
                continue  # "2012 - 11/3976": a date or a reference, not one number's groups
            if _YEAR_RANGE.fullmatch(written):
                continue  # "1998 - 2004": a span of years, valid as a number in some plans
            compact = _JOINS.sub("-", written)
            if self._valid(compact):
                yield Hit(match.start(), match.end(), PHONE, 1.0, self.id)

    def _valid(self, candidate: str) -> bool:
        digits = sum(char.isdigit() for char in candidate)
        if not _MIN_DIGITS <= digits <= _MAX_DIGITS:
            return False
        regions = (None,) if candidate.startswith("+") else self._regions
        for region in regions:
            try:
                number = phonenumbers.parse(candidate, region)
            except phonenumbers.NumberParseException:
                continue
            if phonenumbers.is_valid_number(number):
                return True
        return False


__all__ = ["ObfuscatedPhoneDetector"]
