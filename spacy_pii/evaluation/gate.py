"""The recall gate: a release control over per-label exact-span recall. Pure Python.

A type whose taxonomy severity is ``gated`` must reach its severity's recall floor (the
taxonomy: 0.98 for critical, 0.95 for high). A floor can be raised, lowered or added per
label by the caller. The gate compares the floor with the *point estimate* of recall and
reports the Wilson score interval next to it.

It never passes on too little evidence. Each gated label needs a minimum gold support;
the default is the smallest sample on which a flawless detector (n found out of n) has a
95% Wilson lower bound at or above the floor, i.e. ``n >= z^2 * floor / (1 - floor)``:
73 spans for a 0.95 floor, 189 for 0.98. Below that, even perfect measured recall cannot
tell a detector that meets the floor from one that does not. (Wilson, E. B. (1927),
"Probable inference, the law of succession, and statistical inference", JASA 22:209-212;
Brown, Cai and DasGupta (2001), "Interval estimation for a binomial proportion",
Statistical Science 16:101-133, recommend Wilson's interval for small n.) An empty or
truncated gold set therefore fails, naming each starved label.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from statistics import NormalDist
from typing import Literal

from pydantic import Field

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import ConfigError
from .documents import FrozenModel
from .scoring import EvaluationResult

# Two-sided 95% normal quantile, 1.959964...: the confidence level the gate reports.
Z_95 = NormalDist().inv_cdf(0.975)

Reason = Literal["below_floor", "insufficient_support"]


def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion; (0, 1) when there are no trials."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes}/{trials}")
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def required_support(floor: float, z: float = Z_95) -> int:
    """Smallest n whose flawless score (n of n) has a Wilson lower bound >= ``floor``.

    The Wilson lower bound of n/n is n / (n + z^2), which reaches ``floor`` once
    n >= z^2 * floor / (1 - floor).

    Raises:
        ConfigError: for a floor of 1.0, which no finite sample can support.
    """
    if not 0.0 <= floor <= 1.0:
        raise ConfigError(f"a recall floor must lie in [0, 1], got {floor}")
    if floor >= 1.0:
        raise ConfigError("a recall floor of 1.0 needs an explicit minimum support")
    # The small epsilon keeps 72.99999999 (float noise on an exact bound) from becoming 74.
    return max(1, math.ceil(z * z * floor / (1.0 - floor) - 1e-9))


class GateLabel(FrozenModel):
    """The gate's verdict on one label."""

    label: str
    floor: float = Field(ge=0.0, le=1.0)
    support: int = Field(ge=0)
    tp: int = Field(ge=0)
    recall: float | None = Field(description="tp/support; None when support is 0")
    wilson_low: float
    wilson_high: float
    min_support: int = Field(ge=1)
    passed: bool
    reasons: tuple[Reason, ...] = ()


class GateFailure(FrozenModel):
    label: str
    reason: Reason


class GateResult(FrozenModel):
    """Per-label verdicts; ``passed`` only when every gated label passed."""

    passed: bool
    taxonomy_version: str
    labels: tuple[GateLabel, ...]
    failures: tuple[GateFailure, ...]

    @property
    def failing_labels(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.label for f in self.failures))


def parse_floor(spec: str, taxonomy: Taxonomy | None = None) -> tuple[str, float]:
    """Parse ``LABEL=0.97`` into a public type and a floor; the label is folded.

    Raises:
        ConfigError: malformed, out of range, or a label the taxonomy drops.
        UnknownLabel: a label the taxonomy does not know.
    """
    taxonomy = load_taxonomy(taxonomy)
    name, sep, value = spec.partition("=")
    if not sep or not name.strip():
        raise ConfigError(f"a floor is LABEL=VALUE, got {spec!r}")
    try:
        floor = float(value)
    except ValueError:
        raise ConfigError(f"floor for {name.strip()} is not a number") from None
    if not 0.0 < floor <= 1.0:
        raise ConfigError(f"floor for {name.strip()} must lie in (0, 1], got {floor}")
    label = taxonomy.fold(name.strip())
    if label is None:
        raise ConfigError(f"label {name.strip()} is dropped by the taxonomy; it cannot be gated")
    return label, floor


def parse_floors(specs: Iterable[str], taxonomy: Taxonomy | None = None) -> dict[str, float]:
    return dict(parse_floor(spec, taxonomy) for spec in specs)


def gated_floors(
    taxonomy: Taxonomy | None = None, overrides: Mapping[str, float] | None = None
) -> dict[str, float]:
    """The floors the gate applies: gated taxonomy types, then the caller's overrides."""
    taxonomy = load_taxonomy(taxonomy)
    floors = {
        name: spec.recall_floor
        for name, spec in taxonomy.types.items()
        if spec.gated and spec.recall_floor is not None
    }
    for label, floor in (overrides or {}).items():
        floors[taxonomy.get(label).name] = floor
    return floors


def run_gate(
    result: EvaluationResult,
    *,
    floors: Mapping[str, float] | None = None,
    min_support: int | None = None,
    taxonomy: Taxonomy | None = None,
) -> GateResult:
    """Apply the recall floors to an evaluation result.

    Args:
        result: The scorer's output (its per-label TP and FN are used).
        floors: Per-label floors that override or extend the taxonomy's gated types.
        min_support: One minimum gold support for every gated label; by default each
            label's is :func:`required_support` of its floor.
        taxonomy: Must have the version the result was scored under.

    Raises:
        ConfigError: the result was scored under another taxonomy version, or a bad setting.
    """
    taxonomy = load_taxonomy(taxonomy)
    if result.taxonomy_version != taxonomy.version:
        raise ConfigError(
            f"metrics were scored under taxonomy {result.taxonomy_version}, "
            f"the gate runs {taxonomy.version}"
        )
    if min_support is not None and min_support < 1:
        raise ConfigError(f"min_support must be at least 1, got {min_support}")
    verdicts = []
    for label, floor in sorted(gated_floors(taxonomy, floors).items()):
        scores = result.per_label.get(label)
        tp, support = (scores.tp, scores.support) if scores else (0, 0)
        needed = min_support if min_support is not None else required_support(floor)
        recall = tp / support if support else None
        reasons: list[Reason] = []
        if support < needed:
            reasons.append("insufficient_support")
        if recall is not None and recall < floor:
            reasons.append("below_floor")
        low, high = wilson_interval(tp, support)
        verdicts.append(
            GateLabel(
                label=label,
                floor=floor,
                support=support,
                tp=tp,
                recall=recall,
                wilson_low=low,
                wilson_high=high,
                min_support=needed,
                passed=not reasons,
                reasons=tuple(reasons),
            )
        )
    failures = tuple(
        GateFailure(label=v.label, reason=reason) for v in verdicts for reason in v.reasons
    )
    return GateResult(
        passed=not failures,
        taxonomy_version=taxonomy.version,
        labels=tuple(verdicts),
        failures=failures,
    )
