"""Phone numbers, decided by libphonenumber (the ``phonenumbers`` port) and ITU-T E.164.

Source: libphonenumber's per-region metadata. A candidate scores ``1.0`` when
``is_valid_number`` accepts it for one of the configured regions (or, written with ``+``
or an international prefix, for the region its country code names) and, in national
form, the national prefix is present where the region requires one: the same rule as
``PhoneNumberMatcher``'s ``Leniency.VALID``, which is what keeps a local subscriber number
without its area code ("Order 48291", "555 0100" in Germany) out. A number written with
``+`` whose length is possible for its country code (``is_possible_number``) but that no
numbering plan validates scores ``None``.

How, and why this way: ``PhoneNumberMatcher`` run once per region measured 1.8M chars/s
for one region and 430k for eight, with ten times the matches, most of them other
regions' false hits. Here one linear pattern finds runs of digit groups
joined by phone punctuation. A run is cut at its spaces into chunks, and at each chunk
the longest window (at most :data:`MAX_CHUNKS` chunks, :data:`MAX_DIGITS` digits) that
libphonenumber validates is taken, greedily, left to right. A window reaches
``phonenumbers.parse`` only when :meth:`RegionPlan.may_be_valid` says the parser could
accept it.

A national-form window (no "+") must also not be written in more digit groups than the
number's own format has (:func:`groups_kept`): "212 555 0100" and "0207 946 0958" pass,
a row of a table such as "21 25 55 01 00" does not. This is libphonenumber's
``Leniency.STRICT_GROUPING`` loosened to a count; a "+" is evidence enough on its own.

What never counts, whatever libphonenumber says:

- digits glued to a longer token: letters ("ABC2125550100"), a hyphen, dot or slash
  joined word or number (GUID groups, "v1.2", "14/03/2024"), a time ("10:30");
- a date written with hyphens or dots ("2024-03-14", "03.14.2024"), a version
  ("10.0.19041.1") or an IPv4 address ("192.168.100.200");
- digits inside a Luhn-valid card number or a valid IBAN (:func:`payment_spans`);
- a national-form number shorter than :data:`MIN_UNCUED_DIGITS` digits, unless a phone cue
  names it (a postcode, a year or an amount is that long).

A span starts at the ``+`` or the opening parenthesis when the number has one:
"(212)555-0123," gives "(212)555-0123".

Why this module is over 400 lines: the candidate scan, the cue and column windows and the
greedy window choice are one linear pass over the text; the numbering-plan side already
lives in :mod:`.phone_plan`.
"""

from __future__ import annotations

import re
from bisect import insort
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass

import phonenumbers
from phonenumbers import NumberParseException
from phonenumbers.phonenumbermatcher import _is_national_prefix_present_if_required

from ..core.hits import Hit
from ..errors import ConfigError
from .anchors import Anchors, CueGate, prescan
from .payment import overlaps_sorted, payment_spans
from .phone_plan import (
    DIGIT_GROUP,
    E164_MAX_DIGITS,
    MAX_CHUNKS,
    MAX_DIGITS,
    RegionPlan,
    groups_kept,
    starts_with_country_code,
)
from .text import at_least_digits, merged_intervals

PHONE = "PHONE"

# Spaces that join the groups of one number: the ASCII space, and the no-break, figure,
# thin and narrow no-break spaces that typography and copy-paste put between groups
# ("+33\u202f1\u202f42\u202f68\u202f53\u202f00"). Line breaks and tabs end a number.
_SPACES = " \u00a0\u2007\u2009\u202f"

