"""Threshold calibration: sweep, select, and freeze a per-label ThresholdPolicy. Pure Python.

The two failure modes of a redactor are not symmetric: a miss leaks personal data, an
over-redaction destroys data the subject was owed. So a threshold is a constrained pick:
keep recall at or above the label's floor, then take the highest precision (a tie goes
to the higher threshold, which redacts less). When no threshold reaches the floor, or the
dev set holds too few gold spans to say so, calibration fails closed with
:class:`CalibrationError` instead of shipping a number it cannot defend.

Recall is measured against every gold span, including those the detector never proposed:
:func:`labels_from_predictions` adds them as unproposed positives, which count as misses
at every threshold. Without them a sweep over proposals alone would report the recall of
the proposals, not of the detector.

Scores follow DESIGN contract 3: a ``None`` score (a shape-only rule match) has no
probability and survives every threshold, so it is kept at every cut point and left out
of the reliability diagram.

A model's raw scores need not be probabilities (the shipped ``pii_ner`` said 0.97 on
average where 0.79 of its spans were right). :func:`fit_score_map` fits isotonic
regression of correctness on raw score per label, on dev, into a :class:`ScoreMap` that the
model component applies before it writes a score; the sweep then runs on calibrated scores.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .documents import Document, check_alignment, describe_validation_error
from .errors import ConfigError, PiiError, PolicyMismatch
from .gate import gated_floors, required_support
from .taxonomy import Taxonomy, load_taxonomy

POLICY_SCHEMA_VERSION = 1

# Fifteen equal-width bins: the setting of Guo, Pleiss, Sun and Weinberger (2017), "On
# Calibration of Modern Neural Networks", ICML, whose ECE definition this follows.
DEFAULT_RELIABILITY_BINS = 15


class CalibrationError(PiiError, ValueError):
    """No defensible threshold: the floor is unreachable or the support too small.

    ``failures`` holds ``(label, reason)`` pairs, reason ``below_floor`` or
    ``insufficient_support``.
    """

    def __init__(self, message: str, failures: Sequence[tuple[str, str]] = ()) -> None:
        self.failures = tuple(failures)
        super().__init__(message)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", hide_input_in_errors=True)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def to_json(self, indent: int | None = 2) -> str:
        return self.model_dump_json(indent=indent)


class ScoredSpan(_Frozen):
    """One candidate on the labelled dev set.

    ``proposed=False`` marks a gold span the detector never proposed: a positive that no
    threshold can recover (its ``score`` is ignored). ``score=None`` is a proposal
    without a probability, kept at every threshold.
    """

    label: str = Field(min_length=1)
    score: float | None = Field(ge=0.0, le=1.0)
    is_pii: bool
    proposed: bool = True

    @model_validator(mode="after")
    def _unproposed_is_positive(self) -> ScoredSpan:
        if not self.proposed and not self.is_pii:
            raise ValueError("an unproposed span must be a gold positive")
        return self


class ThresholdPoint(_Frozen):
    """Confusion counts and rates when spans scoring >= ``threshold`` are kept."""

    threshold: float
    precision: float
    recall: float
    tp: int
    fp: int
    fn: int

    @property
    def support(self) -> int:
        return self.tp + self.fn


def sweep(spans: Iterable[ScoredSpan]) -> list[ThresholdPoint]:
    """Precision and recall at every distinct score, plus 0 and 1, ascending.

    Every distinct score is a cut point, so the curve is traced exactly, with no grid.
    Empty denominators follow seed 003: precision 1.0 when nothing is kept, recall 1.0
    when there is nothing to find. :func:`select_threshold` checks support first, so it
    never relies on them.
    """
    spans = list(spans)
    positives = sum(1 for s in spans if s.is_pii)
    pos = sorted(s.score for s in spans if s.proposed and s.is_pii and s.score is not None)
    neg = sorted(s.score for s in spans if s.proposed and not s.is_pii and s.score is not None)
    pos_unscored = sum(1 for s in spans if s.proposed and s.is_pii and s.score is None)
    neg_unscored = sum(1 for s in spans if s.proposed and not s.is_pii and s.score is None)
    points = []
    for t in sorted({*pos, *neg, 0.0, 1.0}):
        tp = len(pos) - bisect_left(pos, t) + pos_unscored
        fp = len(neg) - bisect_left(neg, t) + neg_unscored
        points.append(
            ThresholdPoint(
                threshold=t,
                precision=tp / (tp + fp) if tp + fp else 1.0,
                recall=tp / positives if positives else 1.0,
                tp=tp,
                fp=fp,
                fn=positives - tp,
            )
        )
    return points


def sweep_by_label(spans: Iterable[ScoredSpan]) -> dict[str, list[ThresholdPoint]]:
    by_label: dict[str, list[ScoredSpan]] = defaultdict(list)
    for span in spans:
        by_label[span.label].append(span)
    return {label: sweep(group) for label, group in sorted(by_label.items())}


def select_threshold(
    points: Sequence[ThresholdPoint], recall_floor: float, min_support: int | None = None
) -> ThresholdPoint:
    """The highest-precision point whose recall is at least ``recall_floor``.

    A precision tie goes to the higher threshold. ``min_support`` defaults to
    :func:`spacy_pii.gate.required_support` of the floor.

    Raises:
        CalibrationError: too few gold positives, or no point reaches the floor.
    """
    if not points:
        raise CalibrationError("no points to select from", [("*", "insufficient_support")])
    needed = min_support if min_support is not None else required_support(recall_floor)
    support = points[0].support
    if support < needed:
        raise CalibrationError(
            f"{support} gold spans; {needed} needed for a floor of {recall_floor}",
            [("*", "insufficient_support")],
        )
    feasible = [p for p in points if p.recall >= recall_floor]
    if not feasible:
        best = max(p.recall for p in points)
        raise CalibrationError(
            f"no threshold reaches recall {recall_floor}; the best is {best:.4f}",
            [("*", "below_floor")],
        )
    return max(feasible, key=lambda p: (p.precision, p.threshold))


def select_by_cost(
    points: Sequence[ThresholdPoint], *, cost_fn: float, cost_fp: float
) -> ThresholdPoint:
    """The point of least expected cost ``cost_fn * fn + cost_fp * fp``.

    The caller prices a miss against an over-redaction; there is no default because the
    ratio is a policy decision (seed 003 illustrates 50:1). A tie goes to fewer misses,
    then the higher threshold.
    """
    if not points:
        raise CalibrationError("no points to select from")
    if cost_fn < 0 or cost_fp < 0:
        raise ConfigError("costs must not be negative")
    return min(points, key=lambda p: (cost_fn * p.fn + cost_fp * p.fp, p.fn, -p.threshold))


class ReliabilityBin(_Frozen):
    lower: float
    upper: float
    count: int
    mean_score: float | None
    positive_rate: float | None


class Reliability(_Frozen):
    """A reliability diagram and its expected calibration error (ECE)."""

    bins: tuple[ReliabilityBin, ...]
    ece: float = Field(description="sum over bins of count/N * |positive_rate - mean_score|")
    count: int


def reliability(spans: Iterable[ScoredSpan], n_bins: int = DEFAULT_RELIABILITY_BINS) -> Reliability:
    """Bin proposed, scored spans by score and compare each bin's score with its hit rate."""
    if n_bins < 1:
        raise ConfigError("n_bins must be at least 1")
    buckets: list[list[ScoredSpan]] = [[] for _ in range(n_bins)]
    for span in spans:
        if span.proposed and span.score is not None:
            buckets[min(int(span.score * n_bins), n_bins - 1)].append(span)
    total = sum(len(b) for b in buckets)
    bins, ece = [], 0.0
    for index, bucket in enumerate(buckets):
        mean = sum(s.score for s in bucket) / len(bucket) if bucket else None  # type: ignore[misc]
        rate = sum(s.is_pii for s in bucket) / len(bucket) if bucket else None
        if bucket:
            ece += len(bucket) / total * abs(rate - mean)  # type: ignore[operator]
        bins.append(
            ReliabilityBin(
                lower=index / n_bins,
                upper=(index + 1) / n_bins,
                count=len(bucket),
                mean_score=mean,
                positive_rate=rate,
            )
        )
    return Reliability(bins=tuple(bins), ece=ece, count=total)


