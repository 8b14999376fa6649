"""Street addresses in a language's own words, from its rule data (:mod:`spacy_pii.core.languages`).

English addresses come from the English model; in the other languages the multilingual
model knows PERSON only, so this detector finds the street part of an address (street,
house number, floor and door) in three forms the language data describes:

* **A street word, a name and a house number**: "Calle del Sol, 42 1C", "Av. de la
  Constitución, 18", "Via Roma 12", "ul. Marszałkowska 10/12". The name is one to eight
  words: capitalised ones and the language's connectors ("de", "del", "d'"), at least one
  capitalised. The number may carry a house word before it ("Nº 10", "km 9") and floor
  numbers, door letters and unit words after it ("3, 1º izq", "Bajo A", "s/n").
* **A house number first**: "32, rue de Rivoli". The span ends with the name.
* **A one-word street name with its ending**: "Hauptstraße 5", "Kantstr. 34",
  "Kalverstraat 12a", "Drottninggatan 5": a capitalised word longer than the ending, then
  a number of one to three digits ("Spring 2020" is a season, not a street).
* **An address field**: a form label and ":" ("Domicilio: Teatinos 180"): the value to the
  end of the line, when it holds a digit and is at most :data:`FIELD_MAX` characters.

A house number is what tells a street from a name: "la calle Mayor" alone is no hit.
Postcodes and towns are not part of the span (MEDDOCAN's convention, where the town and
the postcode are labels of their own). Every hit is shape-only (``score=None``). Each
street word starts at most one bounded read of :data:`MAX_STREET_WORDS` words, so the
cost is linear in the text. Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..core.hits import Hit
from ..core.languages import LanguageRules
from .language_cues import _alternation

MAX_STREET_WORDS = 8
MAX_UNIT_PARTS = 3
FIELD_MAX = 100

# A word of a street name: letters, with inner hyphens or apostrophes ("Saint-Denis",
# "d'Alésia"), or a short abbreviation with its full stop ("Dr.", "Sta.", "Gral.").
_WORD = re.compile(r"[^\W\d_]{1,40}(?:[\-'’][^\W\d_]{1,40}){0,3}(?:(?<=[^\W\d_])\.)?")
_ABBREVIATION_MAX = 5
_GAP = re.compile(r"[ \t]{1,3}|[ \t]{0,2}-[ \t]{0,2}")
_BEFORE_NAME = re.compile(r"[ \t]{0,3},?[ \t]{0,3}")
# A space or a comma between name and number: "MDM9615" is a model number.
_BEFORE_NUMBER = re.compile(r"[ \t]{0,3}[,.][ \t]{0,3}|[ \t]{1,3}")
# A house or door letter that no postcode digit follows ("42 B", not the "E" of "E-18012").
_NOT_POSTCODE = r"(?![^\W_]|[\-/]?[0-9])"
_LETTER_NOT_POSTCODE = rf"[A-Za-z]{_NOT_POSTCODE}"
# "s/n", "S / N": sin número, a building without a house number.
_SIN_NUMERO = r"[sS][ \t]?/[ \t]?[nN]"
# "42", "42 B", "58-182", "10/12", "s/n", "sn"; no letter or digit may follow.
_HOUSE_NUMBER = re.compile(
    rf"(?:[0-9]{{1,4}}(?:[ \t]?{_LETTER_NOT_POSTCODE})?(?:[\-/][0-9]{{1,4}})?"
    rf"|{_SIN_NUMERO}|sn)(?![^\W_])"
)
_NO_NUMBER = re.compile(rf"{_SIN_NUMERO}(?![^\W_])")
# A house number of one to three digits right after a word or an abbreviation's full stop.
_NUMBER_AFTER_WORD = re.compile(
    r"(?<=[^\W\d_]|\.)[ \t]{1,3},?[ \t]{0,3}[0-9]{1,3}(?:[a-zA-Z])?(?:[\-/][0-9]{1,3})?(?![^\W_])"
)
_UNIT_SEPARATOR = r"[ \t]{0,2}[,\-]?[ \t]{0,2}"
# A floor number ("1º", "3.º", "4 B") or a door letter in capitals ("A").
_FLOOR = rf"{_UNIT_SEPARATOR}[0-9]{{1,2}}(?:\.?[ºª°o])?(?:[ \t]?{_LETTER_NOT_POSTCODE})?(?![^\W_])"
_DOOR = rf"{_UNIT_SEPARATOR}[A-Z]{_NOT_POSTCODE}"
# The house number written before the street word: "32, rue", "12 bis rue"; not the last
# group of a longer number ("011 123 4567, ulica").
_NUMBER_BEFORE = re.compile(
    r"(?<![^\W_])(?<![0-9][ \t.,/\-])[0-9]{1,4}(?:[ \t]?(?:bis|ter|[A-Za-z]))?"
    r"[ \t]{0,2},?[ \t]{1,3}$"
)
_NUMBER_BEFORE_REACH = 16
_WORD_BEFORE_ENDING_MAX = 40
_DIGIT = re.compile(r"[0-9]")
_LETTER = re.compile(r"[^\W\d_]")


class StreetAddressDetector:
    """The street addresses of one language; see the module docstring.

    Args:
        rules: the language's data (:func:`spacy_pii.core.languages.language_rules`).
    """

    types = frozenset({"ADDRESS"})

    def __init__(self, rules: LanguageRules) -> None:
        self.id = f"address.lang.{rules.code or 'custom'}"
        street_words = _alternation(rules.street_words)
        # Whole words; one ending in "." or "/" may touch the name ("C/Castanera").
        self._street_words = (
            re.compile(rf"(?<![^\W_])(?i:{street_words})(?:(?<=[./])|(?![^\W_]))")
            if street_words
            else None
        )
        self._connectors = frozenset(w.lower() for w in rules.street_connectors)
        house_words = _alternation(rules.house_words)
        self._house_word = (
            re.compile(rf"(?:{house_words})(?:(?<=\.)|(?![^\W_]))[ \t]{{0,3}}", re.I)
            if house_words
            else None
        )
        units = _alternation(rules.unit_words)
        parts = [_FLOOR, _DOOR]
        if units:
            # A unit word, with its number when it has one ("Apto. 116", "Bajo").
            unit = rf"(?i:{units})(?:(?<=\.)|(?![^\W_]))(?:[ \t]{{0,2}}[0-9]{{1,4}})?"
            parts.insert(0, _UNIT_SEPARATOR + unit)
        self._unit = re.compile(rf"(?:{'|'.join(parts)})")
        self._endings = tuple(sorted({e.casefold() for e in rules.street_endings}))
        fields = _alternation(rules.address_fields)
        self._fields = (
            re.compile(rf"(?<![^\W_])(?:{fields})[ \t]{{0,3}}:[ \t]{{0,3}}", re.I)
            if fields
            else None
        )

    def find(self, text: str) -> Iterator[Hit]:
        for start, end in (
            *self._streets(text),
            *self._compound_streets(text),
            *self._field_values(text),
        ):
            yield Hit(start, end, "ADDRESS", None, self.id)

    def _streets(self, text: str) -> Iterator[tuple[int, int]]:
        if self._street_words is None:
            return
        for match in self._street_words.finditer(text):
            name_end = self._name_end(text, match.end())
            if name_end is None:
                continue
            before = _NUMBER_BEFORE.search(
                text, max(0, match.start() - _NUMBER_BEFORE_REACH), match.start()
            )
            if before is not None:
                yield before.start(), name_end
                continue
            end = self._number_end(text, name_end)
            if end is not None:
                yield match.start(), end

    def _name_end(self, text: str, position: int) -> int | None:
        """Where the street name after a street word ends: after its last capitalised word
        or connector, once a capitalised word was read; ``None`` without one."""
        gap = _BEFORE_NAME.match(text, position)
        position = gap.end() if gap else position
        end, named = None, False
        for _ in range(MAX_STREET_WORDS):
            if _NO_NUMBER.match(text, position):
                break  # "S/N", not a word "S"
            word = _WORD.match(text, position)
            if word is None:
                break
            token = word.group()
            if token.lower() in self._connectors:
                position = word.end()
            elif _capitalised(token):
                bare = token.rstrip(".")
                if token.endswith(".") and len(bare) > _ABBREVIATION_MAX:
                    end, named = word.start() + len(bare), True
                    break  # a full stop after a long word ends the sentence
                end, named, position = word.end(), True, word.end()
            else:
                break
            gap = _GAP.match(text, position)
            if gap is None:
                break
            position = gap.end()
        return end if named else None

    def _number_end(self, text: str, position: int) -> int | None:
        """Where the house number after a street name ends, with its floor and door."""
        gap = _BEFORE_NUMBER.match(text, position)
        if gap is None:
            return None
        position = gap.end()
        if self._house_word is not None:
            word = self._house_word.match(text, position)
            if word is not None:
                position = word.end()
        number = _HOUSE_NUMBER.match(text, position)
        if number is None:
            return None
        end = number.end()
        for _ in range(MAX_UNIT_PARTS):
            unit = self._unit.match(text, end)
            if unit is None:
                break
            end = unit.end()
        return end

    def _compound_streets(self, text: str) -> Iterator[tuple[int, int]]:
        if not self._endings:
            return
        # Anchored on the short house number, which is rarer than the endings' letters: one
        # scan for numbers after a word, then a look at that one word.
        for number in _NUMBER_AFTER_WORD.finditer(text):
            end = number.start()
            floor = max(0, end - _WORD_BEFORE_ENDING_MAX)
            start = end - 1 if text[end - 1] == "." else end
            while start > floor and text[start - 1].isalpha():
                start -= 1
            word = text[start:end]
            longer_word = start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")
            if longer_word or not word[:1].isupper():
                continue
            folded = word.casefold()
            # At least one letter before the ending: "Straße" alone is no street name.
            if any(folded.endswith(e) and len(folded) > len(e) for e in self._endings):
                yield start, number.end()

    def _field_values(self, text: str) -> Iterator[tuple[int, int]]:
        if self._fields is None:
            return
        for match in self._fields.finditer(text):
            start = match.end()
            reach = min(len(text), start + FIELD_MAX + 1)
            line_end = text.find("\n", start, reach)
            if line_end == -1:
                if reach < len(text):
                    continue  # a line longer than a field: prose, not a form
                line_end = reach
            end = line_end
            while end > start and text[end - 1] in " \t.,;\r":
                end -= 1
            # A street address holds a word and a number; an "@" makes it an e-mail address.
            value = text[start:end]
            if _DIGIT.search(value) and _LETTER.search(value) and "@" not in value:
                yield start, end


def _capitalised(token: str) -> bool:
    """A capital first letter, or an elided article before one ("d'Alésia")."""
    if token[0].isupper():
        return True
    head, mark, tail = token.replace("’", "'").partition("'")
    return bool(mark) and len(head) <= 2 and tail[:1].isupper()
