"""Per-column statistics that merge exactly: counts, value kinds, and a seeded bounded sample.

The sample is a bottom-k sample (a priority reservoir): every row gets a pseudo-random
priority from ``(seed, row index)`` and each column keeps the ``k`` non-empty cells with the
smallest priorities. It is uniform over the column's non-empty cells, its memory is bounded
by ``k``, and two samples of disjoint row ranges merge into exactly the sample of their
union (keep the ``k`` smallest of both), whatever the partitioning: this is what lets a
Spark scan equal an in-process one.

Pure Python: no spaCy.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

_MASK = (1 << 64) - 1
# Strings that mean "no value" in exports, as exports spell them; they are counted as
# empty, never sampled. Exact matches only, so a batch counts them with list.count (C speed).
EMPTY_MARKERS = ("", "null", "NULL", "Null", "none", "None", "NONE", "nan", "NaN", "NAN",
                 "n/a", "N/A", "na", "NA", "-", "--", "\\N")  # fmt: skip
_EMPTY = frozenset(EMPTY_MARKERS)
_EMPTY_OR_NONE = frozenset((*EMPTY_MARKERS, None))


def row_priority(seed: int, row: int) -> int:
    """SplitMix64 of ``seed`` and ``row``: a fixed, well-mixed 64-bit priority per row."""
    z = (seed * 0x9E3779B97F4A7C15 + row + 1) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def is_empty(value: object) -> bool:
    """``None``, a float NaN, or a string that exports write for a missing value."""
    if value is None:
        return True
    if isinstance(value, float):
        return value != value
    if isinstance(value, str):
        return value in _EMPTY
    return False


def cell_text(value: object) -> str:
    """The text of a cell as the detectors see it: ``str`` as is, other scalars by ``str``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class ColumnStats:
    """What one pass keeps for one column; :meth:`merge` adds another range's stats."""

    rows: int = 0
    empty: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    # A max-heap by priority (stored negated) of (-priority, row, text), at most k long.
    heap: list[tuple[int, int, str]] = field(default_factory=list)

    @property
    def non_empty(self) -> int:
        return self.rows - self.empty

    def sample(self) -> list[tuple[int, int, str]]:
        """``(priority, row, text)`` by ascending priority: the bottom-k cells."""
        return sorted((-negated, row, text) for negated, row, text in self.heap)

    def merge(self, other: ColumnStats, k: int) -> None:
        self.rows += other.rows
        self.empty += other.empty
        self.kinds.update(other.kinds)
        for item in other.heap:
            _offer(self.heap, item, k)

    def to_state(self) -> dict[str, Any]:
        """Plain data (for pickling across Spark workers)."""
        return {"rows": self.rows, "empty": self.empty, "kinds": dict(self.kinds),
                "heap": list(self.heap)}  # fmt: skip

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> ColumnStats:
        return cls(state["rows"], state["empty"], Counter(state["kinds"]),
                   [tuple(item) for item in state["heap"]])  # type: ignore[misc]  # fmt: skip


def _offer(heap: list[tuple[int, int, str]], item: tuple[int, int, str], k: int) -> None:
    if len(heap) < k:
        heapq.heappush(heap, item)
    elif item > heap[0]:
        heapq.heapreplace(heap, item)


class TableSampler:
    """Feeds rows into one :class:`ColumnStats` per column.

    Args:
        width: the number of columns.
        k: cells kept per column in the sample (shapes, distinctness, and the detections of
            a sampled scan).
        seed: the priority seed; the same seed gives the same sample.
        track_kinds: count each cell's Python type (for JSON, Parquet and DataFrames).
        keep_all: also queue every non-empty cell in :attr:`pending` (a full pass); the
            caller drains it after each chunk of rows, so memory stays bounded.
    """

    def __init__(
        self, width: int, k: int, seed: int, *, track_kinds: bool, keep_all: bool = False
    ) -> None:
        if k < 1:
            raise ValueError("the sample keeps at least one cell per column")
        self.width = width
        self.k = k
        self.seed = seed
        self.track_kinds = track_kinds
        self.keep_all = keep_all
        self.columns = [ColumnStats() for _ in range(width)]
        self.pending: list[list[str]] = [[] for _ in range(width)]

    def add_rows(self, rows: Iterable[Sequence[object]], first_row: int) -> int:
        """Add rows numbered from ``first_row``; returns the next row number.

        Works a batch at a time, column by column: an untyped (CSV) column counts its empty
        cells with ``list.count``, and only the rows whose priority can still enter some
        column's sample are looked at one by one, so most cells cost no Python step.
        """
        batch = rows if isinstance(rows, list) else list(rows)
        n = len(batch)
        if not n:
            return first_row
        seed, k = self.seed, self.k
        negated = [-row_priority(seed, first_row + j) for j in range(n)]
        full = [stats.heap[0][0] for stats in self.columns if len(stats.heap) >= k]
        # A row whose priority is not below every full sample's largest can enter none.
        loosest = min(full) if len(full) == self.width else None
        if loosest is None:
            candidates: Sequence[int] = range(n)
        else:
            candidates = [j for j in range(n) if negated[j] > loosest]
        transposed = zip(*batch, strict=True)
        for index, (stats, column) in enumerate(zip(self.columns, transposed, strict=True)):
            stats.rows += n
            if self.track_kinds:
                flags = [is_empty(value) for value in column]
                stats.empty += sum(flags)
                kinds = (type(v).__name__ for v, e in zip(column, flags, strict=True) if not e)
                stats.kinds.update(kinds)
            else:
                stats.empty += sum(map(_EMPTY_OR_NONE.__contains__, column))
            if self.keep_all:
                self.pending[index].extend(cell_text(v) for v in column if not is_empty(v))
            heap = stats.heap
            rows_here = range(n) if len(heap) < k else candidates
            for j in rows_here:
                value = column[j]
                if is_empty(value):
                    continue
                if len(heap) < k:
                    heapq.heappush(heap, (negated[j], first_row + j, cell_text(value)))
                elif negated[j] > heap[0][0]:
                    heapq.heapreplace(heap, (negated[j], first_row + j, cell_text(value)))
        return first_row + n

    def drain(self) -> list[list[str]]:
        """The cells queued since the last drain, per column (full pass only)."""
        drained, self.pending = self.pending, [[] for _ in range(self.width)]
        return drained

    def merge(self, other: TableSampler) -> None:
        for mine, theirs in zip(self.columns, other.columns, strict=True):
            mine.merge(theirs, self.k)
