"""Venue joins: a shop, restaurant or firm named after a person is one ORG span, not a name.

Reviews, orders and e-mail name venues after their founders: ``Rosa's Kitchen``, ``Chez
Pierre``, ``Novak & Sons``. A name model sees a given name or a surname and tags it PERSON, so
the venue is masked as a person and the text around it reads as if a customer were named. By
the span conventions (``corpus/CONVENTIONS.md``) a venue's name is an organisation, the name
inside it included; real corpora annotate them so (WikiGold's "Casa Luiz Caloi", LitBank's
"Lincoln's Inn Hall").

A name model may also call the name a place or an organisation ("Rosa" LOCATION); the venue
is one ORG span whichever of the three it said. Three forms, each read from the language's
rule data (``venue_heads``, ``venue_prefixes``, ``firm_suffixes`` in
``spacy_pii/data/languages-*.yaml``):

* a name hit, a possessive ``'s``, then one to :data:`MAX_HEAD_WORDS` capitalised words of
  which one is a venue head (``Rosa's Kitchen``, ``Joe's Crab Shack``): the venue runs to
  the last head among them. A head in lower case is a person's place (``Todd's kitchen``)
  and is left alone;
* a capitalised venue prefix just before a name hit, or as the first word of a PERSON hit
  (``Chez Pierre``, ``Casa Julia``), but not at the start of a sentence, where the capital
  says nothing: French "Chez Marie, on a dîné" is at Marie's home;
* a firm suffix or legal form just after a name hit (``Novak & Sons``, ``Mariani S.r.l.``),
  then heads as above, or at the end of the hit itself (``Harcourt Vance LLP``).

What it guarantees:

* Only name hits (:data:`~spacy_pii.core.conventions.NAME_TYPES`) change; a venue hit is
  made from one and absorbs those that lie inside it ("Rosa" PERSON, "Kitchen" ORG). The venue hit
  replaces the name hit; it keeps that hit's score and kind and is marked
  ``detector="venue_join"``.
* A venue hit sits on token boundaries (where a test of them is given), and it absorbs
  only name-model hits (PERSON, ORG, LOCATION) that lie wholly inside it; where it would cut
  or cover any other hit, the name hit is left as it was. The output never overlaps.
* Each name hit reads a bounded window on either side (a few spaces, three words, one
  prefix): time linear in the number of hits and the text.

Where the merge runs it (``pii_merge``'s ``join_venues``), it runs before propagation, so the
venue's name is not marked as a person elsewhere; a venue span then passes the merge's types,
thresholds and allow-list as an ORG span would.

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .conventions import NAME_TYPES, opens_sentence
from .hits import Hit
from .languages import rules_if_known

DETECTOR = "venue_join"
# What stands between a name and its firm suffix: one space, a tab, a non-breaking space.
_SUFFIX_GAPS = (" ", "\t", "\u00a0")
VENUE = "ORG"
# "Joe's Crab Shack": the head may be the third capitalised word after the name, no later.
MAX_HEAD_WORDS = 3
# One word, or "&" before one ("Bar & Grill"); bounded so that a window is.
_ONE_WORD = r"(?:&[ \t]+)?[^\W\d_]{1,40}"
# Words of a venue's name stand a few spaces apart at most; wider gaps are layout.
_GAP = r"[ \t]{1,4}"
_POSSESSIVE = re.compile(rf"['’]s((?:{_GAP}{_ONE_WORD}){{1,{MAX_HEAD_WORDS}}})")
_HEAD_WORDS = re.compile(rf"(?:{_GAP}{_ONE_WORD}){{1,{MAX_HEAD_WORDS}}}")
_WORD = re.compile(r"[^\W\d_]+")
# The word before a name: a whole word (nothing of a word just before it), then the gap.
_WORD_BEFORE = re.compile(rf"(?<!\w)([^\W\d_]{{1,40}}){_GAP}$")


@dataclass(frozen=True)
class VenueWords:
    """One language's venue vocabulary, case-folded (see the module docstring)."""

    heads: frozenset[str] = frozenset()
    prefixes: frozenset[str] = frozenset()
    firm_suffixes: tuple[str, ...] = ()

    @classmethod
    def of(
        cls, heads: Sequence[str], prefixes: Sequence[str], firm_suffixes: Sequence[str]
    ) -> VenueWords:
        """The vocabulary from the words as the language data writes them."""
        return cls(
            heads=frozenset(w.casefold() for w in heads),
            prefixes=frozenset(w.casefold() for w in prefixes),
            # Longest first, so that "& Co." wins over "& Co".
            firm_suffixes=tuple(sorted(firm_suffixes, key=len, reverse=True)),
        )

    def __bool__(self) -> bool:
        return bool(self.heads or self.prefixes or self.firm_suffixes)


