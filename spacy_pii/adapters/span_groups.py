"""Shared adapter code: hits <-> SpanGroups, and token splitting at hit boundaries.

The token contract (docs/how-it-works.md: Tokens): PII in text often does not sit on token
boundaries (``card:4242...``, ``(555)123-4567,``). Rather than widen or shift a hit to the
nearest tokens, the rule component splits the tokens that a hit boundary falls inside, so
every hit becomes an exact ``Span``. It runs before any model, so the models see the split
tokens too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import numpy
from spacy.attrs import IDX, LENGTH
from spacy.tokens import Doc, Span, SpanGroup, Token

from ..core.hits import Hit


def split_tokens_at(doc: Doc, offsets: Iterable[int]) -> Doc:
    """Split every token that a character offset falls strictly inside.

    The split document is built in one pass, so the cost is O(tokens + offsets log offsets)
    whatever the number of cuts; spaCy's retokenizer costs a pass over the whole document
    per split token, which made a text with thousands of hits quadratic. When no offset
    falls inside a token the same ``doc`` comes back, untouched; otherwise a new ``Doc`` with
    the same text, ``user_data``, ``cats``, span groups, entities and per-token annotation
    (a split token's pieces share its tag, lemma and morphology). A parsed document keeps
    the retokenizer, which knows how to attach the pieces in the tree.
    """
    if not len(doc):
        return doc
    last = doc[-1]
    # len(doc.text) without doc.text, which joins every token on each access.
    text_length = last.idx + len(last.text_with_ws)
    wanted = sorted({offset for offset in offsets if 0 < offset < text_length})
    if not wanted:
        return doc
    bounds = doc.to_array([IDX, LENGTH]).astype("int64")
    starts, lengths = bounds[:, 0], bounds[:, 1]
    cuts = numpy.asarray(wanted, dtype="int64")
    # The token whose start is the last one at or before each cut.
    owners = numpy.searchsorted(starts, cuts, side="right") - 1
    relative = cuts - starts[owners]
    inside = (relative > 0) & (relative < lengths[owners])
    if not inside.any():
        return doc
    owners, relative = owners[inside], relative[inside]
    if doc.has_annotation("DEP"):
        _split_with_retokenizer(doc, owners.tolist(), relative.tolist())
        return doc
    return _rebuilt(doc, owners.tolist(), relative.tolist())


def _split_with_retokenizer(doc: Doc, owners: list[int], relative: list[int]) -> None:
    cuts_by_token: dict[int, list[int]] = {}
    for owner, cut in zip(owners, relative, strict=True):
        cuts_by_token.setdefault(owner, []).append(cut)
    with doc.retokenize() as retokenizer:
        for token_index, cuts in cuts_by_token.items():
            token = doc[token_index]
            piece_bounds = [0, *cuts, len(token.text)]
            orths = [token.text[a:b] for a, b in itertools.pairwise(piece_bounds)]
            heads: list[Token | tuple[Token, int]] = [(token, 0)] * len(orths)
            retokenizer.split(token, orths, heads=heads)


# Per-token annotation that a split token's pieces inherit.
_INHERITED = ("TAG", "POS", "MORPH", "LEMMA")


def _rebuilt(doc: Doc, owners: list[int], relative: list[int]) -> Doc:
    # owners is sorted (the cuts were), and relative ascends within one owner.
    words: list[str] = []
    spaces: list[bool] = []
    source: list[int] = []
    first_piece: list[bool] = []
    pending = 0
    for index, token in enumerate(doc):
        text = token.text
        done = 0
        while pending < len(owners) and owners[pending] == index:
            cut = relative[pending]
            words.append(text[done:cut])
            spaces.append(False)
            source.append(index)
            first_piece.append(done == 0)
            done = cut
            pending += 1
        words.append(text[done:])
        spaces.append(bool(token.whitespace_))
        source.append(index)
        first_piece.append(done == 0)
    new = Doc(doc.vocab, words=words, spaces=spaces)
    sources = numpy.asarray(source, dtype="int64")
    present: list[int | str] = [attr for attr in _INHERITED if doc.has_annotation(attr)]
    if present:
        new.from_array(present, doc.to_array(present)[sources])
    if doc.has_annotation("SENT_START"):
        # spaCy stores -1 ("not a start") wrapped in an unsigned array.
        starts = doc.to_array(["SENT_START"]).astype("int64")[sources]
        # A piece after the first continues its token's sentence, where that is known.
        starts[~numpy.asarray(first_piece) & (starts != 0)] = -1
        new.from_array(["SENT_START"], starts.astype("uint64"))
    new.user_data.update(doc.user_data)
    new.cats.update(doc.cats)
    new.user_hooks.update(doc.user_hooks)
    new.user_token_hooks.update(doc.user_token_hooks)
    new.user_span_hooks.update(doc.user_span_hooks)
    # nlp.pipe(as_tuples=True) carries each text's context on the doc.
    new._context = doc._context
    if doc.ents:
        new.ents = [_moved(new, span) for span in doc.ents]
    for key, group in doc.spans.items():
        moved = SpanGroup(new, name=group.name, spans=[_moved(new, span) for span in group])
        moved.attrs.update(group.attrs)
        new.spans[key] = moved
    return new


def _moved(doc: Doc, span: Span) -> Span:
    # Splitting only adds token boundaries, so every old span still sits on tokens.
    moved = doc.char_span(
        span.start_char, span.end_char, label=span.label, kb_id=span.kb_id, span_id=span.id
    )
    if moved is None:
        raise ValueError(f"span {span.start_char}:{span.end_char} lost its token boundaries")
    return moved


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
