"""Value factories and the per-document context that templates are rendered against.

Faker is an optional dependency (the ``fake`` extra): it is imported when the first Faker
instance is built, never at module import. One Faker instance per locale is cached for
the process; :class:`DocContext` reseeds each instance the first time a document uses it,
so every document depends only on its own seed, not on the documents before it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from . import fillers, ids, secrets

# Document locales: they decide addresses, phones, IBANs and national ids. Weights lean to
# English-language text, which is what the model is judged on, with a European tail.
DOC_LOCALES: dict[str, int] = {
    "en_US": 24, "en_GB": 12, "en_CA": 4, "en_AU": 4, "en_IE": 3, "en_IN": 5, "de_DE": 7,
    "de_AT": 2, "de_CH": 2, "fr_FR": 6, "es_ES": 4, "it_IT": 4, "nl_NL": 4, "sv_SE": 2,
    "da_DK": 2, "no_NO": 2, "fi_FI": 2, "pl_PL": 3, "pt_BR": 4, "pt_PT": 2,
}  # fmt: skip

# Name locales: every Faker locale (40.x) whose names are in Latin script, plus the three
# that offer romanised names. Person names come from here 55% of the time, so documents
# mix the name origins that real customer bases have.
NAME_LOCALES: dict[str, int] = {
    "en_US": 14, "en_GB": 8, "en_IE": 2, "en_IN": 6, "en_NG": 2, "en_KE": 2, "en_PK": 3,
    "yo_NG": 1, "ig_NG": 1, "ha_NG": 1, "zu_ZA": 1, "tw_GH": 1, "de_DE": 4, "de_AT": 1,
    "fr_FR": 4, "fr_CA": 1, "nl_BE": 1, "es_ES": 3, "es_MX": 3, "es_AR": 1, "es_CO": 1,
    "it_IT": 3, "nl_NL": 2, "sv_SE": 1, "no_NO": 1, "da_DK": 1, "fi_FI": 1, "pl_PL": 2,
    "cs_CZ": 1, "sk_SK": 1, "hu_HU": 1, "ro_RO": 1, "hr_HR": 1, "sl_SI": 1, "lt_LT": 1,
    "pt_BR": 3, "pt_PT": 1, "tr_TR": 2, "vi_VN": 2, "id_ID": 1, "ga_IE": 1,
    "ja_JP": 2, "zh_CN": 3, "zh_TW": 1,
}  # fmt: skip
_ROMANISED = frozenset({"ja_JP", "zh_CN", "zh_TW"})

COUNTRY = {
    "en_US": "USA", "en_GB": "United Kingdom", "en_CA": "Canada", "en_AU": "Australia",
    "en_IE": "Ireland", "en_IN": "India", "de_DE": "Germany", "de_AT": "Austria",
    "de_CH": "Switzerland", "fr_FR": "France", "es_ES": "Spain", "it_IT": "Italy",
    "nl_NL": "Netherlands", "sv_SE": "Sweden", "da_DK": "Denmark", "no_NO": "Norway",
    "fi_FI": "Finland", "pl_PL": "Poland", "pt_BR": "Brazil", "pt_PT": "Portugal",
}  # fmt: skip
# Honorific weights by gender: Mr/Ms dominate business text; "Dr" and "Prof" are kept
# frequent enough that the title convention is learnt for them too.
_TITLES = {
    "m": {"Mr": 12, "Dr": 3, "Prof": 1},
    "f": {"Ms": 8, "Mrs": 4, "Miss": 1, "Dr": 3, "Prof": 1},
}
_MILITARY = ("USNS ", "USS ", "USNV ", "USCGC ", "PSC ", "Unit ")

_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
# Date styles a locale writes (numeric first): US month-first; most of Europe day-first,
# with dots in German, Nordic and Polish usage.
_DATE_STYLES = {
    "en_US": ("us", "us", "us_long", "iso"),
    "en_CA": ("iso", "us", "us_long"),
    "de_DE": ("dot", "dot", "long", "iso"),
    "de_AT": ("dot", "long"), "de_CH": ("dot", "long"), "pl_PL": ("dot", "long"),
    "da_DK": ("dot", "long", "iso"), "no_NO": ("dot", "long"), "fi_FI": ("dot", "long"),
    "sv_SE": ("iso", "iso", "long"),
}  # fmt: skip
_DEFAULT_DATE_STYLES = ("eu", "eu", "long", "iso")

_FREE_MAIL = {
    "": ("gmail.com", "outlook.com", "yahoo.com", "hotmail.com", "icloud.com", "proton.me"),
    "en_GB": ("btinternet.com", "hotmail.co.uk", "yahoo.co.uk"),
    "de_DE": ("gmx.de", "web.de", "t-online.de"), "fr_FR": ("orange.fr", "free.fr", "laposte.net"),
    "it_IT": ("libero.it", "virgilio.it"), "es_ES": ("telefonica.net",), "nl_NL": ("ziggo.nl",),
    "pt_BR": ("uol.com.br", "bol.com.br"), "en_IN": ("rediffmail.com",),
    "pl_PL": ("wp.pl", "o2.pl"),
}  # fmt: skip
_TLD = {
    "en_GB": ".co.uk", "de_DE": ".de", "de_AT": ".at", "de_CH": ".ch", "fr_FR": ".fr",
    "es_ES": ".es", "it_IT": ".it", "nl_NL": ".nl", "sv_SE": ".se", "pl_PL": ".pl",
    "pt_BR": ".com.br", "en_AU": ".com.au", "en_IN": ".in", "en_IE": ".ie", "da_DK": ".dk",
    "no_NO": ".no", "fi_FI": ".fi", "pt_PT": ".pt", "en_CA": ".ca",
}  # fmt: skip
# Letters that NFKD does not decompose to ASCII.
_ASCII_EXTRA = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "ß": "ss", "đ": "d",
     "Đ": "D", "ı": "i", "œ": "oe", "þ": "th", "ð": "d"}
)  # fmt: skip


def derive_seed(*parts: object) -> int:
    """A 64-bit seed from its parts, stable across processes (unlike ``hash``)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


