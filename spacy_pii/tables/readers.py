"""Tables in: CSV/TSV (stdlib ``csv``, streamed), JSON Lines, Parquet (pyarrow), DataFrames.

Every reader gives a :class:`TableSource`: column names, and row batches that can be read
again (a scan reads once; ``redact-table`` reads twice: once for placeholder-shaped text
already present, once to write). pandas and pyarrow are imported only inside the readers
that need them.

Documented results for bad input (the rest raise :class:`~spacy_pii.errors.TableError`):

* A CSV row shorter than the header is padded with empty cells; a longer one loses its
  extra cells. Both are counted in :attr:`TableSource.ragged_rows`; ``strict=True`` raises
  instead, naming the data row.
* An empty header becomes ``column_N`` (its 1-based position); a repeated one gets
  ``.2``, ``.3``.
* JSON Lines: nested objects become dotted paths (``customer.email``); a list is one cell.
  A field missing from a record is an empty cell. Values keep their JSON types, and a
  column holding several (a number here, a string there) reports them in ``kinds``.
"""

from __future__ import annotations

import csv
import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import TableError

BATCH_ROWS = 4096
# A cell longer than this stops a CSV read (stdlib csv's own default is 131,072). Ten
# million characters: far above any field a spreadsheet writes (Excel caps a cell at 32,767).
MAX_CELL_CHARS = 10_000_000
FORMATS = ("csv", "tsv", "jsonl", "parquet")
_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
             ".json": "jsonl", ".parquet": "parquet", ".pq": "parquet"}  # fmt: skip


@dataclass
class TableSource:
    """A table to scan or redact.

    Attributes:
        name: the file name (never its path's parents) or ``"DataFrame"``.
        format: ``csv``, ``tsv``, ``jsonl``, ``parquet`` or ``pandas``.
        columns: column names, unique, in order; dotted paths for nested JSON.
        batches: a function that opens the table afresh and yields lists of row tuples.
        row_count: the number of rows when known before reading (Parquet, DataFrames).
        typed: cells keep their types (not every cell is a ``str``).
        delimiter: the CSV delimiter used.
        ragged_rows: CSV rows whose length differed from the header's, after a full read.
    """

    name: str
    format: str
    columns: list[str]
    batches: Callable[[], Iterator[list[tuple[Any, ...]]]]
    row_count: int | None = None
    typed: bool = False
    delimiter: str | None = None
    ragged_rows: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def table_format(path: Path, declared: str | None = None) -> str:
    """The format named by ``declared`` or by the file's suffix."""
    fmt = declared or _SUFFIXES.get(path.suffix.lower())
    if fmt not in FORMATS:
        raise TableError(f"{path.name}: unknown table format; use one of {list(FORMATS)}")
    return fmt


def open_table(
    path: str | Path,
    format: str | None = None,
    *,
    delimiter: str | None = None,
    encoding: str = "utf-8",
    strict: bool = False,
) -> TableSource:
    """Open a table file; see the module docs for what bad input gives."""
    path = Path(path)
    if not path.is_file():
        raise TableError(f"{path.name}: no such file")
    fmt = table_format(path, format)
    if fmt in ("csv", "tsv"):
        return _csv_source(path, fmt, delimiter, encoding, strict)
    if fmt == "jsonl":
        return _jsonl_source(path, encoding)
    return _parquet_source(path)