# A run: an optional "+", then digit groups or a parenthesised group, joined by one space,
# hyphen or dot (or nothing around a parenthesised group: "(212)555", "+49(0)30").
# Possessive: one pass, no backtracking. The look-behinds keep a start off the tail of a
# longer token: a word, a hyphen, dot or slash joined token, a time ("10:"), or a token
# that ends in a digit and is glued to letters ("DE89 3704 ...", "A1 212 ..."), which is
# the only way a run can start right after a digit and a space.
_RUN = re.compile(
    r"(?<![A-Za-z0-9_+])(?<![A-Za-z0-9_][\-./])(?<![0-9]:)"
    rf"(?<![0-9][{_SPACES}])"
    r"\+?+(?:\([0-9]{1,6}+\)|[0-9]++)"
    rf"(?:(?:[{_SPACES}.\-]|(?<=\))|(?=\())(?:\([0-9]{{1,6}}+\)|[0-9]++))*+"
)
# E.164: a country code and at least one more digit (the floor _windows applies after "+").
_E164_MIN_DIGITS = 2
_INTERNATIONAL_GATE = at_least_digits(_E164_MIN_DIGITS)
_BEFORE_FIRST_DIGIT = len("+(")  # what _RUN may match before a run's first digit
_CHUNK = re.compile(rf"[^{_SPACES}]++")
# The word after a hyphen that follows a run, bounded (a GUID group has at most 12 characters).
_WORD_AFTER = re.compile(r"[A-Za-z0-9_]{1,64}")
_HEX_WORD = re.compile(r"[0-9A-Fa-f_]++")
_ASCII_SPACE = str.maketrans(dict.fromkeys(_SPACES, " "))
# Dates in the numeric orders people write (ISO 8601 year first; day or month first).
_DATE = re.compile(
    r"(?:[0-9]{4}(?P<s1>[\-.])[0-9]{1,2}(?P=s1)[0-9]{1,2}"
    r"|[0-9]{1,2}(?P<s2>[\-.])[0-9]{1,2}(?P=s2)(?:[0-9]{4}|[0-9]{2}))"
)
_DATE_SEPARATOR = re.compile(r"[\-.]")


def _is_date(chunk: str) -> bool:
    match = _DATE.fullmatch(chunk)
    if match is None:
        return False
    parts = [int(part) for part in _DATE_SEPARATOR.split(chunk)]
    if match["s1"] is not None:  # year, month, day
        return 1 <= parts[1] <= 12 and 1 <= parts[2] <= 31
    # Day-month or month-day: either reading must be a calendar date.
    first, second = parts[0], parts[1]
    return (1 <= first <= 31 and 1 <= second <= 12) or (1 <= first <= 12 and 1 <= second <= 31)


def _is_barrier(chunk: str) -> bool:
    """Whether a chunk is a date, a version or an IPv4 address and so no part of a phone."""
    if "." in chunk and "-" not in chunk and "(" not in chunk:
        groups = chunk.lstrip("+").split(".")
        if all(group.isdigit() for group in groups):
            # A version has a one-digit group after the first ("10.0.19041.1"); the first
            # may be a one-digit trunk or country code ("1.800.275.2273").
            if any(len(group) == 1 for group in groups[1:]):
                return True
            if len(groups) == 4 and all(len(g) <= 3 and int(g) <= 255 for g in groups):
                return True  # RFC 3986 dotted decimal: the IP rule's, not ours
    return _is_date(chunk)


