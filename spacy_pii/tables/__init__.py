"""Tables and records: which columns hold personal data, and their consistent redaction.

``scan_table`` reads a CSV/TSV, JSON Lines or Parquet file, or a pandas DataFrame, and
decides per column (``pii``, ``maybe``, ``clean``) from header cues and cell detections;
``redact_table`` applies a policy per column with one vault for the whole run. pandas and
pyarrow are imported only by the readers and writers that need them; spaCy only by
:mod:`.detect`. See docs/tables.md.
"""

from __future__ import annotations

from .evidence import RULES, ColumnScan, TypeEvidence
from .headers import HeaderCue, header_matcher, normalise_header
from .readers import TableSource, from_pandas, open_table, rows_source
from .scan import DEFAULT_SAMPLE, MAX_FULL_ROWS, ScanSettings, TableScan, scan_table

__all__ = [
    "DEFAULT_SAMPLE",
    "MAX_FULL_ROWS",
    "RULES",
    "ColumnScan",
    "HeaderCue",
    "ScanSettings",
    "TableScan",
    "TableSource",
    "TypeEvidence",
    "from_pandas",
    "header_matcher",
    "normalise_header",
    "open_table",
    "rows_source",
    "scan_table",
]
