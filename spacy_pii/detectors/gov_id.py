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

- **Cued national ids** (``rules.gov_id_cue.<standard>``), on by default: after a cue
  phrase from :data:`CUE_PHRASES` (whole words, any letter case), the first id-shaped run
  of characters that starts within 48 characters, on the cue's line or the next, is tried
  against every standard in :data:`CUED_STANDARDS` (python-stdnum's ``is_valid`` on the
  run as written and compacted, plus this module's SSA, HMRC and NHS Data Dictionary
  rules). A cue says that an
  identifier follows but not whose, so no country has to be enabled. A standard with a
  check digit decides the slice and scores ``1.0``; one without (the SSN, the ITIN, the
  Danish CPR since 2007, the NINO) is a shape match and scores ``None``, as the SSN and
  NINO rules above do. A slice that an enabled rule above already reports (or overlaps)
  is left to that rule, so one number is never reported twice; without a cue the rule
  finds nothing, so the behaviour of the rules above is unchanged.

Why this module is over 400 lines: the SSN, the national ids and the cued ids share the cue
and scan helpers, and much of the length is the per-country table with its sources; split by
country, each part would need those helpers.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from stdnum.at import tin as _at_tin
from stdnum.at import vnr as _at_vnr
from stdnum.au import tfn as _au_tfn
from stdnum.br import cpf as _br_cpf
from stdnum.ca import sin as _ca_sin
from stdnum.de import idnr as _de_idnr
from stdnum.dk import cpr as _dk_cpr
from stdnum.es import dni as _es_dni
from stdnum.es import nie as _es_nie
from stdnum.fi import hetu as _fi_hetu
from stdnum.fr import nir as _fr_nir
from stdnum.ie import pps as _ie_pps
from stdnum.in_ import aadhaar as _in_aadhaar
from stdnum.it import codicefiscale as _it_cf
from stdnum.nl import bsn as _nl_bsn
from stdnum.no import fodselsnummer as _no_fnr
from stdnum.pl import pesel as _pl_pesel
from stdnum.pt import nif as _pt_nif
from stdnum.se import personnummer as _se_pnr
from stdnum.us import itin as _us_itin
from stdnum.us import ssn as _us_ssn

