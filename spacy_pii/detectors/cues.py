"""Context cues: two contexts that type a value more surely than the value's own tokens.

A span categorizer judges a name by its tokens and a few neighbours. Two contexts decide the
type before the value is even read, and a model trained on running text rarely sees them:

* **A form of address** (``"titles"``). The capitalised words after "Mrs.", "Dr" or "Lord
  Justice" are a name: "Lord Justice Gilbert", "Re: Mrs. B. Eriksen", "PHONED MS. GILL". The
  title itself stays outside the span (corpus/CONVENTIONS.md, PERSON).
* **A column header** (``"columns"``). In a delimited table whose header names a person or
  login column ("id,first_name,last_name,email"), every cell of that column is one, whatever
  it looks like: "das Neves", "Anna Liz". This is how tabular PII scanners read data too
  (Presidio Structured types a column by its name).

Neither is a standard's grammar, so they sit apart from the rules: ``RuleSettings``
turns them on with ``context_cues``, and their hits are shape-only (``score=None``,
docs/how-it-works.md: Scores), with detector ids ``"cues.title"`` and ``"cues.column"``. They run in
``pii_rules`` because that component splits tokens at hit boundaries (docs/how-it-works.md:
Tokens): a table
row such as "85707,Anna Liz" is one token to spaCy's tokenizer. In the merge a cue loses
every overlap of equal class rank: PERSON and USERNAME prefer the model, so the model's
span, or another type's, wins over a cue's.

Every pattern here is a literal alternation or a single character class with a bounded
repeat, and each scan moves forward only, so the cost is linear in the text.

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..core.conventions import HONORIFICS, SURNAME_PARTICLES, words_before
from ..core.hits import Hit
from .anchors import Anchors

# Forms of address after which capitalised words are a name: ``conventions.HONORIFICS``
# less the words that are also ordinary in capitalised text, because a cue must be right on
# its own ("Master Card", "Madam Chair", "Doctor Who", "Fr" for French, "Sr. Engineer",
# "Sra", "Hon." in a product name, "Col" and "Lt" in a table, "Gen Z", "General Motors",
# "Count Basie Theatre", "Princess Street", "Queen Mary University", "Commander Plaza",
# "President Hotel", "Governor Square").
TITLES: frozenset[str] = HONORIFICS - frozenset(
    {"master", "madam", "doctor", "fr", "sr", "sra", "hon", "col", "lt", "gen",
     "general", "count", "princess", "queen", "commander", "emperor", "president",
     "governor", "senator", "sheriff"}
)  # fmt: skip

# Capitalised words that end a titled name: an address part ("Mrs. Diana Usamov Suite 913",
# in Presidio's synthetic data) and function words ("Good Lord I ...").
_NOT_NAME_WORDS: frozenset[str] = frozenset(
    {
        "apt",
        "apartment",
        "suite",
        "ste",
        "unit",
        "flat",
        "floor",
        "building",
        "street",
        "road",
        "avenue",
        "ave",
        "lane",
        "drive",
        "box",
        "po",
        "i",
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
    }
)

# Titles that also name an office or a body ("the Justice Department").
_OFFICES = frozenset({"justice", "judge"})

MAX_NAME_WORDS = 5
MAX_CHAINED_TITLES = 3

_TITLE = re.compile(
    r"\b(?:" + "|".join(sorted(TITLES, key=len, reverse=True)) + r")\b\.?", re.IGNORECASE
)
# One word: a letter, then up to 63 letters, digits, apostrophes or hyphens, and an optional
# full stop (an initial "J." or an abbreviation).


def _capitalised_title(titles: frozenset[str]) -> re.Pattern[str]:
    """Any of ``titles`` with an ASCII capital first, the rest in any case.

    A cue needs a capitalised title (:func:`titled_names`), and under ``re.IGNORECASE``
    no other upper-case letter matches a title's first letter, so this case-sensitive
    pattern finds every title the cue keeps. It lets ``re`` skip to the next capital:
    0.3 µs a short text against 5 µs for the case-insensitive pattern (measured).
    """
    by_first: dict[str, list[str]] = {}
    for title in sorted(titles, key=len, reverse=True):
        by_first.setdefault(title[0], []).append(re.escape(title[1:]))
    body = "|".join(
        f"{first.upper()}(?i:{'|'.join(rests)})" for first, rests in sorted(by_first.items())
    )
    return re.compile(f"(?:{body})(?![A-Za-z])")


_TITLE_GATE = _capitalised_title(TITLES)
_WORD = re.compile(r"[^\W\d_][\w'’-]{0,63}\.?")
_GAP = re.compile(r"[ \t]{1,3}")
_ORDINAL_MARK = re.compile("[ºª]")
_DIGIT = re.compile(r"\d")

# A header cell that names a column of people or logins, after normalisation (lower case,
# spaces and hyphens as underscores, so "First Name", "first-name" and "firstName" match).
COLUMN_TYPES: dict[str, str] = {
    **dict.fromkeys(
        (
            "first_name",
            "firstname",
            "forename",
            "given_name",
            "givenname",
            "middle_name",
            "middlename",
            "last_name",
            "lastname",
            "surname",
            "family_name",
            "familyname",
            "full_name",
            "fullname",
            "person_name",
            "customer_name",
            "contact_name",
            "patient_name",
            "employee_name",
        ),
        "PERSON",
    ),
    **dict.fromkeys(
        ("username", "user_name", "login", "user_login", "screen_name", "handle"), "USERNAME"
    ),
}
_DELIMITERS = (",", "\t", ";", "|")
_HEADER_CELL = re.compile(r"[A-Za-z_][\w .-]{0,39}")
_CELL_WORD_LITERALS = ("name", "user", "login", "handle")
_CELL_WORDS = re.compile("(?i)" + "|".join(_CELL_WORD_LITERALS))
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z])(?=[A-Z])")
_HEADER_SEPARATORS = re.compile(r"[ .-]+")
_EMPTY_CELLS = frozenset({"null", "none", "n/a", "na", "unknown", "-"})


class TitleCueDetector:
    """The name after a capitalised form of address: PERSON, unscored.

    Args:
        place_words: words (lower case) that make a title one or two words after them part
            of a place name ("Calle del Dr. Esquerdo"): a language's data gives them.
    """

    id = "cues.title"
    types = frozenset({"PERSON"})

    def __init__(self, place_words: frozenset[str] = frozenset()) -> None:
        self.place_words = place_words

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text holds a capitalised title (see :func:`_capitalised_title`)."""
        return _TITLE_GATE.search(anchors.text) is not None

    def find(self, text: str) -> list[Hit]:
        return [
            Hit(start, end, "PERSON", None, self.id)
            for start, end in titled_names(text, self.place_words)
        ]


