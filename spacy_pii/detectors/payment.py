"""Payment card numbers and IBANs, each confirmed by the check its standard defines.

Sources, one per rule:

- **Card** (``rules.card``): ISO/IEC 7812-1 primary account numbers. The issuer
  identification number decides the network (the ranges in :data:`ISSUER_RANGES`, as the
  networks publish them, including UATP's 15-digit airline cards under major industry
  identifier 1, which Presidio's tests count as cards); the PAN is 12 digits (Maestro,
  the shortest issued) to 19 (the ISO/IEC 7812-1 maximum); the last digit is the Luhn
  check digit (ISO/IEC 7812-1 Annex B), computed by python-stdnum's ``stdnum.luhn``. A
  confirmed number scores ``1.0``.
  A card is written without separators, or in the groups the networks emboss: blocks of
  four (``4-4-4-4``, ``4-4-4-4-3``, ``4-4-4``), or ``4-6-5`` (American Express) and
  ``4-6-4`` (Diners Club); one separator kind, a single space, a single hyphen or a single
  dot, throughout.
  Issuer tables go stale (Mastercard's 2-series arrived in 2017; Mir, RuPay and Troy are
  not listed), so a Luhn-valid number of 13 to 19 digits whose range is unknown still
  counts where a card cue ("card", "Visa", "credit", "PAN", ...) opens its line, up to
  :data:`CARD_CUE_WINDOW` characters after the cue (:func:`card_spans` with ``cued``).
- **IBAN** (``rules.iban``): ISO 13616-1. The country code fixes the length and the BBAN
  structure, and ISO 7064 MOD-97-10 checks the two check digits; python-stdnum's
  ``stdnum.iban`` holds the per-country registry and runs both checks. National BBAN
  check digits are not part of ISO 13616 and are not required (python-stdnum's Belgian
  check rejects ``BE68539007547034``, the registry example that Presidio's tests use). A
  confirmed IBAN scores
  ``1.0``. The electronic form is one upper-case run (``DE89370400440532013000``); the
  paper form is groups of four separated by single spaces, the last group possibly
  shorter (both as ISO 13616-1 writes them). A hyphen between the groups is also
  accepted, because Presidio's tests and real forms use it and the checksum still
  decides. ISO 13616-1 writes the letters in upper case; an IBAN typed wholly in lower
  case (``gb46 gsjw ...``, common in chat) is the same number and MOD-97 decides it too,
  but mixed case is refused, as Presidio's tests treat ``LV80 bANK ...`` as no IBAN.

Nothing here matches inside a longer token: a run of digits that continues past 19
digits, or is glued to letters, is not a card, and no card is reported inside an IBAN
("DE89 3704 0044 0532 0130 00" is one IBAN, not a card plus digits).

Why this module is over 400 lines: cards and IBANs share the scan helpers (glued digits, cue
windows, sorted overlap tests), and the issuer ranges are a table.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator

from stdnum import iban as _iban
from stdnum import luhn as _luhn
from stdnum.exceptions import ValidationError

from ..core.hits import Hit
from .anchors import Anchors
from .text import at_least_digits, merged_intervals

PAYMENT = "PAYMENT"

# ---------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------

# ISO/IEC 7812-1: a PAN has at most 19 digits; 12 is the shortest issued (Maestro).
CARD_MIN_DIGITS = 12
CARD_MAX_DIGITS = 19

# Issuer ranges on the first four digits (inclusive), as each network publishes them.
# UATP (ISO/IEC 7812 major industry identifier 1, airlines) issues 15-digit cards only.
ISSUER_RANGES: tuple[tuple[int, int, str], ...] = (
    (4000, 4999, "visa"),
    (5100, 5599, "mastercard"),
    (2221, 2720, "mastercard"),
    (3400, 3499, "amex"),
    (3700, 3799, "amex"),
    (3000, 3059, "diners"),
    (3600, 3699, "diners"),
    (3800, 3899, "diners"),
    (3528, 3589, "jcb"),
    (6011, 6011, "discover"),
    (6440, 6599, "discover"),
    (6200, 6299, "unionpay"),
    (5000, 5099, "maestro"),
    (5600, 6999, "maestro"),
    (1000, 1999, "uatp"),
    (2131, 2131, "jcb-legacy"),
)
# Only 15-digit cards are issued in UATP and JCB's legacy 2131 range (the JCB IIN table of
# ISO/IEC 7812 registrations).
_FIFTEEN_DIGIT_NETWORKS = frozenset({"uatp", "jcb-legacy"})
_FIFTEEN_DIGITS = 15

# Embossed groupings that are not all blocks of four.
_WIDE_GROUPINGS = frozenset({(4, 6, 5), (4, 6, 4)})

# A maximal run of digit groups joined by single spaces or hyphens. Possessive
# quantifiers: the run is consumed once and never re-scanned, so the cost is linear.
# The look-behinds keep the start off the tail of a longer token: a word ("ref4242..."),
# a hyphen-joined word ("ref-4242..."), a decimal ("1.4242..."), or a group that follows
# a token ending in a digit, such as an IBAN's head ("DE89 3704 0044 ...": with a wrong
# MOD-97 check the IBAN rule rejects it, and its tail must not turn into a card), or a
# "+", which opens an E.164 telephone number and never a card ("+441914960105" passes Luhn).
_CARD_RUN = re.compile(
    r"(?<![A-Za-z0-9_+])(?<![A-Za-z0-9_]-)(?<![0-9]\.)(?<![0-9] )[0-9]++(?:[ \-][0-9]++)*+"
)
_SPACE_TOKEN = re.compile(r"[^ ]++")
# The same groups joined by dots ("4242.4242.4242.4242"), a form people type to keep a
# number off scrapers; never part of a longer dotted run (a version, an OID, a decimal).
_DOTTED_CARD = re.compile(
    r"(?<![A-Za-z0-9_+.\-])[0-9]{4}(?:\.[0-9]{1,6}){2,4}+(?![A-Za-z0-9_\-]|\.[0-9])"
)
# A card holds CARD_MIN_DIGITS digits and starts with one: a text with fewer (most prose)
# skips the run pattern, whose look-behinds are otherwise tried at every position, and
# the others are scanned from their first digit (a look-behind still sees the characters
# before the scan's start).
_CARD_GATE = at_least_digits(CARD_MIN_DIGITS)


# A card's digits lie in one run of _CARD_RUN (or of _DOTTED_CARD), each joined to the next
# by at most one space, hyphen or dot: a text whose digits are spread over dates, prices and
# phone numbers has none.
_CARD_DIGIT_RUN = re.compile(rf"[0-9](?:[ .\-]?[0-9]){{{CARD_MIN_DIGITS - 1}}}")


def _card_scan_start(text: str) -> int | None:
    """The first index a card number can start at, or ``None`` when ``text`` holds none."""
    gate = _CARD_GATE.match(text)
    if gate is None or _CARD_DIGIT_RUN.search(text, gate.end(1)) is None:
        return None
    return gate.end(1)


def luhn_valid(digits: str) -> bool:
    """Whether ``digits`` carries a correct Luhn check digit (ISO/IEC 7812-1 Annex B).

    Args:
        digits: ASCII digits only, separators removed.

    Returns:
        ``False`` for an empty string or any non-digit character.
    """
    if not digits or not digits.isascii() or not digits.isdigit():
        return False
    return _luhn.is_valid(digits)


def card_issuer(digits: str) -> str | None:
    """The network whose ISO/IEC 7812 issuer range holds ``digits``, or ``None``."""
    if len(digits) < 4:
        return None
    head = int(digits[:4])
    for low, high, network in ISSUER_RANGES:
        if low <= head <= high:
            if network in _FIFTEEN_DIGIT_NETWORKS and len(digits) != _FIFTEEN_DIGITS:
                return None
            return network
    return None


def _grouping_ok(groups: list[str]) -> bool:
    if len(groups) == 1:
        return True
    sizes = tuple(len(group) for group in groups)
    if sizes in _WIDE_GROUPINGS:
        return True
    # Blocks of four, the last one possibly short (4-4-4-4-3 for 19 digits).
    return len(sizes) >= 3 and all(size == 4 for size in sizes[:-1]) and 1 <= sizes[-1] <= 4


def _glued_after(text: str, end: int) -> bool:
    """Whether the token continues after ``end`` (a letter, a digit, ``-x`` or ``.5``)."""
    if end >= len(text):
        return False
    char = text[end]
    if char.isascii() and (char.isalnum() or char == "_"):
        return True
    if char in "-." and end + 1 < len(text):
        following = text[end + 1]
        return following.isascii() and (following.isalnum() or following == "_")
    return False


# A cue names a card: the word "card" (also in "cardholder", "card_number"), a network,
# or the payment words that forms and tickets use. Whole words, any case.
_CARD_CUE = re.compile(
    r"(?<![^\W_])(?:(?:credit|debit)?card(?:holder)?s?|cc|pan|visa|master ?card|amex"
    r"|american express|jcb|discover|maestro|unionpay|diners|mir|rupay|troy)(?![^\W_])",
    re.IGNORECASE,
)
# How far after a card cue an unlisted-range number may end ("Card (Visa, ends 4242): ...").
CARD_CUE_WINDOW = 64
# The shortest PAN read without an issuer range: 12-digit numbers are too often ids.
_CUED_MIN_DIGITS = 13


def _card_digits(groups: list[str], cued: bool = False) -> bool:
    """Whether digit ``groups`` (one, or as written between separators) form a card.

    ``cued`` (a card cue precedes the number) waives the issuer range, not the Luhn check.
    """
    digits = "".join(groups)
    if not (CARD_MIN_DIGITS <= len(digits) <= CARD_MAX_DIGITS and _grouping_ok(groups)):
        return False
    if card_issuer(digits) is None and not (cued and len(digits) >= _CUED_MIN_DIGITS):
        return False
    return luhn_valid(digits)


def _card_cue_windows(text: str) -> list[tuple[int, int]]:
    """The spans after the card cues, sorted and disjoint.

    Each runs to the end of its cue's line, at most :data:`CARD_CUE_WINDOW` characters.
    """
    windows = []
    for cue in _CARD_CUE.finditer(text):
        start = cue.end()
        limit = min(len(text), start + CARD_CUE_WINDOW)
        line_end = text.find("\n", start, limit)
        windows.append((start, limit if line_end < 0 else line_end))
    return merged_intervals(windows)


def _inside_sorted(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``[start, end)`` lies inside one of ``spans`` (sorted, disjoint)."""
    index = bisect_right(spans, (start, math.inf)) - 1  # the last span starting by start
    return index >= 0 and end <= spans[index][1]


