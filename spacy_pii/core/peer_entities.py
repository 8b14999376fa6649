"""A peer NER's entities as candidates: folded to public types, bounded by our conventions.

A peer is a named-entity recognizer trained elsewhere (en_core_web_md's ``ner``, trained on
OntoNotes news, web and conversation text). It finds names on real text that our model
misses, and names that it calls an organisation or a place; it also reads templates and
tool names as people, and its spans follow OntoNotes' edges, not ours. So its entities are
taken only where they can add something and cannot undo our own detectors:

- only labels in the label map count (``GPE`` → ``LOCATION``, ...); the rest are skipped;
- an entity is cut at a line break (a name does not run across lines), loses punctuation
  at either edge, and a PERSON also loses a trailing possessive and leading honorifics,
  as :mod:`spacy_pii.core.conventions` does for our model (a PERSON of titles only is
  dropped);
- an entity with a digit is skipped (``ci-runner-5``, ``k8s``, ``Mark 12``): no name or
  place name in the real-text dev sets has one;
- an entity that overlaps a token taken by our own detectors is skipped: the peer fills
  gaps, it never re-types or re-bounds our spans.

Measured on the real-text dev suite (``configs/README.md``): these rules keep most of the
peer's reduction in leaked name characters and cost the least on generated text.

Everything is in token positions and linear in the tokens and entities.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .conventions import HONORIFICS, edge_punctuation, leading_honorifics

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


@dataclass(frozen=True)
class PeerRules:
    """How a peer's entities become candidates (see the module docstring)."""

    labels: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_PEER_LABELS))
    skip_digits: bool = True


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
        while end > start and words[end - 1] in POSSESSIVE_TOKENS:
            end -= 1
        if start < end:
            start += leading_honorifics(words[start:end])
        # our model keeps the last word of a span that is only a title; a peer's such span
        # names nobody, so none of it is kept
        if all(word.lower().rstrip(".") in HONORIFICS for word in words[start:end]):
            end = start
        if start < end:
            leading, trailing = edge_punctuation(words[start:end])
            start, end = start + leading, end - trailing
    return start, max(start, end)


def peer_candidates(
    words: Sequence[str],
    breaks: Sequence[bool],
    entities: Iterable[tuple[int, int, str]],
    taken: Iterable[tuple[int, int]],
    rules: PeerRules | None = None,
) -> list[tuple[int, int, str]]:
    """The peer's entities that become candidates, as ``(start, end, public type)`` tokens.

    Args:
        words: the tokens' texts.
        breaks: per token, whether it holds or is followed by a line break.
        entities: the peer's ``(start, end, label)`` in token positions.
        taken: token bounds of our own detectors' spans; an entity touching one is skipped.
        rules: the label map and filters; the defaults when ``None``.
    """
    rules = rules or PeerRules()
    occupied = bytearray(len(words))
    for first, last in taken:
        occupied[first:last] = b"\x01" * (last - first)
    kept: list[tuple[int, int, str]] = []
    for first, last, label in entities:
        public = rules.labels.get(label)
        if public is None:
            continue
        first, last = bound_entity(words, breaks, first, last, public)
        if first == last or occupied.find(1, first, last) != -1:
            continue
        if rules.skip_digits and any(ch.isdigit() for word in words[first:last] for ch in word):
            continue
        kept.append((first, last, public))
    return kept
