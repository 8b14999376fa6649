"""The plain-data result every detector returns: a typed character span with an honest score."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class Hit:
    """One candidate span on the source string.

    ``start``/``end`` are Python string indices into the original text, ``end`` exclusive.
    ``score`` is 1.0 when a validator (checksum, parser) confirmed the slice, a model's
    calibrated probability, or ``None`` for a shape-only match that has no probability.
    ``detector`` names the rule or model that produced the hit (``"rules.email"``).
    ``kind`` is ``"rule"`` or ``"model"``; the merge prefers the kind the type names.
    """

    start: int
    end: int
    label: str
    score: float | None
    detector: str
    kind: str = "rule"

    def __post_init__(self) -> None:
        if not (0 <= self.start < self.end):
            raise ValueError(f"hit offsets {self.start}:{self.end} are empty or negative")
        if self.score is not None and not (0.0 <= self.score <= 1.0):
            raise ValueError(f"hit score must lie in [0, 1], got {self.score}")

    @property
    def length(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Hit) -> bool:
        return self.start < other.end and other.start < self.end
