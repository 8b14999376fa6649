"""The merge resolves overlaps in one total order (docs/how-it-works.md: Merge order); one test
per step."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_pii.core.hits import Hit
from spacy_pii.core.resolve import resolve
from spacy_pii.errors import UnknownLabel


def _keys(resolution):
    return [(h.start, h.end, h.label) for h in resolution.spans]


def test_higher_rank_wins(taxonomy):
    # PAYMENT (rank 20) beats PHONE (rank 10) on the digits of a card.
    hits = [Hit(5, 21, "PAYMENT", 1.0, "rules.card"), Hit(5, 15, "PHONE", 1.0, "rules.phone")]
    assert _keys(resolve(hits, taxonomy)) == [(5, 21, "PAYMENT")]


def test_rank_beats_length(taxonomy):
    hits = [Hit(0, 30, "PERSON", 0.9, "ner", "model"), Hit(10, 20, "SECRET", None, "rules.x")]
    assert _keys(resolve(hits, taxonomy)) == [(10, 20, "SECRET")]


def test_tie_prefers_the_detector_kind_the_type_names(taxonomy):
    # EMAIL prefers rules: a shorter rule hit beats a longer, confident model hit.
    rule = Hit(0, 10, "EMAIL", None, "rules.email", "rule")
    model = Hit(0, 12, "EMAIL", 0.99, "ner", "model")
    assert _keys(resolve([model, rule], taxonomy)) == [(0, 10, "EMAIL")]


@pytest.mark.parametrize("username_score", [0.99, 0.3, None])
def test_a_rule_decided_type_beats_a_model_guessed_one_on_the_same_characters(
    taxonomy, username_score
):
    # EMAIL and USERNAME share a class rank; each hit comes from the kind its type prefers.
    email = Hit(4, 20, "EMAIL", None, "rules.email", "rule")
    username = Hit(4, 20, "USERNAME", username_score, "ner", "model")
    assert resolve([username, email], taxonomy).spans == (email,)


def test_tie_then_prefers_the_longer_span(taxonomy):
    hits = [Hit(0, 5, "PERSON", 0.99, "ner", "model"), Hit(0, 11, "ADDRESS", 0.5, "ner", "model")]
    assert _keys(resolve(hits, taxonomy)) == [(0, 11, "ADDRESS")]


def test_tie_then_prefers_the_higher_score(taxonomy):
    hits = [Hit(0, 5, "PERSON", 0.6, "ner", "model"), Hit(2, 7, "ADDRESS", 0.7, "ner", "model")]
    assert _keys(resolve(hits, taxonomy)) == [(2, 7, "ADDRESS")]


def test_no_score_sorts_below_any_score(taxonomy):
    hits = [Hit(0, 5, "PHONE", None, "rules.phone"), Hit(2, 7, "PHONE", 0.01, "rules.phone")]
    assert _keys(resolve(hits, taxonomy)) == [(2, 7, "PHONE")]


def test_tie_then_prefers_the_smaller_start(taxonomy):
    hits = [Hit(3, 8, "PERSON", 0.8, "ner", "model"), Hit(1, 6, "PERSON", 0.8, "ner", "model")]
    assert _keys(resolve(hits, taxonomy)) == [(1, 6, "PERSON")]


def test_tie_then_prefers_the_type_name(taxonomy):
    hits = [Hit(0, 5, "PERSON", 0.8, "ner", "model"), Hit(0, 5, "ADDRESS", 0.8, "ner", "model")]
    assert _keys(resolve(hits, taxonomy)) == [(0, 5, "ADDRESS")]


def test_identical_candidates_collapse_to_one(taxonomy):
    hits = [Hit(0, 5, "EMAIL", None, "rules.a"), Hit(0, 5, "EMAIL", None, "rules.b")]
    resolution = resolve(hits, taxonomy)
    assert len(resolution.spans) == 1
    assert resolution.spans[0].detector == "rules.a"


def test_labels_fold_through_the_taxonomy(taxonomy):
    hits = [Hit(0, 5, "EMAIL_ADDRESS", None, "peer"), Hit(6, 9, "DATE_TIME", None, "peer")]
    resolution = resolve(hits, taxonomy)
    assert _keys(resolution) == [(0, 5, "EMAIL")]
    assert resolution.dropped_labels == {"DATE_TIME": 1}


def test_unknown_label_is_an_error(taxonomy):
    with pytest.raises(UnknownLabel):
        resolve([Hit(0, 5, "SHOE_SIZE", None, "peer")], taxonomy)


def test_thresholds_drop_low_scores_but_keep_unscored(taxonomy):
    hits = [
        Hit(0, 5, "PERSON", 0.4, "ner", "model"),
        Hit(6, 10, "PERSON", 0.6, "ner", "model"),
        Hit(11, 20, "EMAIL", None, "rules.email"),
    ]
    resolution = resolve(hits, taxonomy, thresholds={"PERSON": 0.5, "EMAIL": 0.99})
    assert _keys(resolution) == [(6, 10, "PERSON"), (11, 20, "EMAIL")]
    assert resolution.below_threshold == {"PERSON": 1}


def test_drop_unscored_is_explicit(taxonomy):
    hits = [Hit(11, 20, "EMAIL", None, "rules.email"), Hit(0, 5, "PAYMENT", 1.0, "rules.card")]
    assert _keys(resolve(hits, taxonomy, drop_unscored=True)) == [(0, 5, "PAYMENT")]


def test_types_filter_defaults_to_default_on(taxonomy):
    hits = [Hit(0, 5, "ORG", 0.9, "ner", "model"), Hit(6, 9, "PERSON", 0.9, "ner", "model")]
    assert _keys(resolve(hits, taxonomy)) == [(6, 9, "PERSON")]
    assert len(resolve(hits, taxonomy, types=["ORG", "PERSON"]).spans) == 2


TYPES = ["SECRET", "GOV_ID", "PAYMENT", "EMAIL", "PHONE", "PERSON", "ADDRESS", "USERNAME"]
hit_strategy = st.builds(
    lambda start, length, label, score, detector, kind: Hit(
        start, start + length, label, score, detector, kind
    ),
    st.integers(0, 60),
    st.integers(1, 15),
    st.sampled_from(TYPES),
    st.one_of(st.none(), st.floats(0.0, 1.0)),
    st.sampled_from(["rules.a", "rules.b", "ner"]),
    st.sampled_from(["rule", "model"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(hit_strategy, max_size=25), st.randoms(use_true_random=False))
def test_result_is_order_independent_and_never_overlaps(taxonomy, hits, rng: random.Random):
    first = resolve(hits, taxonomy).spans
    shuffled = list(hits)
    rng.shuffle(shuffled)
    assert resolve(shuffled, taxonomy).spans == first
    for left, right in itertools.pairwise(first):
        assert left.end <= right.start
