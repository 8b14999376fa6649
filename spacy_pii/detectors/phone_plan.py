"""What libphonenumber's metadata says about numbering plans, compiled for a fast pre-filter.

The phone rule (:mod:`.phone`) asks ``phonenumbers.parse`` and ``is_valid_number`` for
the verdict; both cost tens of microseconds. :class:`RegionPlan.may_be_valid` answers, with
a few regular-expression matches on the region's own metadata, whether the parser *could*
accept a national-form candidate, and so decides which candidates are worth parsing. It
mirrors the parser's steps (international prefix, a country code written without "+",
the national prefix and its transform rule, the general national-number pattern of every
region that shares the country code, the main region's national-prefix rule) and the
rule's grouping check, so it refuses only what the parser would refuse. Measured: on
36,000 national-form candidates (libphonenumber's example numbers, regrouped, and random
digits) for 63 regions, forcing the pre-filter open changed no verdict; a property test
in ``tests/test_detectors_contact.py`` keeps checking it.

The size limits come from the standard and the metadata, computed once at import:
ITU-T E.164 (15 digits), the longest literal international prefix, and the most digit
groups any format writes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

import phonenumbers
from phonenumbers import PhoneMetadata

DIGIT_GROUP = re.compile(r"[0-9]++")

# ITU-T E.164 section 6.1: an international number has at most 15 digits.
E164_MAX_DIGITS = 15


def _longest_literal_idd() -> int:
    """The longest all-digit international prefix in libphonenumber's metadata ("0011")."""
    longest = 0
    for region in phonenumbers.SUPPORTED_REGIONS:
        metadata = PhoneMetadata.metadata_for_region(region)
        for prefix in (metadata.preferred_international_prefix, metadata.international_prefix):
            if prefix and prefix.isdigit():
                longest = max(longest, len(prefix))
    return longest


# A dialled number carries at most E.164's 15 digits, an international prefix and one
# national prefix shown in parentheses ("+44 (0)20 7946 0958").
MAX_DIGITS = E164_MAX_DIGITS + _longest_literal_idd() + 1


def _most_format_groups() -> int:
    """The most digit groups any libphonenumber format writes (5, Luxembourg's)."""
    most = 0
    for region in phonenumbers.SUPPORTED_REGIONS:
        metadata = PhoneMetadata.metadata_for_region(region)
        for number_format in (*metadata.number_format, *metadata.intl_number_format):
            most = max(most, re.compile(number_format.pattern).groups)
    return most


# A window spans at most the national groups plus an international prefix, a country
# code and a national prefix each written apart ("00 44 (0) 20 7946 0958").
MAX_CHUNKS = _most_format_groups() + 3

# libphonenumber's test for a national-prefix formatting rule that is only the first group
# ("(\\1)" or "\\1"): such a rule does not make the prefix mandatory.
_FIRST_GROUP_ONLY = re.compile(r"\(?\\1\)?")


@dataclass(frozen=True, slots=True)
class _Format:
    leading: re.Pattern[str] | None
    pattern: re.Pattern[str]
    layout: str
    needs_prefix: bool

    @classmethod
    def load(cls, fmt: phonenumbers.NumberFormat) -> _Format:
        rule = fmt.national_prefix_formatting_rule
        return cls(
            leading=re.compile(fmt.leading_digits_pattern[-1])
            if fmt.leading_digits_pattern
            else None,
            pattern=re.compile(fmt.pattern),
            layout=fmt.format,
            needs_prefix=bool(rule)
            and not fmt.national_prefix_optional_when_formatting
            and _FIRST_GROUP_ONLY.fullmatch(rule) is None,
        )


def _choose(formats: tuple[_Format, ...], national: str) -> _Format | None:
    # libphonenumber takes the first format whose last leading-digits pattern matches the
    # start and whose pattern matches the whole national number.
    for fmt in formats:
        if (fmt.leading is None or fmt.leading.match(national)) and fmt.pattern.fullmatch(national):
            return fmt
    return None


def _groups_covering(written: Sequence[str], size: int) -> int:
    """How many of the last ``written`` groups it takes to cover ``size`` digits."""
    count = offset = 0
    for group in reversed(written):
        if offset >= size:
            break
        count += 1
        offset += len(group)
    return count