# The cue pass. National numbers of regions outside ``regions`` are read only where a
# phone cue names them: after the cue on its line, or in a table column the cue heads.
# The regions are those of the corpus generator's locales (spacy_pii.generator) and of
# Presidio's synthetic set (Faker locales) whose numbers English text quotes: Europe,
# India, Brazil, Australia, New Zealand, Canada.
CUE_REGIONS: tuple[str, ...] = (
    "DE", "FR", "AU", "DK", "IN", "PT", "ES", "IT", "NL", "SE",
    "NO", "FI", "PL", "BR", "IE", "NZ", "CA", "AT", "CH", "BE",
)  # fmt: skip
# Whole words (no letter or digit on either side; "_" separates, as in "phone_number"),
# any case: "hotel" holds no "tel", "recall" no "call". "contact" covers "contact number"
# and the forms' "Contact if needed:"; "reached at", "called back on", "text me on" and
# "my (mobile) number is" name a number as often as "phone" does. English, then the locales' own
# words (German and Scandinavian, French, Spanish, Portuguese, Italian, Dutch).
_CUE = re.compile(
    r"(?<![^\W_])(?:(?:tele)?phone|tel|mobile|mob|cell|fax|call(?:s|ed|ing|back)?|ring|whatsapp"
    r"|sms|text me|dial|hotline|helpline|landline|reach(?:ed|able)?"
    r"|(?:my|your|his|her|our|their) (?:\w+ )?number"
    r"|contact|telefon|t\u00e9l\u00e9phone|portable|m\u00f3vil|telefone"
    r"|tel\u00e9fono|telefono|telefoon)(?![^\W_])",
    re.IGNORECASE,
)
# One word of each alternative of the cue pattern, whole: a text without one skips the
# cue pass, whose case-insensitive alternation costs about 5 µs a short text (measured).
# "my ... number" counts by "number", which is rarer than "my".
_CUE_GATE = CueGate(
    (
        "phone", "telephone", "tel", "mobile", "mob", "cell", "fax",
        "call", "calls", "called", "calling", "callback", "ring", "whatsapp",
        "sms", "text", "dial", "hotline", "helpline", "landline",
        "reach", "reached", "reachable", "number",
        "contact", "telefon", "t\u00e9l\u00e9phone", "portable", "m\u00f3vil", "telefone",
        "tel\u00e9fono", "telefono", "telefoon",
    )
)  # fmt: skip
# Luxembourg's plan has no national prefix and validates about 70% of random numbers of
# every length from five to ten digits (measured 6 December 2026). Other plans here accept
# many numbers of their own one or two lengths (Denmark three quarters of 8-digit ones),
# as a national number of that length usually is a phone; none accepts most numbers of
# every length. Configured for French and German text, Luxembourg's made postcodes, years,
# amounts and timestamps phones ("75002 Paris"), so its numbers are read after a cue only.
CUE_ONLY_REGIONS = frozenset({"LU"})
# A national number this short ("030 123" in Germany, "886377" in San Marino) is the length
# of a postcode, a year or an amount: it is a phone only where a cue says so, and only in
# the text's own regions.
MIN_UNCUED_DIGITS = 7
# San Marino's six-digit numbers become ten with the "0549" its plan writes before them.
_SHORTEST_REWRITTEN = 6
# How far after a cue a number may start and end: "Tel. (office, ask for Anna): ..." fits.
CUE_WINDOW = 64
# German and Austrian numbers are often written with a slash after the area code
# ("03455/53135596", the pre-1990s DIN 5008 form). Only the cue pass reads that form,
# as the same number with a space: elsewhere a slash joins dates and ids.
_AREA_CODE_SLASH = re.compile(r"(?<![0-9/])0[0-9]{2,5}+/(?=[0-9]{3,10}+(?![0-9/]))")
# A table header cell that names a phone column is short ("phone", "Mobile phone").
_HEADER_CELL_MAX = 32
_CSV_DELIMITERS = ",;\t"


def _digit_run(count: int) -> re.Pattern[str]:
    """``count`` ASCII digits, each next to the one before or at most three characters on.

    Between two digits of one :data:`_RUN` match lie at most a closing parenthesis, one
    joining character and an opening parenthesis ("(01) (234)"), so a run with ``count``
    digits holds a match of this pattern. The joining characters and the digits are
    disjoint, so the search is linear.
    """
    return re.compile(rf"[0-9](?:[{_SPACES}.\-()]{{0,3}}[0-9]){{{count - 1}}}")


def cue_windows(text: str) -> list[tuple[int, int]]:
    """The spans where the cue pass looks, sorted and disjoint.

    After each cue, up to :data:`CUE_WINDOW` characters of the same line, or of the next
    one when the cue's line holds no digit after it (:func:`_after_cue`). In a table
    (comma, semicolon or tab separated, no quoted delimiters), a header row with a cell
    that holds a cue names a column: in each following row of as many cells, up to the
    first blank line, that column's cell (at most :data:`CUE_WINDOW` characters). Rows
    whose cell count differs from the header's are skipped: with quoting they would be
    misread.
    """
    windows: list[tuple[int, int]] = []
    for cue in _CUE.finditer(text):
        windows.append(_after_cue(text, cue.end()))
    if windows:
        windows.extend(_column_windows(text))
    return merged_intervals(windows)


def _after_cue(text: str, start: int) -> tuple[int, int]:
    """The window after a cue, at most :data:`CUE_WINDOW` characters.

    It is the rest of the cue's line, or runs on through the next line when the rest is
    digit-free: "Phone:" above its number, "my phone died ..." then "its 05 67 ...".
    """
    limit = min(len(text), start + CUE_WINDOW)
    line_end = text.find("\n", start, limit)
    if line_end < 0:
        return start, limit
    if any(char.isdigit() for char in text[start:line_end]):
        return start, line_end
    next_end = text.find("\n", line_end + 1, limit)
    return start, limit if next_end < 0 else next_end


