"""The mean of several detectors' scores per span: two name models trained alike, voting.

Two runs of one training recipe that differ only in their seed agree on most names and
disagree on the rest, and which run is better differs from one set to the next (the
multilingual recipe: configs/README.md). Their mean is steadier than either. Each model
proposes the spans it scores at least its own proposal threshold; a span the other model
did not propose counts as 0 there, so a span both find keeps about its score and a span
only one finds comes out at half. A second-stage ranker (``pii_span_ranker``) then reads the
mean as its detector score.
"""

from __future__ import annotations

from collections.abc import Sequence

from .hits import Hit

# What a mean span's kind is: a model's guess, which yields to a rule where the taxonomy
# prefers rules.
MODEL_KIND = "model"


def mean_scored(groups: Sequence[Sequence[Hit]], detector: str) -> list[Hit]:
    """The union of ``groups``' spans, each scored the mean of its scores in every group.

    A span is its offsets and its label. A group that lacks a span, or holds it without a
    score, counts 0 for it; a group holding the same span twice counts its higher score.
    The result is sorted by offsets and label, so it does not depend on the order of the
    spans within a group.

    Raises:
        ValueError: fewer than two groups.
    """
    if len(groups) < 2:
        raise ValueError("a mean needs at least two span groups")
    best: list[dict[tuple[int, int, str], float]] = []
    for group in groups:
        scores: dict[tuple[int, int, str], float] = {}
        for hit in group:
            key = (hit.start, hit.end, hit.label)
            scores[key] = max(scores.get(key, 0.0), hit.score or 0.0)
        best.append(scores)
    keys = sorted(set().union(*best))
    return [
        Hit(
            start,
            end,
            label,
            sum(s.get((start, end, label), 0.0) for s in best) / len(best),
            detector,
            MODEL_KIND,
        )
        for start, end, label in keys
    ]