def _last_head_end(text: str, start: int, end: int, words: VenueWords) -> int | None:
    """The end of the last venue head among the words in ``text[start:end]`` that open it
    capitalised ("Joe's Crab Shack"; "Joe's famous Grill" has none)."""
    last = None
    for word in _WORD.finditer(text, start, end):
        if not word.group()[0].isupper():
            break
        if word.group().casefold() in words.heads:
            last = word.end()
    return last


def _venue_end(text: str, hit: Hit, words: VenueWords) -> int | None:
    """Where a venue that ``hit`` opens ends (a possessive and a head, or a firm suffix and
    perhaps heads), or ``None``; a hit that ends with a firm suffix is a venue as it is."""
    for suffix in words.firm_suffixes:
        before = hit.end - len(suffix) - 1
        if (
            before > hit.start
            and text[before] in _SUFFIX_GAPS
            and text.startswith(suffix, before + 1)
            and not _word_goes_on(text, hit.end)
        ):
            return hit.end
    possessive = _POSSESSIVE.match(text, hit.end)
    if possessive and words.heads:
        end = _last_head_end(text, possessive.start(1), possessive.end(1), words)
        if end is not None:
            return end
    for suffix in words.firm_suffixes:
        after = hit.end + 1
        end = after + len(suffix)
        if (
            text[hit.end : after] in _SUFFIX_GAPS
            and text.startswith(suffix, after)
            and not _word_goes_on(text, end)
        ):
            heads = _HEAD_WORDS.match(text, end)
            if heads and words.heads:
                end = _last_head_end(text, heads.start(), heads.end(), words) or end
            return end
    return None


def _word_goes_on(text: str, position: int) -> bool:
    """Whether a word runs on at ``position``: a firm suffix counts only as a whole word, so
    not in "Novak & Sonsy" or "Weber GmbH-Mitglied"."""
    return position < len(text) and (text[position].isalnum() or text[position] in "_-")


def _venue_start(text: str, hit: Hit, words: VenueWords) -> int | None:
    """Where a venue that ``hit`` closes starts (at a capitalised prefix before it or as its
    first word), or ``None``."""
    if not words.prefixes:
        return None
    first = _WORD.match(text, hit.start, hit.end)
    if (
        hit.label == "PERSON"
        and first
        and first.end() < hit.end
        and _is_prefix(first.group(), words)
        and not opens_sentence(text, hit.start)
    ):
        return hit.start
    before = _WORD_BEFORE.search(text, max(0, hit.start - 48), hit.start)
    if before and _is_prefix(before.group(1), words) and not opens_sentence(text, before.start(1)):
        return before.start(1)
    return None


def _is_prefix(word: str, words: VenueWords) -> bool:
    return word[0].isupper() and word.casefold() in words.prefixes


def join_venues(
    text: str,
    hits: Sequence[Hit],
    words: VenueWords,
    aligned: Callable[[int, int], bool] | None = None,
) -> tuple[Hit, ...]:
    """``hits`` (non-overlapping, as the merge's resolution leaves them) with each name hit
    that names a venue replaced by one ORG hit over the venue's name, sorted by position.

    ``aligned(start, end)`` says whether a new hit would sit on token boundaries (``None``:
    any offsets do); it is asked only where a venue is found.
    """
    ordered = sorted(hits, key=lambda hit: (hit.start, hit.end))
    if not words or not any(hit.label in NAME_TYPES for hit in ordered):
        return tuple(ordered)
    out: list[Hit] = []
    absorbed: set[int] = set()
    for index, hit in enumerate(ordered):
        if index in absorbed:
            continue
        if hit.label not in NAME_TYPES:
            out.append(hit)
            continue
        start = _venue_start(text, hit, words)
        end = _venue_end(text, hit, words) if start is None else hit.end
        if start is None and end is None:
            out.append(hit)
            continue
        start = hit.start if start is None else start
        end = hit.end if end is None else end
        inside = _covered(ordered, index, start, end)
        if (
            inside is None
            or (out and out[-1].end > start)
            or (aligned is not None and not aligned(start, end))
        ):
            out.append(hit)
            continue
        absorbed.update(inside)
        out.append(Hit(start, end, VENUE, hit.score, DETECTOR, hit.kind))
    return tuple(out)


def _covered(ordered: Sequence[Hit], index: int, start: int, end: int) -> list[int] | None:
    """The indices of the hits after ``index`` that ``start:end`` covers, or ``None`` when
    it cuts one or covers one that is not a name-model hit."""
    covered = []
    following = index + 1
    while following < len(ordered) and ordered[following].start < end:
        other = ordered[following]
        if other.end > end or other.label not in NAME_TYPES:
            return None
        covered.append(following)
        following += 1
    return covered


@lru_cache(maxsize=64)
def venue_words(language: str | None) -> VenueWords:
    """The venue vocabulary of ``language``'s rule data (``xx``: every language's); none for
    a language without data or unknown to it."""
    rules = rules_if_known(language)
    if rules is None:
        return VenueWords()
    return VenueWords.of(rules.venue_heads, rules.venue_prefixes, rules.firm_suffixes)
