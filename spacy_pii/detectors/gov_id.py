"""Government identifiers: the US Social Security number and opt-in national ids.

Sources, one per rule:

- **US SSN** (``rules.us_ssn``): the Social Security Administration's structure rules
  (SSA, "Social Security Number Randomization", 2011): the area (first three digits) is
  never 000, 666 or 900-999, the group (middle two) never 00, the serial (last four)
  never 0000. The SSA's history pages name numbers printed in advertising and since void:
  078-05-1120 (the Woolworth wallet card) and 219-09-9999 (an SSA pamphlet). Layouts: the
  SSA's ddd-dd-dddd, the same with spaces, and the dotted form that Presidio's recognizer
  also accepts, one separator throughout. An SSN has no check digit, so a match is a
  shape match and its score is always ``None``; a cue word ("SSN", "social security")
  lets a bare nine-digit run count, and changes nothing else.
- **National ids** (``rules.national_id.<cc>``), opt-in per country code, decided by
  python-stdnum's ``is_valid`` (check digits, and the date or region fields where the
  standard defines them); a validated slice scores ``1.0``:

  ======  ==========================================  =====================================
  code    identifier                                   validator
  ======  ==========================================  =====================================
  GB      National Insurance number (NINO)            HMRC NIM39110 prefix and suffix rules
  DE      Steuerliche Identifikationsnummer           ``stdnum.de.idnr``
  FR      NIR (numero de securite sociale)            ``stdnum.fr.nir``
  ES      DNI and NIE                                 ``stdnum.es.dni``, ``stdnum.es.nie``
  IT      Codice fiscale                              ``stdnum.it.codicefiscale``
  NL      Burgerservicenummer                         ``stdnum.nl.bsn``
  SE      Personnummer                                ``stdnum.se.personnummer``
  IN      Aadhaar                                     ``stdnum.in_.aadhaar``
  CA      Social Insurance Number                     ``stdnum.ca.sin``
  BR      CPF                                         ``stdnum.br.cpf``
  ======  ==========================================  =====================================

  python-stdnum has no module for the UK NINO, and the NINO has no check digit. The rule
  applies HMRC's published allocation rules (NIM39110: the first letter is not D, F, I,
  Q, U or V; the second is not D, F, I, O, Q, U or V; the prefixes BG, GB, KN, NK, NT,
  TN and ZZ are never issued; the suffix is A to D). It scores ``None``. It accepts the
  two layouts HMRC prints (``AB123456C`` and ``AB 12 34 56 C``, in any letter case);
  any other spacing needs a cue word ("NINO", "national insurance", "NI number").

Candidates are found with one linear pattern per country, then validated; only the
candidates pay for the validator. Digit-only forms must not sit inside a longer digit
run.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from stdnum.br import cpf as _br_cpf
from stdnum.ca import sin as _ca_sin
from stdnum.de import idnr as _de_idnr
from stdnum.es import dni as _es_dni
from stdnum.es import nie as _es_nie
from stdnum.fr import nir as _fr_nir
from stdnum.in_ import aadhaar as _in_aadhaar
from stdnum.it import codicefiscale as _it_cf
from stdnum.nl import bsn as _nl_bsn
from stdnum.se import personnummer as _se_pnr

from ..errors import ConfigError
from ..hits import Hit

GOV_ID = "GOV_ID"

# ---------------------------------------------------------------------------------------
# Cue words and their window
# ---------------------------------------------------------------------------------------

# Presidio's LemmaContextAwareEnhancer looks for context in the 5 words before a match
# (its default context_prefix_count); we use the same window. Words are whitespace
# separated and must sit on the same line. The slice we look back over is bounded so a
# cue lookup costs constant time: 5 words of at most 24 characters each.
_CUE_WORDS = 5
_CUE_LOOKBACK = _CUE_WORDS * 24


def _cue_before(text: str, start: int, cue: re.Pattern[str]) -> bool:
    """Whether ``cue`` occurs in the five words before ``start`` on the same line."""
    window = text[max(0, start - _CUE_LOOKBACK) : start]
    window = window[window.rfind("\n") + 1 :]
    words = window.split()
    return bool(words) and cue.search(" ".join(words[-_CUE_WORDS:])) is not None


# ---------------------------------------------------------------------------------------
# US Social Security number
# ---------------------------------------------------------------------------------------

# Separated forms: ddd-dd-dddd (the SSA's layout), ddd dd dddd, and ddd.dd.dddd (which
# Presidio's recognizer also accepts); the same separator throughout. The guards keep the match out
# of a longer run of digits, including a run joined by the same separators
# ("1 234 56 7890" is not an SSN inside a phone number).
_SSN_SEPARATED = re.compile(
    r"(?<![\w.\-])(?<![0-9][ .\-])"
    r"(?P<area>[0-9]{3})(?P<sep>[ .\-])(?P<group>[0-9]{2})(?P=sep)(?P<serial>[0-9]{4})"
    r"(?![\w\-])(?![ .\-][0-9])(?!\.[0-9A-Za-z])",
    re.ASCII,
)
# A bare nine-digit run only counts after a cue word.
_SSN_BARE = re.compile(r"(?<![\w.\-])(?<![0-9][ .\-])[0-9]{9}(?![\w\-])(?![ .\-][0-9])", re.ASCII)
_SSN_CUE = re.compile(r"(?i)\b(?:ssns?|ss\s?no|soc(?:ial)?\.?\s+sec(?:urity)?)\b|\bss#")

# Both layouts start with the three-digit area, so no SSN starts before the first three
# digits in a row: a text without them (most prose) skips both patterns, whose
# look-behinds are otherwise tried at every position, and the others are scanned from
# there (a look-behind still sees the characters before the scan's start). Spelt out, not
# "[0-9]{3}": a pattern that opens with a character class lets the engine skip to the
# next digit (half the time of the repeat on prose, measured).
_SSN_GATE = re.compile(r"[0-9][0-9][0-9]")


def _ssn_scan_start(text: str) -> int | None:
    """The first index an SSN can start at, or ``None`` when ``text`` holds none."""
    gate = _SSN_GATE.search(text)
    return None if gate is None else gate.start()


# Void numbers the SSA itself names (see the module docstring).
_SSN_VOID = frozenset({"078051120", "219099999"})


def ssn_structure_valid(digits: str) -> bool:
    """Whether nine digits satisfy the SSA's area, group and serial rules.

    Args:
        digits: exactly nine ASCII digits, separators removed.

    Returns:
        ``False`` for area 000, 666 or 900-999, group 00, serial 0000, one repeated
        digit, or a number the SSA lists as void; ``True`` otherwise.
    """
    if len(digits) != 9 or not digits.isdigit():
        return False
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    if area in ("000", "666") or area[0] == "9":
        return False
    if group == "00" or serial == "0000":
        return False
    if len(set(digits)) == 1:
        return False
    return digits not in _SSN_VOID


class SsnDetector:
    """US Social Security numbers by the SSA's structure rules; score always ``None``."""

    id = "rules.us_ssn"
    types = frozenset({GOV_ID})

    def find(self, text: str) -> Iterator[Hit]:
        """Yield one ``GOV_ID`` hit per SSN-shaped slice of ``text``."""
        scan_from = _ssn_scan_start(text)
        if scan_from is None:
            return
        for match in _SSN_SEPARATED.finditer(text, scan_from):
            digits = match["area"] + match["group"] + match["serial"]
            if ssn_structure_valid(digits):
                yield Hit(match.start(), match.end(), GOV_ID, None, self.id)
        for match in _SSN_BARE.finditer(text, scan_from):
            if ssn_structure_valid(match.group()) and _cue_before(text, match.start(), _SSN_CUE):
                yield Hit(match.start(), match.end(), GOV_ID, None, self.id)


