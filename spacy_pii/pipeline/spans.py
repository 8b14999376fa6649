"""Shared adapter code: hits <-> SpanGroups, and token splitting at hit boundaries.

DESIGN contract 5: PII in text often does not sit on token boundaries (``card:4242...``,
``(555)123-4567,``). Rather than widen or shift a hit to the nearest tokens, the rule
component splits the tokens that a hit boundary falls inside, so every hit becomes an exact
``Span``. It runs before any model, so the models see the split tokens too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from spacy.tokens import Doc, Span, SpanGroup, Token

from ..hits import Hit


def split_tokens_at(doc: Doc, offsets: Iterable[int]) -> None:
    """Split every token that a character offset falls strictly inside."""
    if not len(doc):
        return
    cuts_by_token: dict[int, set[int]] = {}
    # len(doc.text) without doc.text, which joins every token on each access.
    last = doc[-1]
    text_length = last.idx + len(last.text_with_ws)
    for offset in offsets:
        if offset <= 0 or offset >= text_length:
            continue
        token_index = _token_containing(doc, offset)
        if token_index is None:
            continue
        token = doc[token_index]
        relative = offset - token.idx
        if 0 < relative < len(token.text):
            cuts_by_token.setdefault(token_index, set()).add(relative)
    if not cuts_by_token:
        return
    with doc.retokenize() as retokenizer:
        for token_index, cuts in cuts_by_token.items():
            token = doc[token_index]
            bounds = [0, *sorted(cuts), len(token.text)]
            orths = [token.text[a:b] for a, b in itertools.pairwise(bounds)]
            heads: list[Token | tuple[Token, int]] = [(token, 0)] * len(orths)
            retokenizer.split(token, orths, heads=heads)


def _token_containing(doc: Doc, offset: int) -> int | None:
    # Binary search over token start offsets: O(log n) per boundary.
    low, high = 0, len(doc) - 1
    while low <= high:
        middle = (low + high) // 2
        token = doc[middle]
        if offset < token.idx:
            high = middle - 1
        elif offset >= token.idx + len(token.text):
            low = middle + 1
        else:
            return middle
    return None


def hits_to_group(doc: Doc, name: str, hits: Sequence[Hit]) -> SpanGroup:
    """Build a SpanGroup whose attrs hold scores, detector ids and detector kinds, positional
    with the spans."""
    spans: list[Span] = []
    scores: list[float | None] = []
    detectors: list[str] = []
    kinds: list[str] = []
    for hit in hits:
        span = doc.char_span(hit.start, hit.end, label=hit.label)
        if span is None:
            raise ValueError(
                f"hit {hit.start}:{hit.end} does not sit on token boundaries after splitting"
            )
        spans.append(span)
        scores.append(hit.score)
        detectors.append(hit.detector)
        kinds.append(hit.kind)
    group = SpanGroup(doc, name=name, spans=spans)
    group.attrs["scores"] = scores
    group.attrs["detectors"] = detectors
    group.attrs["kinds"] = kinds
    return group


# A group that a user's own component wrote may carry no kinds: its spans are taken as a
# model's guesses, the kind that yields to a rule where the taxonomy prefers rules.
DEFAULT_KIND = "model"


def group_to_hits(group: SpanGroup) -> list[Hit]:
    """Read a SpanGroup back into hits.

    Missing attrs mean "no score", a detector named after the group, and the kind
    :data:`DEFAULT_KIND`.
    """
    scores = group.attrs.get("scores") or [None] * len(group)
    detectors = group.attrs.get("detectors") or [group.name] * len(group)
    kinds = group.attrs.get("kinds") or [DEFAULT_KIND] * len(group)
    if not (len(scores) == len(detectors) == len(kinds) == len(group)):
        raise ValueError(f"span group {group.name!r} has attrs out of step with its spans")
    hits = []
    for span, score, detector, kind in zip(group, scores, detectors, kinds, strict=True):
        hits.append(
            Hit(
                span.start_char,
                span.end_char,
                span.label_,
                None if score is None else float(score),
                str(detector),
                kind,
            )
        )
    return hits
