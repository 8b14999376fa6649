"""Eponyms: a sign, test, disease or device named after a person is no name.

Clinical text names findings, procedures and devices after the people who described them:
"Tinel's sign", "Lyme disease", "Foley catheter", "signo de Trousseau", "maladie de
Parkinson". A name model sees a surname and proposes a name; masked, the note loses its
finding and reads as if a person stood there. Two forms, read from the language's rule data
(``eponym_heads`` and ``eponym_prefixes`` in ``spacy_pii/data/languages-*.yaml``):

* a name of one word followed by a head word in any case ("Lyme disease", "Western blot"),
  or by a possessive and a head ("Tinel's sign", "Graves' disease"), where no form of
  address stands before the name ("Mr. Shaw's test" is a person's);
* a name of any length right after a prefix phrase ("signo de Trousseau", "técnica de
  T. Millin", "Morbus Crohn").

What it guarantees: only name types (:data:`~spacy_pii.core.conventions.NAME_TYPES`) are
judged; each judgement reads a bounded window on either side of the span, so the cost per
span is constant.

Where the merge runs it (``pii_merge``'s ``drop_eponyms``), it drops such candidates before
the resolution, and propagation may still mark the word where the document names the
person confidently elsewhere ("Mr. John Shaw ... Shaw's test"): a patient who shares an
eponym's form is not left bare by this rule alone.

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .conventions import HONORIFICS, NAME_TYPES
from .languages import UnknownLanguage, language_rules

# After the name: a possessive (or a bare apostrophe after an s), a short gap, one word.
_HEAD_AFTER = re.compile(r"(?:['’]s|['’])?[ \t]{1,4}([^\W\d_]{1,40})(?!\w)")
# Before the name: the words before it, then a short gap; the window is bounded.
_GAP_BEFORE = re.compile(r"[ \t]{1,4}$")
_WORD_BEFORE = re.compile(r"([^\W\d_][^\s]{0,30})[ \t]{1,4}$")
_PREFIX_WINDOW = 64


@dataclass(frozen=True)
class EponymWords:
    """One language's eponym vocabulary, case-folded (see the module docstring)."""

    heads: frozenset[str] = frozenset()
    prefixes: tuple[str, ...] = ()
    titles: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls, heads: Sequence[str], prefixes: Sequence[str], titles: Sequence[str] = ()
    ) -> EponymWords:
        """The vocabulary from the words as the language data writes them; ``titles`` are
        the language's forms of address, beside the English honorifics."""
        return cls(
            heads=frozenset(w.casefold() for w in heads),
            prefixes=tuple(sorted({" ".join(p.casefold().split()) for p in prefixes})),
            titles=frozenset(_title_key(t) for t in titles) | HONORIFICS,
        )

    def __bool__(self) -> bool:
        return bool(self.heads or self.prefixes)


def _title_key(title: str) -> str:
    return title.casefold().rstrip(".")


def is_eponym(text: str, start: int, end: int, label: str, words: EponymWords) -> bool:
    """Whether ``text[start:end]``, proposed as a name of type ``label``, names a sign,
    test, disease or device (module docstring)."""
    if label not in NAME_TYPES or not words:
        return False
    return _head_follows(text, start, end, words) or _prefix_precedes(text, start, words)


def _head_follows(text: str, start: int, end: int, words: EponymWords) -> bool:
    if not words.heads or any(ch.isspace() for ch in text[start:end]):
        return False
    after = _HEAD_AFTER.match(text, end, min(len(text), end + 48))
    if after is None or after.group(1).casefold() not in words.heads:
        return False
    before = _WORD_BEFORE.search(text, max(0, start - 36), start)
    return before is None or _title_key(before.group(1)) not in words.titles


def _prefix_precedes(text: str, start: int, words: EponymWords) -> bool:
    if not words.prefixes:
        return False
    window_start = max(0, start - _PREFIX_WINDOW)
    gap = _GAP_BEFORE.search(text, window_start, start)
    if gap is None:
        return False
    before = " ".join(text[window_start : gap.start()].casefold().split())
    for prefix in words.prefixes:
        if before.endswith(prefix):
            at = len(before) - len(prefix)
            # The prefix is whole words: nothing of a word stands just before it, and the
            # window did not cut it (a prefix that fills the window opens the text).
            if (at == 0 and window_start == 0) or (at > 0 and not before[at - 1].isalnum()):
                return True
    return False


@lru_cache(maxsize=64)
def eponym_words(language: str | None) -> EponymWords:
    """The eponym vocabulary of ``language``'s rule data (``xx``: every language's); none
    for a language without data or unknown to it."""
    if language is None:
        return EponymWords()
    try:
        rules = language_rules(language)
    except UnknownLanguage:
        return EponymWords()
    return EponymWords.of(rules.eponym_heads, rules.eponym_prefixes, rules.titles)