class ColumnCueDetector:
    """The cells under a person or login column header: PERSON or USERNAME, unscored."""

    id = "cues.column"
    types = frozenset(COLUMN_TYPES.values())

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold a table: a line break, a delimiter, a cell word."""
        text = anchors.text
        return (
            "\n" in text
            and any(delimiter in text for delimiter in _DELIMITERS)
            and anchors.has_any(_CELL_WORD_LITERALS)
        )

    def find(self, text: str) -> list[Hit]:
        return [Hit(start, end, label, None, self.id) for start, end, label in column_cells(text)]


# -- titles ----------------------------------------------------------------------------


def titled_names(text: str, place_words: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """``(start, end)`` of each name that follows a capitalised form of address, unless
    one of the two words before the title is in ``place_words``."""
    found: list[tuple[int, int]] = []
    resume = 0
    for title in _TITLE.finditer(text):
        if title.start() < resume or not title.group()[0].isupper():
            continue
        bare = title.group().rstrip(".").lower()
        previous = words_before(text, title.start())
        if bare == "dr" and any(_DIGIT.search(word) for word in previous):
            continue  # "12 Oak Dr Springfield": Drive, not Doctor
        if bare in _OFFICES and previous[-1:] in (["of"], ["the"], ["The"]):
            continue  # "the Justice Department", "Ministry of Justice"
        if place_words and any(word.lower() in place_words for word in previous):
            continue  # "Calle del Dr. Esquerdo", "Hospital Dr. Peset"
        span = _name_after(text, title.end(), all_caps=title.group().isupper())
        if span is not None:
            found.append(span)
            resume = span[1]
    return found


def _name_after(text: str, position: int, *, all_caps: bool) -> tuple[int, int] | None:
    words: list[tuple[int, int, str]] = []
    chained = 0
    while len(words) < MAX_NAME_WORDS:
        gap = _GAP.match(text, position)
        if gap is None:
            break
        word = _WORD.match(text, gap.end())
        if word is None:
            break
        token = word.group()
        bare = token.rstrip(".").lower()
        if not words and token[0].isupper() and bare in TITLES:
            chained += 1  # a chain of titles: "Lord Justice", "Prof. Dr"
            if chained > MAX_CHAINED_TITLES:
                break
            position = word.end()
            continue
        if _ORDINAL_MARK.search(token):
            break  # "NºCol", "1º": a form's next label or an ordinal, never a name
        named = bare not in _NOT_NAME_WORDS or _is_initial(token)
        if (token[0].isupper() and named) or bare in SURNAME_PARTICLES:
            words.append((word.start(), word.end(), token))
        else:
            break
        position = word.end()
        if token.endswith(".") and len(token) > 2:
            break  # a full stop after a word ends the sentence ("... with Mr Smith.")
    while words and words[-1][2].lower() in SURNAME_PARTICLES:
        words.pop()
    if words and words[0][2].lower() in SURNAME_PARTICLES and len(words) == 1:
        words.clear()
    if not words:
        return None
    if all_caps and len(words) > 1 and all(word[2].isupper() for word in words):
        # Upper-case text gives no capital to tell the name from the verb after it
        # ("DR. SMITH REVIEWED"): keep the first word, plus initials before it.
        first_full = next((i for i, word in enumerate(words) if len(word[2].rstrip(".")) > 1), 0)
        words = words[: first_full + 1]
    start, end = words[0][0], words[-1][1]
    return start, _trim_name_end(text, start, end)


def _trim_name_end(text: str, start: int, end: int) -> int:
    """Drop a possessive and a sentence's full stop, keeping an initial's ("J.")."""
    for possessive in ("'s", "’s"):
        if text.endswith(possessive, start, end) and end - start > len(possessive):
            end -= len(possessive)
    if text[end - 1] == "." and not _is_initial(text[start:end].split()[-1]):
        end -= 1
    return end


def _is_initial(word: str) -> bool:
    return len(word) == 2 and word[0].isalpha() and word[1] == "."


# -- columns ---------------------------------------------------------------------------


def column_cells(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, label)`` of each non-empty cell under a person or login column header."""
    if _CELL_WORDS.search(text) is None:
        return []
    found: list[tuple[int, int, str]] = []
    lines = list(_lines(text))
    index = 0
    while index < len(lines):
        header = _typed_header(text, *lines[index])
        index += 1
        if header is None:
            continue
        delimiter, width, typed = header
        while index < len(lines):
            cells = _split_cells(text, *lines[index], delimiter)
            if len(cells) != width:
                break
            for column, label in typed.items():
                start, end = cells[column]
                if _is_value(text[start:end]):
                    found.append((start, end, label))
            index += 1
    return found


