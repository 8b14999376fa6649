"""The recall gate: Wilson intervals, minimum support, floors from the taxonomy."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.errors import ConfigError, UnknownLabel
from spacy_pii.evaluation.documents import Document
from spacy_pii.evaluation.gate import parse_floor, required_support, run_gate, wilson_interval
from spacy_pii.evaluation.scoring import evaluate

GATED = {"SECRET", "GOV_ID", "PAYMENT", "EMAIL", "PHONE", "PERSON", "ADDRESS"}


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (29, 29, 0.8830, 1.0),
    ],
    ids=["newcombe-1998-81of263", "15of148", "0of20", "1of29", "29of29"],
)
def test_wilson_interval_matches_newcombe_1998_table(successes, trials, low, high):
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson).
    got = wilson_interval(successes, trials)
    assert got == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


def test_wilson_interval_without_trials_says_nothing():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


@pytest.mark.parametrize(
    ("floor", "needed"), [(0.80, 16), (0.95, 73), (0.98, 189)], ids=["medium", "high", "critical"]
)
def test_required_support_is_where_a_flawless_score_clears_the_floor(floor, needed):
    assert required_support(floor) == needed
    assert wilson_interval(needed, needed)[0] >= floor
    assert wilson_interval(needed - 1, needed - 1)[0] < floor


@given(st.floats(min_value=0.01, max_value=0.995))
def test_required_support_is_minimal(floor):
    n = required_support(floor)
    assert wilson_interval(n, n)[0] >= floor - 1e-12
    if n > 1:
        assert wilson_interval(n - 1, n - 1)[0] < floor


def test_floor_of_one_needs_an_explicit_support():
    with pytest.raises(ConfigError):
        required_support(1.0)


def _corpus(label: str, found: int, missed: int) -> tuple[list[Document], list[Document]]:
    gold, pred = [], []
    for i in range(found + missed):
        text = f"id {i:05d}"
        gold.append(Document.from_raw(text, [{"start": 3, "end": 8, "label": label}]))
        spans = [{"start": 3, "end": 8, "label": label}] if i < found else []
        pred.append(Document.from_raw(text, spans))
    return gold, pred


def test_empty_gold_set_fails_every_gated_label():
    result = evaluate([], [])
    gate = run_gate(result)
    assert not gate.passed
    assert {f.label for f in gate.failures} == GATED
    assert {f.reason for f in gate.failures} == {"insufficient_support"}
    assert all(g.recall is None for g in gate.labels)


def test_miswired_gold_set_fails_even_with_perfect_predictions():
    # Gold that lost its GOV_ID spans (a truncated file, a renamed label folded away)
    # scores perfectly on what is left and must still fail.
    gold, pred = _corpus("PERSON", 80, 0)
    gate = run_gate(evaluate(gold, pred))
    person = next(g for g in gate.labels if g.label == "PERSON")
    assert person.passed
    assert "GOV_ID" in gate.failing_labels and not gate.passed


def test_gate_passes_with_enough_support_and_recall():
    gold, pred = _corpus("PERSON", 80, 0)
    gate = run_gate(evaluate(gold, pred))
    person = next(g for g in gate.labels if g.label == "PERSON")
    assert (person.support, person.min_support, person.reasons) == (80, 73, ())
    assert person.wilson_low == pytest.approx(80 / (80 + 1.959964**2), abs=1e-6)


def test_point_estimate_is_compared_with_the_floor():
    gold, pred = _corpus("PERSON", 76, 4)  # recall 0.95 exactly
    person = next(g for g in run_gate(evaluate(gold, pred)).labels if g.label == "PERSON")
    assert person.recall == pytest.approx(0.95) and person.passed
    gold, pred = _corpus("PERSON", 75, 5)
    person = next(g for g in run_gate(evaluate(gold, pred)).labels if g.label == "PERSON")
    assert person.reasons == ("below_floor",)


def test_overrides_raise_floors_add_labels_and_fold_names():
    gold, pred = _corpus("US_SSN", 9, 1)
    result = evaluate(gold, pred)
    gate = run_gate(result, floors=dict([parse_floor("US_SSN=0.85")]), min_support=10)
    gov = next(g for g in gate.labels if g.label == "GOV_ID")
    assert (gov.floor, gov.passed) == (0.85, True)
    gate = run_gate(result, floors={"GOV_ID": 0.95}, min_support=10)
    assert ("GOV_ID", "below_floor") in {(f.label, f.reason) for f in gate.failures}
    gold, pred = _corpus("USERNAME", 1, 1)
    gate = run_gate(evaluate(gold, pred), floors={"USERNAME": 0.6}, min_support=1)
    assert ("USERNAME", "below_floor") in {(f.label, f.reason) for f in gate.failures}


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ("PERSON", ConfigError),
        ("PERSON=x", ConfigError),
        ("PERSON=1.5", ConfigError),
        ("=0.9", ConfigError),
        ("DATE_TIME=0.9", ConfigError),
        ("SHOE=0.9", UnknownLabel),
    ],
    ids=["no-value", "not-number", "above-one", "no-label", "dropped-label", "unknown-label"],
)
def test_bad_floor_specs_are_refused(spec, error):
    with pytest.raises(error):
        parse_floor(spec)


def test_gate_refuses_metrics_from_another_taxonomy():
    result = evaluate([], []).model_copy(update={"taxonomy_version": "1999.01"})
    with pytest.raises(ConfigError, match=r"1999\.01"):
        run_gate(result)


def test_gated_types_come_from_the_taxonomy():
    taxonomy = load_taxonomy()
    gate = run_gate(evaluate([], []))
    assert {g.label: g.floor for g in gate.labels} == {
        name: t.recall_floor for name, t in taxonomy.types.items() if t.gated
    }