def unique_columns(names: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for position, raw in enumerate(names, 1):
        name = raw.strip() or f"column_{position}"
        count = seen.get(name, 0) + 1
        seen[name] = count
        out.append(name if count == 1 else f"{name}.{count}")
    return out


def _csv_source(
    path: Path, fmt: str, delimiter: str | None, encoding: str, strict: bool
) -> TableSource:
    if csv.field_size_limit() < MAX_CELL_CHARS:
        csv.field_size_limit(MAX_CELL_CHARS)
    if delimiter is None:
        delimiter = "\t" if fmt == "tsv" else _sniff(path, encoding)
    header = next(_csv_chunks(path, delimiter, encoding, 1), None)
    if not header:
        raise TableError(f"{path.name}: the file is empty; a table needs a header row")
    columns = unique_columns(header[0])
    source = TableSource(path.name, fmt, columns, lambda: iter(()), delimiter=delimiter)
    width = len(columns)

    def batches() -> Iterator[list[Any]]:
        ragged = 0
        seen = 0
        chunks = _csv_chunks(path, delimiter, encoding, BATCH_ROWS)
        first = next(chunks, [])
        for chunk in itertools.chain([first[1:]], chunks):
            # One C-level pass tells a regular chunk from one to repair row by row.
            if set(map(len, chunk)) - {width}:
                repaired = []
                for offset, row in enumerate(chunk):
                    if len(row) != width:
                        if not row:
                            continue  # a blank line, which csv gives as []
                        if strict:
                            raise TableError(
                                f"{path.name}: data row {seen + offset + 1} has {len(row)} "
                                f"cells; the header has {width}"
                            )
                        ragged += 1
                        row = (row + [""] * width)[:width]
                    repaired.append(row)
                chunk = repaired
            seen += len(chunk)
            if chunk:
                yield chunk
        source.ragged_rows = ragged

    source.batches = batches
    return source


def _csv_chunks(path: Path, delimiter: str, encoding: str, size: int) -> Iterator[list[list[str]]]:
    with path.open("r", encoding=encoding, errors="strict", newline="") as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        try:
            while chunk := list(itertools.islice(reader, size)):
                yield chunk
        except UnicodeDecodeError:
            raise TableError(
                f"{path.name}: bytes that are not valid {encoding} after line {reader.line_num}"
            ) from None
        except csv.Error as err:
            # csv's messages name a limit or a character class, never the field's content.
            kind = "a cell over the size limit" if "field limit" in str(err) else "malformed CSV"
            raise TableError(f"{path.name}: line {reader.line_num + 1}: {kind}") from None


def _sniff(path: Path, encoding: str) -> str:
    try:
        with path.open("r", encoding=encoding, errors="strict", newline="") as handle:
            head = handle.read(65536)
    except UnicodeDecodeError:
        raise TableError(f"{path.name}: bytes that are not valid {encoding}") from None
    first = head.split("\n", 1)[0]
    counts = {d: first.count(d) for d in (",", "\t", ";", "|")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _flatten(record: dict[str, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, value in record.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict) and value:
            _flatten(value, name, out)
        else:
            out[name] = value


def _jsonl_records(path: Path, encoding: str) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open("rb") as handle:
        for line_number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode(encoding))
            except UnicodeDecodeError:
                raise TableError(f"{path.name}: line {line_number}: not valid {encoding}") from None
            except json.JSONDecodeError as err:
                raise TableError(
                    f"{path.name}: line {line_number}: not JSON ({err.msg} at column {err.colno})"
                ) from None
            if not isinstance(record, dict):
                raise TableError(f"{path.name}: line {line_number}: a record must be an object")
            flat: dict[str, Any] = {}
            _flatten(record, "", flat)
            yield line_number, flat


def _jsonl_source(path: Path, encoding: str) -> TableSource:
    # One pass to learn the columns (records need not share their keys), then stream.
    columns: dict[str, None] = {}
    for _, flat in _jsonl_records(path, encoding):
        columns.update(dict.fromkeys(flat))
    names = list(columns)

    def batches() -> Iterator[list[tuple[Any, ...]]]:
        batch: list[tuple[Any, ...]] = []
        for _, flat in _jsonl_records(path, encoding):
            batch.append(tuple(_json_cell(flat.get(name)) for name in names))
            if len(batch) >= BATCH_ROWS:
                yield batch
                batch = []
        if batch:
            yield batch

    return TableSource(path.name, "jsonl", names, batches, typed=True, extra={"path": path})


def _json_cell(value: Any) -> Any:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else value


def _parquet_source(path: Path) -> TableSource:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        from ..redaction import MissingExtra

        raise MissingExtra("Parquet needs pyarrow: pip install 'spacy-pii[tables]'") from None
    try:
        meta = pq.ParquetFile(path)
    except Exception:
        raise TableError(f"{path.name}: not a Parquet file") from None
    columns = [field.name for field in meta.schema_arrow]

    def batches() -> Iterator[list[tuple[Any, ...]]]:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS):
            yield list(zip(*(column.to_pylist() for column in batch.columns), strict=True))

    return TableSource(
        path.name, "parquet", columns, batches, row_count=meta.metadata.num_rows, typed=True,
        extra={"schema": meta.schema_arrow},
    )  # fmt: skip


def from_pandas(frame: Any, name: str = "DataFrame") -> TableSource:
    """A pandas DataFrame as a table: its column names as text, missing values as empty."""
    columns = unique_columns([str(column) for column in frame.columns])
    # object dtype and None for every missing value (NaN, NaT, pd.NA) before iterating.
    plain = frame.astype(object).where(frame.notna(), None)

    def batches() -> Iterator[list[tuple[Any, ...]]]:
        rows = plain.itertuples(index=False, name=None)
        while True:
            batch = [row for _, row in zip(range(BATCH_ROWS), rows, strict=False)]
            if not batch:
                return
            yield batch

    return TableSource(
        name, "pandas", columns, batches, row_count=len(frame), typed=True, extra={"frame": frame}
    )


def rows_source(columns: list[str], rows: list[tuple[Any, ...]], name: str = "rows") -> TableSource:
    """Rows already in memory (tests, Spark partitions)."""

    def batches() -> Iterator[list[tuple[Any, ...]]]:
        for start in range(0, len(rows), BATCH_ROWS):
            yield rows[start : start + BATCH_ROWS]

    return TableSource(name, "rows", list(columns), batches, row_count=len(rows), typed=True)


__all__ = ["FORMATS", "TableSource", "from_pandas", "open_table", "rows_source"]