from ..core.hits import Hit
from ..errors import ConfigError
from .anchors import Anchors, CueGate
from .text import at_least_digits

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
_SSN_DIGITS = 9
# Both layouts as one loose shape (any separator in either place, or none).
_SSN_SHAPE = re.compile(r"[0-9]{3}[ .\-]?[0-9]{2}[ .\-]?[0-9]{4}")


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

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold an SSN: nine digits, at most a separator apart."""
        return anchors.digits >= _SSN_DIGITS and _SSN_SHAPE.search(anchors.text) is not None

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


# ---------------------------------------------------------------------------------------
# Cued national ids: any listed standard, after a cue phrase
# ---------------------------------------------------------------------------------------

# The phrases that announce a government identifier, in English and in the languages of
# the standards below (each names an identifier or the document field that holds one).
# Matched as whole words in any letter case; the words of a phrase may be separated by
# up to three spaces or tabs.
CUE_PHRASES: tuple[str, ...] = (
    "national identity number",
    "national id",
    "identity number",
    "id number",
    "personal number",
    "personnummer",
    "cpr",
    "bsn",
    "burgerservicenummer",
    "nino",
    "national insurance",
    "pps",
    "tfn",
    "tax file number",
    "taxpayer reference",
    "tax reference",
    "nhs number",
    "nhs no",
    "tax id",
    "tax identification",
    "tin",
    "steuer-id",
    "steuerliche identifikationsnummer",
    "codice fiscale",
    "nif",
    "nie",
    "dni",
    "cpf",
    "aadhaar",
    "sin",
    "social insurance",
    "pesel",
    "fødselsnummer",
    "henkilötunnus",
    "ssn",
    "social security",
)


def _cue_pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    # Longest first, so that "national identity number" is tried before "national id".
    words = sorted(phrases, key=len, reverse=True)
    body = "|".join(r"[ \t]{1,3}".join(map(re.escape, p.split(" "))) for p in words)
    return re.compile(rf"(?i)\b(?:{body})\b")


_ID_CUE = _cue_pattern(CUE_PHRASES)
# Every cued standard holds at least six digits (a NINO "AB123456C"; the codice fiscale
# seven, a PPS number seven): a text with fewer, most prose, skips the cue scan.
_CUED_ID_MIN_DIGITS = 6
_CUED_ID_DIGITS = at_least_digits(_CUED_ID_MIN_DIGITS)
# The cue pattern is a case-insensitive whole-word alternation, about 7 µs a short text
# (measured): the pre-scan's letter runs turn away the texts without a cue's first word.
_ID_CUE_GATE = CueGate(CUE_PHRASES)

# How far after a cue the identifier may start: 48 characters (about eight words of
# filler such as "of the holder is:"), on the cue's line or the next one (a form field
# whose value sits on the line below, a chat reply).
_CUE_REACH = 48

# One chunk of an identifier: up to two letters on their own (the NINO prefix and
# suffix, the DNI or PPS check letters, or a filler word such as "is", skipped below),
# or letters and digits with at least one digit (the codice fiscale's 16 characters, a
# NINO written compact). A run is up to ten chunks, each pair joined by one space, dot,
# hyphen or slash, and does not continue a longer run of digit groups.
_CHUNK = r"(?:[A-Za-z]{1,2}|[A-Za-z]{0,8}[0-9][0-9A-Za-z]{0,19})"
_RUN_CHUNKS = 10
_ID_RUN = re.compile(
    r"(?<![0-9A-Za-z])(?<![0-9][ .\-/])"
    + _CHUNK
    + rf"(?:[ .\-/]{_CHUNK}){{0,{_RUN_CHUNKS - 1}}}"
    + r"(?![0-9A-Za-z])(?![ .\-/][0-9])",
    re.ASCII,
)
# The longest run the pattern can match: ten chunks of 28 characters and nine separators.
_RUN_MAX = _RUN_CHUNKS * 29
_ID_CHUNK = re.compile(r"[0-9A-Za-z]+", re.ASCII)
_ID_SEPARATORS = re.compile(r"[ .\-/]", re.ASCII)

# A date in its common written orders (day or month first with a two- or four-digit year,
# or ISO 8601's year first): "DOB (04/01/1975)" after an "SSN" cue is not an identifier,
# although its eight digits pass the Australian TFN's check (measured on the generated
# corpus). No listed standard is written in these groupings.
_ID_DATE = re.compile(
    r"[0-9]{1,2}(?P<s1>[./\-])[0-9]{1,2}(?P=s1)(?:[0-9]{2}|[0-9]{4})"
    r"|[0-9]{4}(?P<s2>[./\-])[0-9]{1,2}(?P=s2)[0-9]{1,2}",
    re.ASCII,
)

# The shortest and longest listed identifiers, compacted: 8 (an Australian TFN, an Irish
# PPS number, a DNI without its leading zero) and 16 (the codice fiscale).
_ID_MIN, _ID_MAX = 8, 16


def _es_dni_check(value: str) -> bool:
    # The leading zero of a DNI is often dropped in writing (see _es_id).
    return _es_dni.is_valid(value.zfill(9))


def _gb_nino_check(value: str) -> bool:
    match = _NINO.fullmatch(value)
    return match is not None and nino_valid(match["prefix"], match["suffix"])


def _gb_nhs_check(value: str) -> bool:
    # NHS Data Dictionary, "NHS NUMBER": ten digits, the last a modulus-11 check digit over
    # the first nine weighted 10 down to 2 (11 becomes 0; 10 is never issued).
    # python-stdnum has no module for it.
    if len(value) != 10 or not value.isdigit():
        return False
    check = 11 - sum(int(d) * w for d, w in zip(value, range(10, 1, -1), strict=False)) % 11
    return (0 if check == 11 else check) == int(value[9])


def _us_ssn_check(value: str) -> bool:
    # python-stdnum's structure rule and this module's, which also rejects one repeated
    # digit and the numbers the SSA names as void.
    return ssn_structure_valid(value) and _us_ssn.is_valid(value)


@dataclass(frozen=True, slots=True)
class _Standard:
    name: str
    is_valid: Callable[[str], bool]
    checksum: bool
    """Whether the standard has a check digit (then a valid slice scores 1.0)."""


# Tried in this order; the first standard that accepts a slice names the hit. The
# standards with a check digit come first, so a slice that one of them accepts scores 1.0.
CUED_STANDARDS: tuple[_Standard, ...] = (
    _Standard("se.personnummer", _se_pnr.is_valid, True),
    _Standard("no.fodselsnummer", _no_fnr.is_valid, True),
    _Standard("fi.hetu", _fi_hetu.is_valid, True),
    _Standard("de.idnr", _de_idnr.is_valid, True),
    # Austria: the social insurance number (VNR) and the tax account number (Abgaben-
    # kontonummer); python-stdnum has both, each with a check digit.
    _Standard("at.vnr", _at_vnr.is_valid, True),
    _Standard("at.tin", _at_tin.is_valid, True),
    _Standard("br.cpf", _br_cpf.is_valid, True),
    _Standard("pt.nif", _pt_nif.is_valid, True),
    _Standard("in_.aadhaar", _in_aadhaar.is_valid, True),
    _Standard("es.dni", _es_dni_check, True),
    _Standard("es.nie", _es_nie.is_valid, True),
    _Standard("it.codicefiscale", _it_cf.is_valid, True),
    _Standard("ie.pps", _ie_pps.is_valid, True),
    _Standard("fr.nir", _fr_nir.is_valid, True),
    _Standard("au.tfn", _au_tfn.is_valid, True),
    _Standard("nl.bsn", _nl_bsn.is_valid, True),
    _Standard("pl.pesel", _pl_pesel.is_valid, True),
    _Standard("ca.sin", _ca_sin.is_valid, True),
    _Standard("gb.nhs", _gb_nhs_check, True),
    # No check digit: a date (the CPR's modulus-11 check was dropped in 2007, and
    # python-stdnum checks the date only), HMRC's letter rules, the SSA's and IRS's
    # number ranges.
    _Standard("dk.cpr", _dk_cpr.is_valid, False),
    _Standard("gb.nino", _gb_nino_check, False),
    _Standard("us.ssn", _us_ssn_check, False),
    _Standard("us.itin", _us_itin.is_valid, False),
)


@functools.lru_cache(maxsize=4096)
def _judge(written: str) -> tuple[str, float | None] | None:
    """The first standard that accepts ``written`` and its score, or ``None``.

    Cached: a text that repeats one number (a table, a template) validates it once.
    """
    if _ID_DATE.fullmatch(written):
        return None
    compact = _ID_SEPARATORS.sub("", written).upper()
    # One repeated character (000000000, 111.111.111-11) is a placeholder, although some
    # check digits accept it.
    if not _ID_MIN <= len(compact) <= _ID_MAX or len(set(compact)) == 1:
        return None
    # Compacted for most standards; as written for those whose separator carries
    # meaning (the Finnish HETU's century sign, the Swedish "+" of a centenarian).
    forms = (compact,) if compact == written else (compact, written.upper())
    for standard in CUED_STANDARDS:
        if any(standard.is_valid(form) for form in forms):
            return standard.name, 1.0 if standard.checksum else None
    return None


class CuedIdDetector:
    """Government ids of any listed standard, when a cue phrase announces them.

    Args:
        countries: the national-id countries the caller enabled (see
            :class:`NationalIdDetector`); a slice their rules, or the SSN rule, report is
            left to them.
    """

    id = "rules.gov_id_cue"
    types = frozenset({GOV_ID})

    def __init__(self, countries: tuple[str, ...] = ()) -> None:
        self._others: tuple[SsnDetector | NationalIdDetector, ...] = (
            (SsnDetector(), NationalIdDetector(countries)) if countries else (SsnDetector(),)
        )

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold a cued id: six digits and a cue phrase's word."""
        return anchors.digits >= _CUED_ID_MIN_DIGITS and _ID_CUE_GATE.may_match(anchors)

    def find(self, text: str) -> Iterator[Hit]:
        """Yield one ``GOV_ID`` hit per validated id after a cue in ``text``."""
        if _CUED_ID_DIGITS.match(text) is None:
            return
        found: dict[tuple[int, int], tuple[str, float | None]] = {}
        resume = 0
        for cue in _ID_CUE.finditer(text):
            if cue.start() < resume:
                continue
            after = _after_cue(text, cue.end())
            if after is not None:
                start, end, verdict = after
                found[(start, end)] = verdict
                resume = end
        if not found:
            return
        # Rare (a cue and a valid number): only then run the other rules, to leave them
        # the slices they report.
        taken = sorted((hit.start, hit.end) for other in self._others for hit in other.find(text))
        # A slice overlaps a taken one when some slice starting before its end reaches past
        # its start: one bisection each, where comparing every pair was quadratic on a text
        # of many cued ids that the national rules also report.
        taken_starts = [t_start for t_start, _ in taken]
        reach = list(itertools.accumulate((t_end for _, t_end in taken), max))
        for (start, end), (name, score) in sorted(found.items()):
            before = bisect.bisect_left(taken_starts, end)
            if before and reach[before - 1] > start:
                continue
            yield Hit(start, end, GOV_ID, score, f"{self.id}.{name}")


