"""Spark: ``scan_dataframe`` and ``redact_dataframe`` by columns, equal to the in-process
``scan_table`` and ``redact_table`` on the same rows in the same order, in any partitioning.

How the results stay equal:

* Rows are numbered once (``zipWithIndex``, the DataFrame's own order), and a row's sample
  priority depends on ``(seed, row number)`` only; each partition keeps its bottom-k per
  column and the driver merges them exactly (:mod:`.sampling`). A sampled scan then runs
  the merged sample through the detector on the driver; a full pass runs every cell on the
  executors and adds the counts, which is exact too.
* Redaction numbers placeholders in the in-process order of first appearance: each
  executor reports the ``(type, value)`` pairs it would mask with their position (batch,
  column, row, offset), the driver assigns ``<TYPE_N>`` in that order, skipping
  placeholder-shaped text already present, and broadcasts the book; a second pass writes.

pyspark is imported here and nowhere else in :mod:`spacy_pii.tables`. Set
``PYSPARK_PYTHON`` to this interpreter, or the workers cannot import the package.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..core.taxonomy import load_taxonomy
from ..errors import TableError
from .detect import CellDetector
from .evidence import CellCounts, count_cells
from .headers import header_matcher
from .policy import ColumnPolicy, TablePolicy, parse_policy
from .readers import BATCH_ROWS
from .redact import TableMasker, _check_policies, _spans_wanted
from .sampling import ColumnStats, TableSampler, cell_text, is_empty
from .scan import DEFAULT_SAMPLE, DEFAULT_SEED, ScanSettings, TableScan, column_scan, count_samples

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_DETECTORS: dict[str, CellDetector] = {}


def _resolve(detector: str | CellDetector) -> CellDetector:
    """A detector by model name is loaded once per Python process (driver or worker)."""
    if not isinstance(detector, str):
        return detector
    found = _DETECTORS.get(detector)
    if found is None:
        from .detect import load_detector

        found = _DETECTORS[detector] = load_detector(detector)
    return found


def _indexed(df: DataFrame, columns: list[str]) -> Any:
    return df.select(*columns).rdd.zipWithIndex()


def _scan_partition(
    rows: Iterable[tuple[Any, int]],
    width: int,
    k: int,
    seed: int,
    full: bool,
    names: list[str],
    detector: str | CellDetector,
) -> Iterator[dict[str, Any]]:
    sampler = TableSampler(width, k, seed, track_kinds=True, keep_all=full)
    matcher = header_matcher()
    cues = [matcher.cue(name) for name in names]
    counts = [CellCounts() for _ in names]
    for row, index in rows:
        sampler.add_rows([tuple(row)], index)
        if full:
            for column, texts in enumerate(sampler.drain()):
                if texts:
                    cue = cues[column]
                    shape = matcher.shapes.get(cue.type) if cue.strength == "strong" else None  # type: ignore[arg-type]
                    found = count_cells(texts, _resolve(detector)(texts), cue, shape)
                    counts[column].merge(found)
    yield {
        "stats": [column.to_state() for column in sampler.columns],
        "counts": [count.to_state() for count in counts],
    }


def scan_dataframe(
    df: DataFrame,
    detector: str | CellDetector = "default",
    *,
    columns: list[str] | None = None,
    sample_size: int = DEFAULT_SAMPLE,
    seed: int = DEFAULT_SEED,
    full: bool = False,
    max_full_rows: int | None = None,
) -> TableScan:
    """Scan a Spark DataFrame by columns; the result equals :func:`~.scan.scan_table` on
    the same rows, in the DataFrame's order.

    Args:
        df: the DataFrame.
        detector: a model name (loaded once per worker) or a picklable ``texts -> spans``.
        columns: the columns to scan; ``None`` scans all.
        sample_size, seed, full: as for :func:`~.scan.scan_table`.
        max_full_rows: refuse a full pass over more rows (``None``: no limit, since a
            cluster is where a full pass belongs).
    """
    settings = ScanSettings(sample_size, seed, full, max_full_rows)
    names = list(columns or df.columns)
    if full and max_full_rows is not None:
        rows = df.count()
        if rows > max_full_rows:
            raise TableError(f"a full pass over {rows} rows exceeds the limit of {max_full_rows}")
    width = len(names)
    parts = (
        _indexed(df, names)
        .mapPartitions(
            lambda rows: _scan_partition(rows, width, sample_size, seed, full, names, detector)
        )
        .collect()
    )
    stats = [ColumnStats() for _ in names]
    counts = [CellCounts() for _ in names]
    for part in parts:
        for column, state in enumerate(part["stats"]):
            stats[column].merge(ColumnStats.from_state(state), sample_size)
        for column, state in enumerate(part["counts"]):
            counts[column].merge(CellCounts.from_state(state))
    matcher = header_matcher()
    cues = [matcher.cue(name) for name in names]
    if not full:
        counts = count_samples(names, cues, stats, _resolve(detector))
    scans = tuple(
        column_scan(name, cue, stat, count, full=full)
        for name, cue, stat, count in zip(names, cues, stats, counts, strict=True)
    )
    return TableScan("DataFrame", "spark", stats[0].rows if stats else 0, scans, settings)


def _occurrences(
    rows: Iterable[tuple[Any, int]],
    plans: list[ColumnPolicy],
    detector: str | CellDetector | None,
) -> Iterator[tuple[tuple[str, str], tuple[int, int, int, int]]]:
    """``((type, value), position)`` of every placeholder the in-process run would assign,
    and ``(("", token), ...)`` for placeholder-shaped text already present."""
    from ..redaction.mask import _reserved

    taxonomy = load_taxonomy()
    for row, index in rows:
        for column, plan in enumerate(plans):
            value = row[column]
            if plan.policy == "keep" or is_empty(value):
                continue
            text = cell_text(value)
            if "<" in text:
                for token in _reserved([text]):
                    yield ("", token), (0, 0, 0, 0)
            position = (index // BATCH_ROWS, column, index)
            if plan.policy == "mask":
                yield (plan.type or "PERSON", text), (*position, 0)
            elif plan.policy == "spans":
                spans = _resolve(detector)([text])[0]  # type: ignore[arg-type]
                for start, end, type_name in _spans_wanted(spans, taxonomy, plan.types):
                    yield (type_name, text[start:end]), (*position, start)


def _redact_partition(
    rows: Iterable[Any],
    plans: list[ColumnPolicy],
    book: dict[tuple[str, str], str],
    detector: str | CellDetector | None,
    key: bytes | str | None,
    locale: str,
) -> Iterator[tuple[Any, ...]]:
    masker = TableMasker(load_taxonomy(), key, locale=locale)
    masker._assigned = book  # the driver's book: every placeholder is already assigned
    taxonomy = masker.plan.taxonomy
    for row in rows:
        cells = list(row)
        for column, plan in enumerate(plans):
            value = cells[column]
            if plan.policy == "keep" or is_empty(value):
                continue
            text = cell_text(value)
            if plan.policy == "spans":
                spans = _resolve(detector)([text])[0]  # type: ignore[arg-type]
                wanted = _spans_wanted(spans, taxonomy, plan.types)
                if wanted:
                    cells[column] = masker.mask_spans(text, wanted, "mask")
            else:
                cells[column] = masker.replace(plan.type or "PERSON", text, plan.policy)
        yield tuple(cells)


def redact_dataframe(
    df: DataFrame,
    policy: TablePolicy | dict[str, Any],
    detector: str | CellDetector | None = "default",
    *,
    key: bytes | str | None = None,
    locale: str = "en_US",
) -> tuple[DataFrame, dict[str, str]]:
    """Redact a DataFrame by column policies: ``(redacted DataFrame, vault)``.

    The output has the input's schema, row order and partitioning; placeholders equal
    those of :func:`~.outputs.redact_table` on the same rows. A replacing policy on a
    non-string column raises :class:`~spacy_pii.errors.TableError`.
    """
    policy = parse_policy(policy)
    names = list(df.columns)
    plans = _check_policies(policy, names, key, locale)
    for field, plan in zip(df.schema.fields, plans, strict=True):
        if plan.policy != "keep" and field.dataType.typeName() != "string":
            raise TableError(
                f"column {field.name!r} is {field.dataType.simpleString()}; its policy writes"
                " text. Keep it, or cast it to string first"
            )
    found = (
        _indexed(df, names)
        .mapPartitions(lambda rows: _occurrences(rows, plans, detector))
        .reduceByKey(min)
        .collect()
    )
    reserved = {pair[1] for pair, _ in found if pair[0] == ""}
    ordered = sorted((position, pair) for pair, position in found if pair[0] != "")
    masker = TableMasker(load_taxonomy(), key, reserved=reserved, locale=locale)
    for _, (type_name, value) in ordered:
        if not masker.plan.irreversible(type_name):
            policy_name = "mask"
            masker.replace(type_name, value, policy_name)
    book = dict(masker._assigned)
    context = df.sparkSession.sparkContext
    shared = context.broadcast(book)
    out = df.rdd.mapPartitions(
        lambda rows: _redact_partition(rows, plans, shared.value, detector, key, locale)
    )
    return df.sparkSession.createDataFrame(out, df.schema), dict(masker.vault)