# ---------------------------------------------------------------------------------------
# National ids
# ---------------------------------------------------------------------------------------

# Digit-only ids must not continue a longer run of digits or of digit groups ("AL47 2121
# 1009 0000 ..." is an IBAN, not an Aadhaar number), nor sit inside an alphanumeric code.
_NO_DIGIT_BEFORE = r"(?<![0-9A-Za-z])(?<![0-9][ .\-])"
_NO_DIGIT_AFTER = r"(?![0-9A-Za-z])(?![ .\-][0-9])"
_NO_ALNUM_BEFORE = r"(?<![0-9A-Za-z])"
_NO_ALNUM_AFTER = r"(?![0-9A-Za-z])"

# HMRC NIM39110: letters never used in the prefix, prefixes never issued, suffix A-D.
_NINO_FIRST_BANNED = frozenset("DFIQUV")
_NINO_SECOND_BANNED = frozenset("DFIOQUV")
_NINO_PREFIX_BANNED = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})
_NINO = re.compile(
    _NO_ALNUM_BEFORE + r"(?P<prefix>[A-Za-z]{2})(?P<s1> ?)"
    r"(?P<digits>[0-9]{6}|[0-9]{2} [0-9]{2} [0-9]{2})(?P<s2> ?)(?P<suffix>[A-Da-d])"
    + _NO_ALNUM_AFTER,
    re.ASCII,
)
_NINO_CUE = re.compile(r"(?i)\b(?:nino|national\s+insurance|ni\s+(?:number|no))\b")