def _column_windows(text: str) -> Iterator[tuple[int, int]]:
    """The cells of the table columns that a cue heads (see :func:`cue_windows`)."""
    column: tuple[str, int, int] | None = None  # delimiter, column index, cell count
    offset = 0
    for line in text.split("\n"):
        line_start, offset = offset, offset + len(line) + 1
        if column is not None:
            delimiter, index, count = column
            cells = line.split(delimiter)
            if not line.strip():
                column = None
            elif len(cells) == count:
                start = line_start + sum(len(cell) + 1 for cell in cells[:index])
                yield start, start + min(len(cells[index]), CUE_WINDOW)
            continue
        for delimiter in _CSV_DELIMITERS:
            cells = line.split(delimiter)
            if len(cells) < 2:
                continue
            for index, cell in enumerate(cells):
                if len(cell) <= _HEADER_CELL_MAX and _CUE.search(cell):
                    column = (delimiter, index, len(cells))
                    break
            if column is not None:
                break


def _slash_as_space(text: str, windows: list[tuple[int, int]]) -> str:
    """``text`` with the area-code slashes inside ``windows`` read as spaces.

    One character for one, so every offset still points into ``text``.
    """
    chars: list[str] | None = None
    for start, end in windows:
        for match in _AREA_CODE_SLASH.finditer(text, start, end):
            if chars is None:
                chars = list(text)
            chars[match.end() - 1] = " "
    return text if chars is None else "".join(chars)


@dataclass(frozen=True, slots=True)
class _Chunk:
    """A space-separated piece of a run, with its digits and digit groups."""

    start: int
    end: int
    digits: str
    groups: tuple[str, ...]


