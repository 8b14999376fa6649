"""Score calibration: isotonic ScoreMap fit, application, serialization, cross-fitting."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_pii.errors import ConfigError
from spacy_pii.evaluation.calibration import (
    LabelThreshold,
    ScoredSpan,
    ThresholdPolicy,
    reliability,
)
from spacy_pii.evaluation.documents import Document
from spacy_pii.evaluation.score_map import (
    DEFAULT_MIN_EXAMPLES,
    IsotonicCurve,
    ScoreMap,
    cross_fitted,
    fit_score_map,
    proposal_threshold,
    score_pairs,
)


def _synthetic(n: int, seed: int, label: str, truth) -> list[tuple[str, float, bool]]:
    """``n`` pairs with a uniform raw score and ``P(correct | score) = truth(score)``."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        score = rng.random()
        pairs.append((label, score, rng.random() < truth(score)))
    return pairs


def _ece(pairs, score_map: ScoreMap | None = None) -> float:
    return reliability(
        ScoredSpan(label=lb, score=score_map.apply(lb, s) if score_map else s, is_pii=c)
        for lb, s, c in pairs
    ).ece


# -- the fit ----------------------------------------------------------------------------------


def test_pool_adjacent_violators_on_a_known_case():
    # 0.2 (right) then 0.3 (wrong) violate the order and pool into one block at 0.25.
    pairs = [("X", 0.1, False), ("X", 0.2, True), ("X", 0.3, False), ("X", 0.4, True)]
    curve = fit_score_map(pairs, min_examples=1).labels["X"]
    assert curve.x == pytest.approx((0.1, 0.25, 0.4))
    assert curve.y == (0.0, 0.5, 1.0)
    assert curve.examples == 4
    assert curve.apply(0.175) == pytest.approx(0.25)  # halfway between two block means
    assert (curve.apply(0.0), curve.apply(1.0)) == (0.0, 1.0)  # flat beyond the end knots


def test_tied_scores_are_pooled_before_ordering():
    # The same score, right and wrong in any order, is one point at its mean.
    forward = [("X", 0.7, True), ("X", 0.7, False), ("X", 0.7, False), ("X", 0.9, True)]
    backward = list(reversed(forward))
    assert fit_score_map(forward, min_examples=1) == fit_score_map(backward, min_examples=1)
    assert fit_score_map(forward, min_examples=1).apply("X", 0.7) == pytest.approx(1 / 3)


labels = st.sampled_from(["PERSON", "ORG", "USERNAME"])
pair = st.tuples(labels, st.floats(0.0, 1.0), st.booleans())


@settings(max_examples=150, deadline=None)
@given(
    pairs=st.lists(pair, max_size=60),
    min_examples=st.integers(1, 20),
    probes=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=30),
)
def test_map_is_monotone_in_range_and_order_independent(pairs, min_examples, probes):
    score_map = fit_score_map(pairs, min_examples=min_examples)
    for label in ["PERSON", "ORG", "USERNAME", "NEVER_SEEN"]:
        outputs = [score_map.apply(label, s) for s in sorted(probes)]
        assert all(0.0 <= v <= 1.0 for v in outputs)
        assert all(a <= b for a, b in pairwise(outputs))
    shuffled = pairs[:]
    random.Random(len(pairs)).shuffle(shuffled)
    assert fit_score_map(shuffled, min_examples=min_examples) == score_map


@settings(max_examples=150, deadline=None)
@given(
    pairs=st.lists(pair, min_size=1, max_size=60),
    target=st.floats(0.0, 1.0),
    probes=st.lists(st.floats(0.0, 1.0), max_size=30),
)
def test_raw_threshold_proposes_every_score_that_reaches_the_cut(pairs, target, probes):
    score_map = fit_score_map(pairs, min_examples=1)
    for label in {lb for lb, _, _ in pairs}:
        raw = score_map.raw_threshold(label, target)
        reachable = score_map.apply(label, 1.0) >= target
        if reachable:
            assert score_map.apply(label, raw) >= target
        for s in probes:
            if score_map.apply(label, s) >= target:
                assert s >= raw


