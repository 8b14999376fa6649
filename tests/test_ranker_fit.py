"""``spacy_pii.evaluation.ranker_fit``: the span ranker's fit, and the inputs it holds at zero."""

from __future__ import annotations

import random

import pytest

from spacy_pii.core.name_evidence import FEATURE_NAMES
from spacy_pii.evaluation.ranker_fit import Row, fit_ranker, median_threshold

NAME = FEATURE_NAMES.index("first_name_share")
RARE = FEATURE_NAMES.index("possessive_after")


def _rows(seed: int = 0) -> list[Row]:
    """Names are in the first-name table; a rare input marks three non-names, one name."""
    rng = random.Random(seed)
    rows = []
    for i in range(400):
        correct = i % 2 == 0
        features = [rng.random() * 0.1 for _ in FEATURE_NAMES]
        features[NAME] = (0.8 if correct else 0.2) + rng.random() * 0.2
        features[RARE] = 1.0 if i in (1, 3, 5, 6) else 0.0
        rows.append(Row(f"set{i % 3}", "PERSON", tuple(features), correct))
    return rows


def _fit(**kwargs):
    return fit_ranker(
        _rows(), language="xx", type_groups={"PERSON": ["PERSON"]}, provenance={}, **kwargs
    )


def test_a_fit_learns_the_evidence():
    model = _fit().types["PERSON"]
    assert model.weights[NAME] > 1.0
    assert model.weights[RARE] < 0.0


def test_an_unweighted_input_gets_weight_zero_and_cannot_move_a_span():
    ranker = _fit(unweighted=["possessive_after"])
    model = ranker.types["PERSON"]
    assert model.weights[RARE] == 0.0
    assert ranker.provenance["unweighted"] == ["possessive_after"]
    row = list(_rows()[0].features)
    without = ranker.probability("PERSON", row)
    row[RARE] = 1.0
    assert ranker.probability("PERSON", row) == pytest.approx(without)


def test_an_unknown_unweighted_name_is_refused():
    with pytest.raises(ValueError, match="no such features: possesive"):
        _fit(unweighted=["possesive"])


def test_too_few_rows_of_a_class_leave_the_type_without_a_model():
    rows = [row for row in _rows() if row.correct][:100] + [r for r in _rows() if not r.correct][:5]
    ranker = fit_ranker(rows, language="xx", type_groups={"PERSON": ["PERSON"]}, provenance={})
    assert "PERSON" not in ranker.types


def test_the_shipped_threshold_is_the_median_of_the_folds():
    assert median_threshold([0.3, 0.4, 0.35, 0.4, 0.25]) == 0.35


def test_trees_stored_as_arrays_give_scikit_learns_probabilities():
    import numpy
    from sklearn.ensemble import HistGradientBoostingClassifier

    from spacy_pii.evaluation.ranker_fit import trees_of

    rows = _rows(1)
    x = numpy.asarray([row.features for row in rows])
    y = numpy.asarray([row.correct for row in rows])
    fitted = HistGradientBoostingClassifier(max_iter=30, max_leaf_nodes=7, random_state=0)
    fitted.fit(x, y)
    trees = trees_of(fitted)
    stored = 1.0 / (1.0 + numpy.exp(-trees.logits(x)))
    assert numpy.allclose(stored, fitted.predict_proba(x)[:, 1], atol=1e-9)
    assert len(trees.roots) == fitted.n_iter_


def test_a_fit_with_boosting_blends_trees_and_regression_and_round_trips():
    from spacy_pii.core.span_ranker import RankerModel
    from spacy_pii.evaluation.ranker_fit import Boosting

    boosted = _fit(boosting=Boosting(trees=20, min_samples_leaf=10))
    plain = _fit()
    person, linear = boosted.types["PERSON"], plain.types["PERSON"]
    assert person.trees is not None and linear.trees is None
    assert person.weights == linear.weights  # the regression is the same fit
    row = _rows(2)[0].features
    # The blend is the mean of the regression's probability and the trees'.
    assert person.probability(row) != pytest.approx(linear.probability(row), abs=1e-6)
    again = RankerModel.from_dict(boosted.to_dict())
    rows = [r.features for r in _rows(3)]
    assert again.probabilities(["PERSON"] * len(rows), rows) == pytest.approx(
        boosted.probabilities(["PERSON"] * len(rows), rows), abs=1e-12
    )
    assert boosted.provenance["boosting"]["trees"] == 20


def test_bagged_trees_are_one_ensemble_whose_logit_is_the_mean_of_the_bags():
    import numpy
    from sklearn.ensemble import HistGradientBoostingClassifier

    from spacy_pii.evaluation.ranker_fit import Boosting, _fit_trees, trees_of

    rows = _rows(4)
    x = numpy.asarray([row.features for row in rows])
    y = numpy.asarray([row.correct for row in rows])
    models = []
    for k in range(3):
        model = HistGradientBoostingClassifier(max_iter=10, min_samples_leaf=10, random_state=0)
        models.append(model.fit(x, y, sample_weight=[1.0 + i % (k + 2) for i in range(len(y))]))
    merged = trees_of(*models)
    assert len(merged.roots) == sum(m.n_iter_ for m in models)
    mean = numpy.mean([trees_of(m).logits(x) for m in models], axis=0)
    assert numpy.allclose(merged.logits(x), mean, atol=1e-9)
    assert not numpy.allclose(trees_of(models[0]).logits(x), trees_of(models[1]).logits(x))
    settings = Boosting(trees=10, min_samples_leaf=10, bags=4)
    features = [row.features for row in rows]
    assert len(_fit_trees(features, y.tolist(), [1.0] * len(y), settings).roots) == 4 * 10


def test_bagging_damps_what_a_change_in_the_sixth_decimal_does_to_the_trees():
    import numpy

    from spacy_pii.evaluation.ranker_fit import Boosting, _fit_trees

    # Four noisy inputs; weighted, the trees' bins sit on the rows' own values, so a change far
    # below any input's precision moves which side of a split a row falls on.
    rng = numpy.random.default_rng(1)
    y = rng.integers(0, 2, 600)
    x = numpy.zeros((len(y), len(FEATURE_NAMES)))
    x[:, :4] = numpy.round(rng.normal(0, 1, (len(y), 4)) + y[:, None] * [0.8, 0.5, 0.3, 0], 3)
    shaken = x.copy()
    shaken[:, :4] += rng.uniform(-1e-6, 1e-6, (len(y), 4))

    def spread(bags: int) -> float:
        settings = Boosting(trees=20, min_samples_leaf=10, bags=bags)
        weights = [1.0] * len(y)
        a = _fit_trees(x.tolist(), y.tolist(), weights, settings)
        b = _fit_trees(shaken.tolist(), y.tolist(), weights, settings)
        return float(numpy.abs(a.logits(x) - b.logits(x)).mean())

    one = spread(1)
    assert one > 0.05  # the fragility the bags are for
    assert spread(5) < 0.8 * one


def test_a_bag_count_under_one_is_refused():
    from spacy_pii.evaluation.ranker_fit import Boosting

    with pytest.raises(ValueError, match="at least one ensemble"):
        Boosting(bags=0)
