"""Fold look-alike characters so that rules see ASCII forms, while offsets stay on the original.

Attackers and sloppy copy-paste both produce "ａｄａ@example.com" (fullwidth), "аda@example.com"
(Cyrillic a) and "4242\u200b4242..." (a zero-width space inside a card number). Each of these
would slip past an ASCII pattern. Folding maps each such character to its ASCII twin (one
character to one) and deletes invisible format characters, and records for every folded
position the index it came from, so a hit on the folded text maps back to an exact slice of
the original. A Cyrillic or Greek twin is folded only in a word of twins and Latin letters
("аda"): a word that also holds a letter of its script without a Latin twin ("телефон") is
text in that script, and the language's cue words read it as written.

Sources: Unicode's confusables data (UTS #39) for the Cyrillic and Greek letters that render
like Latin ones; NFKC width folding for the fullwidth forms U+FF01..U+FF5E; NFKC for the
letters and digits whose compatibility form is one ASCII letter or digit (mathematical
alphanumerics such as "𝚊𝚍𝚊", circled letters, superscript digits); the Unicode general
category Cf for zero-width characters.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Cyrillic and Greek letters that are visually identical to an ASCII letter (UTS #39
# confusables, restricted to the one-to-one, same-case pairs).
_HOMOGLYPHS = {
    # Cyrillic
    "а": "a",
    "в": "B",
    "е": "e",
    "к": "k",
    "м": "M",
    "н": "H",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "T",
    "у": "y",
    "х": "x",
    "ѕ": "s",
    "і": "i",
    "ј": "j",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "ӏ": "l",
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "Х": "X",
    "Ѕ": "S",
    "І": "I",
    "Ј": "J",
    "Ү": "Y",
    "Ԛ": "Q",
    "Ԝ": "W",
    # Greek
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    "ο": "o",
    "ν": "v",
    "ι": "i",
    # Look-alike punctuation that matters to the rules
    "＠": "@",
    "﹫": "@",
    "‐": "-",
    "‑": "-",
    "‒": "-",
    "–": "-",
    "—": "-",
    "−": "-",
    "．": ".",
    "。": ".",
}


def _build_table() -> dict[int, str]:
    table = {ord(k): v for k, v in _HOMOGLYPHS.items()}
    # Fullwidth ASCII U+FF01..U+FF5E is ASCII + 0xFEE0 (the Unicode Halfwidth and
    # Fullwidth Forms block); NFKC folds exactly this way.
    for code in range(0xFF01, 0xFF5F):
        table[code] = chr(code - 0xFEE0)
    # Spaces that print as a space and separate digit groups in typeset numbers: no-break
    # (U+00A0), figure (U+2007), thin (U+2009), narrow no-break (U+202F), ideographic (U+3000).
    for code in (0x00A0, 0x2007, 0x2009, 0x202F, 0x3000):
        table[code] = " "
    # Other Unicode decimal digits (Arabic-Indic, Devanagari, ...) fold to their value.
    for code in range(0x80, 0x10000):
        char = chr(code)
        if code not in table and unicodedata.category(char) == "Nd":
            table[code] = str(unicodedata.digit(char))
    # Letters and digits whose NFKC form is one ASCII letter or digit: mathematical
    # alphanumerics ("𝚊𝚍𝚊", "𝟓𝟓𝟓"), circled and parenthesised letters, superscripts.
    for block in _COMPATIBILITY_BLOCKS:
        for code in block:
            char = chr(code)
            # Circled and squared letters are symbols (So) by category, letters to a reader.
            if code in table or unicodedata.category(char) not in _ALPHANUMERIC_CATEGORIES:
                continue
            if char in _ORDINAL_MARKS:
                continue
            folded = unicodedata.normalize("NFKC", char)
            if len(folded) == 1 and folded.isascii() and folded.isalnum():
                table[code] = folded
    return table


# The ordinal indicators of the Romance languages ("Nº", "D.ª", "3.º B") stay as written:
# the languages' cue words and the street rule read them, and a name never holds one.
_ORDINAL_MARKS = frozenset("ºª")

# The blocks that hold letters and digits with an ASCII compatibility form (the Unicode
# code charts): Latin-1 Supplement to Letterlike Symbols and Enclosed Alphanumerics in the
# Basic Multilingual Plane, the Mathematical Alphanumeric Symbols and the Enclosed
# Alphanumeric Supplement above it.
_ALPHANUMERIC_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No", "So"})
_COMPATIBILITY_BLOCKS = (range(0x80, 0x2500), range(0x1D400, 0x1D800), range(0x1F100, 0x1F200))


_TABLE = _build_table()


def _is_invisible(char: str) -> bool:
    # Category Cf holds the zero-width space/joiners, the BOM and bidi controls.
    return unicodedata.category(char) == "Cf"


@dataclass(frozen=True, slots=True)
class FoldedText:
    """The folded string, and for each of its characters the index in the original."""

    text: str
    origin: tuple[int, ...] | None  # None when folding changed nothing

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a folded ``[start, end)`` back to the original string's indices."""
        if self.origin is None:
            return start, end
        return self.origin[start], self.origin[end - 1] + 1