def test_already_calibrated_scores_stay_near_identity():
    pairs = _synthetic(20_000, seed=1, label="PERSON", truth=lambda s: s)
    score_map = fit_score_map(pairs)
    # 20,000 examples: a block of 400 has a standard error of at most 0.025.
    gaps = [abs(score_map.apply("PERSON", g / 20) - g / 20) for g in range(1, 20)]
    assert max(gaps) < 0.08
    assert sum(gaps) / len(gaps) < 0.03


def test_over_confident_scores_get_a_lower_ece_on_fresh_data():
    # Scores from 0.6 to 1.0 that are right at half the rate they claim.
    def truth(score: float) -> float:
        return score / 2

    def squeeze(pairs):
        return [(lb, 0.6 + 0.4 * s, c) for lb, s, c in pairs]

    fit = squeeze(_synthetic(5_000, seed=2, label="USERNAME", truth=truth))
    fresh = squeeze(_synthetic(5_000, seed=3, label="USERNAME", truth=truth))
    score_map = fit_score_map(fit)
    before, after = _ece(fresh), _ece(fresh, score_map)
    assert before > 0.35
    assert after < 0.05


def test_labels_below_min_examples_and_unseen_labels_use_the_pooled_curve():
    many = _synthetic(400, seed=4, label="PERSON", truth=lambda s: s**3)
    few = _synthetic(DEFAULT_MIN_EXAMPLES - 1, seed=5, label="ORG", truth=lambda s: s)
    score_map = fit_score_map(many + few)
    assert set(score_map.labels) == {"PERSON"}
    assert score_map.examples == {"ORG": DEFAULT_MIN_EXAMPLES - 1, "PERSON": 400}
    assert score_map.pooled is not None and score_map.pooled.examples == len(many + few)
    probes = [i / 10 for i in range(11)]
    for label in ("ORG", "ADDRESS"):
        assert [score_map.apply(label, s) for s in probes] == [
            score_map.pooled.apply(s) for s in probes
        ]
    assert [score_map.apply("PERSON", s) for s in probes] != [
        score_map.pooled.apply(s) for s in probes
    ]


def test_pooled_only_fit_gives_every_label_the_pooled_curve():
    person = _synthetic(400, seed=4, label="PERSON", truth=lambda s: s**3)
    org = _synthetic(400, seed=5, label="ORG", truth=lambda s: s)
    score_map = fit_score_map(person + org, per_label=False)
    assert score_map.labels == {}
    assert score_map.pooled is not None and score_map.pooled.examples == 800
    assert score_map.examples == {"ORG": 400, "PERSON": 400}
    probes = [i / 10 for i in range(11)]
    for label in ("PERSON", "ORG"):
        assert [score_map.apply(label, s) for s in probes] == [
            score_map.pooled.apply(s) for s in probes
        ]
    assert not score_map.is_identity


@pytest.mark.parametrize(
    "pairs, min_examples",
    [([], DEFAULT_MIN_EXAMPLES), ([("PERSON", 0.9, False)] * 3, 4)],
    ids=["no-examples", "fewer-than-min-examples"],
)
def test_too_little_data_gives_the_identity(pairs, min_examples):
    score_map = fit_score_map(pairs, min_examples=min_examples)
    assert score_map.is_identity
    assert [score_map.apply("PERSON", s) for s in (0.0, 0.37, 1.0)] == [0.0, 0.37, 1.0]
    assert score_map.raw_threshold("PERSON", 0.42) == 0.42


@pytest.mark.parametrize(
    "pairs, min_examples",
    [
        ([("PERSON", 1.5, True)], 1),
        ([("PERSON", float("nan"), True)], 1),
        ([("PERSON", "0.9", True)], 1),
        ([("PERSON", 0.9, 1)], 1),
        ([("", 0.9, True)], 1),
        ([("PERSON", 0.9)], 1),
        ([], 0),
    ],
    ids=[
        "score-above-1",
        "nan",
        "str-score",
        "int-flag",
        "empty-label",
        "two-tuple",
        "zero-min-examples",
    ],
)
def test_bad_pairs_raise_config_error(pairs, min_examples):
    with pytest.raises(ConfigError) as caught:
        fit_score_map(pairs, min_examples=min_examples)
    assert "1.5" not in str(caught.value) and "nan" not in str(caught.value)


