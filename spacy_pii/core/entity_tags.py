"""Entities as one tag per token (IOB), and back: the data of a token tagger that finds names.

A tagger that learns entities labels every token ``O`` (outside), ``B-TYPE`` (the first token
of an entity) or ``I-TYPE`` (a later one). :func:`entity_tags` writes those tags for a list of
entities; :func:`entities_from_scores` reads entities back from a tagger's probabilities.

Reading back is not an argmax: a token takes the type whose ``B-`` and ``I-`` tags score
most together, and is inside an entity when ``O`` scores below that type's threshold. A
threshold above 0.5 proposes entities the tagger is unsure of, which is what a detector of
names that must not leak wants. A run of tokens of one type is one entity: the tags are
scored token by token, so a ``B-`` inside a name is a slip more often than a second name (in
the shipped tagger's lessons, 121 of 35,116 entities abut another of their type). One pass
over the tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy

OUTSIDE = "O"


def tag_names(types: Iterable[str]) -> list[str]:
    """The tags of a tagger for ``types``: ``O``, then ``B-`` and ``I-`` of each type."""
    names = [OUTSIDE]
    for entity_type in types:
        names += [f"B-{entity_type}", f"I-{entity_type}"]
    return names


def entity_tags(n_tokens: int, entities: Iterable[tuple[int, int, str]]) -> list[str]:
    """One IOB tag per token for ``(start, end, type)`` token ranges that do not overlap.

    Raises:
        ValueError: an entity is empty, out of range or overlaps another.
    """
    tags = [OUTSIDE] * n_tokens
    for start, end, entity_type in entities:
        if not 0 <= start < end <= n_tokens:
            raise ValueError(f"entity token range {start}..{end} is not inside {n_tokens} tokens")
        if any(tag != OUTSIDE for tag in tags[start:end]):
            raise ValueError(f"entity token range {start}..{end} overlaps another entity")
        tags[start] = f"B-{entity_type}"
        tags[start + 1 : end] = [f"I-{entity_type}"] * (end - start - 1)
    return tags


def entities_from_scores(
    scores: numpy.ndarray, tags: Sequence[str], outside_thresholds: Mapping[str, float]
) -> list[tuple[int, int, str]]:
    """Entities ``(start, end, type)`` from per-token tag probabilities.

    ``scores`` has one row per token and one column per tag of ``tags``, which holds ``O``.
    A token's type is the one whose ``B-`` and ``I-`` tags score most together; the token is
    inside an entity when ``O`` scores below that type's threshold, and a run of tokens of
    one type is one entity.

    Raises:
        ValueError: ``scores`` do not match ``tags``, or a type has no threshold.
    """
    if scores.ndim != 2 or scores.shape[1] != len(tags):
        raise ValueError(f"scores of shape {scores.shape} do not match {len(tags)} tags")
    types = sorted({tag.partition("-")[2] for tag in tags if tag != OUTSIDE})
    if missing := [t for t in types if t not in outside_thresholds]:
        raise ValueError(f"no outside threshold for {', '.join(missing)}")
    type_scores = numpy.zeros((len(scores), len(types)), dtype=scores.dtype)
    for column, tag in enumerate(tags):
        if tag != OUTSIDE:
            type_scores[:, types.index(tag.partition("-")[2])] += scores[:, column]
    best = type_scores.argmax(axis=1) if types else numpy.zeros(len(scores), dtype=int)
    limits = numpy.asarray([outside_thresholds[t] for t in types] or [0.0])
    inside = scores[:, list(tags).index(OUTSIDE)] < limits[best]
    entities: list[tuple[int, int, str]] = []
    run_start: int | None = None  # the first token of the run being read
    for index in range(len(scores)):
        if run_start is not None and (not inside[index] or best[index] != best[run_start]):
            entities.append((run_start, index, types[int(best[run_start])]))
            run_start = None
        if inside[index] and run_start is None:
            run_start = index
    if run_start is not None:
        entities.append((run_start, len(scores), types[int(best[run_start])]))
    return entities


def taught_entities(
    teacher: Iterable[tuple[int, int, str]],
    gold: Iterable[tuple[int, int, str]],
    *,
    gold_types: frozenset[str],
    gold_is_complete: bool,
) -> list[tuple[int, int, str]]:
    """What a student tagger learns on one document: its teacher's entities, or, where the
    document's gold is complete for ``gold_types``, the gold for those types.

    On text people wrote the teacher is the lesson (its names, organisations and places,
    right or wrong, are what the student is to carry over). On generated text the gold
    labels every name and organisation, so the teacher's entities of ``gold_types`` are
    replaced by the gold's, and its entities of other types (places) are kept where they
    touch no gold span of any type. Ranges are token ``(start, end, type)``; the result does
    not overlap when neither input does.
    """
    teacher = list(teacher)
    if not gold_is_complete:
        return sorted(teacher)
    gold = list(gold)
    taken = [False] * (max((end for _, end, _ in [*gold, *teacher]), default=0))
    for start, end, _ in gold:
        taken[start:end] = [True] * (end - start)
    kept = [
        (start, end, entity_type)
        for start, end, entity_type in teacher
        if entity_type not in gold_types and not any(taken[start:end])
    ]
    kept += [(start, end, gold_type) for start, end, gold_type in gold if gold_type in gold_types]
    return sorted(kept)