def card_spans(text: str) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of every Luhn-valid card number in ``text``.

    A run of digits joined by spaces and hyphens is read as space-separated tokens. A
    token of 12 or more digits, or a hyphen-joined token, is a candidate on its own
    ("4012888888881881 4012-8888-8888-1881" is two cards). Consecutive shorter tokens are
    one candidate that must be a card as a whole: "4242 4242 4242 4242 1234" runs on and
    is not a card. A token glued to a following word is never part of a card. IBANs are
    not excluded here; :class:`CardDetector` does that. A number outside every listed
    issuer range counts only inside a card cue's window (:func:`_card_cue_windows`).
    """
    scan_from = _card_scan_start(text)
    if scan_from is None:
        return
    cue_windows: list[tuple[int, int]] | None = None

    def is_card(start: int, end: int, groups: list[str]) -> bool:
        nonlocal cue_windows
        if _card_digits(groups):
            return True
        if not luhn_valid("".join(groups)):
            return False  # most runs: no need to look for cues
        if cue_windows is None:
            cue_windows = _card_cue_windows(text)
        return _inside_sorted(start, end, cue_windows) and _card_digits(groups, cued=True)

    for match in _CARD_RUN.finditer(text, scan_from):
        if match.end() - match.start() < CARD_MIN_DIGITS:
            continue  # most runs are short numbers: skip them before any work
        base = match.start()
        tokens = [
            (base + token.start(), base + token.end(), token.group())
            for token in _SPACE_TOKEN.finditer(match.group())
        ]
        glued_last = _glued_after(text, match.end())
        stretch: list[tuple[int, int, str]] = []
        stretch_glued = False
        for index, (start, end, token) in enumerate(tokens):
            glued = glued_last and index == len(tokens) - 1
            if token.isdigit() and len(token) < CARD_MIN_DIGITS:
                stretch.append((start, end, token))
                stretch_glued = stretch_glued or glued
                continue
            if stretch and not stretch_glued and is_card(*_stretch_bounds(stretch)):
                yield stretch[0][0], stretch[-1][1]
            stretch, stretch_glued = [], False
            if not glued and is_card(start, end, token.split("-")):
                yield start, end
        if stretch and not stretch_glued and is_card(*_stretch_bounds(stretch)):
            yield stretch[0][0], stretch[-1][1]
    if "." in text:
        for match in _DOTTED_CARD.finditer(text, scan_from):
            if is_card(match.start(), match.end(), match.group().split(".")):
                yield match.start(), match.end()


def _stretch_bounds(stretch: list[tuple[int, int, str]]) -> tuple[int, int, list[str]]:
    """A stretch of short digit tokens as ``(start, end, groups)``."""
    return stretch[0][0], stretch[-1][1], [token for _, _, token in stretch]


# ---------------------------------------------------------------------------------------
# IBAN
# ---------------------------------------------------------------------------------------

# ISO 13616-1: 15 (Norway) to 34 characters; two letters, two check digits, a BBAN of
# 11 to 30 upper-case letters and digits. The paper form groups by four: after the first
# group come at least two full groups (15 = 4 + 8 + 3) and at most seven (34 = 4 + 28 + 2),
# then an optional short group. The separator is the same throughout (the back-reference).
IBAN_MIN_LENGTH = 15
IBAN_MAX_LENGTH = 34
_IBAN = re.compile(
    r"(?<![A-Za-z0-9_])[A-Z]{2}[0-9]{2}"
    r"(?:[A-Z0-9]{11,30}+"
    r"|(?P<sep>[ \-])[A-Z0-9]{4}(?:(?P=sep)[A-Z0-9]{4}){1,6}+(?:(?P=sep)[A-Z0-9]{1,4}+)?+)"
)
# People type IBANs in lower case in chat ("gb46 gsjw 7976 ..."); all lower case is one
# casual spelling of the same number and MOD-97 decides it as well. Mixed case stays no IBAN
# (Presidio's "LV80 bANK ..." case): it is more often a token or an id than a typo.
_IBAN_LOWER = re.compile(
    r"(?<![A-Za-z0-9_])[a-z]{2}[0-9]{2}"
    r"(?:[a-z0-9]{11,30}+"
    r"|(?P<sep>[ \-])[a-z0-9]{4}(?:(?P=sep)[a-z0-9]{4}){1,6}+(?:(?P=sep)[a-z0-9]{1,4}+)?+)"
)

# Every IBAN starts with its country code and check digits, two capitals then two digits:
# no IBAN starts before the first such four characters. Spelt out, not "[A-Z]{2}": a
# pattern that opens with a character class lets the engine skip to the next capital.
_IBAN_GATE = re.compile(r"[A-Z][A-Z][0-9][0-9]")
IBAN_CHECK_DIGITS = 2
_IBAN_LOWER_GATE = re.compile(r"[a-z][a-z][0-9][0-9]")
# The country code, the check digits and then either eleven more characters (compact) or a
# separator and a group of four (grouped), in one case: what both IBAN patterns start with.
# One search for both cases turns away user names and codes such as "ab12".
_IBAN_HEAD = re.compile(
    r"[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{11}|[ \-][A-Z0-9]{4})"
    r"|[a-z]{2}[0-9]{2}(?:[a-z0-9]{11}|[ \-][a-z0-9]{4})"
)


def _iban_scan_start(text: str, gate: re.Pattern[str] = _IBAN_GATE) -> int | None:
    """The first index an IBAN can start at, or ``None`` when ``text`` holds none."""
    found = gate.search(text)
    return None if found is None else found.start()


def iban_valid(compact: str) -> bool:
    """Whether ``compact`` is an IBAN by ISO 13616-1 structure and ISO 7064 MOD-97-10.

    Args:
        compact: the IBAN without separators, in upper case.

    Returns:
        ``False`` for lower-case letters, separators, an unknown country, a length or
        BBAN structure the registry does not give that country, or a failed checksum.
    """
    if not IBAN_MIN_LENGTH <= len(compact) <= IBAN_MAX_LENGTH:
        return False
    if not compact.isascii() or not compact.isalnum() or compact != compact.upper():
        return False
    try:
        _iban.validate(compact, check_country=False)
    except ValidationError:
        return False
    return True


def iban_spans(text: str) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of every valid IBAN in ``text``, compact or grouped.

    Upper case first, then all lower case; the two cannot overlap (the country code's
    letters differ in case), so the output is sorted after one merge.
    """
    found = [
        *_iban_matches(text, _IBAN, _IBAN_GATE, str),
        *_iban_matches(text, _IBAN_LOWER, _IBAN_LOWER_GATE, str.upper),
    ]
    yield from sorted(found)


