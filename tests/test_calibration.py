"""Threshold calibration: sweep, recall-floor selection, cost pick, reliability, policy."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from spacy_pii.errors import ConfigError, PiiError, PolicyMismatch
from spacy_pii.evaluation.calibration import (
    CalibrationError,
    LabelThreshold,
    ScoredSpan,
    ThresholdPolicy,
    calibrate,
    labels_from_predictions,
    load_policy,
    reliability,
    select_by_cost,
    select_threshold,
    sweep,
    sweep_by_label,
)
from spacy_pii.evaluation.documents import Document


def _s(label: str, score: float | None, is_pii: bool) -> ScoredSpan:
    return ScoredSpan(label=label, score=score, is_pii=is_pii)


# Seed 003's shape with our own numbers: four true spans, three look-alikes.
DEV = [
    _s("PERSON", 0.97, True),
    _s("PERSON", 0.91, True),
    _s("PERSON", 0.74, True),
    _s("PERSON", 0.69, False),  # a surname that is also a common noun
    _s("PERSON", 0.58, True),
    _s("PERSON", 0.55, False),
    _s("PERSON", 0.12, False),
]


def test_sweep_visits_every_distinct_score_and_the_extremes():
    points = sweep(DEV)
    assert [p.threshold for p in points] == [0.0, 0.12, 0.55, 0.58, 0.69, 0.74, 0.91, 0.97, 1.0]
    at = {p.threshold: p for p in points}
    assert (at[0.74].tp, at[0.74].fp, at[0.74].fn) == (3, 0, 1)
    assert at[1.0].precision == 1.0 and at[1.0].recall == 0.0  # keeps nothing: vacuous


def test_selected_threshold_meets_floor_and_nothing_feasible_is_more_precise():
    points = sweep(DEV)
    chosen = select_threshold(points, recall_floor=0.75, min_support=1)
    assert chosen.recall >= 0.75
    assert chosen.threshold == 0.74 and chosen.precision == 1.0
    assert not [p for p in points if p.recall >= 0.75 and p.precision > chosen.precision]


def test_precision_tie_goes_to_the_higher_threshold():
    spans = [_s("EMAIL", 0.9, True), _s("EMAIL", 0.8, True), _s("EMAIL", 0.3, True)]
    chosen = select_threshold(sweep(spans), recall_floor=0.6, min_support=1)
    assert chosen.threshold == 0.8


def test_infeasible_floor_fails_closed():
    # Seed 003's version proposes every span, so a threshold of 0 keeps them all and
    # reaches any floor; an honest dev set includes a gold span that was never proposed.
    never = ScoredSpan(label="PERSON", score=0.0, is_pii=True, proposed=False)
    with pytest.raises(CalibrationError, match="no threshold reaches") as info:
        select_threshold(sweep([*DEV, never]), 0.999, min_support=1)
    assert info.value.failures == (("*", "below_floor"),)
    assert isinstance(info.value, PiiError) and isinstance(info.value, ValueError)


def test_too_little_support_fails_closed_by_default():
    # 4 positives; a 0.95 floor needs 73 (Wilson, see spacy_pii.evaluation.gate.required_support).
    with pytest.raises(CalibrationError, match="73 needed") as info:
        select_threshold(sweep(DEV), recall_floor=0.95)
    assert info.value.failures == (("*", "insufficient_support"),)


def test_unproposed_gold_spans_cap_recall_at_every_threshold():
    spans = [
        _s("PHONE", 0.9, True),
        ScoredSpan(label="PHONE", score=0.0, is_pii=True, proposed=False),
    ]
    points = sweep(spans)
    assert max(p.recall for p in points) == 0.5  # a threshold of 0 cannot recover a miss
    with pytest.raises(ValidationError):
        ScoredSpan(label="PHONE", score=0.2, is_pii=False, proposed=False)


def test_unscored_proposals_survive_every_threshold():
    spans = [_s("EMAIL", None, True), _s("EMAIL", 0.4, False)]
    assert [(p.threshold, p.tp, p.fp) for p in sweep(spans)] == [
        (0.0, 1, 1),
        (0.4, 1, 1),
        (1.0, 1, 0),
    ]


def test_cost_pick_prices_misses_against_over_redaction():
    points = sweep(DEV)
    assert select_by_cost(points, cost_fn=50.0, cost_fp=1.0).threshold == 0.58
    assert select_by_cost(points, cost_fn=1.0, cost_fp=50.0).threshold == 0.74
    with pytest.raises(ConfigError):
        select_by_cost(points, cost_fn=-1.0, cost_fp=1.0)


def test_reliability_bins_and_ece():
    spans = [
        _s("X", 0.95, True),
        _s("X", 0.95, False),
        _s("X", 0.05, False),
        _s("X", 1.0, True),
        _s("X", None, True),
    ]
    diagram = reliability(spans, n_bins=10)
    assert diagram.count == 4  # the unscored span has no probability to check
    top = diagram.bins[-1]
    assert (top.count, top.mean_score, top.positive_rate) == (3, pytest.approx(2.9 / 3), 2 / 3)
    assert diagram.bins[0].count == 1
    expected = 3 / 4 * abs(2 / 3 - 2.9 / 3) + 1 / 4 * abs(0.0 - 0.05)
    assert diagram.ece == pytest.approx(expected)


# -- the policy -----------------------------------------------------------------------------


def _policy(**changes) -> ThresholdPolicy:
    fields = dict(
        labels={
            "PERSON": LabelThreshold(
                threshold=0.74,
                recall_floor=0.75,
                measured_precision=1.0,
                measured_recall=0.75,
                support=4,
            )
        },
        eval_set_version="dev-2026.11",
        calibration_version="sha256:abc123",
        taxonomy_version="2026.12",
        decided_at=datetime(2026, 11, 30, 12, 0, tzinfo=UTC),
    )
    fields.update(changes)
    return ThresholdPolicy(**fields)


def test_policy_rejects_measured_recall_below_its_floor():
    with pytest.raises(ValueError, match="below its floor"):
        LabelThreshold(
            threshold=0.9,
            recall_floor=0.98,
            measured_precision=0.99,
            measured_recall=0.90,
            support=300,
        )


def test_policy_requires_an_aware_time_and_stores_utc():
    with pytest.raises(ValidationError):
        _policy(decided_at=datetime(2026, 11, 30, 12, 0))
    local = datetime(2026, 11, 30, 13, 0, tzinfo=timezone(timedelta(hours=1)))
    assert _policy(decided_at=local).decided_at == datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_policy_is_frozen_and_forbids_extra_fields():
    policy = _policy()
    with pytest.raises(ValidationError):
        policy.threshold = 0.1  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        ThresholdPolicy.model_validate({**policy.to_dict(), "note": "x"})


def test_policy_round_trips_through_json(tmp_path):
    policy = _policy()
    path = tmp_path / "policy.json"
    policy.save(path)
    assert load_policy(path) == policy
    assert json.loads(path.read_text())["decided_at"] == "2026-11-30T12:00:00Z"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError):
        load_policy(path)
    bad = policy.to_dict()
    bad["labels"]["PERSON"]["measured_recall"] = 0.1
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ConfigError, match="below its floor"):
        load_policy(path)


def test_policy_refuses_another_model():
    policy = _policy()
    policy.check_model("sha256:abc123")
    with pytest.raises(PolicyMismatch):
        policy.check_model("sha256:def456")
    assert policy.threshold_for("PERSON") == 0.74 and policy.threshold_for("EMAIL") is None


# -- from documents -------------------------------------------------------------------------


def _doc(text: str, spans: list[tuple[int, int, str, float | None]]) -> Document:
    raw = [{"start": s, "end": e, "label": lab, "score": sc} for s, e, lab, sc in spans]
    return Document.from_raw(text, raw)


def test_labels_from_predictions_counts_gold_the_detector_never_proposed():
    text = "Eve Moss, eve@example.org, 555 0134"
    gold = _doc(text, [(0, 8, "PERSON", None), (10, 25, "EMAIL", None), (27, 35, "PHONE", None)])
    pred = _doc(
        text,
        [
            (0, 8, "PERSON", 0.8),
            (0, 8, "PERSON", 0.9),
            (0, 3, "PERSON", 0.4),
            (10, 25, "EMAIL", None),
        ],
    )
    spans = labels_from_predictions([gold], [pred])
    assert sorted((s.label, s.score, s.is_pii, s.proposed) for s in spans) == [
        ("EMAIL", None, True, True),
        ("PERSON", 0.4, False, True),
        ("PERSON", 0.9, True, True),
        ("PHONE", 0.0, True, False),
    ]
    assert sweep_by_label(spans)["PHONE"][0].recall == 0.0


def _dev(n_true: int, n_missed: int) -> tuple[list[Document], list[Document]]:
    gold, pred = [], []
    for i in range(n_true + n_missed):
        text = f"user {i:04d} ex{i:04d}@example.org"
        span = (10, len(text), "EMAIL")
        gold.append(_doc(text, [(*span, None)]))
        proposals = [(*span, 0.9)] if i < n_true else []
        proposals.append((0, 4, "EMAIL", 0.2))  # a look-alike on every document
        pred.append(_doc(text, proposals))
    return gold, pred


def test_calibrate_builds_a_policy_that_meets_its_floors():
    gold, pred = _dev(80, 0)
    policy = calibrate(gold, pred, eval_set_version="dev-1", calibration_version="m-1")
    entry = policy.labels["EMAIL"]
    assert (entry.threshold, entry.measured_recall, entry.measured_precision) == (0.9, 1.0, 1.0)
    assert (entry.support, entry.recall_floor) == (80, 0.95)
    assert policy.taxonomy_version == "2026.12" and policy.decided_at.tzinfo is not None


def test_calibrate_fails_closed_naming_each_label():
    gold, pred = _dev(70, 10)  # recall 0.875 < 0.95
    with pytest.raises(CalibrationError) as info:
        calibrate(gold, pred, eval_set_version="d", calibration_version="m")
    assert ("EMAIL", "below_floor") in info.value.failures
    with pytest.raises(CalibrationError) as info:
        calibrate(gold, pred, eval_set_version="d", calibration_version="m", floors={"PHONE": 0.9})
    assert ("PHONE", "insufficient_support") in info.value.failures
    with pytest.raises(CalibrationError, match="no gated label"):
        calibrate([], [], eval_set_version="d", calibration_version="m")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9, None]), st.booleans()),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from([0.5, 0.75, 0.9]),
)
def test_selection_invariants(rows, floor):
    spans = [_s("PERSON", score, is_pii) for score, is_pii in rows]
    points = sweep(spans)
    recalls = [p.recall for p in points]
    assert recalls == sorted(recalls, reverse=True)  # recall never rises with the threshold
    try:
        chosen = select_threshold(points, floor, min_support=1)
    except CalibrationError:
        assert all(p.recall < floor for p in points) or not any(s.is_pii for s in spans)
        return
    assert chosen.recall >= floor
    assert all(p.precision <= chosen.precision for p in points if p.recall >= floor)


def test_type_hit_rates_give_each_labelled_type_its_share_of_right_proposals():
    from spacy_pii.evaluation.calibration import type_hit_rates

    spans = [
        ScoredSpan(label="PERSON", score=None, is_pii=True),
        ScoredSpan(label="PERSON", score=None, is_pii=False),
        ScoredSpan(label="PERSON", score=None, is_pii=False),
        ScoredSpan(label="PERSON", score=0.0, is_pii=True, proposed=False),  # a miss: no vote
        ScoredSpan(label="ORG", score=None, is_pii=False),
        ScoredSpan(label="LOCATION", score=None, is_pii=False),
    ]
    rates = type_hit_rates(spans, labelled={"PERSON", "ORG"})
    assert rates == pytest.approx({"ORG": 0.0, "PERSON": 1 / 3})
    assert type_hit_rates(spans, labelled={"PERSON", "ORG"}, min_spans=2) == pytest.approx(
        {"PERSON": 1 / 3}
    )