def nino_valid(prefix: str, suffix: str) -> bool:
    """Whether a NINO's two-letter prefix and suffix letter follow HMRC NIM39110."""
    prefix, suffix = prefix.upper(), suffix.upper()
    return (
        prefix[0] not in _NINO_FIRST_BANNED
        and prefix[1] not in _NINO_SECOND_BANNED
        and prefix not in _NINO_PREFIX_BANNED
        and suffix in "ABCD"
    )


def _gb_nino(text: str, match: re.Match[str]) -> float | bool | None:
    if not nino_valid(match["prefix"], match["suffix"]):
        return False
    spaced = " " in match["digits"]
    # HMRC prints AB123456C or AB 12 34 56 C: the separators are all present or all absent.
    canonical = (spaced and match["s1"] == match["s2"] == " ") or (
        not spaced and not match["s1"] and not match["s2"]
    )
    if canonical or _cue_before(text, match.start(), _NINO_CUE):
        return None
    return False


def _stdnum(*validators: Callable[[str], bool]) -> Callable[[str, re.Match[str]], float | bool]:
    """A checker that scores 1.0 when any validator accepts the matched slice."""

    def check(_text: str, match: re.Match[str]) -> float | bool:
        value = match.group()
        return 1.0 if any(validate(value) for validate in validators) else False

    return check


def _br_cpf_check(_text: str, match: re.Match[str]) -> float | bool:
    digits = re.sub(r"[.\-]", "", match.group())
    # Receita Federal never issues a CPF of one repeated digit, although 111.111.111-11
    # and its kin satisfy both check digits (stdnum 2.2 accepts them).
    if len(set(digits)) == 1:
        return False
    return 1.0 if _br_cpf.is_valid(digits) else False


def _es_id(_text: str, match: re.Match[str]) -> float | bool:
    value = re.sub(r"[ \-]", "", match.group()).upper()
    if value[0] in "XYZ":
        return 1.0 if _es_nie.is_valid(value) else False
    # A DNI is eight digits; a leading zero is often dropped in writing, and the check
    # letter (number mod 23) does not change when it is restored.
    return 1.0 if _es_dni.is_valid(value.zfill(9)) else False


@dataclass(frozen=True, slots=True)
class _CountryRule:
    pattern: re.Pattern[str]
    check: Callable[[str, re.Match[str]], float | bool | None]
    """Returns the score (1.0 or None) for an accepted slice, or False to reject it."""


