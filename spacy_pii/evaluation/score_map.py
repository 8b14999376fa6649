"""Score calibration: map a model's raw span scores to probabilities. Pure Python.

A model's raw scores need not be probabilities: the first shipped ``pii_ner`` said 0.97 on
average where 0.79 of its spans were right. :func:`fit_score_map` fits isotonic regression
of correctness on raw score, on dev, into a :class:`ScoreMap` that the model component
applies before it writes a score; the threshold sweep (:mod:`spacy_pii.evaluation.calibration`) then
runs on calibrated scores, and :func:`proposal_threshold` maps its cuts back to the raw
scale on which the model selects spans.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import Field, ValidationError, model_validator

from ..errors import ConfigError
from .calibration import ScoredSpan, ThresholdPolicy, labels_from_predictions
from .documents import Document, FrozenModel, check_alignment, describe_validation_error

SCORE_MAP_SCHEMA_VERSION: Final = 1

# A label gets a curve of its own from this many examples up; below it, the pooled curve.
# Measured on the shipped model's dev split (1,114 documents, 1,613 proposals from 0.1):
# fit on part of dev, ECE per label on the rest. Split by document (20 random halves), a
# label's own curve beats the pooled one from 30 to 40 examples for ADDRESS (0.158 against
# 0.290 at 40), USERNAME (0.080 / 0.132), ORG (0.197 / 0.252) and DATE_OF_BIRTH (0.081 /
# 0.084); below 30 it loses for ORG and DATE_OF_BIRTH. Split by template, as dev and test
# are (4 folds, 10 repeats), own curves from 40 still win for ADDRESS (0.211 / 0.309), ORG
# and DATE_OF_BIRTH by less, lose a little for USERNAME and PERSON, and the ECE over all
# labels is 0.089 against 0.082 for the pooled curve alone.
DEFAULT_MIN_EXAMPLES = 40


class IsotonicCurve(FrozenModel):
    """A monotone, piecewise-linear map from a raw score to a calibrated probability.

    One knot per block of the pool-adjacent-violators fit: ``x`` is the mean raw score of
    the block, ``y`` the share of its examples that were correct. Between knots the map
    interpolates linearly (centred isotonic regression: Oron and Flournoy (2017),
    "Centered Isotonic Regression", Statistics in Biopharmaceutical Research 9(3)), so
    two raw scores in one block still keep their order; beyond the end knots it is flat.
    """

    x: tuple[float, ...] = Field(min_length=1)
    y: tuple[float, ...] = Field(min_length=1)
    examples: int = Field(ge=1)

    @model_validator(mode="after")
    def _monotone(self) -> IsotonicCurve:
        if len(self.x) != len(self.y):
            raise ValueError("x and y must have one value per knot")
        for values in (self.x, self.y):
            if not all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in values):
                raise ValueError("knots must be finite numbers in [0, 1]")
        if any(a >= b for a, b in pairwise(self.x)):
            raise ValueError("x must be strictly increasing")
        if any(a > b for a, b in pairwise(self.y)):
            raise ValueError("y must not decrease")
        return self

    def apply(self, score: float) -> float:
        xs, ys = self.x, self.y
        if score <= xs[0]:
            return ys[0]
        if score >= xs[-1]:
            return ys[-1]
        i = bisect_right(xs, score)
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        value = y0 + (score - x0) / (x1 - x0) * (y1 - y0)
        # Rounding could overshoot a knot by an ulp and break monotonicity across segments.
        return min(max(value, y0), y1)

    def raw_threshold(self, calibrated: float) -> float:
        """The least raw score from which the map can reach ``calibrated``.

        The result maps to ``calibrated`` or above, and every raw score below it maps
        below; when no score reaches ``calibrated``, the last knot is returned.
        """
        xs, ys = self.x, self.y
        if calibrated <= ys[0]:
            return 0.0
        if calibrated > ys[-1]:
            return xs[-1]
        i = bisect_left(ys, calibrated)  # ys[i - 1] < calibrated <= ys[i]
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        raw = min(max(x0 + (calibrated - y0) / (y1 - y0) * (x1 - x0), x0), x1)
        # The formula is off by an ulp or two after rounding: step to the exact least score.
        while raw < x1 and self.apply(raw) < calibrated:
            raw = math.nextafter(raw, math.inf)
        while raw > x0 and self.apply(math.nextafter(raw, -math.inf)) >= calibrated:
            raw = math.nextafter(raw, -math.inf)
        return raw


def _isotonic_curve(points: Iterable[tuple[float, bool]]) -> IsotonicCurve:
    """Pool adjacent violators over ``(raw score, correct)`` pairs (at least one).

    Tied scores are pooled first, so the fit does not depend on the order of the input.
    Counts stay integers and block rates are compared by cross-multiplication, so the
    pooling is exact.
    """
    ties: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for score, correct in points:
        entry = ties[score]
        entry[0] += 1
        entry[1] += int(correct)
    # A block: [examples, correct, sum of raw scores, lowest score, highest score].
    blocks: list[list[Any]] = []
    for score in sorted(ties):
        n, k = ties[score]
        blocks.append([n, k, [score * n], score, score])
        # Merge while the previous block's rate is not below this one's (k1/n1 >= k2/n2):
        # equal rates are pooled too, so knot values rise strictly.
        while len(blocks) > 1 and blocks[-2][1] * blocks[-1][0] >= blocks[-1][1] * blocks[-2][0]:
            n2, k2, s2, _, high = blocks.pop()
            last = blocks[-1]
            last[0] += n2
            last[1] += k2
            last[2].extend(s2)
            last[4] = high
    xs = tuple(min(max(math.fsum(b[2]) / b[0], b[3]), b[4]) for b in blocks)
    ys = tuple(b[1] / b[0] for b in blocks)
    return IsotonicCurve(x=xs, y=ys, examples=sum(b[0] for b in blocks))


class ScoreMap(FrozenModel):
    """Per-label maps from raw model scores to calibrated probabilities.

    A label with at least ``min_examples`` examples in the fit has a curve of its own
    (``labels``); any other label, seen or not, uses ``pooled``, fit on every example.
    With no curve at all (``pooled`` is ``None``) the map is the identity. ``examples``
    records how many examples each label brought to the fit.
    """

    schema_version: Literal[1] = SCORE_MAP_SCHEMA_VERSION
    min_examples: int = Field(default=DEFAULT_MIN_EXAMPLES, ge=1)
    labels: dict[str, IsotonicCurve] = Field(default_factory=dict)
    pooled: IsotonicCurve | None = None
    examples: dict[str, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> ScoreMap:
        if self.labels and self.pooled is None:
            raise ValueError("a map with label curves needs a pooled curve")
        for label, curve in self.labels.items():
            if self.examples.get(label) != curve.examples:
                raise ValueError(f"examples for {label} do not match its curve")
            if curve.examples < self.min_examples:
                raise ValueError(f"{label} has a curve from fewer than min_examples examples")
        if any(count < 1 for count in self.examples.values()):
            raise ValueError("example counts must be positive")
        return self

    @property
    def is_identity(self) -> bool:
        return self.pooled is None

    def curve_for(self, label: str) -> IsotonicCurve | None:
        """The label's curve, the pooled one, or ``None`` for the identity."""
        return self.labels.get(label, self.pooled)

    def apply(self, label: str, score: float) -> float:
        """The calibrated probability of a span of ``label`` with raw score ``score``."""
        curve = self.curve_for(label)
        return score if curve is None else curve.apply(score)

    def raw_threshold(self, label: str, calibrated: float) -> float:
        """The least raw score of ``label`` whose calibrated score can reach ``calibrated``.

        A component that selects on raw scores and must propose every span the calibrated
        threshold would keep can use this as its proposal threshold.
        """
        curve = self.curve_for(label)
        return calibrated if curve is None else curve.raw_threshold(calibrated)

    @classmethod
    def from_dict(cls, data: Any) -> ScoreMap:
        """Validate a dict written by :meth:`to_dict`.

        Raises:
            ConfigError: not a valid score map; the message names fields, never values.
        """
        if not isinstance(data, Mapping):
            raise ConfigError(f"a score map must be a mapping, not {type(data).__name__}")
        try:
            return cls.model_validate(dict(data))
        except ValidationError as err:
            raise ConfigError(f"invalid score map: {describe_validation_error(err)}") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> ScoreMap:
        """Load a map written by :meth:`save`.

        Raises:
            ConfigError: the file is not JSON or not a valid score map.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ConfigError(f"score map is not valid JSON (line {err.lineno})") from None
        return cls.from_dict(data)


def fit_score_map(
    pairs: Iterable[tuple[str, float, bool]],
    *,
    min_examples: int = DEFAULT_MIN_EXAMPLES,
    per_label: bool = True,
) -> ScoreMap:
    """Fit isotonic regression of correctness on raw score, per label and pooled.

    Args:
        pairs: ``(label, raw score, correct)`` for each proposed span of a held-out set;
            ``correct`` when a gold span has its exact offsets and type.
        min_examples: the least number of examples for a label's own curve. Below it the
            label uses the pooled curve, and with fewer examples in all, the map is the
            identity: a handful of spans cannot say how far off the scores are.
        per_label: ``False`` fits the pooled curve only, for a dev set whose per-label
            mix does not carry over to the text the model will see.

    Raises:
        ConfigError: ``min_examples`` below 1, or a pair that is not
            ``(non-empty str, number in [0, 1], bool)``; the message gives its index only.
    """
    if isinstance(min_examples, bool) or not isinstance(min_examples, int) or min_examples < 1:
        raise ConfigError("min_examples must be a positive integer")
    by_label: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for index, pair in enumerate(pairs):
        try:
            label, score, correct = pair
        except (TypeError, ValueError):
            raise ConfigError(f"pair {index}: expected (label, score, correct)") from None
        if not isinstance(label, str) or not label:
            raise ConfigError(f"pair {index}: the label must be a non-empty string")
        valid_score = isinstance(score, int | float) and not isinstance(score, bool)
        if not valid_score or not (math.isfinite(score) and 0.0 <= score <= 1.0):
            raise ConfigError(f"pair {index}: the score must be a number in [0, 1]")
        if not isinstance(correct, bool):
            raise ConfigError(f"pair {index}: correct must be a bool")
        by_label[label].append((float(score), correct))
    examples = {label: len(points) for label, points in sorted(by_label.items())}
    if sum(examples.values()) < min_examples:
        return ScoreMap(min_examples=min_examples, examples=examples)
    pooled = _isotonic_curve(p for label in examples for p in by_label[label])
    curves = {
        label: _isotonic_curve(by_label[label])
        for label, count in examples.items()
        if per_label and count >= min_examples
    }
    return ScoreMap(min_examples=min_examples, labels=curves, pooled=pooled, examples=examples)


def cross_fitted(
    groups: Sequence[Sequence[tuple[str, float, bool]]],
    *,
    folds: int = 2,
    min_examples: int = DEFAULT_MIN_EXAMPLES,
    per_label: bool = True,
) -> list[ScoredSpan]:
    """Each pair calibrated by a map fit on the other folds: an out-of-sample ECE on dev.

    ``groups`` are the pairs of one document each; document ``i`` falls in fold
    ``i % folds``, so the split is deterministic and spans of one document stay together.
    The in-sample ECE of an isotonic fit is optimistic; this one is not.

    Raises:
        ConfigError: fewer than two folds.
    """
    if folds < 2:
        raise ConfigError("cross-fitting needs at least two folds")
    out: list[ScoredSpan] = []
    for fold in range(folds):
        fit = [p for i, group in enumerate(groups) if i % folds != fold for p in group]
        score_map = fit_score_map(fit, min_examples=min_examples, per_label=per_label)
        for i, group in enumerate(groups):
            if i % folds == fold:
                out.extend(
                    ScoredSpan(label=label, score=score_map.apply(label, score), is_pii=correct)
                    for label, score, correct in group
                )
    return out


def score_pairs(
    gold_docs: Sequence[Document], pred_docs: Sequence[Document]
) -> list[list[tuple[str, float, bool]]]:
    """``(label, score, correct)`` for each scored proposal, one list per document.

    The input of :func:`fit_score_map` and :func:`cross_fitted`: correct when a gold span
    has the same offsets and folded type (:func:`labels_from_predictions`).
    """
    check_alignment(gold_docs, pred_docs)
    return [
        [
            (s.label, s.score, s.is_pii)
            for s in labels_from_predictions([gold], [pred])
            if s.proposed and s.score is not None
        ]
        for gold, pred in zip(gold_docs, pred_docs, strict=True)
    ]


# A model's proposal threshold for a label without a policy entry: the best label at least
# as likely as all others together.
UNCALIBRATED_PROPOSAL = 0.5


def proposal_threshold(
    policy: ThresholdPolicy,
    labels: Iterable[str],
    score_map: ScoreMap,
    *,
    floor: float,
    default: float = UNCALIBRATED_PROPOSAL,
) -> float:
    """A model's raw proposal threshold that serves a policy swept on calibrated scores.

    Each of the model's ``labels`` with a policy cut needs the least raw score that the
    map can lift to the cut (:meth:`ScoreMap.raw_threshold`); the lowest of those and
    ``default`` is proposed from. Nothing below ``floor``, the proposal threshold of the
    sweep, was measured, so nothing below it is proposed.
    """
    wanted = set(labels)
    cuts = [
        score_map.raw_threshold(label, entry.threshold)
        for label, entry in policy.labels.items()
        if label in wanted
    ]
    return max(floor, min([default, *cuts]))
