"""Entities as IOB tags and back (spacy_pii.core.entity_tags): pure logic, no spaCy."""

from __future__ import annotations

import time

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_pii.core.entity_tags import (
    entities_from_scores,
    entity_tags,
    tag_names,
    taught_entities,
)

TAGS = tag_names(["PERSON", "ORG"])


def _limits(value: float) -> dict[str, float]:
    return {"PERSON": value, "ORG": value}


def _scores(rows: list[dict[str, float]]) -> numpy.ndarray:
    """One row per token; tags absent from a row share nothing."""
    return numpy.asarray([[row.get(tag, 0.0) for tag in TAGS] for row in rows], dtype="f")


def test_tag_names_put_outside_first_then_begin_and_inside_per_type():
    assert TAGS == ["O", "B-PERSON", "I-PERSON", "B-ORG", "I-ORG"]


def test_entity_tags_mark_begin_and_inside():
    assert entity_tags(5, [(0, 2, "PERSON"), (3, 4, "ORG")]) == [
        "B-PERSON",
        "I-PERSON",
        "O",
        "B-ORG",
        "O",
    ]


@pytest.mark.parametrize(
    "entities", [[(0, 0, "PERSON")], [(2, 6, "PERSON")], [(0, 2, "ORG"), (1, 3, "PERSON")]]
)
def test_entity_tags_refuse_empty_outside_and_overlapping_entities(entities):
    with pytest.raises(ValueError):
        entity_tags(5, entities)


def test_a_token_is_inside_when_outside_scores_below_the_threshold():
    scores = _scores([{"O": 0.6, "B-PERSON": 0.4}, {"O": 0.9, "I-PERSON": 0.1}])
    assert entities_from_scores(scores, TAGS, _limits(0.5)) == []
    assert entities_from_scores(scores, TAGS, _limits(0.7)) == [(0, 1, "PERSON")]
    assert entities_from_scores(scores, TAGS, _limits(0.95)) == [(0, 2, "PERSON")]


def test_each_type_has_its_own_threshold_for_the_tokens_leaning_to_it():
    scores = _scores([{"O": 0.6, "B-PERSON": 0.4}, {"O": 0.6, "B-ORG": 0.4}])
    limits = {"PERSON": 0.5, "ORG": 0.7}
    assert entities_from_scores(scores, TAGS, limits) == [(1, 2, "ORG")]


def test_a_token_leans_to_the_type_whose_tags_score_most_together():
    # I-ORG alone beats B-PERSON and I-PERSON each, not their sum
    scores = _scores([{"O": 0.1, "B-PERSON": 0.3, "I-PERSON": 0.3, "I-ORG": 0.3}])
    assert entities_from_scores(scores, TAGS, _limits(0.5)) == [(0, 1, "PERSON")]


def test_a_run_of_one_type_is_one_entity_whatever_its_tags():
    scores = _scores(
        [
            {"I-PERSON": 1.0},  # an inside tag with nothing before it starts an entity
            {"B-PERSON": 1.0},  # a begin tag inside a run is read as a slip
            {"I-ORG": 1.0},  # another type starts another entity
            {"B-ORG": 1.0},
            {"O": 1.0},
            {"I-ORG": 1.0},
        ]
    )
    assert entities_from_scores(scores, TAGS, _limits(0.5)) == [
        (0, 2, "PERSON"),
        (2, 4, "ORG"),
        (5, 6, "ORG"),
    ]


def test_scores_must_match_the_tags_and_every_type_needs_a_threshold():
    with pytest.raises(ValueError, match="do not match"):
        entities_from_scores(numpy.zeros((3, 2), dtype="f"), TAGS, _limits(0.5))
    with pytest.raises(ValueError, match="no outside threshold for ORG"):
        entities_from_scores(numpy.zeros((3, 5), dtype="f"), TAGS, {"PERSON": 0.5})
    assert entities_from_scores(numpy.zeros((0, 5), dtype="f"), TAGS, _limits(0.5)) == []


@st.composite
def _entities(draw):
    n_tokens = draw(st.integers(min_value=0, max_value=40))
    entities, position = [], 0
    while position < n_tokens:
        # a gap after each entity: runs of one type that abut read as one entity
        position += draw(st.integers(min_value=1 if entities else 0, max_value=3))
        length = draw(st.integers(min_value=1, max_value=4))
        if position + length > n_tokens:
            break
        entities.append((position, position + length, draw(st.sampled_from(["PERSON", "ORG"]))))
        position += length
    return n_tokens, entities


@given(_entities())
def test_tags_of_entities_read_back_as_the_same_entities(case):
    n_tokens, entities = case
    tags = entity_tags(n_tokens, entities)
    one_hot = numpy.zeros((n_tokens, len(TAGS)), dtype="f")
    for index, tag in enumerate(tags):
        one_hot[index, TAGS.index(tag)] = 1.0
    assert entities_from_scores(one_hot, TAGS, _limits(0.5)) == entities


def test_reading_entities_back_is_linear_in_tokens():
    rng = numpy.random.default_rng(0)

    def seconds(n_tokens: int) -> float:
        scores = rng.dirichlet(numpy.ones(len(TAGS)), size=n_tokens).astype("f")
        started = time.process_time()
        entities_from_scores(scores, TAGS, _limits(0.7))
        return time.process_time() - started

    seconds(1_000)  # warm up
    small = min(seconds(20_000) for _ in range(3))
    large = min(seconds(200_000) for _ in range(3))
    assert large / small < 20  # ten times the tokens: linear is about 10, quadratic 100


def test_the_teacher_teaches_on_real_text():
    teacher = [(3, 4, "LOCATION"), (0, 2, "PERSON")]
    gold = [(0, 1, "PERSON")]
    taught = taught_entities(
        teacher, gold, gold_types=frozenset({"PERSON", "ORG"}), gold_is_complete=False
    )
    assert taught == [(0, 2, "PERSON"), (3, 4, "LOCATION")]


def test_complete_gold_replaces_the_teacher_for_its_types():
    teacher = [(0, 2, "PERSON"), (3, 4, "LOCATION"), (5, 7, "LOCATION"), (8, 9, "ORG")]
    gold = [(1, 2, "PERSON"), (6, 7, "ADDRESS"), (10, 12, "ORG")]
    taught = taught_entities(
        teacher, gold, gold_types=frozenset({"PERSON", "ORG"}), gold_is_complete=True
    )
    # the teacher's names and organisations go, and its place touching the address
    assert taught == [(1, 2, "PERSON"), (3, 4, "LOCATION"), (10, 12, "ORG")]