def test_fit_is_deterministic():
    pairs = _synthetic(2_000, seed=6, label="ORG", truth=lambda s: s**2)
    assert fit_score_map(pairs).to_json() == fit_score_map(list(pairs)).to_json()


# -- serialization ----------------------------------------------------------------------------


def test_round_trip_through_dict_json_and_file(tmp_path):
    pairs = _synthetic(300, seed=7, label="PERSON", truth=lambda s: s**2)
    pairs += _synthetic(10, seed=8, label="ORG", truth=lambda s: s)
    score_map = fit_score_map(pairs)
    data = json.loads(json.dumps(score_map.to_dict()))
    assert data["schema_version"] == 1
    restored = ScoreMap.from_dict(data)
    assert restored == score_map
    probes = [i / 7 for i in range(8)]
    for label in ("PERSON", "ORG", "UNSEEN"):
        assert [restored.apply(label, s) for s in probes] == [
            score_map.apply(label, s) for s in probes
        ]
    score_map.save(tmp_path / "map.json")
    assert ScoreMap.load(tmp_path / "map.json") == score_map


def _valid() -> dict:
    return fit_score_map(
        _synthetic(200, seed=9, label="PERSON", truth=lambda s: s), min_examples=10
    ).to_dict()


def _edit(change):
    data = _valid()
    change(data)
    return data


SECRET = 0.123456789


@pytest.mark.parametrize(
    "data",
    [
        _edit(lambda d: d.update(schema_version=2)),
        _edit(lambda d: d["labels"]["PERSON"]["y"].__setitem__(-1, SECRET)),
        _edit(lambda d: d["labels"]["PERSON"]["x"].__setitem__(0, 1 + SECRET)),
        _edit(lambda d: d["labels"]["PERSON"]["x"].reverse()),
        _edit(lambda d: d["labels"]["PERSON"].update(x=[SECRET])),
        _edit(lambda d: d.update(pooled=None)),
        _edit(lambda d: d["examples"].update(PERSON=3)),
        _edit(lambda d: d.update(min_examples=10_000)),
        _edit(lambda d: d.update(note=SECRET)),
        [SECRET],
    ],
    ids=[
        "schema-version",
        "decreasing-y",
        "x-above-1",
        "decreasing-x",
        "knot-count-mismatch",
        "labels-without-pooled",
        "examples-mismatch",
        "curve-below-min-examples",
        "extra-field",
        "not-a-mapping",
    ],
)
def test_bad_dict_raises_config_error_without_values(data):
    with pytest.raises(ConfigError) as caught:
        ScoreMap.from_dict(data)
    assert "123456" not in str(caught.value)


def test_load_rejects_a_file_that_is_not_json(tmp_path):
    path = tmp_path / "map.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 1"):
        ScoreMap.load(path)


def test_curve_refuses_decreasing_knots():
    with pytest.raises(ValueError, match="must not decrease"):
        IsotonicCurve(x=(0.2, 0.8), y=(0.9, 0.1), examples=5)


# -- cross-fitting and the policy record -------------------------------------------------------


def test_cross_fitted_scores_come_from_the_other_fold():
    # Even documents are right at 0.9, odd ones wrong at 0.9: in sample the map says 0.5,
    # out of sample each fold is told the opposite of what it holds.
    groups = [[("PERSON", 0.9, i % 2 == 0)] * 5 for i in range(10)]
    spans = cross_fitted(groups, folds=2, min_examples=1)
    assert len(spans) == 50
    assert {(s.is_pii, s.score) for s in spans} == {(True, 0.0), (False, 1.0)}
    assert reliability(spans).ece == 1.0
    in_sample = fit_score_map([p for g in groups for p in g], min_examples=1)
    assert in_sample.apply("PERSON", 0.9) == 0.5
    with pytest.raises(ConfigError):
        cross_fitted(groups, folds=1)


