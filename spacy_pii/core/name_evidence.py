"""Lexical evidence for or against a candidate name, as numbers a ranker can weigh.

A model that has never seen a word puts a name wherever one would fit. These features say
what the word is: how common it is in the language (``wordfreq``'s Zipf scale, case-folded,
so it is read together with the token's casing and its place in the sentence: a capitalised
common word at a sentence start says little), whether it is a known first name or surname,
clinical shorthand or a drug, what shape it has, and how the whole document is cased (in
text written all in capitals or all in lower case, shape says little).

Pure Python over strings and offsets: no spaCy. Every lookup is cached, and a document's
casing is computed once, so the cost is linear in the text. The tables are per language
(:class:`NameTables`); the word frequencies come from ``wordfreq`` for any language it
covers, and a language without tables gets zeros for the table features.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from ..errors import ConfigError
from .conventions import opens_sentence, words_before
from .languages import rules_if_known
from .latin_forms import latin_form

# Zipf 0 is "not seen"; wordfreq's scale tops out near 8 ("the" is 7.7 in English).
ZIPF_CEILING = 8.0
# Under this Zipf frequency a word is rare: with no name table holding it, it is unknown.
RARE_ZIPF = 2.5
# log10 counts of the largest names (James: 5.2 M SSA births; Smith: 2.4 M in 2000).
LOG_COUNT_CEILING = 7.0
# A document is uniformly cased, so that a word's shape no longer tells a name from a
# common word, when this share of its letters is in capitals, or when at most
# ``LOWER_CASE_CAPITALS`` of its words (two letters or more) start with a capital. The share
# of letters alone cannot tell lower-case text from prose: ordinary English prose has 95 % of
# its letters in lower case.
UNIFORM_CASE_SHARE = 0.9
LOWER_CASE_CAPITALS = 0.05
HONORIFICS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "miss",
        "mx",
        "dr",
        "prof",
        "sir",
        "dame",
        "lord",
        "lady",
        "judge",
        "justice",
        "rev",
        "fr",
        "sr",
        "st",
        "mme",
        "mlle",
        "herr",
        "frau",
        "sen",
        "rep",
        "gov",
        "pres",
        "capt",
        "col",
        "gen",
        "lt",
        "sgt",
        "officer",
        "nurse",
        "doctor",
        "uncle",
        "aunt",
    ]
)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)
_TOKEN = re.compile(r"\S+")
_LONG_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
_SYMBOLS = frozenset("_/\\@#=<>{}[]|~$%^*+:;`")
# Endings of the Greek and Latin words of medicine in their English spelling ("euvolemia",
# "colostomy", "arthralgias", "neutropenic"); some are the same in other languages ("-osis",
# "-algia", "-penia"), most are not ("-ektomie"). "-itis" and a bare "-emia" are left out:
# Lithuanian and Greek surnames end so ("Petraitis", "Politis"), and given names ("Jeremias",
# "Eufemia").
_MEDICAL_ENDING = re.compile(
    r"(?:(?:vol|glyc|kal|natr|lipid|ur|ox|an|bacter|vir|calc|phosphat|magnes|isch|sept)a?emi"
    r"(?:a|as|c)|ectom(?:y|ies)|ostom(?:y|ies)|otom(?:y|ies)|oscop(?:y|ies|ic)|plast(?:y|ies)"
    r"|penias?|penic|algias?|osis|oses|path(?:y|ies|ic)|megal(?:y|ies)|rrh(?:ea|oea)s?"
    r"|rrhag(?:e|es|ic)|plegi(?:a|as|c)|paresis|troph(?:y|ic)|cytos(?:is|es)|syncopes?"
    r"|chezias?|pheresis)$"
)
# A token with a symbol of code, a digit, or an inner capital (``getUserById``, ``v2.4.1``).
_CODE_TOKEN = re.compile(r"[_/\\@#=<>{}\[\]|~$%^*+`;:()]|\d|[a-z][A-Z]")
# A span glued to code (``_glued_to_code``): a symbol after two word characters (not the "w/"
# and "c/o" of clinical shorthand), a module's dotted name, a call or an attribute after it.
_CODE_BEFORE = re.compile(r"\w\w[=_/\\]\Z")
_MODULE_BEFORE = re.compile(r"[a-z0-9_]{2}\.\Z")
_CODE_AFTER = re.compile(r"[(=_]|\.[a-z_]")
# Languages whose words wordfreq files under another code: Croatian and Serbian (Latin
# script) under Serbo-Croatian, asked for directly so that it does not warn on every run.
_WORDFREQ_NEAREST = {"hr": "sh", "sr": "sh", "bs": "sh"}
# A detector's score is read to four decimals. The same model on another machine gave scores
# that differ in the eighth decimal, and the ranker's trees fitted on them moved the same
# candidates' probabilities by up to 0.12 (configs/README.md, "Scores read to four decimals
# and five bagged tree ensembles"); rounded, the fit is the same on both.
SCORE_DECIMALS = 4

FEATURE_NAMES: tuple[str, ...] = (
    "bias",
    "score",
    "score_logit",
    "model_score",
    "from_peer",
    "other_source_same_type",
    "other_source_other_type",
    "n_words",
    "log_chars",
    "zipf_min",
    "zipf_max",
    "zipf_mean",
    "unknown_word_share",
    "known_non_name_share",
    "first_name_share",
    "surname_share",
    "first_name_strength",
    "surname_strength",
    "shorthand_share",
    "drug_share",
    "drug_in_shorthand",
    "medical_suffix_share",
    "software_share",
    "software_in_code",
    "place_share",
    "place_strength",
    "all_caps",
    "title_share",
    "lower_share",
    "camel_case",
    "has_digit",
    "has_symbol",
    "single_letter_share",
    "initial_share",
    "sentence_start",
    "common_word_at_start",
    "honorific_before",
    "place_word_before",
    "address_word_before",
    "determiner_before",
    "speech_verb_after",
    "possessive_after",
    "doc_upper_share",
    "doc_uniform_case",
    "doc_code_share",
    "doc_shorthand_share",
    "title_in_code",
    "glued_to_code",
    "title_in_shorthand",
    "title_in_mixed_case",
    "lower_in_mixed_case",
    "common_title_word",
    "label_org",
    "label_location",
)


@dataclass(frozen=True)
class NameTables:
    """Per-language lexical tables: names and places with log10 counts (of people, of
    inhabitants), shorthand, drug and software names.

    ``shorthand`` keeps the case it is written in (``NPO``, ``q4h``); it is matched exactly,
    and case-folded only where the document's casing is uniform (``known_non_name_share``,
    which never counts a name of the tables, reads it in any case). ``software`` holds
    case-folded package names (``jekyll``, ``lodash``): some are surnames too, so they are
    evidence that the ranker weighs with the document's share of code, not a stop list.
    """

    language: str
    first_names: Mapping[str, float] = field(default_factory=dict)
    surnames: Mapping[str, float] = field(default_factory=dict)
    shorthand: frozenset[str] = frozenset()
    drugs: frozenset[str] = frozenset()
    software: frozenset[str] = frozenset()
    places: Mapping[str, float] = field(default_factory=dict)
    place_words: frozenset[str] = frozenset()
    determiners: frozenset[str] = frozenset()
    speech_verbs: frozenset[str] = frozenset()
    shorthand_folded: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "shorthand_folded", frozenset(s.casefold() for s in self.shorthand)
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NameTables:
        """Tables from their JSON form (``training/build_name_tables.py`` writes it)."""
        try:
            return cls(
                language=str(data["language"]),
                first_names={str(k): float(v) for k, v in data.get("first_names", {}).items()},
                surnames={str(k): float(v) for k, v in data.get("surnames", {}).items()},
                shorthand=frozenset(str(s) for s in data.get("shorthand", ())),
                drugs=frozenset(str(s) for s in data.get("drugs", ())),
                software=frozenset(str(s) for s in data.get("software", ())),
                places={str(k): float(v) for k, v in data.get("places", {}).items()},
                place_words=frozenset(str(s) for s in data.get("place_words", ())),
                determiners=frozenset(str(s) for s in data.get("determiners", ())),
                speech_verbs=frozenset(str(s) for s in data.get("speech_verbs", ())),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ConfigError(f"name tables: malformed data ({type(err).__name__})") from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "language": self.language,
            "first_names": dict(self.first_names),
            "surnames": dict(self.surnames),
            "shorthand": sorted(self.shorthand),
            "drugs": sorted(self.drugs),
            "software": sorted(self.software),
            "places": dict(self.places),
            "place_words": sorted(self.place_words),
            "determiners": sorted(self.determiners),
            "speech_verbs": sorted(self.speech_verbs),
        }


@lru_cache(maxsize=8)
def shipped_tables(language: str) -> NameTables:
    """The tables shipped in ``spacy_pii/data`` for ``language``; empty ones if none ship."""
    resource = resources.files("spacy_pii.data") / f"name_evidence_{language}.json.gz"
    if not resource.is_file():
        return NameTables(language=language)
    return NameTables.from_dict(json.loads(gzip.decompress(resource.read_bytes())))


@lru_cache(maxsize=64)
def has_word_frequencies(language: str) -> bool:
    """Whether ``wordfreq`` has a word list for ``language`` (``xx``, mixed text, has none)."""
    from wordfreq import available_languages

    return language in available_languages() or language in _WORDFREQ_NEAREST


@lru_cache(maxsize=200_000)
def zipf(word: str, language: str) -> float:
    """``wordfreq``'s Zipf frequency of ``word`` (case-folded by wordfreq), 0 when unseen or
    when ``wordfreq`` has no list for the language."""
    if not has_word_frequencies(language):
        return 0.0
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, _WORDFREQ_NEAREST.get(language, language)))


# The ``doc.user_data`` key under which a document of a multilingual corpus names its language
# (one ``xx`` vocabulary reads them all, so ``doc.lang_`` cannot say it).
LANGUAGE_KEY = "pii_lang"
# What a token encoder reads of each word: its Zipf frequency in the text's own language and
# in English (where English is not the text's language, it is the one most often mixed in),
# each on 0..1, and whether each list has never seen it. Tokens without a letter get zeros.
TOKEN_FREQUENCY_FEATURES: tuple[str, ...] = (
    "zipf_own",
    "zipf_english",
    "unseen_own",
    "unseen_english",
    "is_word",
)
_NO_WORD = (0.0,) * len(TOKEN_FREQUENCY_FEATURES)
# Longer tokens are read as unseen without a lookup: wordfreq's lists hold no words that long
# (their longest are about 40 letters, but for two joke compounds of 80 in German), and a
# hostile token of a million letters would otherwise be tokenised by wordfreq twice.
LONGEST_LISTED_WORD = 64


@lru_cache(maxsize=200_000)
def token_frequency_features(token: str, language: str) -> tuple[float, ...]:
    """:data:`TOKEN_FREQUENCY_FEATURES` of one token in a text of ``language``.

    A language that ``wordfreq`` does not cover (``xx``) reads 0 and "seen" for its own
    list, so its words are told apart by their English frequency alone.
    """
    if not any(ch.isalpha() for ch in token):
        return _NO_WORD
    listed = len(token) <= LONGEST_LISTED_WORD
    own = zipf(token, language) if listed and language != "en" else 0.0
    english = zipf(token, "en") if listed else 0.0
    own_listed = language != "en" and has_word_frequencies(language)
    return (
        own / ZIPF_CEILING,
        english / ZIPF_CEILING,
        1.0 if own_listed and own == 0.0 else 0.0,
        1.0 if english == 0.0 else 0.0,
        1.0,
    )


@dataclass(frozen=True)
class DocumentCasing:
    """How a document is written, computed once per document: its casing, and the share of
    its whitespace tokens that look like code (symbols, digits, inner capitals) or are
    clinical shorthand. In a log or a nursing note a capitalised word is rarely a name."""

    upper_share: float
    lower_share: float
    code_share: float = 0.0
    shorthand_share: float = 0.0
    capital_word_share: float = 1.0

    @property
    def uniform(self) -> bool:
        """Whether the text is written in capitals, or with at most one word in twenty
        capitalised, as lower-case text is (and prose without proper names), so that the case
        of a word tells nothing and shorthand is matched whatever its case ("NPO", "npo")."""
        return _uniform(self.upper_share, self.capital_word_share)

    @property
    def letters_in_one_case(self) -> bool:
        """Whether nine letters in ten share one case, as in text in capitals and in most
        prose. The ranker's casing inputs read this; reading them as :attr:`uniform`
        instead cost precision on literature and Wikipedia (``configs/README.md``)."""
        return max(self.upper_share, self.lower_share) >= UNIFORM_CASE_SHARE

    @classmethod
    def of(cls, text: str, tables: NameTables | None = None) -> DocumentCasing:
        upper = lower = 0
        for char in text:
            if char.isupper():
                upper += 1
            elif char.islower():
                lower += 1
        letters = upper + lower
        tokens = text.split()
        n = max(1, len(tokens))
        code = sum(1 for t in tokens if _CODE_TOKEN.search(t)) / n
        if not letters:
            return cls(0.0, 0.0, code)
        # Words of a script without case (Arabic, Hebrew, Chinese) say nothing of how the
        # text is cased; counting them as lower case would fold a Latin name among them.
        words = capitals = 0
        for match in _LONG_WORD.finditer(text):
            first = match.group()[0]
            if first.isupper():
                capitals += 1
                words += 1
            elif first.islower():
                words += 1
        capital_words = capitals / words if words else 1.0
        shorthand = 0
        if tables is not None and tables.shorthand:
            fold = _uniform(upper / letters, capital_words)
            shorthand = sum(1 for token in tokens if _is_shorthand(token, tables, fold))
        return cls(upper / letters, lower / letters, code, shorthand / n, capital_words)


def _uniform(upper_share: float, capital_word_share: float) -> bool:
    return upper_share >= UNIFORM_CASE_SHARE or capital_word_share <= LOWER_CASE_CAPITALS


def _is_shorthand(token: str, tables: NameTables, fold: bool) -> bool:
    """Whether a token is shorthand as written, or, with ``fold``, in any case."""
    stripped = token.strip(".,;:()[]")
    return stripped in tables.shorthand or (fold and stripped.casefold() in tables.shorthand_folded)


@dataclass(frozen=True)
class Candidate:
    """One span to weigh: where it is, what a detector said, and what other detectors said.

    ``other_types`` are the types that another detector gave to spans overlapping this one.
    """

    start: int
    end: int
    label: str
    score: float | None
    from_peer: bool
    other_types: frozenset[str] = frozenset()


def _word_before(text: str, start: int) -> str:
    # Only a short look-back is needed for an honorific ("Dr. ", "Mrs ") or a preposition,
    # which keeps the cost per candidate constant.
    window = text[max(0, start - 16) : start]
    words = _WORD.findall(window)
    return words[-1].casefold() if words else ""


def _word_after(text: str, end: int) -> str:
    words = _WORD.findall(text[end : end + 16])
    return words[0].casefold() if words else ""


@lru_cache(maxsize=64)
def address_words(language: str) -> frozenset[str]:
    """The language's words that make what follows part of a place's name ("Calle",
    "Avda.", "rue", "Hospital"): its rule data's ``place_words``, the same that keep a title
    cue out of "Calle del Dr. Esquerdo". A street named after a person is an address."""
    rules = rules_if_known(language)
    return frozenset() if rules is None else frozenset(rules.place_words)


@lru_cache(maxsize=64)
def _latin_script(language: str) -> str | None:
    rules = rules_if_known(language)
    return None if rules is None else rules.latin_script


def _table_words(folded: list[str], language: str) -> list[str]:
    """The words to look up in the name and place tables: for a language written in two
    alphabets, a Cyrillic word by its Latin form, the alphabet its tables are in."""
    scheme = _latin_script(language)
    if scheme is None:
        return folded
    return [latin_form(w, scheme) or w for w in folded]


def _address_word_before(text: str, start: int, words: frozenset[str]) -> bool:
    return bool(words) and any(word.lower() in words for word in words_before(text, start))


def _glued_to_code(text: str, start: int, end: int) -> bool:
    """Whether the span is part of a longer token of code: a value after ``=`` (``job=Kibana``),
    a path's or a module's part (``os.Path``), or a name called or reached into
    (``Mako(``, ``Session.execute_raw``)."""
    before = text[max(0, start - 12) : start]
    if _CODE_BEFORE.search(before):
        return True
    if _MODULE_BEFORE.search(before):
        return _word_before(text, start) not in HONORIFICS
    return bool(_CODE_AFTER.match(text, end, end + 2))


def _table_strength(value: float | None) -> float:
    return 0.0 if value is None else min(value, LOG_COUNT_CEILING) / LOG_COUNT_CEILING


def candidate_features(
    text: str,
    candidate: Candidate,
    casing: DocumentCasing,
    tables: NameTables,
    language: str | None = None,
) -> list[float]:
    """The features of one candidate, in the order of :data:`FEATURE_NAMES`.

    ``language`` is the text's, for the word frequencies; by default the tables'. Tables
    for ``xx`` (names of many languages) serve a text in any language.
    """
    span = text[candidate.start : candidate.end]
    words = _WORD.findall(span)
    tokens = _TOKEN.findall(span)
    language = language or tables.language
    folded = [w.casefold() for w in words]
    n_words = max(1, len(words))
    word_zipfs = [zipf(w, language) / ZIPF_CEILING for w in folded]
    zipfs = word_zipfs or [0.0]
    looked_up = _table_words(folded, language)
    first = [tables.first_names.get(w) for w in looked_up]
    last = [tables.surnames.get(w) for w in looked_up]
    unknown = sum(
        1
        for z, f, s in zip(word_zipfs, first, last, strict=True)
        if z < RARE_ZIPF / ZIPF_CEILING and f is None and s is None
    )
    # Words in no name table that the language uses often, or that are shorthand or a drug
    # ("Handoff", "Triage", "Lipid"). A span of such words alone is seldom a name, which no
    # single frequency or table input says. A rare word of shorthand ("PACU") is unknown and
    # known at once: taking it out of ``unknown`` cost the clinical set precision (measured,
    # configs/README.md). Shorthand counts here in any case, whatever the document's casing:
    # the case matters where a form is also a name ("Pat", "pat"), and a word of the name
    # tables never counts.
    known_non_names = sum(
        1
        for w, z, f, s in zip(folded, word_zipfs, first, last, strict=True)
        if f is None
        and s is None
        and (z >= RARE_ZIPF / ZIPF_CEILING or w in tables.shorthand_folded or w in tables.drugs)
    )
    one_case = casing.letters_in_one_case
    shorthand = sum(1 for token in tokens if _is_shorthand(token, tables, casing.uniform))
    drugs = sum(1 for w in folded if w in tables.drugs) / n_words
    # Six letters at least: the endings are three to six letters, and a word of medicine has a
    # stem before its ending ("anemia", "stasis" is not one).
    medical = sum(1 for w in folded if len(w) >= 6 and _MEDICAL_ENDING.search(w)) / n_words
    software = sum(1 for w in folded if w in tables.software) / n_words
    place_values = [tables.places.get(w) for w in looked_up]
    whole_place = tables.places.get(" ".join(looked_up))
    letters = [c for c in span if c.isalpha()]
    all_caps = 1.0 if len(letters) > 1 and all(c.isupper() for c in letters) else 0.0
    title = sum(1 for w in words if w[:1].isupper() and (len(w) == 1 or not w[1:].isupper()))
    lower = sum(1 for w in words if w[:1].islower())
    camel = any(re.search(r"[a-z][A-Z]", w) for w in words)
    singles = sum(1 for w in words if len(w) == 1)
    initials = sum(1 for t in tokens if re.fullmatch(r"[^\W\d_]\.", t))
    at_start = opens_sentence(text, candidate.start)
    title_share = title / n_words
    lower_share = lower / n_words
    mixed = 0.0 if one_case else 1.0
    zipf_max = max(zipfs)
    score = 0.0 if candidate.score is None else round(float(candidate.score), SCORE_DECIMALS)
    before = _word_before(text, candidate.start)
    after = text[candidate.end : candidate.end + 2]
    return [
        1.0,
        score,
        math.log(max(score, 1e-3) / max(1.0 - score, 1e-3)) / 7,
        0.0 if candidate.from_peer else score,
        1.0 if candidate.from_peer else 0.0,
        1.0 if candidate.label in candidate.other_types else 0.0,
        1.0 if candidate.other_types - {candidate.label} else 0.0,
        min(len(words), 6) / 6,
        min(len(span), 64) ** 0.5 / 8,
        min(zipfs),
        zipf_max,
        sum(zipfs) / len(zipfs),
        unknown / n_words,
        known_non_names / n_words,
        sum(1 for f in first if f is not None) / n_words,
        sum(1 for s in last if s is not None) / n_words,
        max(_table_strength(f) for f in first) if first else 0.0,
        max(_table_strength(s) for s in last) if last else 0.0,
        shorthand / max(1, len(tokens)),
        drugs,
        drugs * casing.shorthand_share,
        medical,
        software,
        software * casing.code_share,
        sum(1 for v in place_values if v is not None) / n_words,
        _table_strength(whole_place)
        if whole_place is not None
        else max((_table_strength(v) for v in place_values), default=0.0),
        all_caps,
        title_share,
        lower_share,
        1.0 if camel else 0.0,
        1.0 if any(c.isdigit() for c in span) else 0.0,
        1.0 if any(c in _SYMBOLS for c in span) else 0.0,
        singles / n_words,
        initials / max(1, len(tokens)),
        1.0 if at_start else 0.0,
        zipf_max if at_start else 0.0,
        1.0 if before in HONORIFICS else 0.0,
        1.0 if before in tables.place_words else 0.0,
        1.0 if _address_word_before(text, candidate.start, address_words(language)) else 0.0,
        1.0 if before in tables.determiners else 0.0,
        1.0 if _word_after(text, candidate.end) in tables.speech_verbs else 0.0,
        1.0 if after in ("'s", "’s") else 0.0,
        casing.upper_share,
        # doc_uniform_case: the share of letters in one case, which most prose also has
        # (DocumentCasing.letters_in_one_case), not DocumentCasing.uniform.
        1.0 if one_case else 0.0,
        casing.code_share,
        casing.shorthand_share,
        title_share * casing.code_share,
        1.0 if _glued_to_code(text, candidate.start, candidate.end) else 0.0,
        title_share * casing.shorthand_share,
        title_share * mixed,
        lower_share * mixed,
        zipf_max * title_share * mixed,
        1.0 if candidate.label == "ORG" else 0.0,
        1.0 if candidate.label == "LOCATION" else 0.0,
    ]


def document_features(
    text: str,
    candidates: Sequence[Candidate],
    tables: NameTables,
    language: str | None = None,
) -> list[list[float]]:
    """The features of every candidate of one document (its casing is computed once);
    ``language`` as for :func:`candidate_features`."""
    casing = DocumentCasing.of(text, tables)
    return [
        candidate_features(text, candidate, casing, tables, language) for candidate in candidates
    ]
