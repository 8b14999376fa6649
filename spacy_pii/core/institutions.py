"""Institutions: a court, a ministry, a firm or a club is an organisation, not a name.

Judgments and news cite courts, authorities and firms by their own names, in their own
language, whatever the language of the text around them: an English judgment of the European
Court of Human Rights cites the "Oberster Gerichtshof", the "Cour de cassation" and the "Sąd
Okręgowy w Krakowie"; Danish news cites "Hafnia Forsikring", a review "Komuda Brothers
Pizzeria". A name model that has not seen those words reads a capitalised pair as a person.
The words that make such a name an organisation's (courts and authorities; firms,
associations, parties, clubs, newspapers, schools, hospitals, hotels and shops) are listed per
language in the rule data (``institution_words`` in ``spacy_pii/data/languages-*.yaml``), and
every language's list is read for any text, for that reason: the ``xx`` rules, which hold the
union.

A PERSON candidate that holds one of the words, as a whole word in any letter case, becomes an
ORG candidate with the same score, so that the ORG threshold and the pipeline's types decide
it as they decide any organisation. The lists leave out what would retype a person: every
word of the shipped name tables ("Court", "Consiglio", "Sala", "Holding" and "Banka" are
surnames there), surnames the tables lack that a review found ("Banky", "Kavana", "Inn"),
abbreviations that fold to a common word ("TuS", "SpA"), words of two letters, and titles.
A word after an apostrophe is not read (an elided particle's surname, "de L'Hospital").

Pure Python over strings and offsets: no spaCy.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from .hits import Hit
from .languages import MIXED, language_rules

# The listed words are letters only. A word glued after an apostrophe is an elided particle's
# surname ("Michel de L'Hospital", "Guillaume de l'Hôpital"): it is matched with its
# apostrophe and skipped whole (a look-behind alone would still read its tail, "ospital").
_WORD = re.compile(r"['’]?[^\W\d_]+")
_APOSTROPHES = "'’"


@lru_cache(maxsize=1)
def institution_words() -> frozenset[str]:
    """Every language's institution words, case-folded (the module docstring says why all)."""
    return frozenset(word.casefold() for word in language_rules(MIXED).institution_words)


def names_institution(span: str, words: frozenset[str]) -> bool:
    """Whether ``span`` holds one of ``words`` as a whole word, in any letter case (composed
    first, so that an accent written as a combining mark matches)."""
    composed = unicodedata.normalize("NFC", span)
    return any(
        word[0] not in _APOSTROPHES and word.casefold() in words for word in _WORD.findall(composed)
    )


def retype_institutions(text: str, hits: Iterable[Hit], words: frozenset[str]) -> list[Hit]:
    """``hits`` with each PERSON hit that names an institution made an ORG hit (same offsets,
    score, detector and kind); every other hit as it was."""
    return [
        dataclasses.replace(hit, label="ORG")
        if hit.label == "PERSON" and words and names_institution(text[hit.start : hit.end], words)
        else hit
        for hit in hits
    ]
