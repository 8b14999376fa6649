"""Cues in a language's own words, from its rule data (:mod:`spacy_pii.core.languages`).

One detector per language reads that language's :class:`LanguageRules` and finds:

* **PERSON** after a form of address ("Herr Müller", "Mme Dubois", "D.ª Carmen Ruiz") and
  after a form label with a colon ("Nombre: Ernesto", "Apellidos: Rivera Bueno", the header
  blocks of clinical reports). The names are read by the English title cue's word rules
  (:func:`spacy_pii.detectors.cues._name_after`): capitalised words, at most five. Also
  around a patronymic ("Лев Николаевич Толстой", "с Олегом Викторовичем"): the given name
  before it and a surname right after.
* **DATE_OF_BIRTH**: a date right after a birth cue ("geb. 12.03.1961", "né le 3 mars 1961",
  "fecha de nacimiento: 03/03/1946"), numeric in the language's order or with a month name.
* **GOV_ID**: an identifier-shaped run (five digits or more) right after an id cue ("NHC:
  368503", "NASS: 26 63514095", "PESEL 44051401458"). Shape only: the checksummed national
  rules (:mod:`.gov_id`) validate what they know.
* **SECRET**: a value after a secret cue and ":" or "=" ("Passwort: Sommer2024!"), when the
  value holds a digit, a symbol or mixed case (a word alone is not a password).
* **PHONE**: a number after a phone cue ("Handy 0171 2345678") that libphonenumber
  validates for one of the language's countries.
* **EMAIL**: an address with the "@" and "." spelled in the language ("juan arroba
  ejemplo punto com"); the bare word "at" only after an e-mail cue on the same line.

Every hit is shape-only (``score=None``). All patterns are literal alternations or bounded
repeats scanned forward once, so the cost is linear in the text. Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..core.hits import Hit
from ..core.languages import LanguageRules
from .cues import MAX_CHAINED_TITLES, MAX_NAME_WORDS, TITLES, _name_after

_ID_WINDOW = 24
_PHONE_WINDOW = 64
_BIRTH_WINDOW = 24
_SECRET_MAX = 128
# How far before a spelled address an e-mail cue may stand, on its line.
_EMAIL_CUE_REACH = 200
# A spelled "at" that is an English word: only after an e-mail cue.
_AMBIGUOUS_AT = frozenset({"at", "et"})


def _alternation(words: Iterable[str]) -> str:
    ordered = sorted(set(words), key=len, reverse=True)
    return "|".join(r"[ \t]{1,3}".join(map(re.escape, w.split(" "))) for w in ordered)


def _word_pattern(words: Iterable[str], *, ignore_case: bool = True) -> re.Pattern[str] | None:
    body = _alternation(words)
    if not body:
        return None
    # No letter or digit may touch a cue; a cue ending in "." is whole at its full stop.
    return re.compile(rf"(?<![^\W_])(?:{body})(?:(?<=\.)|(?![^\W_]))", re.I if ignore_case else 0)


def _title_forms(titles: Iterable[str]) -> list[str]:
    """Each title as written and with a capital first letter ("fru" and "Fru")."""
    forms: list[str] = []
    for title in titles:
        forms.append(title)
        forms.append(title[0].upper() + title[1:])
    return forms


# A title or label word as the name reader skips it: "Dr:", "Dra", "D.ª", "Dr." before "Jorge".
_TITLE_WORD = re.compile(r"[ \t]{0,3}([^\W\d_]{1,12})[.:ª]{0,2}")
_TITLE_EDGES = ".:ª"
# A name word holds no digit, no ordinal mark and no colon; a word right before a colon is
# refused too ("Médico: Ana NºCol:", "Apellidos: Soto. Domicilio:": the next label).
_NOT_NAME_MARKS = re.compile(r"[º°ª:0-9]")
# A letter of a name, with the stress marks that Russian dictionaries and encyclopedias put
# on vowels ("Никола́евич", U+0301), so that a mark neither splits a word nor starts one.
_LETTER = r"(?:[^\W\d_]|[\u0300-\u036f])"
_NOT_AFTER_LETTER = r"(?<![^\W_])(?<![\u0300-\u036f])"
_NOT_BEFORE_LETTER = r"(?![^\W_])(?![\u0300-\u036f])"
# The words around a patronymic: a capitalised word (a hyphenated one whole, "Склодовская-
# Кюри"), one to three spaces or tabs away on the same line.
_NAME_WORD = rf"{_LETTER}+(?:-{_LETTER}+)?"
_WORD_BEFORE = re.compile(rf"{_NOT_AFTER_LETTER}({_NAME_WORD})[ \t]{{1,3}}\Z")
_WORD_AFTER = re.compile(rf"[ \t]{{1,3}}({_NAME_WORD}){_NOT_BEFORE_LETTER}")


def _is_letter(char: str) -> bool:
    return char.isalpha() or "\u0300" <= char <= "\u036f"


# How far before a patronymic its given name may start (a hyphenated name and three spaces).
_GIVEN_NAME_REACH = 80
# Three words before a title: "Carrer del Dr." has the place word two words back.
_PLACE_LOOKBACK = 96
# Five words of at most 64 characters and their gaps.
_NAME_REACH = MAX_NAME_WORDS * 68

_NUMERIC_DMY = r"[0-3]?[0-9][./-][01]?[0-9][./-](?:1[89]|20)?[0-9]{2}"
_NUMERIC_YMD = r"(?:1[89]|20)[0-9]{2}[./-][01]?[0-9][./-][0-3]?[0-9]"
_ID_VALUE = re.compile(r"[0-9A-Z](?:[0-9A-Z]|[ .\-/](?=[0-9A-Z])){4,30}")
_DIGIT = re.compile(r"[0-9]")
# The fewest digits of a phone read after a language's cue word.
_MIN_CUED_PHONE_DIGITS = 5
# A record's own prefix before the number ("CIPA: nhc-270058"): the number is the id.
_ID_PREFIX = re.compile(r"[A-Za-z]{2,4}[\-/](?=[0-9])")
_FIELD_GAP = re.compile(r"[ \t]{0,3}(?:[:#]|n[º°o]\.?|nr\.?|no\.?)?[ \t]{0,3}:?[ \t]{0,3}", re.I)
_SECRET_VALUE = re.compile(rf"[ \t]{{0,3}}[:=][ \t]{{0,3}}(\S{{4,{_SECRET_MAX}}})")
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
_LOCAL = r"[A-Za-z0-9_][A-Za-z0-9_+.\-]{0,63}"


class LanguageCueDetector:
    """The cues of one language; see the module docstring.

    Args:
        rules: the language's data (:func:`spacy_pii.core.languages.language_rules`).
    """

    types = frozenset({"PERSON", "DATE_OF_BIRTH", "GOV_ID", "SECRET", "PHONE", "EMAIL"})

    def __init__(self, rules: LanguageRules) -> None:
        self.rules = rules
        self.id = f"cues.lang.{rules.code or 'custom'}"
        self._titles = _word_pattern(_title_forms(rules.titles), ignore_case=False)
        self._place_words = frozenset(w.lower() for w in rules.place_words)
        self._title_words = frozenset(
            {t.rstrip(_TITLE_EDGES).lower() for t in rules.titles} | TITLES
        ) - {""}
        self._patronymic = self._patronymic_pattern(rules)
        fields = _alternation(rules.name_fields)
        self._fields = (
            re.compile(rf"(?<![^\W_])(?:{fields})[ \t]{{0,3}}:", re.I) if fields else None
        )
        self._birth = _word_pattern(rules.birth_cues)
        self._ids = _word_pattern(rules.id_cues)
        self._secrets = _word_pattern(rules.secret_cues)
        self._phones = _word_pattern(rules.phone_cues)
        self._email_cues = _word_pattern(rules.email_cues)
        self._date = self._date_pattern(rules)
        self._email = self._email_pattern(rules)

    @staticmethod
    def _patronymic_pattern(rules: LanguageRules) -> re.Pattern[str] | None:
        """A patronymic's ending at the end of a word, in any letter case (the endings are
        listed in lower case; :meth:`_patronymic_names` wants a capital)."""
        if not rules.patronymic_endings:
            return None
        # Each letter in either case, and a stress mark may follow it ("Петро́вич").
        endings = "|".join(
            "".join(f"[{re.escape(c)}{re.escape(c.upper())}][\u0300-\u036f]?" for c in ending)
            for ending in sorted(set(rules.patronymic_endings), key=len, reverse=True)
        )
        # The ending alone, behind a look-ahead for its first letters: the scan then skips
        # every position where no ending starts (a whole text in another script) at the
        # speed of a character search. The word's start is found backwards.
        first = "".join(sorted({c for e in rules.patronymic_endings for c in (e[0], e[0].upper())}))
        return re.compile(rf"(?=[{re.escape(first)}])(?:{endings}){_NOT_BEFORE_LETTER}")

    @staticmethod
    def _date_pattern(rules: LanguageRules) -> re.Pattern[str]:
        numeric = _NUMERIC_YMD if rules.date_order == "YMD" else _NUMERIC_DMY
        forms = [numeric, _NUMERIC_YMD]
        months = _alternation(rules.months)
        if months:
            forms.append(
                rf"[0-3]?[0-9]\.?(?:[ \t]{{1,3}}de)?[ \t]{{1,3}}(?:{months})"
                rf"(?:[ \t]{{1,3}}(?:de|del))?[ \t]{{1,3}}(?:1[89]|20)[0-9]{{2}}"
            )
        return re.compile(rf"(?:{'|'.join(forms)})(?![0-9])", re.I)

    @staticmethod
    def _email_pattern(rules: LanguageRules) -> re.Pattern[str] | None:
        at_words, dot_words = _alternation(rules.email_at), _alternation(rules.email_dot)
        if not at_words or not dot_words:
            return None
        dot = rf"(?:[ \t]{{1,3}}(?:{dot_words})[ \t]{{1,3}}|\.)"
        return re.compile(
            rf"(?<![A-Za-z0-9._%+\-])(?P<local>{_LOCAL})[ \t]{{1,3}}(?P<at>{at_words})[ \t]{{1,3}}"
            rf"{_LABEL}(?:{dot}{_LABEL}){{0,4}}{dot}[A-Za-z]{{2,12}}(?![A-Za-z0-9\-])",
            re.I,
        )

    def find(self, text: str) -> Iterator[Hit]:
        yield from self._persons(text)
        yield from self._after_cues(text, self._birth, _BIRTH_WINDOW, self._birth_date, "birth")
        yield from self._after_cues(text, self._ids, _ID_WINDOW, self._id_value, "id")
        yield from self._after_cues(
            text, self._secrets, _SECRET_MAX + 8, self._secret_value, "secret"
        )
        yield from self._after_cues(text, self._phones, _PHONE_WINDOW, self._phone, "phone")
        yield from self._emails(text)

    def _persons(self, text: str) -> Iterator[Hit]:
        starts: list[int] = []
        if self._titles is not None:
            starts.extend(m.end() for m in self._titles.finditer(text))
        if self._fields is not None:
            starts.extend(m.end() for m in self._fields.finditer(text))
        for position in sorted(set(starts)):
            if self._after_place_word(text, position):
                continue
            span = self._name_at(text, position)
            if span is not None:
                yield Hit(span[0], span[1], "PERSON", None, f"{self.id}.title")
        yield from self._patronymic_names(text)

    def _patronymic_names(self, text: str) -> Iterator[Hit]:
        """Each capitalised patronymic with the capitalised word before it (the given name)
        and the one after it (the surname), as one span; spans that overlap are joined, so
        that a surname ending like a patronymic ("Мицкевич Игорь Сергеевич") leaves no word
        of the name out."""
        if self._patronymic is None:
            return
        spans: list[list[int]] = []
        for match in self._patronymic.finditer(text):
            start = match.start()
            while start and _is_letter(text[start - 1]):
                start -= 1
            if not text[start].isupper():
                continue
            reach = max(0, start - _GIVEN_NAME_REACH)
            given = _WORD_BEFORE.search(text, reach, start)
            if given is None or not given.group(1)[0].isupper():
                continue
            surname = _WORD_AFTER.match(text, match.end())
            end = match.end()
            if surname is not None and surname.group(1)[0].isupper():
                end = surname.end(1)
            if spans and given.start(1) < spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], end)
            else:
                spans.append([given.start(1), end])
        for start, end in spans:
            yield Hit(start, end, "PERSON", None, f"{self.id}.patronymic")

    def _after_place_word(self, text: str, position: int) -> bool:
        """Whether the title ending at ``position`` names a street or a building after a
        place word ("Calle del Dr. Esquerdo", "Hospital Dr. Peset")."""
        if not self._place_words:
            return False
        before = text[max(0, position - _PLACE_LOOKBACK) : position].split()
        return any(word.lower() in self._place_words for word in before[-4:-1])

    def _name_at(self, text: str, position: int) -> tuple[int, int] | None:
        """The name after a title or a form label at ``position``: further titles ("Dr:",
        "Dra", "Dr.Jorge") are skipped, the words are read by the English cue's rules."""
        for _ in range(MAX_CHAINED_TITLES):
            word = _TITLE_WORD.match(text, position)
            if word is None or word.group(1).lower() not in self._title_words:
                break
            position = word.end()
        if position < len(text) and not text[position].isspace():
            # Glued to the label or title ("Apellidos:Mendez", "Dr.Jorge"): the word rules
            # read after white space, so they read a copy that has one.
            window = " " + text[position : position + _NAME_REACH]
            found = _name_after(window, 0, all_caps=False)
            span = None if found is None else (found[0] + position - 1, found[1] + position - 1)
        else:
            span = _name_after(text, position, all_caps=False)
        if span is None or _NOT_NAME_MARKS.search(text, span[0], span[1]):
            return None
        if text.startswith(":", span[1]):
            return None  # the next label of a form ("Médico: NºCol: ..."), not a name
        return span

    def _after_cues(self, text, cue, window, read, kind) -> Iterator[Hit]:
        if cue is None:
            return
        for match in cue.finditer(text):
            # The window ends at the cue's line end; the search for it is bounded too, so
            # many cues on one long line cost their number times the window, not the line.
            reach = min(len(text), match.end() + window)
            line_end = text.find("\n", match.end(), reach)
            found = read(text, match.end(), reach if line_end == -1 else line_end)
            if found is not None:
                label, start, end = found
                yield Hit(start, end, label, None, f"{self.id}.{kind}")

    def _birth_date(self, text: str, start: int, limit: int):
        gap = _FIELD_GAP.match(text, start)
        begin = gap.end() if gap else start
        # "geboren am", "né le", "nacido el": a short word may sit between cue and date.
        for offset in range(begin, min(limit, begin + 12) + 1):
            if offset == begin or text[offset - 1] in " \t":
                date = self._date.match(text, offset)
                if date is not None and date.end() <= limit + 20:
                    return "DATE_OF_BIRTH", date.start(), date.end()
        return None

    def _id_value(self, text: str, start: int, limit: int):
        gap = _FIELD_GAP.match(text, start)
        position = gap.end() if gap else start
        prefix = _ID_PREFIX.match(text, position)
        value = _ID_VALUE.match(text, prefix.end() if prefix else position)
        if value is None or value.start() > limit:
            return None
        if len(_DIGIT.findall(value.group())) < 5:
            return None
        return "GOV_ID", value.start(), value.end()

    def _secret_value(self, text: str, start: int, limit: int):
        value = _SECRET_VALUE.match(text, start, limit)
        if value is None:
            return None
        secret = value.group(1).rstrip(".,;)")
        has_mark = any(not c.isalpha() for c in secret)
        mixed = any(c.isupper() for c in secret[1:]) and any(c.islower() for c in secret)
        if len(secret) < 4 or not (has_mark or mixed):
            return None
        return "SECRET", value.start(1), value.start(1) + len(secret)

    def _phone(self, text: str, start: int, limit: int):
        if not self.rules.countries or not _DIGIT.search(text, start, limit):
            return None
        import phonenumbers

        window = text[start:limit]
        for region in self.rules.countries:
            for match in phonenumbers.PhoneNumberMatcher(window, region, leniency=1):
                # A year after the cue ("anrufen bis 2025") is valid in Luxembourg's and
                # Austria's plans; no number people write after a cue is that short.
                if sum(char.isdigit() for char in match.raw_string) < _MIN_CUED_PHONE_DIGITS:
                    continue
                return "PHONE", start + match.start, start + match.end
        return None

    def _emails(self, text: str) -> Iterator[Hit]:
        if self._email is None:
            return
        for match in self._email.finditer(text):
            if match.group("at").lower() in _AMBIGUOUS_AT and not self._cued_email(text, match):
                continue
            yield Hit(match.start(), match.end(), "EMAIL", None, f"{self.id}.email")

    def _cued_email(self, text: str, match: re.Match[str]) -> bool:
        if self._email_cues is None:
            return False
        floor = max(0, match.start() - _EMAIL_CUE_REACH)
        line_start = text.rfind("\n", floor, match.start()) + 1 or floor
        return self._email_cues.search(text, line_start, match.start()) is not None
