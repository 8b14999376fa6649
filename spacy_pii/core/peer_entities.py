"""A peer NER's entities as candidates: folded to public types, bounded by our conventions.

A peer is a named-entity recognizer trained elsewhere (en_core_web_md's ``ner``, trained on
OntoNotes news, web and conversation text). It finds names on real text that our model
misses, and names that it calls an organisation or a place; it also reads templates and
tool names as people, glues handles and links to the names beside them, and its spans follow
OntoNotes' edges, not ours. So its entities are taken only where they can add something and
cannot undo our own detectors:

- only labels in the label map count (``GPE`` → ``LOCATION``, ...); the rest are skipped;
- an entity is cut at a line break (a name does not run across lines), loses punctuation
  at either edge, and a PERSON also loses a trailing possessive and leading honorifics,
  as :mod:`spacy_pii.core.conventions` does for our model (a PERSON of titles only is
  dropped);
- an entity that touches one of our PERSON spans is skipped: the peer never re-bounds our
  names;
- an entity is cut at every token that no name holds (one with a digit, an ``@`` handle, a
  ``#`` tag, a link, ``_``, ``=`` or ``/``: ``Hunter http://t.co/x``, ``ci-runner-5``) and at
  every token under one of our other spans (``Rue Bourbon @ruebourbonph`` beside our
  USERNAME); of an entity so cut, only the parts that read as a name are kept: words of
  letters (with ``.``, ``'``, ``-`` inside), one of them capitalised.

Measured on the real-text dev suite (``configs/README.md``): these rules keep most of the
peer's reduction in leaked name characters and cost the least on generated text.

Everything is in token positions and linear in the tokens and entities.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .conventions import HONORIFICS, edge_punctuation, is_punctuation

# OntoNotes' labels for people, organisations and places, as en_core_web_md writes them.
# NORP (nationalities, religious and political groups) is left out: taxonomy 2026.12 drops it.
DEFAULT_PEER_LABELS: dict[str, str] = {
    "PERSON": "PERSON",
    "ORG": "ORG",
    "GPE": "LOCATION",
    "LOC": "LOCATION",
    "FAC": "LOCATION",
}
POSSESSIVE_TOKENS = frozenset({"'s", "’s", "'", "’"})
# Starts and characters of tokens that no name holds.
_NON_NAME_PREFIXES = ("@", "#", "http", "www.")
_NON_NAME_CHARS = frozenset("_=/")
# A word of a name: a letter first, then letters, full stops, apostrophes and hyphens.
_NAME_WORD = re.compile(r"[^\W\d_](?:[^\W\d_]|[.'’-])*")


@dataclass(frozen=True)
class PeerRules:
    """How a peer's entities become candidates (see the module docstring)."""

    labels: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_PEER_LABELS))


def is_non_name_token(word: str) -> bool:
    """Whether no name holds this token: a digit, a handle, a tag, a link, ``_ = /``."""
    return (
        word.startswith(_NON_NAME_PREFIXES)
        or any(ch.isdigit() for ch in word)
        or not _NON_NAME_CHARS.isdisjoint(word)
    )


def reads_as_name(words: Sequence[str]) -> bool:
    """Whether the words read as a name: all name words, one of them capitalised."""
    return all(_NAME_WORD.fullmatch(word) for word in words) and any(
        word[:1].isupper() for word in words
    )


def _is_honorific(word: str) -> bool:
    return word.lower().rstrip(".") in HONORIFICS


def bound_entity(
    words: Sequence[str], breaks: Sequence[bool], start: int, end: int, public: str
) -> tuple[int, int]:
    """The token bounds of an entity after our conventions; ``start == end`` when none is left.

    ``breaks[i]`` is true when token ``i`` holds a line break or is followed by one.
    """
    for i in range(start, end):
        if breaks[i]:
            end = i + (0 if "\n" in words[i] else 1)
            break
    if start < end:
        leading, trailing = edge_punctuation(words[start:end])
        start, end = start + leading, end - trailing
    if public == "PERSON":
        # Possessives, punctuation and titles can alternate at either end ("Mr , Mr Ada 's ,
        # 's"), so each end is trimmed until none is left; every step moves an index, so
        # this is linear in the entity. A span of titles only names nobody: nothing is left.
        while start < end:
            if words[end - 1] in POSSESSIVE_TOKENS or is_punctuation(words[end - 1]):
                end -= 1
            elif is_punctuation(words[start]) or _is_honorific(words[start]):
                start += 1
            else:
                break
    return start, max(start, end)


def peer_candidates(
    words: Sequence[str],
    breaks: Sequence[bool],
    entities: Iterable[tuple[int, int, str]],
    taken: Iterable[tuple[int, int, str]],
    rules: PeerRules | None = None,
) -> list[tuple[int, int, str]]:
    """The peer's entities that become candidates, as ``(start, end, public type)`` tokens.

    Args:
        words: the tokens' texts.
        breaks: per token, whether it holds or is followed by a line break.
        entities: the peer's ``(start, end, label)`` in token positions.
        taken: ``(start, end, public type)`` of our own detectors' spans.
        rules: the label map; the defaults when ``None``.
    """
    rules = rules or PeerRules()
    ours_person = bytearray(len(words))
    ours_other = bytearray(len(words))
    for first, last, type_name in taken:
        marks = ours_person if type_name == "PERSON" else ours_other
        marks[first:last] = b"\x01" * (last - first)
    kept: list[tuple[int, int, str]] = []
    for first, last, label in entities:
        public = rules.labels.get(label)
        if public is None:
            continue
        first, last = bound_entity(words, breaks, first, last, public)
        if first == last or ours_person.find(1, first, last) != -1:
            continue
        parts: list[tuple[int, int]] = []
        start = first
        for i in range(first, last):
            if ours_other[i] or is_non_name_token(words[i]):
                if start < i:
                    parts.append((start, i))
                start = i + 1
        if start < last:
            parts.append((start, last))
        whole = parts == [(first, last)]
        for part_first, part_last in parts:
            if not whole:
                part_first, part_last = bound_entity(words, breaks, part_first, part_last, public)
                if not reads_as_name(words[part_first:part_last]):
                    continue
            if part_first < part_last:
                kept.append((part_first, part_last, public))
    return kept
