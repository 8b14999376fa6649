"""Structured values that must validate: phone numbers, cards, IBANs, government ids, IPs.

Every factory checks its value with the standard's own validator before it returns it
(libphonenumber for phones, Luhn for cards, ISO 13616 MOD-97 for IBANs, python-stdnum for
national ids), so a model never learns an invalid value as positive. Faker's own output is
used where it validates; where it does not (Faker 40's en_GB ``ssn`` always starts with the
reserved prefix ZZ, its en_IN Aadhaar numbers fail Verhoeff about 93% of the time, and
en_IE/en_AU/da_DK/pt_PT fall back to US-shaped numbers), the value is built here.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import random
from collections.abc import Callable

import phonenumbers
from stdnum import iban as std_iban
from stdnum import luhn, verhoeff
from stdnum.at import vnr
from stdnum.au import tfn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.ch import ssn as ch_ssn
from stdnum.de import idnr
from stdnum.dk import cpr
from stdnum.es import nif
from stdnum.fi import hetu
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.ie import pps
from stdnum.in_ import aadhaar
from stdnum.iso7064 import mod_11_10
from stdnum.it import codicefiscale
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.pt import nif as pt_nif
from stdnum.se import personnummer
from stdnum.us import ssn as us_ssn

# Document locale -> ISO 3166 region for libphonenumber.
REGION = {
    "en_US": "US", "en_GB": "GB", "en_IE": "IE", "en_AU": "AU", "en_CA": "CA", "en_IN": "IN",
    "de_DE": "DE", "de_AT": "AT", "de_CH": "CH", "fr_FR": "FR", "es_ES": "ES", "it_IT": "IT",
    "nl_NL": "NL", "sv_SE": "SE", "da_DK": "DK", "no_NO": "NO", "fi_FI": "FI", "pl_PL": "PL",
    "pt_BR": "BR", "pt_PT": "PT",
}  # fmt: skip

# Faker's phone_number for these validates too rarely to be worth the retries (measured:
# en_IE 20%, en_CA 38% valid against libphonenumber 9.0.43), so they use the mutation path.
_BUILD_PHONE = frozenset({"en_IE", "en_CA"})

_NINO_BAD_FIRST = frozenset("DFIQUV")
_NINO_BAD_SECOND = frozenset("DFIOQUV")
_NINO_BAD_PAIRS = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _retry(make: Callable[[], str], valid: Callable[[str], bool], tries: int = 400) -> str:
    for _ in range(tries):
        value = make()
        if valid(value):
            return value
    raise RuntimeError("value factory did not produce a valid value")  # a bug, not data


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


# -- phone numbers -----------------------------------------------------------------------


def phone_valid(value: str, region: str) -> bool:
    """True when libphonenumber parses ``value`` (in ``region``) as a valid number."""
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(value, region))
    except phonenumbers.NumberParseException:
        return False


def _mutated_number(rng: random.Random, region: str) -> phonenumbers.PhoneNumber:
    kind = rng.choice(
        (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE)
    )
    example = phonenumbers.example_number_for_type(region, kind)
    nsn = str(example.national_number)
    keep = max(2, len(nsn) - 6)
    for _ in range(200):
        cand = phonenumbers.PhoneNumber(
            country_code=example.country_code,
            national_number=int(nsn[:keep] + _digits(rng, len(nsn) - keep)),
            italian_leading_zero=example.italian_leading_zero,
        )
        if phonenumbers.is_valid_number_for_region(cand, region):
            return cand
    return example


def _styles(num: phonenumbers.PhoneNumber, region: str) -> list[str]:
    fmt = phonenumbers.PhoneNumberFormat
    styles = [
        phonenumbers.format_number(num, fmt.NATIONAL),
        phonenumbers.format_number(num, fmt.INTERNATIONAL),
        phonenumbers.format_number(num, fmt.E164),
    ]
    if region in ("US", "CA"):
        d = str(num.national_number)
        styles += [
            f"{d[:3]}-{d[3:6]}-{d[6:]}",
            f"{d[:3]}.{d[3:6]}.{d[6:]}",
            f"+1-{d[:3]}-{d[3:6]}-{d[6:]}",
        ]
    return styles


def phone(fake: object, rng: random.Random, locale: str) -> str:
    """A phone number valid for the locale's region, written in one of its usual styles."""
    region = REGION.get(locale, "US")
    if locale not in _BUILD_PHONE:
        for _ in range(12):
            raw = fake.phone_number()  # type: ignore[attr-defined]
            if "x" in raw.lower() or not phone_valid(raw, region):
                continue
            num = phonenumbers.parse(raw, region)
            if phonenumbers.region_code_for_number(num) != region:
                continue
            # Faker's own spelling is kept half of the time: real text is not normalised.
            if rng.random() < 0.5:
                return raw
            return _pick_valid(rng, _styles(num, region), region, raw)
    num = _mutated_number(rng, region)
    styles = _styles(num, region)
    return _pick_valid(rng, styles, region, styles[0])