class PhoneDetector:
    """Phone numbers confirmed by libphonenumber for ``regions``.

    Args:
        regions: ISO 3166-1 alpha-2 region codes that national-format numbers are read
            for ("US", "GB"); those of :data:`CUE_ONLY_REGIONS` after a cue only (unless
            no other is given). Numbers written with ``+`` are read for every region.
        cue_regions: further regions whose national-format numbers count only right after
            a phone cue (:func:`cue_windows`); ``()`` turns the cue pass off.
        min_uncued_digits: the fewest digits a national-format number of ``regions``
            needs outside a cue window (:data:`MIN_UNCUED_DIGITS`); shorter ones count
            only after a cue.
        cue_only_regions: regions whose plan validates most digit runs
            (:data:`CUE_ONLY_REGIONS`).

    Raises:
        ConfigError: a region libphonenumber does not know, or no ``regions`` at all.
    """

    id = "rules.phone"
    types = frozenset({PHONE})
    _min_national_digits: int

    def __init__(
        self,
        regions: Sequence[str] = ("US", "GB"),
        cue_regions: Sequence[str] = CUE_REGIONS,
        *,
        min_uncued_digits: int = MIN_UNCUED_DIGITS,
        cue_only_regions: Collection[str] = CUE_ONLY_REGIONS,
    ) -> None:
        regions = tuple(regions)
        unknown = sorted(set(regions) - phonenumbers.SUPPORTED_REGIONS)
        if unknown or not regions:
            raise ConfigError(f"phone_regions: unknown or empty region codes {unknown}")
        unknown = sorted(set(cue_regions) - phonenumbers.SUPPORTED_REGIONS)
        if unknown:
            raise ConfigError(f"cue_regions: unknown region codes {unknown}")
        self.regions = regions
        uncued = tuple(code for code in regions if code not in cue_only_regions) or regions
        self._regions = tuple(RegionPlan.load(code) for code in uncued)
        foreign = tuple(code for code in dict.fromkeys(cue_regions) if code not in regions)
        self.cue_regions = foreign
        # The text's own regions that the first pass leaves to a cue: the cue-only ones,
        # and those with numbers under min_uncued_digits (a region whose national prefix
        # is rewritten, such as San Marino's, has shorter numbers than its lengths say).
        own = tuple(code for code in regions if code not in uncued) + tuple(
            r.code for r in self._regions if r.min_length < min_uncued_digits or r.transform
        )
        # The cue passes are further detectors run only inside cue windows, with no cue
        # pass of their own: the text's own regions at any length, then foreign numbers as
        # long as uncued ones (a US ZIP code after "Contact" is no Norwegian phone).
        passes = []
        if cue_regions and own:
            passes.append(
                PhoneDetector(
                    tuple(dict.fromkeys(own)),
                    cue_regions=(),
                    min_uncued_digits=0,
                    cue_only_regions=(),
                )
            )
        if cue_regions and foreign:
            passes.append(
                PhoneDetector(
                    foreign,
                    cue_regions=(),
                    min_uncued_digits=min_uncued_digits,
                    cue_only_regions=(),
                )
            )
        self._cue_passes: tuple[PhoneDetector, ...] = tuple(passes)
        self._min_cued_digits = min(
            (other._min_national_digits for other in passes), default=E164_MAX_DIGITS + 1
        )
        # No national-form window shorter than every configured region's shortest number
        # (libphonenumber's possible lengths; a rewritten national prefix makes a number
        # shorter than those, so such a region reads from _SHORTEST_REWRITTEN), or than
        # min_uncued_digits, is worth a look.
        self._min_national_digits = max(
            min_uncued_digits,
            min(
                min(region.min_length, _SHORTEST_REWRITTEN)
                if region.transform
                else region.min_length
                for region in self._regions
            ),
        )
        # A window is read only when it holds that many digits, or two after a "+"
        # (E.164: a country code and one more digit; see _windows): a text with fewer
        # digits (most prose) skips the run pattern, whose look-behinds are tried at
        # every position.
        self._national_gate = at_least_digits(self._min_national_digits)
        self._national_run = _digit_run(self._min_national_digits)
        self._plus_gate = (
            _INTERNATIONAL_GATE
            if self._min_national_digits >= _E164_MIN_DIGITS
            else self._national_gate
        )

    def _scan_start(self, text: str) -> int | None:
        """The first index a phone number can start at, or ``None`` when ``text`` holds none.

        A run starts at most two characters ("+(") before its first digit, and no run's
        first digit comes before the text's.
        """
        gate = (self._plus_gate if "+" in text else self._national_gate).match(text)
        return None if gate is None else max(0, gate.end(1) - _BEFORE_FIRST_DIGIT)

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold a number.

        It needs the digits :meth:`_scan_start` asks for. Without a "+", a national
        number's digits also lie in one run, close together (see :func:`_digit_run`),
        unless a phone cue opens the cue pass: most dates, postcodes and prices are
        turned away here before the run pattern and its look-behinds start.
        """
        text = anchors.text
        if "+" in text:
            return anchors.digits >= min(_E164_MIN_DIGITS, self._min_national_digits)
        if (
            anchors.digits >= self._min_national_digits
            and self._national_run.search(text) is not None
        ):
            return True
        return anchors.digits >= self._min_cued_digits and _CUE_GATE.may_match(anchors)

    def find(self, text: str) -> Iterator[Hit]:
        """Yield one ``PHONE`` hit per phone number in ``text``.

        Numbers for the configured regions come first; then, where a phone cue names a
        number (:data:`CUE_REGIONS`), the cue pass adds what it validates and what no
        first-pass hit overlaps.
        """
        scan_from = self._scan_start(text)
        anchors = prescan(text) if self._cue_passes else None
        cue_pass = (
            anchors is not None
            and (scan_from is not None or anchors.digits >= self._min_cued_digits)
            and _CUE_GATE.may_match(anchors)
        )
        if scan_from is None and not cue_pass:
            return
        # Card and IBAN spans, computed on the first phone-like window only: most texts
        # have none, and the scan would cost as much as the phone rule itself.
        payments: list[tuple[int, int]] | None = None

        def in_payment(start: int, end: int) -> bool:
            nonlocal payments
            if payments is None:
                payments = payment_spans(text)
            return overlaps_sorted(start, end, payments)

        found = [] if scan_from is None else self._scan(text, scan_from, len(text), in_payment, {})
        if not cue_pass:
            yield from found
            return
        yield from self._with_cued_hits(text, list(found), in_payment)

    def _scan(
        self,
        text: str,
        start: int,
        end: int,
        in_payment: Callable[[int, int], bool],
        verdicts: dict[str, str | None],
    ) -> Iterator[Hit]:
        """The hits whose runs start in ``text[start:end]`` and end by ``end``.

        ``verdicts`` caches verdicts by candidate text: a table that repeats a number pays
        the parser once.
        """
        for match in _RUN.finditer(text, start, end):
            if (
                match.end() - match.start() < self._min_national_digits
                and text[match.start()] != "+"
            ):
                continue  # most runs are short numbers: skip them before any work
            chunks = self._chunks(text, match)
            if any(chunk is not None for chunk in chunks):
                yield from self._windows(text, chunks, in_payment, verdicts)

    def _with_cued_hits(
        self, text: str, found: list[Hit], in_payment: Callable[[int, int], bool]
    ) -> Iterator[Hit]:
        """The first pass's hits with those of the cue passes, inside the windows that
        phone cues open: the text's own regions' numbers that the first pass leaves to a
        cue (any length), and the cue regions' numbers (as long as uncued ones).

        Only a number libphonenumber validates counts (score ``1.0``, as in the first
        pass); a number written with "+" reads the same in every region, so the first pass
        already decided it. Where hits overlap, the longer wins: a short number that one
        region accepts inside another region's whole number ("794 5008" in "Tel. 315 794
        5008", or "4393328" in a German mobile read in French text) must not cut it, since
        the digits left out would stay unmasked. Among equal lengths the first pass wins.
        """
        windows = cue_windows(text)
        spaced = _slash_as_space(text, windows)
        cued: list[Hit] = []
        for cue_pass in self._cue_passes:
            verdicts: dict[str, str | None] = {}  # per pass: a verdict depends on the regions
            for start, end in windows:
                for hit in cue_pass._scan(spaced, start, end, in_payment, verdicts):
                    if hit.score == 1.0 and text[hit.start] != "+":
                        cued.append(Hit(hit.start, hit.end, PHONE, hit.score, self.id))
        # Longest first, the first pass before the cue passes at equal length; a hit that
        # overlaps one already taken is dropped. Sorting keeps this n log n.
        ranked = sorted(
            [(h.start - h.end, 0, h.start, h) for h in found]
            + [(h.start - h.end, 1, h.start, h) for h in cued],
            key=lambda item: item[:3],
        )
        taken: list[tuple[int, int]] = []
        for *_, hit in ranked:
            if overlaps_sorted(hit.start, hit.end, taken):
                continue
            insort(taken, (hit.start, hit.end))
            yield hit

    def _chunks(self, text: str, match: re.Match[str]) -> list[_Chunk | None]:
        """The run's space-separated chunks; ``None`` marks a chunk no phone may cross."""
        base = match.start()
        chunks: list[_Chunk | None] = []
        for piece in _CHUNK.finditer(match.group()):
            chunk = piece.group()
            groups = tuple(DIGIT_GROUP.findall(chunk))
            digits = "".join(groups)
            if len(digits) > MAX_DIGITS or _is_barrier(chunk):
                chunks.append(None)
            else:
                chunks.append(_Chunk(base + piece.start(), base + piece.end(), digits, groups))
        if _glued_after(text, match.end()):
            chunks[-1] = None  # the last chunk continues a longer token
        return chunks

    def _windows(
        self,
        text: str,
        chunks: list[_Chunk | None],
        in_payment: Callable[[int, int], bool],
        verdicts: dict[str, str | None],
    ) -> Iterator[Hit]:
        """Greedy left to right: at each chunk, the longest window that is a phone.

        A window ends at a chunk boundary, holds at most :data:`MAX_CHUNKS` chunks and
        :data:`MAX_DIGITS` digits, and never crosses a barrier chunk. A valid window is
        preferred to a merely possible one; among each, the longest.
        """
        # Whether a national number may end at chunk boundary e, for some region: it
        # depends on the groups before e only, so one answer serves every window start.
        ends: dict[int, bool] = {}

        def national_end(end: int) -> bool:
            if end not in ends:
                tail: tuple[str, ...] = ()
                for chunk in reversed(chunks[max(0, end - MAX_CHUNKS) : end]):
                    if chunk is None:
                        break
                    tail = chunk.groups + tail
                ends[end] = any(region.national_groups_ok(tail) for region in self._regions)
            return ends[end]

        index = 0
        while index < len(chunks):
            first = chunks[index]
            if first is None:
                index += 1
                continue
            # The digits and digit groups of the windows [index, index + n), n = 0, 1, ...
            digits: list[str] = [""]
            groups: list[tuple[str, ...]] = [()]
            stop = index
            while stop < len(chunks) and stop - index < MAX_CHUNKS:
                chunk = chunks[stop]
                if chunk is None or len(digits[-1]) + len(chunk.digits) > MAX_DIGITS:
                    break
                digits.append(digits[-1] + chunk.digits)
                groups.append(groups[-1] + chunk.groups)
                stop += 1
            international = text[first.start] == "+"
            floor = _E164_MIN_DIGITS if international else self._min_national_digits
            # A window read through an international prefix or a country code depends on
            # its first digits only, the same for every window from here.
            prefixed = international or any(
                region.may_have_prefix(digits[-1]) for region in self._regions
            )
            best: tuple[int, float | None] | None = None
            for end_index in range(stop, index, -1):
                size = end_index - index
                if len(digits[size]) < floor:
                    break
                if not (prefixed or national_end(end_index)):
                    continue  # no region could read it: spare the verdict
                last = chunks[end_index - 1]
                assert last is not None
                candidate = text[first.start : last.end]
                if candidate not in verdicts:
                    verdicts[candidate] = self._verdict(candidate, digits[size], groups[size])
                verdict = verdicts[candidate]
                if verdict is None or in_payment(first.start, last.end):
                    continue
                if verdict == _VALID:
                    best = (end_index, 1.0)
                    break
                if verdict == _POSSIBLE and best is None:
                    best = (end_index, None)
            if best is None:
                index += 1
                continue
            end_index, score = best
            last = chunks[end_index - 1]
            assert last is not None
            yield Hit(first.start, last.end, PHONE, score, self.id)
            index = end_index

    def _verdict(self, candidate: str, digits: str, written: tuple[str, ...]) -> str | None:
        """``"valid"``, ``"possible"`` (``+`` only) or ``None`` for one window."""
        if not candidate.isascii():
            candidate = candidate.translate(_ASCII_SPACE)  # libphonenumber knows only " "
        if candidate.startswith("+"):
            return _international(candidate, digits)
        for region in self._regions:
            if not region.may_be_valid(digits, written):
                continue
            try:
                number = phonenumbers.parse(candidate, region.code, keep_raw_input=True)
            except NumberParseException:
                continue
            # Leniency.VALID: a valid number, and its national prefix where required.
            if (
                phonenumbers.is_valid_number(number)
                and _is_national_prefix_present_if_required(number)
                and _keeps_groups(candidate, number)
            ):
                return _VALID
        return None


