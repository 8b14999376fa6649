"""Fit the span ranker's logistic regressions (and trees), and choose thresholds leaving one
set out.

Pure data in, plain data out: rows of features with a 0/1 label, grouped by set and type.
scikit-learn fits (the ``train`` extra); :class:`spacy_pii.core.span_ranker.RankerModel`
applies the stored coefficients and trees at run time without it.

Thresholds are chosen by the margins over the sets a fold was fitted on
(:func:`least_violation`), never on the set it is scored on; the shipped threshold is the
median of the folds' choices, so no single set decides it.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy

from ..core.name_evidence import FEATURE_NAMES
from ..core.span_ranker import BoostedTrees, RankerModel, TypeModel

# The L2 strength: C = 1 on standardised features. C from 0.003 to 0.1 was measured leaving
# one set out (configs/README.md, "The English span ranker's L2 strength"): the real sets
# moved without a trend, and the precision sets lost as C fell.
DEFAULT_C = 1.0
# The fewest rows, and positives and negatives each, a type needs for a model of its own.
MIN_ROWS_PER_CLASS = 20


@dataclass(frozen=True)
class Boosting:
    """Settings of the gradient-boosted trees fitted beside a type's regression
    (scikit-learn's ``HistGradientBoostingClassifier``; its early stopping left at "auto",
    on a tenth of the rows from 10,000 rows, with ``random_state`` fixed).

    ``bags`` ensembles are fitted, each on the rows weighted by a Poisson(1) draw (a bootstrap
    that keeps every row's set weight), and stored as one whose logit is their mean. One
    ensemble alone moved the same candidates' probabilities by up to 0.12 when the detector
    scores it read differed in the eighth decimal; five hold the leave-one-set-out figures
    within 0.008 (configs/README.md, "Scores read to four decimals and five bagged tree
    ensembles").
    """

    trees: int = 60
    learning_rate: float = 0.15
    max_leaf_nodes: int = 15
    min_samples_leaf: int = 40
    l2_regularization: float = 1.0
    bags: int = 5

    def __post_init__(self) -> None:
        if self.bags < 1:
            raise ValueError(f"bags: at least one ensemble is fitted, not {self.bags}")


@dataclass(frozen=True)
class Row:
    """One candidate: the set it came from, its type, its features, whether it is right."""

    set_name: str
    label: str
    features: tuple[float, ...]
    correct: bool


def _standardisation(columns: Sequence[Sequence[float]]) -> tuple[list[float], list[float]]:
    means, scales = [], []
    for column in zip(*columns, strict=True):
        mean = sum(column) / len(column)
        var = sum((x - mean) ** 2 for x in column) / len(column)
        means.append(mean)
        # A constant column (the bias, a feature a set never varies) gets scale 1.
        scales.append(var**0.5 if var > 1e-12 else 1.0)
    return means, scales


def set_weights(rows: Sequence[Row]) -> list[float]:
    """Per-row weights that give every set the same total weight (mean weight 1).

    Sets differ in size by an order of magnitude (WNUT-17 against a precision set's tune
    part); unweighted, the largest would decide what a name looks like everywhere.
    """
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.set_name] = counts.get(row.set_name, 0) + 1
    per_set = len(rows) / len(counts) if counts else 0.0
    return [per_set / counts[row.set_name] for row in rows]


def fit_type_model(
    rows: Sequence[Row],
    c: float = DEFAULT_C,
    unweighted: Collection[str] = (),
    boosting: Boosting | None = None,
) -> TypeModel:
    """One logistic regression on standardised features (scikit-learn's lbfgs, L2), every
    set weighted alike (:func:`set_weights`).

    The features named in ``unweighted`` are held at zero, so they get weight 0: for an input
    that the fitting rows almost never vary, whose standardised weight would otherwise decide
    the rare span that has it. With ``boosting``, trees are fitted on the same rows and
    weights (and the same inputs held at zero) beside the regression.
    """
    from sklearn.linear_model import LogisticRegression

    unknown = sorted(set(unweighted) - set(FEATURE_NAMES))
    if unknown:
        raise ValueError(f"unweighted: no such features: {', '.join(unknown)}")
    held = {FEATURE_NAMES.index(name) for name in unweighted}
    features = [tuple(0.0 if i in held else v for i, v in enumerate(row.features)) for row in rows]
    mean, scale = _standardisation(features)
    x = [[(v - m) / s for v, m, s in zip(f, mean, scale, strict=True)] for f in features]
    y = [1 if row.correct else 0 for row in rows]
    weights = set_weights(rows)
    # The bias column is constant and standardised to zero; the intercept carries it.
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit(x, y, sample_weight=weights)
    return TypeModel(
        mean=tuple(mean),
        scale=tuple(scale),
        weights=tuple(float(w) for w in model.coef_[0]),
        intercept=float(model.intercept_[0]),
        trees=_fit_trees(features, y, weights, boosting) if boosting else None,
    )


def _fit_trees(
    features: Sequence[Sequence[float]], y: Sequence[int], weights: Sequence[float], b: Boosting
) -> BoostedTrees:
    from sklearn.ensemble import HistGradientBoostingClassifier

    fitted = []
    for bag in range(b.bags):
        if b.bags == 1:
            bag_weights = list(weights)
        else:
            draws = numpy.random.default_rng(bag).poisson(1.0, len(weights))
            bag_weights = [w * d for w, d in zip(weights, draws, strict=True)]
        model = HistGradientBoostingClassifier(
            max_iter=b.trees,
            learning_rate=b.learning_rate,
            max_leaf_nodes=b.max_leaf_nodes,
            min_samples_leaf=b.min_samples_leaf,
            l2_regularization=b.l2_regularization,
            random_state=bag,
        )
        model.fit(features, y, sample_weight=bag_weights)
        fitted.append(model)
    return trees_of(*fitted)


def trees_of(*models: Any) -> BoostedTrees:
    """Fitted binary ``HistGradientBoostingClassifier`` models as plain arrays (their
    predictors' node tables, which scikit-learn keeps private: ``tests/test_ranker_fit.py``
    checks that the arrays give its probabilities). Several models become one ensemble whose
    logit is the mean of theirs: every tree kept, its leaves divided by their number."""
    share = 1.0 / len(models)
    roots: list[int] = []
    feature: list[int] = []
    left: list[int] = []
    right: list[int] = []
    threshold: list[float] = []
    value: list[float] = []
    for (predictor,) in (p for model in models for p in model._predictors):
        offset = len(feature)
        roots.append(offset)
        for node in predictor.nodes:
            leaf = bool(node["is_leaf"])
            feature.append(-1 if leaf else int(node["feature_idx"]))
            threshold.append(0.0 if leaf else float(node["num_threshold"]))
            left.append(-1 if leaf else offset + int(node["left"]))
            right.append(-1 if leaf else offset + int(node["right"]))
            value.append(float(node["value"]) * share if leaf else 0.0)
    return BoostedTrees(
        baseline=sum(float(m._baseline_prediction.ravel()[0]) for m in models) * share,
        roots=tuple(roots),
        feature=tuple(feature),
        threshold=tuple(threshold),
        left=tuple(left),
        right=tuple(right),
        value=tuple(value),
    )


def fit_ranker(
    rows: Sequence[Row],
    *,
    language: str,
    type_groups: Mapping[str, Sequence[str]],
    provenance: Mapping[str, Any],
    c: float = DEFAULT_C,
    unweighted: Collection[str] = (),
    boosting: Boosting | None = None,
) -> RankerModel:
    """Fit one model per group of types (``{"PERSON": ["PERSON"], "ORG": ["ORG",
    "LOCATION"]}``: ORG and LOCATION share theirs); every type in a group gets its model.

    A group with too few rows of either class gets no model, so its spans keep their
    first-stage scores. ``unweighted`` features get weight 0, and ``boosting`` adds trees
    (:func:`fit_type_model`).
    """
    types: dict[str, TypeModel] = {}
    for members in type_groups.values():
        chosen = [row for row in rows if row.label in members]
        positives = sum(row.correct for row in chosen)
        if min(positives, len(chosen) - positives) < MIN_ROWS_PER_CLASS:
            continue
        model = fit_type_model(chosen, c, unweighted, boosting)
        for member in members:
            types[member] = model
    return RankerModel(
        language=language,
        feature_names=FEATURE_NAMES,
        types=types,
        provenance={
            **provenance,
            "rows": len(rows),
            "c": c,
            **({"unweighted": sorted(unweighted)} if unweighted else {}),
            **({"boosting": dataclasses.asdict(boosting)} if boosting else {}),
        },
    )


def expected_calibration_error(pairs: Sequence[tuple[float, bool]], n_bins: int = 15) -> float:
    """ECE of (probability, correct) pairs over ``n_bins`` equal-width bins."""
    if not pairs:
        return 0.0
    bins: list[list[tuple[float, bool]]] = [[] for _ in range(n_bins)]
    for probability, correct in pairs:
        bins[min(int(probability * n_bins), n_bins - 1)].append((probability, correct))
    total = len(pairs)
    return sum(
        len(b) / total * abs(sum(p for p, _ in b) / len(b) - sum(c for _, c in b) / len(b))
        for b in bins
        if b
    )


def least_violation(
    primary: Sequence[float], secondary: Sequence[float] = ()
) -> tuple[float, float, float]:
    """The objective of a threshold from the fitting sets' margins (positive: cleared).

    First the total shortfall of the ``primary`` sets (the sum of their negative margins:
    a set that no threshold brings over its margin must not decide alone, as the worst
    margin would let it), then that of the ``secondary`` sets, then the worst primary margin.
    """
    return (
        sum(min(m, 0.0) for m in primary),
        sum(min(m, 0.0) for m in secondary),
        min(primary) if primary else 0.0,
    )


def best_threshold(
    grid: Sequence[float], objective: Callable[[float], tuple[float, ...]]
) -> tuple[float, tuple[float, ...]]:
    """The threshold of ``grid`` whose objective is largest; ties go to the lower one."""
    best, best_value = grid[0], objective(grid[0])
    for threshold in grid[1:]:
        value = objective(threshold)
        if value > best_value:
            best, best_value = threshold, value
    return best, best_value


def median_threshold(choices: Sequence[float]) -> float:
    """The shipped threshold: the median of the folds' choices (the lower middle one)."""
    return statistics.median_low(sorted(choices))