def _is_value(cell: str) -> bool:
    """Whether a cell holds a value: some letter, and not a placeholder ("NULL", "n/a")."""
    return cell.lower() not in _EMPTY_CELLS and any(char.isalpha() for char in cell)


def _lines(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        if end == -1:
            end = len(text)
        yield start, end - 1 if end > start and text[end - 1] == "\r" else end
        start = end + 1


def _typed_header(text: str, start: int, end: int) -> tuple[str, int, dict[int, str]] | None:
    """The delimiter, the width and the typed columns of a header line, or None."""
    line = text[start:end]
    counts = {delimiter: line.count(delimiter) for delimiter in _DELIMITERS}
    delimiter = max(_DELIMITERS, key=lambda d: counts[d])
    if counts[delimiter] == 0 or _CELL_WORDS.search(line) is None:
        return None
    names = [cell.strip().strip('"') for cell in line.split(delimiter)]
    if not all(_HEADER_CELL.fullmatch(name) for name in names):
        return None
    typed = {
        column: COLUMN_TYPES[key]
        for column, name in enumerate(names)
        if (key := _normalise_header(name)) in COLUMN_TYPES
    }
    return (delimiter, len(names), typed) if typed else None


def _normalise_header(name: str) -> str:
    name = _CAMEL_BOUNDARY.sub("_", name.strip())  # firstName -> first_Name
    return _HEADER_SEPARATORS.sub("_", name.lower())


def _split_cells(text: str, start: int, end: int, delimiter: str) -> list[tuple[int, int]]:
    """Cell offsets of one delimited line; quotes and surrounding spaces stay outside."""
    cells: list[tuple[int, int]] = []
    cell_start, quoted = start, False
    for position in range(start, end + 1):
        char = text[position] if position < end else delimiter
        if char == '"':
            quoted = not quoted
        elif char == delimiter and not quoted:
            cells.append(_cell_bounds(text, cell_start, position))
            cell_start = position + 1
    return cells


def _cell_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in ' "':
        start += 1
    while end > start and text[end - 1] in ' "':
        end -= 1
    return start, end