@cache
def faker_for(locale: str) -> Any:
    """One cached Faker instance per locale (Faker is the optional ``fake`` extra)."""
    try:
        from faker import Faker
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the generator needs Faker: pip install 'spacy-pii[fake]'") from exc
    fake = Faker(locale)
    for provider in fake.providers:
        # Faker 40's it_IT address provider builds its city list from a set, so the order,
        # and the city a seed picks, changed with PYTHONHASHSEED (seen as two builds of one
        # seed differing). Sorting restores byte-identical output across processes.
        if type(provider).__module__ == "faker.providers.address.it_IT":
            provider.cities = sorted(set(provider.cities))
    return fake


def ascii_fold(text: str) -> str:
    """Strip accents so a name can become a mailbox or a login."""
    text = text.translate(_ASCII_EXTRA)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isascii() and (c.isalnum() or c in " -'"))


def _slug(text: str) -> str:
    return "".join(c for c in ascii_fold(text).lower() if c.isalnum())


def format_date(day: dt.date, style: str) -> str:
    """Write a date in one of the styles real documents use (English month names)."""
    month = _MONTHS[day.month - 1]
    return {
        "us": f"{day.month:02d}/{day.day:02d}/{day.year}",
        "us_short": f"{day.month}/{day.day}/{day.year}",
        "eu": f"{day.day:02d}/{day.month:02d}/{day.year}",
        "dot": f"{day.day:02d}.{day.month:02d}.{day.year}",
        "iso": day.isoformat(),
        "long": f"{day.day} {month} {day.year}",
        "us_long": f"{month} {day.day}, {day.year}",
        "clin": f"{day.day:02d}-{month[:3].upper()}-{day.year}",
        "abbr": f"{day.day} {month[:3]} {day.year}",
    }[style]


@dataclass(frozen=True, slots=True)
class Person:
    given: str
    middle: str
    family: str
    gender: str
    title: str
    born: dt.date
    email: str
    user: str
    handle: str


@dataclass(frozen=True, slots=True)
class Address:
    full: str
    line: str
    street: str


@dataclass(frozen=True, slots=True)
class Org:
    name: str
    domain: str


