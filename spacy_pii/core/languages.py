"""Per-language rule data: cue words, titles, phone plans, id defaults and date forms.

The data is a versioned YAML file beside the taxonomy (``data/languages-<version>.yaml``),
validated here with pydantic as user patterns are, so that adding a language is adding a
block of data, never a branch in code. The rule lane reads a :class:`LanguageRules`
(``pii_rules`` with ``language = "de"``, or ``spacy_pii.load("de")``).

``xx`` (mixed or unknown language) is not written in the file: it is computed as the union
of every language's cue words, phone regions and titles, with no national-id default (a
mixed text has no home country), and with only those titles that cannot be an English word
or an initial: they end in "." and have two letters or more, or hold a letter outside
ASCII ("M.", "Me" and "Pan" are initials or words in English text; "Dña.", "Fräulein" are not).
Street words that are common English words ("via", "place", "al.") are left out too.

Pure Python: no spaCy.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import ConfigError
from .latin_forms import checked_scheme

DEFAULT_LANGUAGES_VERSION = "2026.12"
MIXED = "xx"
# wordfreq's Zipf value from which a word is common English: "via" 5.0, "avenue" 4.4,
# "os" 4.1; "rue" (3.6) and "calle" (2.9) stay below.
ENGLISH_WORD_ZIPF = 4.0


class UnknownLanguage(ConfigError):
    """A language code that has no rule data. The message lists the supported codes."""

    def __init__(self, code: str, supported: tuple[str, ...]) -> None:
        self.code = code
        self.supported = supported
        shown = code if len(code) <= 16 and code.isascii() else "(unprintable code)"
        super().__init__(f"no language data for {shown!r}; supported: {', '.join(supported)}")


def known_regions(value: tuple[str, ...], what: str) -> tuple[str, ...]:
    """``value`` unchanged when every code is a region libphonenumber knows, else ValueError."""
    import phonenumbers

    unknown = sorted(set(value) - phonenumbers.SUPPORTED_REGIONS)
    if unknown:
        raise ValueError(f"unknown {what} {unknown}")
    return value


def _no_blank(values: tuple[str, ...]) -> tuple[str, ...]:
    for value in values:
        if not value.strip() or value != value.strip():
            raise ValueError("an entry is empty or has white space at an edge")
    return tuple(dict.fromkeys(values))


# The word-list keys that every language may hold and that ``xx`` joins (``titles`` and
# ``countries`` are each handled on their own).
_WORD_LISTS = (
    "name_fields", "patronymic_endings", "place_words", "venue_heads", "venue_prefixes",
    "firm_suffixes", "institution_words", "eponym_heads", "eponym_possessive_heads",
    "eponym_prefixes", "eponym_finding_heads", "eponym_findings", "street_words",
    "street_endings", "street_connectors", "house_words", "unit_words", "address_fields",
    "phone_cues", "email_cues", "id_cues", "secret_cues", "birth_cues", "email_at",
    "email_dot", "months",
)  # fmt: skip


class LanguageRules(BaseModel):
    """One language's rule data. See the YAML file's header for each key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str = ""
    name: str = Field(min_length=1)
    family: str | None = Field(default=None, min_length=1)
    latin_script: str | None = Field(default=None, min_length=1)
    countries: tuple[str, ...] = ()
    gov_id_countries: tuple[str, ...] = ()
    titles: tuple[str, ...] = ()
    name_fields: tuple[str, ...] = ()
    patronymic_endings: tuple[str, ...] = ()
    place_words: tuple[str, ...] = ()
    venue_heads: tuple[str, ...] = ()
    venue_prefixes: tuple[str, ...] = ()
    firm_suffixes: tuple[str, ...] = ()
    institution_words: tuple[str, ...] = ()
    eponym_heads: tuple[str, ...] = ()
    eponym_possessive_heads: tuple[str, ...] = ()
    eponym_prefixes: tuple[str, ...] = ()
    eponym_finding_heads: tuple[str, ...] = ()
    eponym_findings: tuple[str, ...] = ()
    street_words: tuple[str, ...] = ()
    street_endings: tuple[str, ...] = ()
    street_connectors: tuple[str, ...] = ()
    house_words: tuple[str, ...] = ()
    unit_words: tuple[str, ...] = ()
    address_fields: tuple[str, ...] = ()
    phone_cues: tuple[str, ...] = ()
    email_cues: tuple[str, ...] = ()
    id_cues: tuple[str, ...] = ()
    secret_cues: tuple[str, ...] = ()
    birth_cues: tuple[str, ...] = ()
    email_at: tuple[str, ...] = ()
    email_dot: tuple[str, ...] = ()
    months: tuple[str, ...] = ()
    date_order: Literal["DMY", "YMD"] = "DMY"

    @field_validator("titles", *_WORD_LISTS)
    @classmethod
    def _clean_words(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _no_blank(value)

    @field_validator("latin_script")
    @classmethod
    def _known_transliteration(cls, value: str | None) -> str | None:
        return None if value is None else checked_scheme(value)

    @field_validator("countries")
    @classmethod
    def _known_regions(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return known_regions(value, "phone regions")

    @field_validator("gov_id_countries")
    @classmethod
    def _known_id_countries(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        # Only that each is a country: whether a national-id rule exists for it is the
        # detectors' to say (a floor above this one), and they refuse one they lack when the
        # language's defaults reach them (tests/test_languages.py checks the shipped table).
        return known_regions(value, "national-id countries")


class LanguageTable(BaseModel):
    """The whole file: a version and the languages by spaCy code."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str = Field(min_length=1)
    languages: dict[str, LanguageRules]

    @field_validator("languages")
    @classmethod
    def _codes(cls, value: dict[str, LanguageRules]) -> dict[str, LanguageRules]:
        if MIXED in value:
            raise ValueError(f"{MIXED!r} is computed from the others; do not write it")
        for code in value:
            if not (2 <= len(code) <= 3 and code.isascii() and code.islower()):
                raise ValueError("a language code is two or three lower-case letters")
        return {code: rules.model_copy(update={"code": code}) for code, rules in value.items()}

    @property
    def codes(self) -> tuple[str, ...]:
        """The supported codes, ``xx`` included, sorted."""
        return tuple(sorted([*self.languages, MIXED]))

    def get(self, code: str) -> LanguageRules:
        """The rules for ``code``; ``xx`` is the union (see the module docstring).

        Raises:
            UnknownLanguage: ``code`` has no data.
        """
        if code == MIXED:
            return mixed_rules(self)
        if code not in self.languages:
            raise UnknownLanguage(code, self.codes)
        return self.languages[code]


def _union(table: LanguageTable, field: str) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(v for rules in table.languages.values() for v in getattr(rules, field))
    )


def _unambiguous_title(title: str) -> bool:
    letters = [c for c in title if c.isalpha()]
    return (title.endswith(".") and len(letters) >= 2) or any(not c.isascii() for c in letters)


def _english_word(word: str) -> bool:
    """Whether a street word is also a common English word ("via", "place", "al." of "et
    al."): in text of unknown language it would open a street in English prose."""
    from wordfreq import zipf_frequency

    letters = word.rstrip("./")
    return (
        len(letters) > 1
        and letters.isalpha()
        and zipf_frequency(letters, "en") >= ENGLISH_WORD_ZIPF
    )


def mixed_rules(table: LanguageTable) -> LanguageRules:
    """``xx``: every language's cues and regions, unambiguous titles, no id defaults."""
    merged = {field: _union(table, field) for field in ("countries", *_WORD_LISTS)}
    merged["street_words"] = tuple(w for w in merged["street_words"] if not _english_word(w))
    titles = tuple(t for t in _union(table, "titles") if _unambiguous_title(t))
    return LanguageRules(code=MIXED, name="mixed or unknown", titles=titles, **merged)


@lru_cache(maxsize=4)
def _load_cached(path: str) -> LanguageTable:
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise ConfigError(f"cannot read the language data: {type(err).__name__}") from None
    try:
        return LanguageTable.model_validate(raw)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc']))}: {e['msg']}"
            for e in err.errors(include_input=False, include_url=False)
        )
        raise ConfigError(f"invalid language data: {problems}") from None


def load_languages(path: str | Path | None = None) -> LanguageTable:
    """The language table: the shipped file, or ``path``.

    Raises:
        ConfigError: the file cannot be read or fails validation (locations only).
    """
    if path is None:
        name = f"data/languages-{DEFAULT_LANGUAGES_VERSION}.yaml"
        path = str(resources.files("spacy_pii") / name)
    return _load_cached(str(path))


def language_rules(code: str) -> LanguageRules:
    """The shipped rules for ``code`` (``xx`` included).

    Raises:
        UnknownLanguage: no data for ``code``.
    """
    return load_languages().get(code)


def rules_if_known(code: str | None) -> LanguageRules | None:
    """The shipped rules for ``code``, or ``None`` for no code or one without data: for
    readers to whom a language without data simply has no words."""
    if code is None:
        return None
    try:
        return language_rules(code)
    except UnknownLanguage:
        return None


def every_title() -> frozenset[str]:
    """Every shipped language's forms of address, ambiguous ones too, as written and with a
    capital first letter, without a final full stop ("de heer", "De heer", "Mme", "On"):
    enough to keep a span after one, where ``xx``'s titles are for proposing a name and so
    hold only the unambiguous ones."""
    forms = set()
    for title in _union(load_languages(), "titles"):
        bare = title.rstrip(".")
        forms.update({bare, bare[:1].upper() + bare[1:]})
    return frozenset(forms - {""})


def language_families() -> dict[str, tuple[str, ...]]:
    """The shipped languages by family (``{"Romance": ("es", "fr", ...)}``), sorted."""
    families: dict[str, list[str]] = {}
    for code, rules in sorted(load_languages().languages.items()):
        if rules.family is not None:
            families.setdefault(rules.family, []).append(code)
    return {family: tuple(codes) for family, codes in sorted(families.items())}


def supported_languages() -> tuple[str, ...]:
    """Every code :func:`language_rules` accepts, sorted."""
    return load_languages().codes
