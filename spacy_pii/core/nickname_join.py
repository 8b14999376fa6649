"""Nickname joins: one PERSON span for a name written with a quoted nickname inside.

Biographies, sports and news write a nickname between the given name and the surname:
``Harold "Junior" Theriault``, ``Earvin 'Magic' Johnson``, ``Robert (Bob) Smith``. A model
tags the two name parts and leaves the nickname, which identifies the person as well as the
name does, unmasked between them. By the span conventions (``corpus/CONVENTIONS.md``) a name is
one span and never split into given-name and surname spans.

What it guarantees:

* Two PERSON hits are joined only when the text between them is a nickname gap: horizontal
  whitespace, an opening quote or parenthesis, one to :data:`MAX_NICKNAME_CHARS` characters
  with no quote, parenthesis or line break that begin with a letter not in lower case (so
  ``told Anna "no" Ben`` stays two names), the matching closer, horizontal whitespace. A
  nickname that is itself a PERSON hit (``Earvin "Magic" Johnson`` as three hits) joins too.
* Nothing else changes: hits of other types, and PERSON hits with any other gap, are returned
  as they were. The joined hit covers exactly the parts and the gap, so it overlaps no hit it
  was not made from.
* The joined hit keeps the lowest score of its parts (``None`` if a part has none), the first
  part's kind, and is marked ``detector="nickname_join"``.
* One left-to-right pass over the sorted hits with a bounded pattern per gap: time linear in
  the number of hits and the text they span.

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .hits import Hit

DETECTOR = "nickname_join"
LABEL = "PERSON"
# A nickname is a word or three ("Junior", "The Rock", "Bambos"): longer quoted text between
# two names is a title or a quotation.
MAX_NICKNAME_CHARS = 30
# A gap longer than this holds more than spaces, quotes and a nickname; it is not read.
MAX_GAP_CHARS = MAX_NICKNAME_CHARS + 16
_PAIRS = {'"': '"', "“": "”", "„": "“", "«": "»", "'": "'", "‘": "’", "(": ")"}
_OPENERS = "".join(re.escape(c) for c in _PAIRS)
_CLOSERS = "".join(re.escape(c) for c in set(_PAIRS.values()))
_INNER = rf"[^\n\r{_OPENERS}{_CLOSERS}]"
# The whole gap between two name parts: space, opener, nickname, closer, space.
_WHOLE_GAP = re.compile(
    rf"[ \t]+([{_OPENERS}])[ \t]?({_INNER}{{1,{MAX_NICKNAME_CHARS}}}?)[ \t]?([{_CLOSERS}])[ \t]+"
)
# The gaps on either side of a nickname that is a PERSON hit of its own.
_OPEN_GAP = re.compile(rf"[ \t]+([{_OPENERS}])[ \t]?")
_CLOSE_GAP = re.compile(rf"[ \t]?([{_CLOSERS}])[ \t]+")


def _nickname_gap(gap: str) -> bool:
    match = _WHOLE_GAP.fullmatch(gap)
    return bool(
        match
        and match.group(2).strip()
        and match.group(2)[0].isalpha()
        and not match.group(2)[0].islower()
        and _PAIRS[match.group(1)] == match.group(3)
    )


def _around_nickname(text: str, before: Hit, nickname: Hit, after: Hit) -> bool:
    if after.start - before.end > MAX_GAP_CHARS:
        return False
    opened = _OPEN_GAP.fullmatch(text, before.end, nickname.start)
    closed = _CLOSE_GAP.fullmatch(text, nickname.end, after.start)
    return bool(
        opened
        and closed
        and nickname.end - nickname.start <= MAX_NICKNAME_CHARS
        and _PAIRS[opened.group(1)] == closed.group(1)
    )


def _joined(parts: Sequence[Hit]) -> Hit:
    scores = [part.score for part in parts if part.score is not None]
    score = min(scores) if len(scores) == len(parts) else None
    return Hit(parts[0].start, parts[-1].end, LABEL, score, DETECTOR, parts[0].kind)


def join_nicknames(text: str, hits: Sequence[Hit]) -> tuple[Hit, ...]:
    """``hits`` (non-overlapping, as the merge's resolution leaves them) with each name that
    is split around a quoted nickname joined into one PERSON hit, sorted by position."""
    ordered = sorted(hits, key=lambda hit: (hit.start, hit.end))
    if sum(1 for hit in ordered if hit.label == LABEL) < 2:
        return tuple(ordered)
    out: list[Hit] = []
    index = 0
    while index < len(ordered):
        hit = ordered[index]
        if hit.label != LABEL:
            out.append(hit)
            index += 1
            continue
        parts = [hit]
        while index + 1 < len(ordered):
            following = ordered[index + 1]
            if following.label != LABEL:
                break
            if following.start - parts[-1].end <= MAX_GAP_CHARS and _nickname_gap(
                text[parts[-1].end : following.start]
            ):
                parts.append(following)
                index += 1
                continue
            if (
                index + 2 < len(ordered)
                and ordered[index + 2].label == LABEL
                and _around_nickname(text, parts[-1], following, ordered[index + 2])
            ):
                parts.extend((following, ordered[index + 2]))
                index += 2
                continue
            break
        out.append(parts[0] if len(parts) == 1 else _joined(parts))
        index += 1
    return tuple(out)
