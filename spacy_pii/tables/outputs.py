"""Tables out, in the input's format and schema, and the two calls users make:
:func:`redact_table` and :func:`restore_table`.

* CSV/TSV: the same header and delimiter, one output row per input row.
* JSON Lines: each record as read, with only the redacted leaves changed (nested objects
  stay nested, numbers stay numbers where their column was kept).
* Parquet: the input's Arrow schema; a replacing policy on a non-string column raises
  :class:`~spacy_pii.errors.TableError` instead of changing the column's type.
* pandas: a new DataFrame with the same columns, index and dtypes.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError, TableError
from .detect import CellDetector
from .policy import TablePolicy, parse_policy, policy_from_scan
from .readers import TableSource, _jsonl_records
from .redact import TableRedaction, redact_source, restore_batches
from .scan import as_source, scan_table

Batches = Iterator[list[tuple[Any, ...]]]


def write_batches(source: TableSource, batches: Batches, output: str | Path | None) -> Any:
    """Write ``batches`` like ``source``: a file at ``output``, a DataFrame, or rows."""
    if source.format == "pandas":
        return _to_pandas(source, batches)
    if output is None:
        return [row for batch in batches for row in batch]
    path = Path(output)
    if source.format in ("csv", "tsv"):
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter=source.delimiter or ",")
            writer.writerow(source.columns)
            for batch in batches:
                writer.writerows(batch)
    elif source.format == "jsonl":
        _write_jsonl(source, batches, path)
    elif source.format == "parquet":
        _write_parquet(source, batches, path)
    else:
        with path.open("w", encoding="utf-8") as handle:
            for batch in batches:
                for row in batch:
                    record = dict(zip(source.columns, row, strict=True))
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def _replace_leaves(record: dict[str, Any], prefix: str, values: Mapping[str, Any]) -> dict:
    out = {}
    for key, value in record.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            out[key] = _replace_leaves(value, name, values)
        else:
            out[key] = values.get(name, value)
    return out


def _write_jsonl(source: TableSource, batches: Batches, path: Path) -> None:
    # The records are read again beside the redacted rows, so that each is written with its
    # own nesting and its own JSON types; a leaf changes only where its cell changed.
    originals = source.batches()
    records = (json.loads(line) for line in _raw_jsonl(Path(source.extra["path"])))
    with path.open("w", encoding="utf-8") as handle:
        for batch, before in zip(batches, originals, strict=True):
            for row, old in zip(batch, before, strict=True):
                changed = {
                    name: new for name, new, was in zip(source.columns, row, old, strict=True)
                    if new is not was and new != was
                }  # fmt: skip
                record = _replace_leaves(next(records), "", changed)
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _raw_jsonl(path: Path) -> Iterator[str]:
    for _, _ in _jsonl_records(path, "utf-8"):
        pass  # validate first: a broken line fails before anything is written
    with path.open("rb") as handle:
        for raw in handle:
            if raw.strip():
                yield raw.decode("utf-8")


def _write_parquet(source: TableSource, batches: Batches, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = source.extra["schema"]
    with pq.ParquetWriter(path, schema) as writer:
        for batch in batches:
            arrays = []
            for index, column in enumerate(source.columns):
                values = [row[index] for row in batch]
                try:
                    arrays.append(pa.array(values, type=schema.field(index).type))
                except (pa.ArrowInvalid, pa.ArrowTypeError):
                    raise TableError(
                        f"{source.name}: column {column!r} is {schema.field(index).type}; its "
                        "policy writes text. Keep it, or cast it to string first"
                    ) from None
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))


def _to_pandas(source: TableSource, batches: Batches) -> Any:
    import pandas as pd

    frame = source.extra["frame"]
    rows = [row for batch in batches for row in batch]
    out = pd.DataFrame.from_records(rows, columns=list(frame.columns), index=frame.index)
    if not rows:
        out = frame.iloc[0:0].copy()
    for column in frame.columns:
        changed = not out[column].equals(
            frame[column].astype(object).where(frame[column].notna(), None)
        )
        if not changed:
            out[column] = frame[column]
        elif frame[column].dtype != object:
            try:
                out[column] = out[column].astype(frame[column].dtype)
            except (TypeError, ValueError):
                raise TableError(
                    f"column {column!r} is {frame[column].dtype}; its policy writes text. "
                    "Keep it, or cast it to string first"
                ) from None
    return out


def redact_table(
    table: Any,
    policy: TablePolicy | Mapping[str, Any] | None = None,
    *,
    detector: CellDetector | None = None,
    key: bytes | str | None = None,
    output: str | Path | None = None,
    locale: str = "en_US",
    scan: Any = None,
) -> TableRedaction:
    """Redact a table by column policies, with one vault for the whole run.

    Args:
        table: a path (CSV/TSV, JSON Lines, Parquet), a pandas DataFrame or a
            :class:`~spacy_pii.tables.readers.TableSource`.
        policy: a :class:`TablePolicy` or its plain form (see :mod:`.policy`); ``None``
            takes the policy ``scan`` suggests, scanning first when no scan is given.
        detector: ``texts -> spans`` for ``spans`` columns (and the scan); ``None`` loads
            the default pipeline when one is needed.
        key: the HMAC key for ``hash`` and ``fake``.
        output: the file to write for a path input (same format); ``None`` returns rows.
        locale: the Faker locale for ``fake``.
        scan: a :class:`~spacy_pii.tables.scan.TableScan` to take the policy from.

    Returns:
        A :class:`TableRedaction`; ``output`` is the DataFrame, the written path, or rows.
    """
    source = as_source(table)
    if isinstance(table, (str, Path)) and output is None and source.format != "pandas":
        raise ConfigError("give an output path to redact a file")
    if policy is None:
        if scan is None:
            scan = scan_table(source, detector=_detector(detector))
        policy = policy_from_scan(scan)
    policy = parse_policy(policy)
    needs_detector = any(policy.for_column(c).policy == "spans" for c in source.columns)
    if needs_detector:
        detector = _detector(detector)
    batches, masker, counts = redact_source(source, policy, detector, key=key, locale=locale)
    seen = [0]

    def counted() -> Batches:
        for batch in batches:
            seen[0] += len(batch)
            yield batch

    written = write_batches(source, counted(), output)
    rows = seen[0]
    plans = {c: policy.for_column(c).model_dump(exclude_none=True) for c in source.columns}
    return TableRedaction(written, dict(masker.vault), rows, plans, counts)


def restore_table(
    table: Any,
    vault: Mapping[str, str],
    *,
    columns: list[str] | None = None,
    output: str | Path | None = None,
) -> Any:
    """Put the vault's values back into ``columns`` (all when ``None``); same output kinds
    as :func:`redact_table`. ``hash`` and ``fake`` cells and ``<SECRET>`` stay as they are."""
    source = as_source(table)
    return write_batches(source, restore_batches(source, vault, columns), output)


def _detector(detector: CellDetector | None) -> CellDetector:
    if detector is not None:
        return detector
    from .detect import load_detector

    return load_detector()