_COUNTRY_RULES: dict[str, _CountryRule] = {
    "GB": _CountryRule(_NINO, _gb_nino),
    # BZSt: 11 digits, first not 0; written compact or as 2-3-3-3.
    "DE": _CountryRule(
        re.compile(
            _NO_DIGIT_BEFORE + r"[1-9][0-9](?:[0-9]{9}|(?: [0-9]{3}){3})" + _NO_DIGIT_AFTER,
            re.ASCII,
        ),
        _stdnum(_de_idnr.is_valid),
    ),
    # INSEE NIR: sex, year, month, department (2A/2B for Corsica), commune, order, key;
    # written compact or with single spaces between the fields.
    "FR": _CountryRule(
        re.compile(
            _NO_DIGIT_BEFORE
            + r"[12] ?[0-9]{2} ?[0-9]{2} ?(?:[0-9]{2}|2[ABab]) ?[0-9]{3} ?[0-9]{3} ?[0-9]{2}"
            + _NO_DIGIT_AFTER,
            re.ASCII,
        ),
        _stdnum(_fr_nir.is_valid),
    ),
    # Ministerio del Interior: DNI = 8 digits + check letter, NIE = X/Y/Z + 7 digits +
    # check letter; a hyphen or space before the letter is common.
    "ES": _CountryRule(
        re.compile(
            _NO_ALNUM_BEFORE
            + r"(?:[XYZxyz][ \-]?[0-9]{7}|[0-9]{7,8})[ \-]?[A-Za-z]"
            + _NO_ALNUM_AFTER,
            re.ASCII,
        ),
        _es_id,
    ),
    # Agenzia delle Entrate: 16 characters; omocodia replaces digits with LMNPQRSTUV.
    "IT": _CountryRule(
        re.compile(
            _NO_ALNUM_BEFORE + r"[A-Za-z]{6}[0-9LMNPQRSTUVlmnpqrstuv]{2}[A-Za-z]"
            r"[0-9LMNPQRSTUVlmnpqrstuv]{2}[A-Za-z][0-9LMNPQRSTUVlmnpqrstuv]{3}[A-Za-z]"
            + _NO_ALNUM_AFTER,
            re.ASCII,
        ),
        _stdnum(_it_cf.is_valid),
    ),
    # BSN: 9 digits (11-test), compact or as 4.2.3 with dots or spaces.
    "NL": _CountryRule(
        re.compile(
            _NO_DIGIT_BEFORE + r"[0-9]{4}(?P<sep>[. ]?)[0-9]{2}(?P=sep)[0-9]{3}" + _NO_DIGIT_AFTER,
            re.ASCII,
        ),
        _stdnum(_nl_bsn.is_valid),
    ),
    # Skatteverket: YYMMDD-NNNC or YYYYMMDDNNNC; "+" marks an age of 100 or more.
    "SE": _CountryRule(
        re.compile(
            _NO_DIGIT_BEFORE + r"(?:[0-9]{2})?[0-9]{6}[\-+]?[0-9]{4}" + _NO_DIGIT_AFTER, re.ASCII
        ),
        _stdnum(_se_pnr.is_valid),
    ),
    # UIDAI: 12 digits, first 2-9, printed in groups of four; Verhoeff check digit.
    "IN": _CountryRule(
        re.compile(
            _NO_DIGIT_BEFORE
            + r"[2-9][0-9]{3}(?P<sep>[ \-]?)[0-9]{4}(?P=sep)[0-9]{4}"
            + _NO_DIGIT_AFTER,
            re.ASCII,
        ),
        _stdnum(_in_aadhaar.is_valid),
    ),
    # Service Canada: 9 digits in groups of three; Luhn.
    "CA": _CountryRule(
        re.compile(
            _NO_DIGIT_BEFORE + r"[0-9]{3}(?P<sep>[ \-]?)[0-9]{3}(?P=sep)[0-9]{3}" + _NO_DIGIT_AFTER,
            re.ASCII,
        ),
        _stdnum(_ca_sin.is_valid),
    ),
    # Receita Federal: 11 digits, written 123.456.789-09 or compact; two check digits.
    "BR": _CountryRule(
        re.compile(
            _NO_DIGIT_BEFORE
            + r"(?:[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}|[0-9]{11})"
            + _NO_DIGIT_AFTER,
            re.ASCII,
        ),
        _br_cpf_check,
    ),
}

PATTERNS: tuple[re.Pattern[str], ...] = (
    _SSN_SEPARATED,
    _SSN_BARE,
    _SSN_GATE,
    _SSN_CUE,
    _NINO_CUE,
    *(rule.pattern for rule in _COUNTRY_RULES.values()),
)

COUNTRIES: tuple[str, ...] = tuple(_COUNTRY_RULES)


class NationalIdDetector:
    """Opt-in national identifiers, one rule per country code.

    Args:
        countries: ISO 3166-1 alpha-2 codes, each one of :data:`COUNTRIES`.

    Raises:
        ConfigError: a code has no rule.
    """

    id = "rules.national_id"
    types = frozenset({GOV_ID})

    def __init__(self, countries: tuple[str, ...]) -> None:
        unknown = sorted(set(countries) - set(_COUNTRY_RULES))
        if unknown:
            raise ConfigError(f"gov_id_countries: no national-id rule for {unknown}")
        # Sorted and deduplicated, so the detector does not depend on the caller's order.
        self.countries: tuple[str, ...] = tuple(sorted(set(countries)))

    def find(self, text: str) -> Iterator[Hit]:
        """Yield one ``GOV_ID`` hit per validated national id in ``text``."""
        for country in self.countries:
            rule = _COUNTRY_RULES[country]
            detector = f"{self.id}.{country.lower()}"
            for match in rule.pattern.finditer(text):
                score = rule.check(text, match)
                if score is False:
                    continue
                yield Hit(match.start(), match.end(), GOV_ID, score, detector)


__all__ = [
    "COUNTRIES",
    "PATTERNS",
    "NationalIdDetector",
    "SsnDetector",
    "nino_valid",
    "ssn_structure_valid",
]