def test_policy_records_the_score_map_and_loads_without_it(tmp_path):
    entry = LabelThreshold(
        threshold=0.4, recall_floor=0.8, measured_precision=0.9, measured_recall=0.85, support=90
    )
    fields = dict(
        labels={"USERNAME": entry},
        eval_set_version="dev",
        calibration_version="abc",
        taxonomy_version="2026.12",
        decided_at=datetime(2026, 11, 30, tzinfo=UTC),
    )
    policy = ThresholdPolicy(**fields, score_map_examples={"USERNAME": 90})
    policy.save(tmp_path / "policy.json")
    assert ThresholdPolicy.load(tmp_path / "policy.json").score_map_examples == {"USERNAME": 90}
    older = ThresholdPolicy(**fields).to_dict()
    del older["score_map_examples"]  # a policy written before score maps existed
    assert ThresholdPolicy.model_validate(older).score_map_examples is None


def test_score_pairs_take_scored_proposals_and_exact_typed_matches():
    text = "Ada Lovelace met Grace at Initech today"
    gold_spans = [(0, 12, "PERSON"), (17, 22, "PERSON"), (26, 33, "ORG")]
    gold = [Document.from_raw(text, [{"start": a, "end": b, "label": c} for a, b, c in gold_spans])]
    pred = [
        Document.from_raw(
            text,
            [
                {"start": 0, "end": 12, "label": "PERSON", "score": 0.9},  # exact: correct
                {"start": 17, "end": 22, "label": "ORG", "score": 0.6},  # wrong type
                {"start": 26, "end": 39, "label": "ORG", "score": 0.7},  # wrong end
            ],
        )
    ]
    assert score_pairs(gold, pred) == [
        [("PERSON", 0.9, True), ("ORG", 0.6, False), ("ORG", 0.7, False)]
    ]


def _cut_policy(**cuts: float) -> ThresholdPolicy:
    return ThresholdPolicy(
        labels={
            label: LabelThreshold(
                threshold=cut,
                recall_floor=0.0,
                measured_precision=1.0,
                measured_recall=1.0,
                support=100,
            )
            for label, cut in cuts.items()
        },
        eval_set_version="dev",
        calibration_version="abc",
        taxonomy_version="2026.12",
        decided_at=datetime(2026, 11, 30, tzinfo=UTC),
    )


HALVE_PERSON = ScoreMap(
    min_examples=1,
    labels={"PERSON": IsotonicCurve(x=(0.0, 1.0), y=(0.0, 0.5), examples=10)},
    pooled=IsotonicCurve(x=(0.0, 1.0), y=(0.0, 1.0), examples=10),
    examples={"PERSON": 10},
)
MODEL_LABELS = ("PERSON", "USERNAME")


@pytest.mark.parametrize(
    "cuts, score_map, expected",
    [
        ({"PERSON": 0.7, "USERNAME": 0.3}, ScoreMap(), 0.3),
        ({"PERSON": 0.3}, HALVE_PERSON, 0.5),  # raw 0.6 for PERSON; others from 0.5
        ({"PERSON": 0.2}, HALVE_PERSON, 0.4),
        ({"PERSON": 0.0}, HALVE_PERSON, 0.1),  # never below the sweep's proposals
        ({"EMAIL": 0.05}, HALVE_PERSON, 0.5),  # a rule type: not the model's concern
    ],
    ids=["identity", "cut-mapped-up", "cut-mapped-back", "floor", "other-component"],
)
def test_proposal_threshold_maps_calibrated_cuts_back_to_raw(cuts, score_map, expected):
    policy = _cut_policy(**cuts)
    raw = proposal_threshold(policy, MODEL_LABELS, score_map, floor=0.1)
    assert raw == pytest.approx(expected)