def _pick_valid(rng: random.Random, styles: list[str], region: str, fallback: str) -> str:
    style = rng.choice(styles)
    return style if phone_valid(style, region) else fallback


# -- payment -------------------------------------------------------------------------------

# Faker 40's en_IN iban() writes a GB IBAN one digit short (fails MOD-97 every time);
# India has no IBAN, so documents there use a GB one.
IBAN_LOCALE = {"en_IN": "en_GB"}

_CARD_TYPES = ("visa16", "visa16", "mastercard", "mastercard", "amex", "discover", "jcb16")


def card(fake: object, rng: random.Random) -> str:
    """A Luhn-valid card number, compact or grouped the way it is printed."""
    number = fake.credit_card_number(rng.choice(_CARD_TYPES))  # type: ignore[attr-defined]
    sep = rng.choice(("", "", " ", "-"))
    if not sep:
        return number
    groups = (4, 6, 5) if len(number) == 15 else (4,) * (len(number) // 4)
    out, i = [], 0
    for g in groups:
        out.append(number[i : i + g])
        i += g
    if i < len(number):
        out.append(number[i:])
    return sep.join(out)


def card_valid(value: str) -> bool:
    digits = value.replace(" ", "").replace("-", "")
    return digits.isdigit() and 13 <= len(digits) <= 19 and luhn.is_valid(digits)


def iban(fake: object, rng: random.Random) -> str:
    """A MOD-97-valid IBAN for the Faker locale's country, compact or in groups of four."""
    value = _retry(lambda: fake.iban(), std_iban.is_valid)  # type: ignore[attr-defined]
    if rng.random() < 0.5:
        return " ".join(value[i : i + 4] for i in range(0, len(value), 4))
    return value


def iban_valid(value: str) -> bool:
    return std_iban.is_valid(value)


# -- government ids ------------------------------------------------------------------------


def nino_valid(value: str) -> bool:
    """UK National Insurance number structure (HMRC NIM39110): prefix rules and suffix A-D."""
    v = value.replace(" ", "").upper()
    return (
        len(v) == 9
        and v[:2].isalpha()
        and v[2:8].isdigit()
        and v[8] in "ABCD"
        and v[0] not in _NINO_BAD_FIRST
        and v[1] not in _NINO_BAD_SECOND
        and v[:2] not in _NINO_BAD_PAIRS
    )


def nino(rng: random.Random) -> str:
    def make() -> str:
        return rng.choice(_UPPER) + rng.choice(_UPPER) + _digits(rng, 6) + rng.choice("ABCD")

    v = _retry(make, nino_valid)
    if rng.random() < 0.5:
        return f"{v[:2]} {v[2:4]} {v[4:6]} {v[6:8]} {v[8]}"
    return v


def _aadhaar(rng: random.Random) -> str:
    def make() -> str:
        body = rng.choice("23456789") + _digits(rng, 10)
        return body + verhoeff.calc_check_digit(body)

    v = _retry(make, aadhaar.is_valid)
    return f"{v[:4]} {v[4:8]} {v[8:]}" if rng.random() < 0.6 else v


def _de_idnr(rng: random.Random) -> str:
    def make() -> str:
        body = rng.choice("123456789") + _digits(rng, 9)
        return body + mod_11_10.calc_check_digit(body)

    v = _retry(make, idnr.is_valid, tries=4000)
    return f"{v[:2]} {v[2:5]} {v[5:8]} {v[8:]}" if rng.random() < 0.4 else v


# A generated corpus must rebuild byte for byte on any day, so ages count from a fixed day.
AGE_REFERENCE_DAY = dt.date(2026, 12, 1)


def birth_date(fake: object, minimum_age: int, maximum_age: int) -> dt.date:
    """A date of birth for someone aged between the two ages on ``AGE_REFERENCE_DAY``."""
    start = AGE_REFERENCE_DAY.replace(year=AGE_REFERENCE_DAY.year - maximum_age - 1)
    end = AGE_REFERENCE_DAY.replace(year=AGE_REFERENCE_DAY.year - minimum_age)
    born = fake.date_time_ad(start_datetime=start, end_datetime=end).date()  # type: ignore[attr-defined]
    return born if born != start else born + dt.timedelta(days=1)


def _au_tfn(rng: random.Random) -> str:
    v = _retry(lambda: rng.choice("123456789") + _digits(rng, 8), tfn.is_valid, tries=2000)
    return f"{v[:3]} {v[3:6]} {v[6:]}"


def _dk_cpr(fake: object, rng: random.Random) -> str:
    def make() -> str:
        born = birth_date(fake, 18, 90)
        return born.strftime("%d%m%y") + "-" + _digits(rng, 4)

    return _retry(make, cpr.is_valid)


def _pt_nif(rng: random.Random) -> str:
    return _retry(lambda: rng.choice("123") + _digits(rng, 8), pt_nif.is_valid, tries=2000)


def _ie_pps(rng: random.Random) -> str:
    return _retry(lambda: _digits(rng, 7) + rng.choice(_UPPER), pps.is_valid, tries=2000)


# locale -> (Faker method or None for a builder here, stdnum validator)
_GOV_VALIDATORS: dict[str, Callable[[str], bool]] = {
    "en_US": us_ssn.is_valid, "en_GB": nino_valid, "en_IN": aadhaar.is_valid,
    "en_CA": sin.is_valid, "en_AU": tfn.is_valid, "en_IE": pps.is_valid,
    "de_DE": idnr.is_valid, "de_AT": vnr.is_valid, "de_CH": ch_ssn.is_valid,
    "fr_FR": nir.is_valid, "es_ES": nif.is_valid, "it_IT": codicefiscale.is_valid,
    "nl_NL": bsn.is_valid, "sv_SE": personnummer.is_valid, "da_DK": cpr.is_valid,
    "no_NO": fodselsnummer.is_valid, "fi_FI": hetu.is_valid, "pl_PL": pesel.is_valid,
    "pt_BR": cpf.is_valid, "pt_PT": pt_nif.is_valid,
}  # fmt: skip
_FAKER_GOV = {
    "en_US": "ssn", "en_CA": "ssn", "de_AT": "ssn", "de_CH": "ssn", "fr_FR": "ssn",
    "es_ES": "nif", "it_IT": "ssn", "nl_NL": "ssn", "sv_SE": "ssn", "no_NO": "ssn",
    "fi_FI": "ssn", "pl_PL": "pesel", "pt_BR": "cpf",
}  # fmt: skip


def gov_id(fake: object, rng: random.Random, locale: str) -> str:
    """A national id of the locale's country that its python-stdnum validator accepts."""
    valid = _GOV_VALIDATORS[locale]
    if locale in _FAKER_GOV:
        method = getattr(fake, _FAKER_GOV[locale])
        return _retry(lambda: method(), valid)
    builders: dict[str, Callable[[], str]] = {
        "en_GB": lambda: nino(rng),
        "en_IN": lambda: _aadhaar(rng),
        "en_AU": lambda: _au_tfn(rng),
        "en_IE": lambda: _ie_pps(rng),
        "de_DE": lambda: _de_idnr(rng),
        "da_DK": lambda: _dk_cpr(fake, rng),
        "pt_PT": lambda: _pt_nif(rng),
    }
    return builders[locale]()


def nhs_number(rng: random.Random) -> str:
    """An NHS number (mod-11 check digit, NHS Data Dictionary), spaced 3-3-4 as printed."""
    v = _retry(lambda: rng.choice("456789") + _digits(rng, 9), nhs.is_valid, tries=2000)
    return f"{v[:3]} {v[3:6]} {v[6:]}"


def gov_id_valid(value: str, locale: str) -> bool:
    return _GOV_VALIDATORS[locale](value)


def gov_id_valid_any(value: str) -> bool:
    """True when any national-id validator the generator uses accepts ``value``.

    Templates may name a specific id (an NHS number, a US SSN on a W-9) whatever the
    document locale, so a check on generated output asks every validator.
    """
    checks = (*_GOV_VALIDATORS.values(), nhs.is_valid)
    return any(check(value) for check in checks)


def us_ssn_value(fake: object, rng: random.Random) -> str:
    """A structurally valid US SSN (no 000/666/9xx area, no 00 group, no 0000 serial)."""
    value = _retry(lambda: fake.ssn(), us_ssn.is_valid)  # type: ignore[attr-defined]
    return value if rng.random() < 0.85 else value.replace("-", "")


# -- network -------------------------------------------------------------------------------


def ip(fake: object, rng: random.Random) -> str:
    """An IPv4 address (public 70%, private 30%) or, one time in six, an IPv6 address."""
    roll = rng.random()
    if roll < 1 / 6:
        addr = ipaddress.IPv6Address(fake.ipv6())  # type: ignore[attr-defined]
        return addr.compressed if rng.random() < 0.7 else addr.exploded
    if roll < 0.45:
        return fake.ipv4_private()  # type: ignore[attr-defined]
    return fake.ipv4_public()  # type: ignore[attr-defined]