# -- the policy artefact --------------------------------------------------------------------


class LabelThreshold(_Frozen):
    """The cut point for one label and the measurements that justify it."""

    threshold: float = Field(ge=0.0, le=1.0)
    recall_floor: float = Field(ge=0.0, le=1.0)
    measured_precision: float = Field(ge=0.0, le=1.0)
    measured_recall: float = Field(ge=0.0, le=1.0)
    support: int = Field(ge=1)

    @model_validator(mode="after")
    def _recall_meets_floor(self) -> LabelThreshold:
        if self.measured_recall < self.recall_floor:
            raise ValueError(
                f"measured recall {self.measured_recall} is below its floor {self.recall_floor}"
            )
        return self


class ThresholdPolicy(_Frozen):
    """A frozen, versioned threshold decision: everything needed to replay it.

    ``calibration_version`` identifies the model the thresholds were computed for (a hash
    of it); :meth:`check_model` refuses to serve any other.
    """

    schema_version: Literal[1] = POLICY_SCHEMA_VERSION
    labels: dict[str, LabelThreshold]
    eval_set_version: str = Field(min_length=1)
    calibration_version: str = Field(min_length=1)
    taxonomy_version: str = Field(min_length=1)
    decided_at: datetime
    score_map_examples: dict[str, int] | None = Field(
        default=None,
        description=(
            "examples per label that the model's score map was fit on, when the thresholds "
            "were swept on calibrated scores; None for raw scores"
        ),
    )

    @field_validator("decided_at")
    @classmethod
    def _aware_utc(cls, value: datetime) -> datetime:
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("decided_at must be timezone-aware")
        return value.astimezone(UTC)

    def threshold_for(self, label: str) -> float | None:
        """The label's threshold, or ``None`` when it was not calibrated (keep every span)."""
        entry = self.labels.get(label)
        return None if entry is None else entry.threshold

    def check_model(self, calibration_version: str) -> None:
        """Raise :class:`PolicyMismatch` unless the policy was calibrated for this model."""
        if calibration_version != self.calibration_version:
            raise PolicyMismatch(
                f"threshold policy was calibrated for {self.calibration_version!r}, "
                f"not {calibration_version!r}"
            )

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> ThresholdPolicy:
        """Load a policy written by :meth:`save`.

        Raises:
            ConfigError: the file is not JSON or not a valid policy.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise ConfigError(f"threshold policy is not valid JSON (line {err.lineno})") from None
        try:
            return cls.model_validate(data)
        except ValidationError as err:
            raise ConfigError(
                f"invalid threshold policy: {describe_validation_error(err)}"
            ) from None


def save_policy(policy: ThresholdPolicy, path: str | Path) -> None:
    policy.save(path)


def load_policy(path: str | Path) -> ThresholdPolicy:
    return ThresholdPolicy.load(path)


# -- from documents to a policy -------------------------------------------------------------


def labels_from_predictions(
    gold_docs: Sequence[Document], pred_docs: Sequence[Document]
) -> list[ScoredSpan]:
    """Turn exact-span matching into labelled candidates for the sweep.

    A prediction is a positive when a gold span has its start, end and label. Duplicate
    predictions collapse to one, keeping the highest score. Every gold span that no
    prediction matches exactly is added as an unproposed positive, so the recall of a
    sweep counts it as a miss at every threshold.
    """
    check_alignment(gold_docs, pred_docs)
    out: list[ScoredSpan] = []
    for gold, pred in zip(gold_docs, pred_docs, strict=True):
        gold_keys = {s.key for s in gold.spans}
        proposals: dict[tuple[int, int, str], float | None] = {}
        for span in pred.spans:
            if span.key in proposals:
                previous = proposals[span.key]
                scores = [s for s in (previous, span.score) if s is not None]
                # An unscored duplicate survives every threshold, so it dominates.
                unscored = previous is None or span.score is None
                proposals[span.key] = None if unscored else max(scores)
            else:
                proposals[span.key] = span.score
        for key, score in sorted(proposals.items()):
            out.append(ScoredSpan(label=key[2], score=score, is_pii=key in gold_keys))
        for key in sorted(gold_keys - proposals.keys()):
            out.append(ScoredSpan(label=key[2], score=0.0, is_pii=True, proposed=False))
    return out


def calibration_floors(
    spans: Sequence[ScoredSpan],
    floors: Mapping[str, float] | None = None,
    taxonomy: Taxonomy | None = None,
) -> dict[str, float]:
    """Labels to calibrate: gated types present in the data, and every explicit floor."""
    present = {s.label for s in spans}
    gated = gated_floors(taxonomy, floors)
    chosen = {label: f for label, f in gated.items() if label in present}
    chosen.update({label: gated[label] for label in floors or {}})
    return dict(sorted(chosen.items()))


def calibrate(
    gold_docs: Sequence[Document],
    pred_docs: Sequence[Document],
    *,
    eval_set_version: str,
    calibration_version: str,
    floors: Mapping[str, float] | None = None,
    min_support: int | None = None,
    taxonomy: Taxonomy | None = None,
    decided_at: datetime | None = None,
    score_map_examples: Mapping[str, int] | None = None,
) -> ThresholdPolicy:
    """Sweep each label on a held-out dev set and freeze the thresholds, or fail closed.

    Labels calibrated: the taxonomy's gated types that occur in the dev set, plus every
    label given an explicit floor (which must then have support). Other labels get no
    threshold, which keeps every span of theirs. ``score_map_examples`` records that the
    predicted scores went through a :class:`ScoreMap` fit on that many examples per label.

    Raises:
        CalibrationError: any calibrated label fails; the message names each label and why.
    """
    taxonomy = load_taxonomy(taxonomy)
    spans = labels_from_predictions(gold_docs, pred_docs)
    chosen = calibration_floors(spans, floors, taxonomy)
    if not chosen:
        raise CalibrationError("no gated label occurs in the dev set", [("*", "no_labels")])
    curves = sweep_by_label(spans)
    entries: dict[str, LabelThreshold] = {}
    failures: list[tuple[str, str]] = []
    messages: list[str] = []
    for label, floor in chosen.items():
        points = curves.get(label) or sweep([])
        try:
            point = select_threshold(points, floor, min_support)
        except CalibrationError as err:
            failures.extend((label, reason) for _, reason in err.failures)
            messages.append(f"{label}: {err}")
            continue
        entries[label] = LabelThreshold(
            threshold=point.threshold,
            recall_floor=floor,
            measured_precision=point.precision,
            measured_recall=point.recall,
            support=point.support,
        )
    if failures:
        raise CalibrationError("calibration failed closed: " + "; ".join(messages), failures)
    return ThresholdPolicy(
        labels=entries,
        eval_set_version=eval_set_version,
        calibration_version=calibration_version,
        taxonomy_version=taxonomy.version,
        decided_at=decided_at or datetime.now(UTC),
        score_map_examples=None if score_map_examples is None else dict(score_map_examples),
    )


# -- score calibration: isotonic regression per label ----------------------------------------

SCORE_MAP_SCHEMA_VERSION = 1

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


class IsotonicCurve(_Frozen):
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


class ScoreMap(_Frozen):
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
    pairs: Iterable[tuple[str, float, bool]], *, min_examples: int = DEFAULT_MIN_EXAMPLES
) -> ScoreMap:
    """Fit isotonic regression of correctness on raw score, per label and pooled.

    Args:
        pairs: ``(label, raw score, correct)`` for each proposed span of a held-out set;
            ``correct`` when a gold span has its exact offsets and type.
        min_examples: the least number of examples for a label's own curve. Below it the
            label uses the pooled curve, and with fewer examples in all, the map is the
            identity: a handful of spans cannot say how far off the scores are.

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
        if count >= min_examples
    }
    return ScoreMap(min_examples=min_examples, labels=curves, pooled=pooled, examples=examples)


def cross_fitted(
    groups: Sequence[Sequence[tuple[str, float, bool]]],
    *,
    folds: int = 2,
    min_examples: int = DEFAULT_MIN_EXAMPLES,
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
        score_map = fit_score_map(fit, min_examples=min_examples)
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
# as likely as all others together (release.install_policy's default_threshold).
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