def groups_kept(written: Sequence[str], expected: Sequence[str]) -> bool:
    """Whether a national number is written in no more digit groups than its format has.

    ``expected`` are the groups libphonenumber's format gives the national number;
    ``written`` are the window's digit groups. Counting from the last digit, only the
    groups that hold national-number digits count, so groups written before it (an
    international prefix, a country code, a national prefix) are free. Merging groups is
    fine ("2125550100", "0207 946 0958"); writing more groups than the format has is a
    row of small numbers, not a phone ("21 25 55 01 00"). The idea is libphonenumber's
    ``Leniency.STRICT_GROUPING``, loosened to a count so that common regroupings pass.
    """
    return _groups_covering(written, sum(len(group) for group in expected)) <= len(expected)


def _lengths(metadata: PhoneMetadata) -> list[int]:
    """Every possible length of a valid national number, over all of a region's types."""
    lengths: list[int] = []
    for value in vars(metadata).values():
        lengths.extend(length for length in getattr(value, "possible_length", ()) if length > 0)
    return lengths


@dataclass(frozen=True, slots=True)
class RegionPlan:
    """One region's metadata, compiled once, for a pre-filter that never parses.

    :meth:`may_be_valid` is a necessary condition for what the phone rule then asks
    libphonenumber. libphonenumber parses with the region's own metadata, validates the
    national number against every region that shares its country code ("310-1234" is a
    Canadian number to a parser set to "US"), and takes the national-prefix rule from the
    country code's main region; the plan keeps what each step needs.
    """

    code: str
    country_code: str
    own_pattern: re.Pattern[str]  # the parsing region's general national-number pattern
    code_pattern: re.Pattern[str]  # any region sharing the country code, one alternation
    national_prefix: re.Pattern[str] | None
    main_prefix: re.Pattern[str] | None
    international_prefix: re.Pattern[str] | None
    main_formats: tuple[_Format, ...]
    intl_format_sets: tuple[tuple[_Format, ...], ...]
    min_length: int
    max_length: int
    max_groups: int
    transform: str | None

    @classmethod
    @functools.cache
    def load(cls, code: str) -> RegionPlan:
        """The plan for region ``code``, built once per process (plans are immutable)."""
        metadata = PhoneMetadata.metadata_for_region(code)
        sharing = [
            PhoneMetadata.metadata_for_region(region)
            for region in phonenumbers.COUNTRY_CODE_TO_REGION_CODE[metadata.country_code]
        ]
        sharing = [other for other in sharing if other is not None]
        main = PhoneMetadata.metadata_for_region(
            phonenumbers.region_code_for_country_code(metadata.country_code)
        )
        format_sets = []
        for other in sharing:
            national = tuple(_Format.load(fmt) for fmt in other.number_format)
            intl = other.intl_number_format
            format_sets.append(tuple(_Format.load(fmt) for fmt in intl) if intl else national)
        prefix = metadata.national_prefix_for_parsing
        main_prefix = main.national_prefix_for_parsing
        idd = metadata.international_prefix
        return cls(
            code=code,
            country_code=str(metadata.country_code),
            own_pattern=re.compile(metadata.general_desc.national_number_pattern),
            code_pattern=re.compile(
                "|".join(f"(?:{other.general_desc.national_number_pattern})" for other in sharing)
            ),
            national_prefix=re.compile(prefix) if prefix else None,
            main_prefix=re.compile(main_prefix) if main_prefix else None,
            international_prefix=re.compile(idd) if idd else None,
            main_formats=tuple(_Format.load(fmt) for fmt in main.number_format),
            intl_format_sets=tuple(format_sets),
            min_length=min(length for other in sharing for length in _lengths(other)),
            max_length=max(metadata.general_desc.possible_length),
            max_groups=max(
                (fmt.pattern.groups for formats in format_sets for fmt in formats), default=1
            ),
            transform=metadata.national_prefix_transform_rule or None,
        )

    def _fits_code(self, national: str) -> bool:
        """Whether ``national`` fits a region of the country code (validity needs that)."""
        return self.code_pattern.fullmatch(national) is not None

    def _strip(self, prefix: re.Pattern[str] | None, digits: str) -> str | None:
        match = prefix.match(digits) if prefix is not None else None
        return digits[match.end() :] if match else None

    def _without_prefix(self, digits: str) -> list[str]:
        """The national numbers the parser may make by taking the national prefix off.

        The prefix is removed, or, where the region has a transform rule and its last
        group matched, rewritten by it (Brazil drops a carrier code, Antigua adds its
        area code to a seven-digit local number).
        """
        if self.national_prefix is None:
            return []
        match = self.national_prefix.match(digits)
        if match is None:
            return []
        readings = [digits[match.end() :]]
        if self.transform and match.groups() and match.groups()[-1] is not None:
            readings.append(match.expand(self.transform) + digits[match.end() :])
        return readings

    def _grouping_fits(self, national: str, written: Sequence[str]) -> bool:
        """:func:`groups_kept` against a format of any region of the country code."""
        for formats in self.intl_format_sets:
            fmt = _choose(formats, national)
            expected = (
                [national]
                if fmt is None
                else DIGIT_GROUP.findall(fmt.pattern.sub(fmt.layout, national))
            )
            if groups_kept(written, expected):
                return True
        return False

    def may_have_prefix(self, digits: str) -> bool:
        """Whether ``digits`` may start with the international prefix or country code."""
        if digits.startswith(self.country_code):
            return True
        return self.international_prefix is not None and bool(
            self.international_prefix.match(digits)
        )

    def national_groups_ok(self, written: Sequence[str]) -> bool:
        """Whether a national number could end these ``written`` groups.

        The national number has at least :attr:`min_length` digits, and a valid window
        is not written in more groups than its format has (:func:`groups_kept`); so the
        groups that cover the last ``min_length`` digits are no more than the most any
        format of the country code has. Only the window's end matters, not its start.
        """
        return _groups_covering(written, self.min_length) <= self.max_groups

    def may_be_valid(self, digits: str, written: Sequence[str]) -> bool:
        """Whether ``digits`` (``written`` in these groups) could pass the parser's checks.

        Each way the parser may read the digits is tried; any that could lead to a valid
        number is enough. Only what the parser would refuse is refused.
        """
        if self.international_prefix is not None:
            idd = self.international_prefix.match(digits)
            # After an international prefix the parser wants a country calling code,
            # which never starts with 0.
            if idd and starts_with_country_code(digits[idd.end() :]):
                return True
        if digits.startswith(self.country_code) and (
            len(digits) > self.max_length or not self.own_pattern.fullmatch(digits)
        ):
            # The parser reads a country code written without "+", and may then take a
            # national prefix off twice (once while reading the code, once after).
            readings = [digits[len(self.country_code) :]]
            for _ in range(2):
                readings += [form for reading in readings for form in self._without_prefix(reading)]
            if any(self._fits_code(reading) for reading in readings):
                return True
        if not self.national_groups_ok(written):
            return False
        # A transform rule can add digits (Antigua's area code), so the length floor
        # holds only without one.
        if not self.transform and len(digits) < self.min_length:
            return False  # shorter than any valid number of the country code
        # The national prefix taken off: it is present, validity is the parser's.
        for national in self._without_prefix(digits):
            if self._fits_code(national) and self._grouping_fits(national, written):
                return True
        # The digits as the national number. Without a national prefix (by the main
        # region's rule), a format that requires one refuses the number.
        if not self._fits_code(digits):
            return False
        if self._strip(self.main_prefix, digits) is None:
            fmt = _choose(self.main_formats, digits)
            if fmt is not None and fmt.needs_prefix:
                return False
        return self._grouping_fits(digits, written)


def starts_with_country_code(digits: str) -> bool:
    # ITU-T E.164 country calling codes have one to three digits.
    return any(
        int(digits[:size]) in phonenumbers.COUNTRY_CODE_TO_REGION_CODE
        for size in (1, 2, 3)
        if len(digits) > size and digits[0] != "0"
    )


__all__ = [
    "DIGIT_GROUP",
    "E164_MAX_DIGITS",
    "MAX_CHUNKS",
    "MAX_DIGITS",
    "RegionPlan",
    "groups_kept",
    "starts_with_country_code",
]