class DocContext:
    """Everything one document draws from: its RNG, locale, and the values it has named.

    Not thread-safe: Faker instances are shared per process and reseeded per document.
    """

    def __init__(self, seed: int, locale: str) -> None:
        self.seed = seed
        self.locale = locale
        self.rng = random.Random(seed)
        self._seeded: set[str] = set()
        self._values: dict[str, tuple[str | None, str]] = {}
        self._entities: dict[str, Any] = {}
        self.date_style = self.rng.choice(_DATE_STYLES.get(locale, _DEFAULT_DATE_STYLES))
        self.title_dot = locale in ("en_US", "en_CA") or self.rng.random() < 0.4
        self.ts_style = self.rng.randrange(4)  # one timestamp format per log, as real logs have

    # -- plumbing ----------------------------------------------------------------------
    def faker(self, locale: str | None = None) -> Any:
        loc = locale or self.locale
        fake = faker_for(loc)
        if loc not in self._seeded:
            fake.seed_instance(derive_seed(self.seed, loc))
            self._seeded.add(loc)
        return fake

    def choose(self, n: int) -> int:
        return self.rng.randrange(n)

    def pick(self, weights: dict[str, int]) -> str:
        return self.rng.choices(tuple(weights), weights=tuple(weights.values()))[0]

    def resolve(self, name: str, attr: str | None) -> tuple[str | None, str]:
        """The (label, value) for a slot; the same slot gives the same value in one doc."""
        if attr is not None:
            kind = name.rstrip("0123456789")
            if kind not in ENTITY_ATTRS:
                raise KeyError(f"unknown entity slot {name!r}")
            if name not in self._entities:
                self._entities[name] = ENTITY_BUILDERS[kind](self)
            label, getter = ENTITY_ATTRS[kind][attr]
            return label, getter(self, self._entities[name])
        if name not in self._values:
            # "ip4" and "spo2" are slot names; "phone2" is a second phone.
            label, factory = SIMPLE_SLOTS.get(name) or SIMPLE_SLOTS[name.rstrip("0123456789")]
            self._values[name] = (label, factory(self))
        return self._values[name]

    # -- builders --------------------------------------------------------------------
    def person(self) -> Person:
        loc = self.locale if self.rng.random() < 0.45 else self.pick(NAME_LOCALES)
        fake = self.faker(loc)
        gender = "m" if self.rng.random() < 0.5 else "f"
        given, family = _names(fake, loc, gender)
        middle = _names(fake, loc, gender)[0].split(" ")[0]
        titles = _TITLES[gender]
        title = self.rng.choices(tuple(titles), tuple(titles.values()))[0]
        if self.title_dot and title != "Miss":
            title += "."
        born = ids.birth_date(fake, 18, 92)
        g, f = _slug(given.split(" ")[0]), _slug(family.split(" ")[-1])
        n = self.rng.randint(1, 99)
        user = self.rng.choice(
            (f"{g[0]}{f}", f"{g}.{f}", f"{f}{g[0]}", f"{g}_{f}", f"{g[0]}{f}{n}",
             f"{g}{born.year % 100:02d}", f"{g}{f[:3]}")
        )  # fmt: skip
        local = self.rng.choice(
            (f"{g}.{f}", f"{g[0]}{f}", f"{g}{f}", f"{g}_{f}", user, f"{g}.{f}{n}")
        )
        domain = (
            self._org_domain()
            if self.rng.random() < 0.35
            else self.rng.choice(_FREE_MAIL[""] + _FREE_MAIL.get(self.locale, ()))
        )
        handle = "@" + self.rng.choice(
            (f"{g}{f}", f"{g}_{f}", f"{g}{n * 7}", f"{f}{g[0]}", f"the{g}", f"{g}.{f}")
        )
        return Person(given, middle, family, gender, title, born, f"{local}@{domain}", user, handle)

    def _org_domain(self) -> str:
        return self.resolve("o", "domain")[1]

    def address(self) -> Address:
        fake = self.faker()
        for _ in range(8):
            raw = fake.address()
            if not raw.startswith(_MILITARY) and " FPO " not in raw and " APO " not in raw:
                break
        lines = [line.strip(" ,") for line in raw.split("\n") if line.strip(" ,")]
        if self.rng.random() < 0.25:
            lines.append(COUNTRY[self.locale])
        return Address("\n".join(lines), ", ".join(lines), lines[0])

    def org(self) -> Org:
        if self.rng.random() < 0.3:
            name = self.rng.choice(fillers.KNOWN_ORGS)
        else:
            name = self.faker().company()
            if " " not in name:  # Faker 40 de_DE and fr_FR often give a bare surname
                name += self.rng.choice(fillers.ORG_SUFFIX.get(self.locale, (" Ltd", " Inc.")))
        words = [_slug(w) for w in name.replace("-", " ").split(" ")]
        stem = "".join(w for w in words[:2] if w and w not in ("and", "und", "et", "e", "y"))
        return Org(name, (stem or "example") + _TLD.get(self.locale, ".com"))