def _after_cue(text: str, cue_end: int) -> tuple[int, int, tuple[str, float | None]] | None:
    """The validated id in the first id-shaped run after a cue ending at ``cue_end``."""
    limit = min(len(text), cue_end + _CUE_REACH)
    newline = text.find("\n", cue_end, limit)
    if newline != -1:
        second = text.find("\n", newline + 1, limit)
        if second != -1:
            limit = second
    # Bounded, so that a cue followed by no run costs constant time; a run that starts
    # inside the window ends before endpos.
    endpos = min(len(text), limit + _RUN_MAX)
    for run in _ID_RUN.finditer(text, cue_end, endpos):
        if run.start() >= limit:
            return None
        value = run.group()
        if not any(c.isdigit() for c in value):
            continue
        return _validate_run(run)
    return None


def _validate_run(run: re.Match[str]) -> tuple[int, int, tuple[str, float | None]] | None:
    """Try the run's slices, longest first from each start, and return the first valid one.

    A slice may start at any chunk up to the first chunk with a digit (a NINO's letter
    prefix, or a filler word such as "is" before the number) and may end at any chunk
    from there on (a year or a reference after the id).
    """
    chunks = [(m.start(), m.end()) for m in _ID_CHUNK.finditer(run.group())]
    first_digit = next(
        i for i, (s, e) in enumerate(chunks) if any(c.isdigit() for c in run.group()[s:e])
    )
    base = run.start()
    text = run.string
    for i in range(first_digit + 1):
        for j in range(len(chunks) - 1, max(i, first_digit) - 1, -1):
            start, end = base + chunks[i][0], base + chunks[j][1]
            verdict = _judge(text[start:end])
            if verdict is not None:
                return start, end, verdict
    return None


__all__ = [
    "COUNTRIES",
    "CUED_STANDARDS",
    "CUE_PHRASES",
    "CuedIdDetector",
    "NationalIdDetector",
    "SsnDetector",
    "nino_valid",
    "ssn_structure_valid",
]
