"""Re-identification risk: quasi-identifiers that single a person out only in combination.

A postcode, a date of birth and a sex are each ordinary; together they identify most people.
Sweeney (2002, "k-anonymity: a model for protecting privacy", IJUFKS 10(5)) reports that
ZIP code, full date of birth and sex single out about 87% of the US population, and that
pairs of them already shrink the crowd a record hides in. GDPR Article 4(1) counts a person
as identifiable "directly or indirectly", which takes in a postcode plus an age. The taxonomy
keeps DATE_OF_BIRTH off by default and has no postcode, age or sex type, so a span list alone
cannot show this risk: :func:`find_combinations` reports it beside the spans.

The finding is advisory. What to do (mask the set, generalise one field, refuse the request)
is the caller's policy, so nothing here masks anything.

Evidence rules. A check that fires on every invoice gets switched off, so a field counts only
with evidence:

- postcode: a number of 4 to 6 digits counts only after a cue word (ZIP, postcode, postal
  code, PLZ, code postal) or in a US "City, ST 12345" last line (USPS Publication 28 order:
  city, state code, ZIP). A full UK postcode written with its space ("SW1A 1AA", Royal Mail
  format) and a full Canadian postal code with its space ("K1A 0B1", Canada Post format)
  identify themselves. Their halves alone (outward code "SW1A", forward sortation area
  "K1A") need a cue, because "B2B", "P2P", "M25" and "A4" are everyday tokens.
- date of birth: a full date (day, month and year) within :data:`BIRTH_CUE_WINDOW`
  characters after "born", "date of birth", "birth date", "DOB" or "D.O.B.", in the same
  clause. A date anywhere else is a meeting, an invoice date or a deadline.
- sex: "sex"/"gender" followed by a value (``sex: F``, ``Gender: female``); the words
  "male"/"female" standing alone between list separators (``..., male, ...``) but not as a
  modifier ("male to female adapter", "female connector"); or a sex word right after an age
  ("42-year-old woman").
- age: "aged 42", "age: 42", "42-year-old", "42 years old", "42 yo", or a birth year
  ("born in 1985"). A number followed by days, weeks, months or hours is an ageing period
  (accounts receivable), not a person's age. Ages above 122 (the oldest verified human
  lifespan, Jeanne Calment) are rejected.

Every pattern is bounded and linear (``tests/test_regex_safety.py``). English cues only.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

__all__ = ["BIRTH_CUE_WINDOW", "RULES", "QuasiFinding", "find_combinations"]

# The longest filler we accept between a birth cue and its date. It covers "born on the",
# "date of birth (DD/MM/YYYY): " (28 characters) and "D.O.B. - ", and is short enough to
# stay inside one clause; tests/test_quasi.py locks both a hit at the edge and a miss past it.
BIRTH_CUE_WINDOW = 32

# The oldest verified human age (Jeanne Calment, 122 years): a larger "age" is not a person's.
MAX_HUMAN_AGE = 122

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ORDINAL = r"(?:st|nd|rd|th)?"
_POSTCODE_CUE = r"(?i:\b(?:zip(?:[ -]?code)?|post(?:al)?[ -]?code|plz|postleitzahl|code postal)\b)"
_SEP = r"[ \t]{0,3}[:#=.-]?[ \t]{0,3}"

# ISO 8601 (1985-03-14), numeric day/month/year in either order (14/03/1985, 3.14.85),
# "14 March 1985", "14th of March, 1985", "March 14, 1985".
DATE = re.compile(
    r"(?i)\b(?:"
    r"\d{4}[-/]\d{1,2}[-/]\d{1,2}"
    r"|\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})"
    rf"|\d{{1,2}}{_ORDINAL}(?: of)? {_MONTH}\.?,? \d{{4}}"
    rf"|{_MONTH}\.? \d{{1,2}}{_ORDINAL},? \d{{4}}"
    r")\b"
)
BIRTH_CUE = re.compile(r"(?i)\b(?:born|date of birth|birth ?date|dob)\b|\bd\.o\.b\.?")
NUMERIC_POSTCODE = re.compile(rf"{_POSTCODE_CUE}{_SEP}(\d{{4,6}}(?:-\d{{4}})?)\b")
# USPS Publication 28 last line: "City, ST 12345" with a two-letter state or territory code.
US_LAST_LINE = re.compile(
    r",[ \t]?(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]"
    r"|PA|PR|RI|S[CD]|T[NX]|UT|V[AT]|W[AIVY]) (\d{5}(?:-\d{4})?)\b"
)
# Royal Mail: outward code (A9, A99, AA9, AA99, A9A, AA9A) + space + inward code (9AA);
# the inward letters never use C, I, K, M, O or V.
UK_POSTCODE = re.compile(r"\b[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][ABD-HJLNP-UW-Z]{2}\b")
# Canada Post: letter digit letter, space, digit letter digit; D F I O Q U never appear,
# W and Z never lead.
CA_POSTCODE = re.compile(
    r"\b[ABCEGHJ-NPRSTVXY][0-9][ABCEGHJ-NPRSTV-Z] [0-9][ABCEGHJ-NPRSTV-Z][0-9]\b"
)
# A cue word makes the short forms count: an outward code or FSA, the inward part optional.
CUED_LETTER_POSTCODE = re.compile(
    rf"{_POSTCODE_CUE}{_SEP}"
    r"((?:[A-Z]{1,2}[0-9][A-Z0-9]?(?: ?[0-9][ABD-HJLNP-UW-Z]{2})?)"
    r"|(?:[ABCEGHJ-NPRSTVXY][0-9][ABCEGHJ-NPRSTV-Z](?: ?[0-9][ABCEGHJ-NPRSTV-Z][0-9])?))\b"
)
_SEX_WORD = r"(?:female|male|woman|man|girl|boy)"
SEX_CUED = re.compile(
    r"(?i)\b(?:sex|gender)\b[ \t]{0,3}[:=/-]?[ \t]{0,3}(female|male|woman|man|non-?binary|f|m|x)\b"
)
# "male"/"female" alone between list separators, never as a modifier of the next word.
SEX_STANDALONE = re.compile(
    r"(?im)(?:^|(?<=[,;(\[]))[ \t]{0,2}(female|male)[ \t]{0,2}(?=[,;.)\]]|$)"
)
_AGE_PHRASE = r"\d{1,3}[ -]?(?:years?[ -]old|yrs?[ -]old|yo\b|y/o|y\.o\.)"
SEX_AFTER_AGE = re.compile(rf"(?i)\b{_AGE_PHRASE}[ \t,]{{1,2}}({_SEX_WORD})\b")
_NOT_PERIOD = r"(?![ \t]{0,3}(?:days?|weeks?|months?|hours?|hrs?|minutes?|mins?)\b)"
AGE = re.compile(
    r"(?i)(?:"
    rf"\baged?[ \t]{{0,3}}[:=]?[ \t]{{0,3}}(\d{{1,3}})\b{_NOT_PERIOD}"
    r"|\b(\d{1,3})[ -]?(?:years?|yrs?)[ -]old\b"
    r"|\b(\d{1,3}) ?(?:yo\b|y/o|y\.o\.)"
    r"|\bborn(?: in)? (\d{4})\b(?![-/.]\d)"
    r")"
)


SWEENEY_2002 = "Sweeney 2002 (k-anonymity)"
GDPR_4_1 = "GDPR Art. 4(1)"

# (name, fields, risk, source). A larger combination that fires replaces its subsets, so a
# text with all three fields reports one high finding, not one high and two medium.
RULES: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("postcode_dob_sex", ("postcode", "date_of_birth", "sex"), "high", SWEENEY_2002),
    ("postcode_dob", ("postcode", "date_of_birth"), "medium", SWEENEY_2002),
    ("dob_sex", ("date_of_birth", "sex"), "medium", SWEENEY_2002),
    ("postcode_age", ("postcode", "age"), "medium", GDPR_4_1),
)

# A clause ends at a line break, a semicolon, "!" or "?", or a full stop followed by a space.
_CLAUSE_BREAK = re.compile(r"[\n;!?]|\. ")


@dataclass(frozen=True, slots=True)
class QuasiFinding:
    """One combination of quasi-identifiers found in a text.

    Attributes:
        name: the rule name, e.g. ``"postcode_dob_sex"``.
        fields: the quasi-identifier fields the rule combines.
        risk: ``"high"`` or ``"medium"``.
        source: the study or law that justifies the rule.
        evidence: ``(field, start, end)`` offsets of every piece of evidence, sorted.
            Offsets only, so a finding is safe to log.
    """

    name: str
    fields: tuple[str, ...]
    risk: str
    source: str
    evidence: tuple[tuple[str, int, int], ...] = ()

    def to_dict(self) -> dict:
        """A plain, JSON-ready dict (no text, offsets only)."""
        return {
            "name": self.name,
            "fields": list(self.fields),
            "risk": self.risk,
            "source": self.source,
            "evidence": [list(item) for item in self.evidence],
        }


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [match.span(match.lastindex or 0) for match in pattern.finditer(text)]


def _dates_of_birth(text: str) -> list[tuple[int, int]]:
    cue_ends = [match.end() for match in BIRTH_CUE.finditer(text)]
    if not cue_ends:
        return []
    found = []
    for match in DATE.finditer(text):
        index = bisect_right(cue_ends, match.start())
        if not index:
            continue
        cue_end = cue_ends[index - 1]
        gap = text[cue_end : match.start()]
        if len(gap) <= BIRTH_CUE_WINDOW and not _CLAUSE_BREAK.search(gap):
            found.append(match.span())
    return found


def _ages(text: str) -> list[tuple[int, int]]:
    found = []
    for match in AGE.finditer(text):
        group = match.lastindex or 0
        is_birth_year = group == 4
        if not is_birth_year and int(match.group(group)) > MAX_HUMAN_AGE:
            continue
        found.append(match.span(group))
    return found


def _evidence(text: str) -> dict[str, list[tuple[int, int]]]:
    postcode = set()
    for pattern in (NUMERIC_POSTCODE, US_LAST_LINE, UK_POSTCODE, CA_POSTCODE, CUED_LETTER_POSTCODE):
        postcode.update(_spans(pattern, text))
    sex = set()
    for pattern in (SEX_CUED, SEX_STANDALONE, SEX_AFTER_AGE):
        sex.update(_spans(pattern, text))
    return {
        "postcode": sorted(postcode),
        "date_of_birth": _dates_of_birth(text),
        "sex": sorted(sex),
        "age": _ages(text),
    }


def find_combinations(text: str) -> tuple[QuasiFinding, ...]:
    """Find combinations of quasi-identifiers that make a person identifiable.

    Args:
        text: the text to check.

    Returns:
        The findings, high risk first, then by rule name. Empty when no combination has
        evidence for every one of its fields.

    Raises:
        InvalidInput: ``text`` is not a ``str``.
    """
    from ..errors import InvalidInput

    if not isinstance(text, str):
        raise InvalidInput(text)
    evidence = _evidence(text)
    present = {field for field, spans in evidence.items() if spans}
    findings: list[QuasiFinding] = []
    covered: list[frozenset[str]] = []
    for name, fields, risk, source in RULES:
        wanted = frozenset(fields)
        if not wanted <= present or any(wanted < bigger for bigger in covered):
            continue
        covered.append(wanted)
        rows = sorted((field, start, end) for field in fields for start, end in evidence[field])
        findings.append(QuasiFinding(name, fields, risk, source, tuple(rows)))
    findings.sort(key=lambda finding: (finding.risk != "high", finding.name))
    return tuple(findings)