def _names(fake: Any, locale: str, gender: str) -> tuple[str, str]:
    if locale in _ROMANISED:
        if locale == "ja_JP":
            given = getattr(fake, f"first_romanized_name_{'male' if gender == 'm' else 'female'}")()
        else:
            given = fake.first_romanized_name()
        family = fake.last_romanized_name()
        if locale == "zh_TW":  # Faker writes Wade-Giles in capitals: "KUO-HUA"
            given, family = given.title(), family.title()
        return given, family
    sex = "male" if gender == "m" else "female"
    given = getattr(fake, f"first_name_{sex}")()
    family_fn = getattr(fake, f"last_name_{sex}", None) or fake.last_name
    return given, family_fn()


_PRONOUNS = {"m": ("he", "him", "his"), "f": ("she", "her", "her")}


def _dob(style: str | None) -> Callable[[DocContext, Person], str]:
    return lambda ctx, p: format_date(p.born, style or ctx.date_style)


def _age(ctx: DocContext, p: Person) -> str:
    today = dt.date(2026, 11, 30)  # fixed so output never depends on the wall clock
    return str(today.year - p.born.year - ((today.month, today.day) < (p.born.month, p.born.day)))


PERSON_ATTRS: dict[str, tuple[str | None, Callable[[DocContext, Any], str]]] = {
    "first": ("PERSON", lambda c, p: p.given),
    "last": ("PERSON", lambda c, p: p.family),
    "full": ("PERSON", lambda c, p: f"{p.given} {p.family}"),
    "mid": ("PERSON", lambda c, p: f"{p.given} {p.middle[0]}. {p.family}"),
    "fullmid": ("PERSON", lambda c, p: f"{p.given} {p.middle} {p.family}"),
    "i_last": ("PERSON", lambda c, p: f"{p.given[0]}. {p.family}"),
    "last_first": ("PERSON", lambda c, p: f"{p.family}, {p.given}"),
    "last_i": ("PERSON", lambda c, p: f"{p.family}, {p.given[0]}."),
    "title": (None, lambda c, p: p.title),
    "he": (None, lambda c, p: _PRONOUNS[p.gender][0]),
    "him": (None, lambda c, p: _PRONOUNS[p.gender][1]),
    "his": (None, lambda c, p: _PRONOUNS[p.gender][2]),
    "child": (None, lambda c, p: "son" if p.gender == "m" else "daughter"),
    "spouse": (None, lambda c, p: "husband" if p.gender == "m" else "wife"),
    "email": ("EMAIL", lambda c, p: p.email),
    "user": ("USERNAME", lambda c, p: p.user),
    "handle": ("USERNAME", lambda c, p: p.handle),
    "dob": ("DATE_OF_BIRTH", _dob(None)),
    "dob_us": ("DATE_OF_BIRTH", _dob("us")),
    "dob_eu": ("DATE_OF_BIRTH", _dob("eu")),
    "dob_iso": ("DATE_OF_BIRTH", _dob("iso")),
    "dob_long": ("DATE_OF_BIRTH", _dob("long")),
    "dob_us_long": ("DATE_OF_BIRTH", _dob("us_long")),
    "dob_clin": ("DATE_OF_BIRTH", _dob("clin")),
    "age": (None, _age),
    "phone": ("PHONE", lambda c, p: c.resolve(f"_phone_{id(p)}", None)[1]),
    "gov": ("GOV_ID", lambda c, p: c.resolve(f"_gov_{id(p)}", None)[1]),
}

