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
from .outputs import redact_table, restore_table
from .policy import ColumnPolicy, TablePolicy, parse_policy, policy_from_scan, read_policy
from .readers import TableSource, from_pandas, open_table, rows_source
from .redact import TableRedaction
from .scan import DEFAULT_SAMPLE, MAX_FULL_ROWS, ScanSettings, TableScan, scan_table

# The short name the issue and the docs use: ``spacy_pii.tables.redact(table, policy)``.
redact = redact_table

__all__ = [
    "DEFAULT_SAMPLE",
    "MAX_FULL_ROWS",
    "RULES",
    "ColumnPolicy",
    "ColumnScan",
    "HeaderCue",
    "ScanSettings",
    "TablePolicy",
    "TableRedaction",
    "TableScan",
    "TableSource",
    "TypeEvidence",
    "from_pandas",
    "header_matcher",
    "normalise_header",
    "open_table",
    "parse_policy",
    "policy_from_scan",
    "read_policy",
    "redact",
    "redact_table",
    "restore_table",
    "rows_source",
    "scan_table",
]
