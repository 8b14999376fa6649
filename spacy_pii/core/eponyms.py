"""Eponyms: a sign, test, disease or device named after a person is no name.

Clinical text names findings, procedures and devices after the people who described them:
"Tinel's sign", "Lyme disease", "Foley catheter", "signo de Trousseau", "maladie de
Parkinson". A name model sees a surname and proposes a name; masked, the note loses its
finding and reads as if a person stood there. Two forms, read from the language's rule data
(``eponym_heads``, ``eponym_possessive_heads``, ``eponym_prefixes``, ``eponym_finding_heads``
and ``eponym_findings`` in ``spacy_pii/data/languages-*.yaml``):

* a name of one word followed by a head word ("Lyme disease", "Western blot"), or by a
  possessive and a possessive head ("Tinel's sign", "Graves' disease");
* a surname right after a prefix phrase, perhaps after initials ("signo de Trousseau",
  "Morbus Crohn"); a name of two words there is a person's ("síndrome de Juan García");
* a name of one word before a finding head ("sign", "maneuver") that ends its clause with the
  finding read out after the head or just before the name ("Murphy sign neg.", "positive
  Homan sign."), as an examination is written; "have Rodriguez sign the form" and "Garcia
  sign absent a court order" read out nothing, and "sign-out" is no head.

Only words that no person "has" in ordinary speech are heads and prefixes: "Trump's test",
"Beckham's fracture" and "la maladie de Mitterrand" are about people. An organisation or a
place is judged only before a head in lower case ("the England Test captain" is a team).

A person's test or disease is written the same way ("Emma's tumour", "Mr. Shaw's test"), and
masking it matters most there, so neither form applies to a common given name (one that the
name tables shipped with the span ranker count for :data:`GIVEN_NAME_MIN_LOG_BIRTHS` or more
births, compared without accents: "Zoë", "María"), nor where a form of address, a word for
the patient or a given name stands just before the name ("Mr. Shaw", "Patient Jones", "John
Shaw's test" where only "Shaw" was proposed), nor to a span that opens with a form of
address ("M. Dupont").

What it guarantees: only name types (:data:`~spacy_pii.core.conventions.NAME_TYPES`) are
judged; beyond the span itself, each judgement reads a bounded window on either side, so its
cost does not grow with the text.

Where the merge runs it (``pii_merge``'s ``drop_eponyms``), it drops such candidates before
the resolution, and propagation may still mark the word where the document names the
person confidently elsewhere ("Mr. John Shaw ... Shaw's test").

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .conventions import HONORIFICS, NAME_TYPES
from .languages import rules_if_known
from .name_evidence import shipped_tables

# 10,000 births in the US name tables (log10): "Emma", "Juan", "Pierre" and "Addison" are
# given names at or over it; "Murphy" (3.9), "Bell" (3.4) and the eponyms' surnames are not.
GIVEN_NAME_MIN_LOG_BIRTHS = 4.0
# Words for the person a note is about, in the languages with eponym data: a name after one
# is that person's ("Patient Jones's murmur").
PATIENT_WORDS: frozenset[str] = frozenset(
    {"patient", "pt", "paciente", "patiente", "paziente", "patiënt", "client", "resident"}
)
# After the name: a possessive (or a bare apostrophe after an s), a short gap, one word. A
# head stands within a few characters of the name, so the window is short.
_HEAD_AFTER = re.compile(r"(['’][sS]|['’])?[ \t\u00a0]{1,4}([^\W\d_]{1,40})(?!\w)")
_HEAD_WINDOW = 48
# After the name, the finding head; after the head, each finding read out: a short gap and
# one word, not the first half of a hyphenated one ("sign-out").
_WORD_AFTER = re.compile(r"[ \t\u00a0]{1,4}([^\W\d_]{1,20})(?![\w-])")
# Findings read out after a finding head ("neg bilat"); a longer run is no examination.
_MAX_FINDINGS = 3
# What ends the clause after the findings: a mark, a line's end or the text's ("Murphy sign
# neg.", "Homan sign neg bilat, SCDs on"). A number goes on with the verb "sign".
_CLAUSE_END = re.compile(r"[ \t\u00a0]{0,4}(?:[.,;:()\[\]\n\r]|\Z)")
# Before the name: the finding read out ("positive Homan sign."), one word.
_FINDING_BEFORE = re.compile(r"([^\W\d_]{1,20})[ \t\u00a0]{1,4}\Z")
# Before the name: one word (a form of address, "Patient", a given name), then a short gap.
_WORD_BEFORE = re.compile(r"([^\W\d_][^\s]{0,30})\s{1,4}$")
_WORD_WINDOW = 36
# Before the name: the gap after a prefix phrase; the longest prefix is about 20 characters.
_GAP_BEFORE = re.compile(r"(?<![ \t\u00a0])[ \t\u00a0]{1,4}\Z")
_PREFIX_WINDOW = 64
# A surname, perhaps after up to three initials: "Trousseau", "T. Millin", "J.-M. Charcot".
_SURNAME = re.compile(r"(?:[^\W\d_][.-]{1,2}\s?){0,3}[^\W\d_][\w'’-]*")


@dataclass(frozen=True)
class EponymWords:
    """One language's eponym vocabulary, case-folded (see the module docstring)."""

    heads: frozenset[str] = frozenset()
    possessive_heads: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    finding_heads: frozenset[str] = frozenset()
    findings: frozenset[str] = frozenset()
    # Forms of address and words for the patient; common given names.
    before_a_person: frozenset[str] = frozenset()
    given_names: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        heads: Sequence[str],
        possessive_heads: Sequence[str],
        prefixes: Sequence[str],
        titles: Sequence[str] = (),
        given_names: Sequence[str] = (),
        finding_heads: Sequence[str] = (),
        findings: Sequence[str] = (),
    ) -> EponymWords:
        """The vocabulary from the words as the language data writes them; ``titles`` are
        the language's forms of address, beside the English honorifics and
        :data:`PATIENT_WORDS`."""
        return cls(
            heads=frozenset(w.casefold() for w in heads),
            possessive_heads=frozenset(w.casefold() for w in possessive_heads),
            prefixes=tuple(sorted({" ".join(p.casefold().split()) for p in prefixes})),
            finding_heads=frozenset(w.casefold() for w in finding_heads),
            findings=frozenset(w.casefold() for w in findings),
            before_a_person=frozenset(_word_key(t) for t in titles) | HONORIFICS | PATIENT_WORDS,
            given_names=frozenset(_bare(n) for n in given_names),
        )

    def __bool__(self) -> bool:
        return bool(self.heads or self.possessive_heads or self.prefixes or self.finding_heads)