ENTITY_ATTRS: dict[str, dict[str, tuple[str | None, Callable[[DocContext, Any], str]]]] = {
    "p": PERSON_ATTRS,
    "a": {
        "full": ("ADDRESS", lambda c, a: a.full),
        "line": ("ADDRESS", lambda c, a: a.line),
        "street": ("ADDRESS", lambda c, a: a.street),
    },
    "o": {
        "name": ("ORG", lambda c, o: o.name),
        "domain": (None, lambda c, o: o.domain),
    },
}
ENTITY_BUILDERS: dict[str, Callable[[DocContext], Any]] = {
    "p": DocContext.person,
    "a": DocContext.address,
    "o": DocContext.org,
}


def _with_rng(fn: Callable[[random.Random], str]) -> Callable[[DocContext], str]:
    return lambda ctx: fn(ctx.rng)


def _anon_email(ctx: DocContext) -> str:
    return ctx.person().email


def _role_email(ctx: DocContext) -> str:
    box = ctx.rng.choice(("support", "billing", "info", "hr", "it-helpdesk", "noreply", "privacy"))
    return f"{box}@{ctx._org_domain()}"


SIMPLE_SLOTS: dict[str, tuple[str | None, Callable[[DocContext], str]]] = {
    "email": ("EMAIL", _anon_email),
    "role_email": ("EMAIL", _role_email),
    "phone": ("PHONE", lambda c: ids.phone(c.faker(), c.rng, c.locale)),
    "_phone_": ("PHONE", lambda c: ids.phone(c.faker(), c.rng, c.locale)),
    "card": ("PAYMENT", lambda c: ids.card(c.faker("en_US"), c.rng)),
    "iban": ("PAYMENT", lambda c: ids.iban(c.faker(ids.IBAN_LOCALE.get(c.locale)), c.rng)),
    "gov": ("GOV_ID", lambda c: ids.gov_id(c.faker(), c.rng, c.locale)),
    "_gov_": ("GOV_ID", lambda c: ids.gov_id(c.faker(), c.rng, c.locale)),
    "nino": ("GOV_ID", lambda c: ids.nino(c.rng)),
    "nhs": ("GOV_ID", lambda c: ids.nhs_number(c.rng)),
    "ssn": ("GOV_ID", lambda c: ids.us_ssn_value(c.faker("en_US"), c.rng)),
    "ip": ("IP_ADDRESS", lambda c: ids.ip(c.faker(), c.rng)),
    "ip4": ("IP_ADDRESS", lambda c: c.faker().ipv4_public()),
    "ip_priv": ("IP_ADDRESS", lambda c: c.faker().ipv4_private()),
    "user": ("USERNAME", lambda c: c.person().user),
    "handle": ("USERNAME", lambda c: c.person().handle),
    "dob": ("DATE_OF_BIRTH", lambda c: format_date(c.person().born, c.date_style)),
    "secret": ("SECRET", lambda c: secrets.any_token(c.rng)),
    **{name: ("SECRET", _with_rng(fn)) for name, fn in secrets.VENDOR_SECRETS.items()},
    "basic_auth": ("SECRET", lambda c: secrets.basic_auth(c.rng, c.person().user)),
    "date": (None, lambda c: format_date(fillers.recent_date(c.rng), c.date_style)),
    "date_long": (None, lambda c: format_date(fillers.recent_date(c.rng), "long")),
    "date_iso": (None, lambda c: fillers.recent_date(c.rng).isoformat()),
    "date_clin": (None, lambda c: format_date(fillers.recent_date(c.rng), "clin")),
    "ts": (None, lambda c: fillers.timestamp(c.rng, c.ts_style)),
    "city": (None, lambda c: c.faker().city()),
    "country": (None, lambda c: COUNTRY[c.locale]),
    "job": (None, lambda c: c.faker("en_US").job()),
    **fillers.SIMPLE_FILLERS,
}
