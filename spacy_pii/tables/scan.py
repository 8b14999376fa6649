"""``scan_table``: which columns hold personal data, how much, and how sure the scan is.

One pass over the rows keeps, per column, counts and a seeded bottom-k sample
(:mod:`.sampling`); the sample's cells then run through the detector, and the header cue,
the cell counts and their agreement give each column's decision (:mod:`.evidence`). With
``full=True`` every non-empty cell runs through the detector, chunk by chunk, so the cost is
linear in the rows and the memory stays bounded.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.taxonomy import load_taxonomy
from ..errors import ConfigError, TableError
from .detect import CellDetector
from .evidence import CellCounts, ColumnScan, count_cells, decide, shapes_of, type_evidence
from .headers import DEFAULT_VERSION, HeaderCue, header_matcher
from .readers import TableSource, from_pandas, open_table
from .sampling import ColumnStats, TableSampler

# Cells per column that a sampled scan runs through the detector. 500 cells bound the
# Wilson 95% half-width of a share at 0.044 (at a share of 0.5, the widest), enough to tell
# a majority type from a minority one; the detector's cost is then per column, not per row.
DEFAULT_SAMPLE = 500
DEFAULT_SEED = 0
# A full pass over more rows than this is refused unless the caller raises the limit: at
# the rules pipeline's rate on this machine a billion rows would run for days, and an
# unbounded request is more often a forgotten sampling flag than a plan.
MAX_FULL_ROWS = 10_000_000
SCAN_KIND = "spacy-pii.table-scan"

Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class ScanSettings:
    """How a scan sampled: its seed, the cells per column, whether it was a full pass."""

    sample_size: int = DEFAULT_SAMPLE
    seed: int = DEFAULT_SEED
    full: bool = False
    max_full_rows: int | None = MAX_FULL_ROWS
    header_version: str = DEFAULT_VERSION

    def __post_init__(self) -> None:
        if isinstance(self.sample_size, bool) or not isinstance(self.sample_size, int):
            raise ConfigError("sample_size must be an integer")
        if self.sample_size < 1:
            raise ConfigError("sample_size must be at least 1")
        if self.max_full_rows is not None and self.max_full_rows < 1:
            raise ConfigError("max_full_rows must be at least 1, or None for no limit")

    def to_dict(self) -> dict[str, Any]:
        return {
            "sample_size": self.sample_size,
            "seed": self.seed,
            "full": self.full,
            "max_full_rows": self.max_full_rows,
            "header_version": self.header_version,
        }


@dataclass(frozen=True, slots=True)
class TableScan:
    """A table's scan: one :class:`ColumnScan` per column, in the table's order."""

    source: str
    format: str
    rows: int
    columns: tuple[ColumnScan, ...]
    settings: ScanSettings
    ragged_rows: int = 0
    taxonomy_version: str = field(default_factory=lambda: load_taxonomy().version)

    def column(self, name: str) -> ColumnScan:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)

    @property
    def pii_columns(self) -> list[str]:
        return [c.name for c in self.columns if c.decision == "pii"]

    def policies(self) -> dict[str, dict[str, Any]]:
        """The policy per column this scan suggests (``redact_table``'s input)."""
        return {c.name: {"policy": c.policy, "type": c.pii_type} for c in self.columns}

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": SCAN_KIND,
            "source": self.source,
            "format": self.format,
            "rows": self.rows,
            "ragged_rows": self.ragged_rows,
            "taxonomy_version": self.taxonomy_version,
            "settings": self.settings.to_dict(),
            "summary": {
                decision: sum(c.decision == decision for c in self.columns)
                for decision in ("pii", "maybe", "clean")
            },
            "columns": [c.to_dict() for c in self.columns],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


def column_scan(
    name: str,
    cue: HeaderCue,
    stats: ColumnStats,
    counts: CellCounts,
    *,
    full: bool,
) -> ColumnScan:
    """One column's result from its pass statistics and its cell counts."""
    sample = [text for _, _, text in stats.sample()]
    sampled = not full and stats.non_empty > counts.cells
    evidence = type_evidence(counts, cue, sampled)
    distinct = len(set(sample))
    decision, rule, pii_type, policy = decide(cue, evidence, counts, distinct)
    role = cue.role if cue.role and (decision == "clean" or cue.role == "free_text") else None
    if rule.startswith("free-text"):
        role = "free_text"
    return ColumnScan(
        name=name,
        rows=stats.rows,
        empty=stats.empty,
        examined=counts.cells,
        sampled=sampled,
        header=cue,
        types=evidence,
        decision=decision,
        rule=rule,
        pii_type=pii_type,
        role=role,
        policy=policy,
        distinct_share=distinct / len(sample) if sample else None,
        words_per_cell=counts.words / counts.cells if counts.cells else None,
        shapes=shapes_of(sample),
        kinds=dict(stats.kinds),
    )


def count_samples(
    columns: Sequence[str],
    cues: Sequence[HeaderCue],
    stats: Sequence[ColumnStats],
    detector: CellDetector,
    header_version: str = DEFAULT_VERSION,
) -> list[CellCounts]:
    """Run each column's sample through ``detector`` (one call) and count per column."""
    shapes = header_matcher(header_version).shapes
    samples = [[text for _, _, text in column.sample()] for column in stats]
    flat = [text for sample in samples for text in sample]
    spans = detector(flat) if flat else []
    counts, offset = [], 0
    for sample, cue in zip(samples, cues, strict=True):
        shape = shapes.get(cue.type) if cue.type and cue.strength == "strong" else None
        counts.append(count_cells(sample, spans[offset : offset + len(sample)], cue, shape))
        offset += len(sample)
    return counts


def as_source(table: Any) -> TableSource:
    """A :class:`TableSource` from a source, a path, or a pandas DataFrame."""
    if isinstance(table, TableSource):
        return table
    if isinstance(table, (str, Path)):
        return open_table(table)
    if hasattr(table, "itertuples") and hasattr(table, "columns"):
        return from_pandas(table)
    raise TableError(f"cannot read a table from {type(table).__name__}")


def scan_table(
    table: Any,
    detector: CellDetector | None = None,
    *,
    sample_size: int = DEFAULT_SAMPLE,
    seed: int = DEFAULT_SEED,
    full: bool = False,
    max_full_rows: int | None = MAX_FULL_ROWS,
    progress: Progress | None = None,
) -> TableScan:
    """Scan a table: a :class:`TableSource`, a file path, or a pandas DataFrame.

    Args:
        table: what to scan; a path's format comes from its suffix.
        detector: ``texts -> spans per text``; ``None`` loads ``spacy_pii.load()`` (the
            default pipeline, names included) through :func:`.detect.load_detector`.
        sample_size: cells per column in the seeded bottom-k sample.
        seed: the sample's seed: the same seed gives the same scan.
        full: run every non-empty cell through the detector (no interval then).
        max_full_rows: refuse a full pass over more rows (``None``: no limit).
        progress: called with the rows read so far after each batch.

    Raises:
        TableError: unreadable input, or a full pass over more than ``max_full_rows`` rows.
    """
    settings = ScanSettings(sample_size, seed, full, max_full_rows)
    source = as_source(table)
    limit = max_full_rows if full else None
    if limit is not None and source.row_count is not None and source.row_count > limit:
        raise TableError(
            f"{source.name}: a full pass over {source.row_count} rows exceeds the limit of "
            f"{limit}; sample instead, or raise max_full_rows"
        )
    if detector is None:
        from .detect import load_detector

        detector = load_detector()
    matcher = header_matcher(settings.header_version)
    cues = [matcher.cue(name) for name in source.columns]
    shapes = [
        matcher.shapes.get(cue.type) if cue.type and cue.strength == "strong" else None
        for cue in cues
    ]
    sampler = TableSampler(len(source.columns), sample_size, seed, track_kinds=source.typed,
                           keep_all=full)  # fmt: skip
    counts = [CellCounts() for _ in source.columns]
    rows = 0
    for batch in source.batches():
        rows = sampler.add_rows(batch, rows)
        if limit is not None and rows > limit:
            raise TableError(
                f"{source.name}: a full pass reached {limit} rows, the limit; sample instead,"
                " or raise max_full_rows"
            )
        if full:
            for index, texts in enumerate(sampler.drain()):
                if texts:
                    found = count_cells(texts, detector(texts), cues[index], shapes[index])
                    counts[index].merge(found)
        if progress is not None:
            progress(rows)
    if not full:
        counts = count_samples(source.columns, cues, sampler.columns, detector)
    columns = tuple(
        column_scan(name, cue, stats, count, full=full)
        for name, cue, stats, count in zip(
            source.columns, cues, sampler.columns, counts, strict=True
        )
    )
    return TableScan(source.name, source.format, rows, columns, settings, source.ragged_rows)
