"""Hashtag names: a person's first name and surname run together after ``#``.

Social text writes people into hashtags: "#ShaneWatson #RR captain", "#DonaldSterling".
The tokenizer keeps "ShaneWatson" as one token, so a model trained on running text reads a
word it has never seen. Here the tag's camel-case parts are read instead. The first two
title-case parts in a row that are a known first name and then a known surname become
PERSON. Word frequency keeps ordinary tags out ("#MyLife", "#RoyalBaby", "#HappyNew"):
each part must be more common as a name than as a word. That is, log10 of the people who
bear it is at least its Zipf frequency, log10 of its uses per billion words. "John" (5.1 M
births, Zipf 5.4) and "Smith" pass; "Love" (3.5 on the first scale, Zipf 5.8) does not.

The lookups use the span ranker's name tables (``spacy_pii/data/name_evidence_en.json.gz``:
the US birth and census tables) and ``wordfreq``'s English list. A tag that only spells a
name in lower case ("#tonymemmel") is not read: nothing marks where its parts meet.

A context cue, not a standard's grammar, so its hits are shape-only (``score=None``). The
detector id is ``"cues.hashtag"``. Its setting is ``"hashtags"`` in ``context_cues``. Each
tag is matched once, and its parts are scanned forward, so the cost is linear in the text.

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ..core.hits import Hit
from ..core.name_evidence import NameTables, shipped_tables, zipf
from .anchors import Anchors

# A tag is "#" after a non-word character, then letters or digits (no underscore: "#__init__").
_TAG = re.compile(r"(?<![\w&#])#([^\W_]+)")
# Camel-case parts: a title-case word, a run of capitals not followed by a lower-case letter
# ("RIP" in "RIPJohnnyWinter"), a lower-case run, or digits. ASCII only, as the name tables
# are: a letter outside ASCII is no part, so the parts on either side of it are not adjacent,
# and a pair must not end inside such a word ("#AnaJosé").
_PART = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+|[0-9]+")
# log10 of the births (first names) or of the people (surnames) a part must reach.
MIN_LOG_COUNT = 2.5
TABLES_LANGUAGE = "en"


class HashtagNameDetector:
    """A first name and a surname run together in a hashtag: PERSON, unscored.

    Args:
        tables: the name tables to read; the English tables shipped with the package by
            default, loaded on the first text that holds a tag.
    """

    id = "cues.hashtag"
    types = frozenset({"PERSON"})

    def __init__(self, tables: NameTables | None = None) -> None:
        self._tables = tables

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text holds a ``#``."""
        return "#" in anchors.text

    def find(self, text: str) -> list[Hit]:
        if "#" not in text:
            return []
        if self._tables is None:
            self._tables = shipped_tables(TABLES_LANGUAGE)
        hits = []
        for tag in _TAG.finditer(text):
            found = hashtag_name(tag.group(1), self._tables)
            if found is not None:
                start, end = found
                offset = tag.start(1)
                hits.append(Hit(offset + start, offset + end, "PERSON", None, self.id))
        return hits


def hashtag_name(body: str, tables: NameTables) -> tuple[int, int] | None:
    """The offsets in ``body`` (a tag without its ``#``) of its first name-and-surname pair."""
    parts = [(m.start(), m.group()) for m in _PART.finditer(body)]
    for (start, first), (next_start, last) in pairwise(parts):
        end = next_start + len(last)
        # A title-case part always starts a word; it ends one unless a letter outside ASCII
        # in lower case follows ("Jos" in "AnaJosé").
        ends_word = not body[end : end + 1].islower()
        adjacent = next_start == start + len(first)
        if adjacent and ends_word and _is_first_name(first, tables) and _is_surname(last, tables):
            return start, end
    return None


def _title_case(part: str) -> bool:
    return len(part) > 1 and part[0].isupper() and part[1:].islower()


def _is_first_name(part: str, tables: NameTables) -> bool:
    return _title_case(part) and _more_name_than_word(tables.first_names.get(part.casefold()), part)


def _is_surname(part: str, tables: NameTables) -> bool:
    return _title_case(part) and _more_name_than_word(tables.surnames.get(part.casefold()), part)


def _more_name_than_word(log_count: float | None, part: str) -> bool:
    return (
        log_count is not None
        and log_count >= MIN_LOG_COUNT
        and log_count >= zipf(part.casefold(), TABLES_LANGUAGE)
    )
