"""Resolve candidate spans into final, typed, non-overlapping spans.

docs/how-it-works.md: Merge order, says the same for users.

The steps, in order:
1. Fold each candidate's label through the taxonomy. An unknown label raises; an explicit
   drop removes the candidate and is counted by its source label.
2. Keep the public types the caller enabled.
3. Apply the per-type score threshold. A candidate without a score (a grammar match) survives
   a threshold, because no number can be compared with it, unless ``drop_unscored`` is set.
4. Resolve overlaps greedily in one total order: higher class rank, then the detector kind the
   type prefers, then a type a rule decides over a type a model guesses (an e-mail address
   that a model also calls a USERNAME stays EMAIL), then the longer span, then the higher
   score (no score sorts below every score), then the smaller start, then the type name,
   then the detector id. Because the order is total, the result does not depend on the
   order of the input.

Pure Python: no spaCy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .hits import Hit
from .taxonomy import Taxonomy


@dataclass(frozen=True, slots=True)
class Resolution:
    """The merge's result: the kept spans in text order, and what was removed and why."""

    spans: tuple[Hit, ...]
    dropped_labels: Counter = field(default_factory=Counter)  # source label -> count
    below_threshold: Counter = field(default_factory=Counter)  # type -> count
    overlapped: int = 0


def _priority(hit: Hit, taxonomy: Taxonomy) -> tuple:
    spec = taxonomy.types[hit.label]
    return (
        -spec.rank,
        hit.kind != spec.prefer,
        spec.prefer != "rule",
        -(hit.end - hit.start),
        -(hit.score if hit.score is not None else -1.0),
        hit.start,
        hit.label,
        hit.detector,
    )


def fold_hits(hits: Iterable[Hit], taxonomy: Taxonomy, dropped: Counter | None = None) -> list[Hit]:
    """Return the hits with labels folded to public types; explicit drops are counted."""
    folded: list[Hit] = []
    for hit in hits:
        public = taxonomy.fold(hit.label)
        if public is None:
            if dropped is not None:
                dropped[hit.label] += 1
            continue
        if public != hit.label:
            hit = Hit(hit.start, hit.end, public, hit.score, hit.detector, hit.kind)
        folded.append(hit)
    return folded


def resolve(
    hits: Iterable[Hit],
    taxonomy: Taxonomy,
    *,
    types: Iterable[str] | None = None,
    thresholds: Mapping[str, float] | None = None,
    drop_unscored: bool = False,
) -> Resolution:
    """Fold, filter, threshold and de-overlap ``hits``; see the module docstring."""
    enabled = set(taxonomy.check_types(tuple(types) if types is not None else None))
    thresholds = thresholds or {}
    dropped: Counter = Counter()
    below: Counter = Counter()
    candidates: list[Hit] = []
    for hit in fold_hits(hits, taxonomy, dropped):
        if hit.label not in enabled:
            continue
        if hit.score is None:
            if drop_unscored:
                below[hit.label] += 1
                continue
        elif hit.score < thresholds.get(hit.label, 0.0):
            below[hit.label] += 1
            continue
        candidates.append(hit)

    candidates.sort(key=lambda hit: _priority(hit, taxonomy))
    kept: list[Hit] = []
    # One byte per character, set where a kept span lies: a collision test and a mark cost
    # the candidate's length at C speed, where a sorted interval list costs a shift of the
    # whole list per insertion (quadratic in the hits of a long document).
    occupied = bytearray(max((hit.end for hit in candidates), default=0))
    overlapped = 0
    for hit in candidates:
        if occupied.find(1, hit.start, hit.end) != -1:
            overlapped += 1
            continue
        occupied[hit.start : hit.end] = b"\x01" * (hit.end - hit.start)
        kept.append(hit)
    kept.sort(key=lambda hit: (hit.start, hit.end))
    return Resolution(tuple(kept), dropped, below, overlapped)
