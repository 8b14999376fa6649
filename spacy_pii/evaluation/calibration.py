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

Scores follow the score contract (docs/how-it-works.md: Scores): a ``None`` score (a
shape-only rule match) has no probability and survives every threshold, so it is kept at
every cut point and left out of the reliability diagram.

Raw model scores are mapped to probabilities first (:mod:`spacy_pii.evaluation.score_map`);
the sweep runs on the mapped scores.

Why this module is over 400 lines: the sweep, the selection and the frozen policy they
produce are one procedure, and the policy's pydantic models sit beside the code that fills
them.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import ConfigError, PiiError, PolicyMismatch
from .documents import Document, FrozenModel, check_alignment, describe_validation_error
from .gate import gated_floors, required_support

POLICY_SCHEMA_VERSION: Final = 1

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


class ScoredSpan(FrozenModel):
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


class ThresholdPoint(FrozenModel):
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
    Empty denominators follow the scorer's convention (:mod:`spacy_pii.evaluation.scoring`):
    precision 1.0 when nothing is kept, recall 1.0 when there is nothing to find.
    :func:`select_threshold` checks support first, so it never relies on them.
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
    :func:`spacy_pii.evaluation.gate.required_support` of the floor.

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
    ratio is a policy decision (a miss priced 50 times an over-redaction is one such
    policy). A tie goes to fewer misses,
    then the higher threshold.
    """
    if not points:
        raise CalibrationError("no points to select from")
    if cost_fn < 0 or cost_fp < 0:
        raise ConfigError("costs must not be negative")
    return min(points, key=lambda p: (cost_fn * p.fn + cost_fp * p.fp, p.fn, -p.threshold))


class ReliabilityBin(FrozenModel):
    lower: float
    upper: float
    count: int
    mean_score: float | None
    positive_rate: float | None


class Reliability(FrozenModel):
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


def type_hit_rates(
    spans: Iterable[ScoredSpan], labelled: Iterable[str], *, min_spans: int = 1
) -> dict[str, float]:
    """A detector without probabilities, calibrated: per type, the share of its proposals
    that are right.

    A single score per type is the only calibrated one such a detector has: its spans are one
    bin each, and the bin's hit rate is their probability. A type the calibration set does not
    label (``labelled``) gets none, since its proposals can be neither right nor wrong there;
    nor does a type with fewer than ``min_spans`` proposals.
    """
    wanted = set(labelled)
    counts: dict[str, list[int]] = {}
    for span in spans:
        if span.proposed and span.label in wanted:
            hits = counts.setdefault(span.label, [0, 0])
            hits[0] += span.is_pii
            hits[1] += 1
    return {
        label: right / total
        for label, (right, total) in sorted(counts.items())
        if total >= min_spans
    }


# -- the policy artefact --------------------------------------------------------------------


class LabelThreshold(FrozenModel):
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


class ThresholdPolicy(FrozenModel):
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