def _word_key(word: str) -> str:
    return word.casefold().rstrip(".")


def _bare(word: str) -> str:
    """``word`` case-folded and without accents, as the US name tables write names."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def is_eponym(text: str, start: int, end: int, label: str, words: EponymWords) -> bool:
    """Whether ``text[start:end]``, proposed as a name of type ``label``, names a sign,
    test, disease or device (module docstring)."""
    if label not in NAME_TYPES or not words or not 0 <= start < end <= len(text):
        return False
    span = text[start:end]
    parts = span.split()
    if not parts:
        return False
    # The windows first: most names stand before no head and after no prefix.
    named_so = _prefix_precedes(text, span, start, words) or (
        (
            _head_follows(text, span, end, label, words)
            or _finding_head_follows(text, span, start, end, words)
        )
        and not _person_before(text, start, words)
    )
    return (
        named_so
        and _bare(parts[-1].strip(".,;:'’")) not in words.given_names
        and _word_key(parts[0]) not in words.before_a_person
    )


def _person_before(text: str, start: int, words: EponymWords) -> bool:
    """Whether a form of address, a word for the patient or a given name stands just
    before ``start``."""
    before = _WORD_BEFORE.search(text, max(0, start - _WORD_WINDOW), start)
    if before is None:
        return False
    key = _word_key(before.group(1))
    return key in words.before_a_person or _bare(key) in words.given_names


def _head_follows(text: str, span: str, end: int, label: str, words: EponymWords) -> bool:
    if any(ch.isspace() for ch in span):
        return False
    after = _HEAD_AFTER.match(text, end, min(len(text), end + _HEAD_WINDOW))
    if after is None:
        return False
    head = after.group(2)
    if label != "PERSON" and not head.islower():
        return False
    return head.casefold() in (words.possessive_heads if after.group(1) else words.heads)


def _finding_head_follows(text: str, span: str, start: int, end: int, words: EponymWords) -> bool:
    """Whether a finding head follows the one-word name (no possessive) and ends the clause
    with its finding read out: findings and nothing else after the head up to a mark or the
    line's end ("Murphy sign neg.", "Homan sign neg bilat, SCDs on"), or a
    finding just before the name and the clause's end right after the head ("positive Homan
    sign."). Anything else after them makes "sign" a verb again ("Garcia sign absent a court
    order")."""
    if not words.finding_heads or any(ch.isspace() for ch in span):
        return False
    head = _WORD_AFTER.match(text, end, min(len(text), end + _HEAD_WINDOW))
    if head is None or head.group(1).casefold() not in words.finding_heads:
        return False
    findings_after = 0
    position = head.end()
    for _ in range(_MAX_FINDINGS + 1):
        after = _WORD_AFTER.match(text, position, min(len(text), position + _HEAD_WINDOW))
        if after is None:
            break
        if after.group(1).casefold() not in words.findings or findings_after == _MAX_FINDINGS:
            return False
        findings_after += 1
        position = after.end()
    if not _CLAUSE_END.match(text, position):
        return False
    if findings_after:
        return True
    before = _FINDING_BEFORE.search(text, max(0, start - _WORD_WINDOW), start)
    return before is not None and before.group(1).casefold() in words.findings