def _keeps_groups(candidate: str, number: phonenumbers.PhoneNumber) -> bool:
    """:func:`groups_kept` against the number's own international format.

    libphonenumber's ``Leniency.STRICT_GROUPING`` idea, for national-form windows only;
    a window written with "+" is exempt, the "+" being evidence enough
    ("+30 21 0 1234567").
    """
    formatted = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    expected = DIGIT_GROUP.findall(formatted)[1:]  # without the country code
    return groups_kept(DIGIT_GROUP.findall(candidate), expected)


_VALID = "valid"
_POSSIBLE = "possible"


def _international(candidate: str, digits: str) -> str | None:
    """``"valid"``, ``"possible"`` or ``None`` for a candidate that starts with ``+``."""
    # E.164: a country code and at least one more digit, at most 15 digits; one more for
    # a national prefix in parentheses ("+44 (0)20 ...").
    if not _E164_MIN_DIGITS <= len(digits) <= E164_MAX_DIGITS + 1:
        return None
    if not starts_with_country_code(digits):
        return None
    try:
        number = phonenumbers.parse(candidate, None)
    except NumberParseException:
        return None
    if phonenumbers.is_valid_number(number):
        return _VALID
    if phonenumbers.is_possible_number(number):
        return _POSSIBLE
    return None


def _glued_after(text: str, end: int) -> bool:
    """Whether the run continues a longer token: a letter or digit, "-x", ".x", "/x", ":5"."""
    if end >= len(text):
        return False
    char = text[end]
    if char.isascii() and (char.isalnum() or char == "_"):
        return True
    if end + 1 < len(text):
        following = text[end + 1]
        if char in "-./" and following.isascii() and (following.isalnum() or following == "_"):
            # After a hyphen, a word with a letter outside hexadecimal is a label
            # ("+447700 208 815-Fax"), not the next group of an identifier (a GUID's
            # groups are hexadecimal, RFC 9562).
            word = _WORD_AFTER.match(text, end + 1)
            return char != "-" or word is None or _HEX_WORD.fullmatch(word.group()) is not None
        if char == ":" and following.isdigit():
            return True
    return False


__all__ = [
    "CUE_REGIONS",
    "CUE_WINDOW",
    "E164_MAX_DIGITS",
    "MAX_CHUNKS",
    "MAX_DIGITS",
    "PhoneDetector",
    "cue_windows",
]