# Non-ASCII runs: folding looks only at these, so a mostly ASCII text costs one C-speed scan
# plus a step per non-ASCII character, not a Python step per character.
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


# A Cyrillic or Greek letter without a Latin twin ("л", "д", "ф", "λ"). A word that holds
# one is written in that script, so its twins are that script's own letters: "телефон" and
# "ул." stay as written for the language's cue words, while "аda" or "раураl", made of
# twins and Latin letters only, fold.
_TWIN_LETTERS = frozenset(k for k in _HOMOGLYPHS if k.isalpha())
_OTHER_SCRIPTS = "\x00-\u036f\u0530-\u1eff\u2000-\U0010ffff"
_NATIVE_LETTER = re.compile(rf"[^\W\d_{''.join(sorted(_TWIN_LETTERS))}{_OTHER_SCRIPTS}]")
# A word for that test: letters, with inner hyphens and apostrophes ("г-н", the Russian
# title, whose "н" alone is a twin).
_WORD_TAIL = re.compile(r"[^\W\d_]*(?:[\-'’][^\W\d_]+)*")
_WORD_JOINERS = "-'’"


def fold_confusables(text: str) -> FoldedText:
    """Fold look-alike and invisible characters; keep a map back to the original offsets."""
    if text.isascii():
        return FoldedText(text, None)
    # (index, replacement): "" deletes an invisible character, otherwise one character.
    edits: list[tuple[int, str]] = []
    # The letter word around the last twin looked at, and whether it is in its own script;
    # twins come in text order, so each word is read once.
    word_end, native = -1, False
    for run in _NON_ASCII.finditer(text):
        for index in range(run.start(), run.end()):
            char = text[index]
            if _is_invisible(char):
                edits.append((index, ""))
                continue
            replacement = _TABLE.get(ord(char))
            if replacement is None:
                continue
            if char in _TWIN_LETTERS:
                if index >= word_end:
                    word_start = index
                    floor = max(word_end, 0)
                    while word_start > floor and (
                        text[word_start - 1].isalpha()
                        or (
                            text[word_start - 1] in _WORD_JOINERS
                            and word_start - 1 > floor
                            and text[word_start - 2].isalpha()
                        )
                    ):
                        word_start -= 1
                    tail = _WORD_TAIL.match(text, index)
                    word_end = max(tail.end() if tail else index, index + 1)
                    native = _NATIVE_LETTER.search(text, word_start, word_end) is not None
                if native:
                    continue
            edits.append((index, replacement))
    if not edits:
        return FoldedText(text, None)
    pieces: list[str] = []
    origin: list[int] = []
    done = 0
    for index, replacement in edits:
        pieces.append(text[done:index])
        origin.extend(range(done, index))
        if replacement:
            pieces.append(replacement)
            origin.append(index)
        done = index + 1
    pieces.append(text[done:])
    origin.extend(range(done, len(text)))
    return FoldedText("".join(pieces), tuple(origin))