def _prefix_precedes(text: str, span: str, start: int, words: EponymWords) -> bool:
    if not words.prefixes or _SURNAME.fullmatch(span) is None:
        return False
    window_start = max(0, start - _PREFIX_WINDOW)
    gap = _GAP_BEFORE.search(text, window_start, start)
    if gap is None:
        return False
    before = " ".join(
        unicodedata.normalize("NFC", text[window_start : gap.start()]).casefold().split()
    )
    for prefix in words.prefixes:
        if before.endswith(prefix):
            at = len(before) - len(prefix)
            # The prefix is whole words: no letter or digit of a word stands just before it,
            # and the window did not cut it (a prefix that fills the window opens the text).
            if (at == 0 and window_start == 0) or (at > 0 and not _in_word(before[at - 1])):
                return True
    return False


def _in_word(char: str) -> bool:
    # A combining mark (an accent written apart) belongs to the word before it.
    return char.isalnum() or char == "_" or unicodedata.category(char).startswith("M")


@lru_cache(maxsize=64)
def eponym_words(language: str | None) -> EponymWords:
    """The eponym vocabulary of ``language``'s rule data (``xx``: every language's); none
    for a language without data or unknown to it. The given names are the English tables'
    (US births, which count many names of other languages too)."""
    rules = rules_if_known(language)
    if rules is None or not (
        rules.eponym_heads
        or rules.eponym_possessive_heads
        or rules.eponym_prefixes
        or rules.eponym_finding_heads
    ):
        return EponymWords()
    tables = shipped_tables("en")
    given = [n for n, births in tables.first_names.items() if births >= GIVEN_NAME_MIN_LOG_BIRTHS]
    return EponymWords.of(
        rules.eponym_heads,
        rules.eponym_possessive_heads,
        rules.eponym_prefixes,
        rules.titles,
        given,
        rules.eponym_finding_heads,
        rules.eponym_findings,
    )
