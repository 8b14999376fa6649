"""Column-header cues: what a header says a column holds, read from versioned data.

The cue words live in ``spacy_pii/data/table-headers-<version>.yaml`` (English and the
languages of Europe), validated here with pydantic, so that adding a language is a data
change, never an if-chain. See that file for how a header is normalised and matched.

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ..core.taxonomy import load_taxonomy
from ..errors import ConfigError, settings_error

DEFAULT_VERSION = "table-headers-2026.12"
# A header longer than this is not a name a person gave a column; it is not looked up.
MAX_HEADER_CHARS = 200

Strength = Literal["strong", "weak"]
Role = Literal["key", "free_text"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")


class TypeCues(BaseModel):
    """The cue terms of one public type, per language, and the shape its cells fit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    shape: str
    strong: dict[str, list[str]] = {}
    weak: dict[str, list[str]] = {}

    @field_validator("shape")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as err:
            raise ValueError(f"shape does not compile: {err.msg}") from None
        return value


class RoleCues(BaseModel):
    """Terms that give a column a role: a whole-header match, or the header's last token."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    exact: list[str]
    suffixes: list[str] = []


class HeaderLexicon(BaseModel):
    """The validated header file: a version, cues per public type, and the two roles."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str
    types: dict[str, TypeCues]
    roles: dict[Role, RoleCues]

    @field_validator("types")
    @classmethod
    def _public_types(cls, value: dict[str, TypeCues]) -> dict[str, TypeCues]:
        known = set(load_taxonomy().types)
        unknown = sorted(set(value) - known)
        if unknown:
            raise ValueError(f"header cues name types the taxonomy lacks: {unknown}")
        for type_name, cues in value.items():
            for strength in (cues.strong, cues.weak):
                for terms in strength.values():
                    bad = [term for term in terms if normalise_header(term) != term]
                    if bad:
                        raise ValueError(f"{type_name} terms are not normalised: {bad}")
        return value


@dataclass(frozen=True, slots=True)
class HeaderCue:
    """What a header says. ``type`` is a public type or ``None``; ``role`` is ``key``,
    ``free_text`` or ``None``; ``term`` and ``language`` name the lexicon entry matched."""

    type: str | None = None
    strength: Strength | None = None
    role: Role | None = None
    term: str | None = None
    language: str | None = None
    exact: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "type": self.type,
            "strength": self.strength,
            "role": self.role,
            "term": self.term,
            "language": self.language,
            "exact": self.exact,
        }


NO_CUE = HeaderCue()


def normalise_header(header: str) -> str:
    """``"E-Mail Adresse"`` -> ``"e_mail_adresse"``, ``"firstName"`` -> ``"first_name"``."""
    stripped = "".join(
        char
        for char in unicodedata.normalize("NFKD", header[:MAX_HEADER_CHARS])
        if not unicodedata.combining(char)
    )
    stripped = stripped.replace("ß", "ss")
    split = _CAMEL.sub("_", stripped).lower()
    return _SEPARATORS.sub("_", split).strip("_")


@dataclass(frozen=True, slots=True)
class _Term:
    tokens: tuple[str, ...]
    type: str
    strength: Strength
    language: str


class HeaderMatcher:
    """Looks a header up in a :class:`HeaderLexicon`; see the data file for the order."""

    def __init__(self, lexicon: HeaderLexicon) -> None:
        self.lexicon = lexicon
        self.version = lexicon.version
        self.shapes = {name: re.compile(cues.shape) for name, cues in lexicon.types.items()}
        self._terms: list[_Term] = []
        for type_name, cues in lexicon.types.items():
            for strength, table in (("strong", cues.strong), ("weak", cues.weak)):
                for language, terms in table.items():
                    for term in terms:
                        self._terms.append(
                            _Term(tuple(term.split("_")), type_name, strength, language)  # type: ignore[arg-type]
                        )
        # Longest first, strong before weak: the first contiguous match is the best one.
        self._terms.sort(key=lambda t: (-len(t.tokens), t.strength != "strong"))
        self._exact = {}
        for item in reversed(self._terms):
            self._exact["_".join(item.tokens)] = item
        for item in self._terms:
            self._exact.setdefault("_".join(item.tokens), item)
        self._role_exact = {
            term: role for role, cues in lexicon.roles.items() for term in cues.exact
        }
        self._role_suffix = {
            term: role for role, cues in lexicon.roles.items() for term in cues.suffixes
        }

    def cue(self, header: str) -> HeaderCue:
        """The cue for ``header``; :data:`NO_CUE` when nothing in the lexicon matches."""
        key = normalise_header(header)
        if not key:
            return NO_CUE
        item = self._exact.get(key)
        if item is not None and item.strength == "strong":
            return HeaderCue(item.type, item.strength, None, key, item.language, True)
        if key in self._role_exact:
            return HeaderCue(role=self._role_exact[key], term=key, exact=True)
        if item is not None:
            return HeaderCue(item.type, item.strength, None, key, item.language, True)
        tokens = tuple(key.split("_"))
        strong = self._part(tokens, "strong")
        if strong is not None:
            return HeaderCue(strong.type, "strong", None, "_".join(strong.tokens), strong.language)
        if len(tokens) > 1 and tokens[-1] in self._role_suffix:
            return HeaderCue(role=self._role_suffix[tokens[-1]], term=tokens[-1])
        weak = self._part(tokens, "weak")
        if weak is not None:
            return HeaderCue(weak.type, "weak", None, "_".join(weak.tokens), weak.language)
        return NO_CUE

    def _part(self, tokens: tuple[str, ...], strength: Strength) -> _Term | None:
        for item in self._terms:
            if item.strength != strength or len(item.tokens) > len(tokens):
                continue
            width = len(item.tokens)
            for start in range(len(tokens) - width + 1):
                if tokens[start : start + width] == item.tokens:
                    return item
        return None


def load_lexicon(version: str = DEFAULT_VERSION) -> HeaderLexicon:
    """Read and validate a shipped header file by its version string."""
    try:
        text = resources.files("spacy_pii.data").joinpath(f"{version}.yaml").read_text("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no header lexicon {version!r} is shipped") from None
    return parse_lexicon(yaml.safe_load(text))


def parse_lexicon(data: object) -> HeaderLexicon:
    """Validate a header lexicon given as plain data (a user's own file, say)."""
    try:
        return HeaderLexicon.model_validate(data)
    except ValidationError as err:
        raise settings_error("header lexicon", err.errors()) from None


@lru_cache(maxsize=4)
def header_matcher(version: str = DEFAULT_VERSION) -> HeaderMatcher:
    """The matcher of a shipped lexicon, built once per process."""
    return HeaderMatcher(load_lexicon(version))