def _iban_matches(
    text: str, pattern: re.Pattern[str], gate: re.Pattern[str], to_upper: Callable[[str], str]
) -> Iterator[tuple[int, int]]:
    scan_from = _iban_scan_start(text, gate)
    if scan_from is None:
        return
    for match in pattern.finditer(text, scan_from):
        start = match.start()
        separator = match["sep"]
        if separator is None:
            if not _glued_after(text, match.end()) and iban_valid(to_upper(match.group())):
                yield start, match.end()
            continue
        if _glued_after(text, match.end()):
            continue
        # The country fixes the length, so at most one cut at a group boundary can pass;
        # a trailing group that is not part of the IBAN ("... 8901 X") is left out.
        groups = match.group().split(separator)
        ends: list[int] = []
        offset = 0
        for group in groups:
            offset += len(group)
            ends.append(offset)
            offset += 1
        for index in range(len(groups), 2, -1):
            cut = ends[index - 1]
            if index < len(groups) and separator != " ":
                continue  # "-" joins one token: a cut inside it would split the token
            compact = to_upper("".join(groups[:index]))
            if iban_valid(compact):
                yield start, start + cut
                break


# ---------------------------------------------------------------------------------------
# Detectors
# ---------------------------------------------------------------------------------------


def overlaps_sorted(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``[start, end)`` overlaps one of ``spans`` (sorted, non-overlapping).

    A binary search, so that checking every candidate of a long text stays linear-log.
    """
    index = bisect_left(spans, (end, -1))
    return index > 0 and spans[index - 1][1] > start


class CardDetector:
    """Payment card numbers: ISO/IEC 7812 issuer range (or a card cue), length, grouping, Luhn."""

    id = "rules.card"
    types = frozenset({PAYMENT})

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold a card number: its digits, in one run."""
        return anchors.digits >= CARD_MIN_DIGITS and _card_scan_start(anchors.text) is not None

    def find(self, text: str) -> Iterator[Hit]:
        """Yield a ``PAYMENT`` hit (score 1.0) per card number outside any IBAN."""
        ibans: list[tuple[int, int]] | None = None
        for start, end in card_spans(text):
            if ibans is None:
                ibans = list(iban_spans(text))
            if not overlaps_sorted(start, end, ibans):
                yield Hit(start, end, PAYMENT, 1.0, self.id)


class IbanDetector:
    """IBANs: ISO 13616-1 country length and structure, ISO 7064 MOD-97-10."""

    id = "rules.iban"
    types = frozenset({PAYMENT})

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold an IBAN: the head of one, in either case."""
        return anchors.digits >= IBAN_CHECK_DIGITS and _IBAN_HEAD.search(anchors.text) is not None

    def find(self, text: str) -> Iterator[Hit]:
        """Yield a ``PAYMENT`` hit (score 1.0) per valid IBAN."""
        for start, end in iban_spans(text):
            yield Hit(start, end, PAYMENT, 1.0, self.id)


def payment_spans(text: str) -> list[tuple[int, int]]:
    """The characters that cards and IBANs cover, as sorted, disjoint ``(start, end)``.

    Other rules (the phone rule) use it to stay out of payment numbers; the result suits
    :func:`overlaps_sorted`.
    """
    return merged_intervals({*card_spans(text), *iban_spans(text)})


__all__ = [
    "CARD_CUE_WINDOW",
    "ISSUER_RANGES",
    "CardDetector",
    "IbanDetector",
    "card_issuer",
    "card_spans",
    "iban_spans",
    "iban_valid",
    "luhn_valid",
    "overlaps_sorted",
    "payment_spans",
]
