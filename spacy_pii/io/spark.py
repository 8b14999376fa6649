"""Redact a text column of a Spark DataFrame with a PII pipeline, one pipeline per worker.

:func:`redact_dataframe` adds plain string columns: the redacted text, the spans as JSON, the
quasi-identifier findings as JSON and an error kind. It runs ``mapInPandas``: each Python
worker loads the pipeline once, keeps it in a module-level cache keyed by its settings, and
sends Arrow batches through ``nlp.pipe``. pyspark is imported here and nowhere else in the
package, and only when :func:`redact_dataframe` is called.

Install (the ``spark`` extra: ``pip install 'spacy-pii[spark]'``, which brings pyspark,
pandas and pyarrow):

- Every executor needs ``spacy-pii`` and the pipeline. Package the trained pipeline with
  ``spacy package --build wheel`` and install both wheels as cluster libraries (Databricks:
  Libraries > Install new > Python Whl; elsewhere ``spark.archives`` with a packed virtual
  environment, or the wheels baked into the executor image). Pass the pipeline's package
  name as ``model``; ``"rules"`` needs no model at all.
- Point ``PYSPARK_PYTHON`` (driver and executors) at the interpreter that has them, or the
  workers cannot import pandas or spaCy.

Deterministic output. Placeholders are numbered per text (``<EMAIL_1>``), so a row gets the
same placeholder on any executor and in any partitioning. ``hash`` and ``fake`` are keyed
HMACs: every executor must see the same key, in the environment variable named by
``key_env`` (default ``SPACY_PII_KEY``). The key is read on the executor when the pipeline
is built; it is never put in the DataFrame, the plan or the closure. Set it with
``spark.executorEnv.SPACY_PII_KEY`` or, better, from the cluster's secret store (a
Kubernetes ``spark.kubernetes.executor.secretKeyRef.SPACY_PII_KEY``, a Databricks
``{{secrets/scope/name}}`` environment variable). Spark shows ``spark.executorEnv.*`` in its
UI and event log unless the name matches ``spark.redaction.regex``; add the variable to that
regex (``(?i)secret|password|token|access[.]?key|spacy_pii_key``) if you set it that way.
A warning is logged when it does not match.

No vault column: it would put the original values beside their masks. Use the CLI's
``--vault`` for reversible runs, or the ``hash`` operator for joinable pseudonyms.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..redaction import parse_operators
from .records import (
    Item,
    StreamOptions,
    StreamStats,
    checked_text,
    load_redaction_pipeline,
    redact_items,
)

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame
    from spacy.language import Language

__all__ = ["DEFAULT_OUTPUT_COLS", "ERROR_COL", "cached_pipeline", "redact_dataframe"]

logger = logging.getLogger(__name__)

DEFAULT_OUTPUT_COLS = ("redacted", "spans_json", "risk_json")
ERROR_COL = "redact_error"
# Texts per nlp.pipe batch inside one Arrow batch (Arrow batches hold up to
# spark.sql.execution.arrow.maxRecordsPerBatch rows, 10,000 by default). 256 is the CLI's
# default too.
DEFAULT_BATCH_SIZE = 256
# A null cell is not an error: its outputs are null and its error column is null too.
_NULL = "null"

_PIPELINES: dict[tuple[str, str, str | None, bool], Language] = {}


def cached_pipeline(
    model: str, operators: Mapping[str, Any] | None, key_env: str | None, risk: bool
) -> Language:
    """The redaction pipeline for these settings, loaded once per Python process."""
    cache_key = (model, json.dumps(operators or {}, sort_keys=True), key_env, risk)
    nlp = _PIPELINES.get(cache_key)
    if nlp is None:
        nlp = load_redaction_pipeline(model, operators=operators, key_env=key_env, risk=risk)
        _PIPELINES[cache_key] = nlp
    return nlp


def compact_json(rows: list[dict]) -> str:
    """A JSON cell: compact, keys in record order (spans: start, end, label, score, detector)."""
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def _item(value: object, row: int, max_length: int, stats: StreamStats) -> Item:
    if not isinstance(value, str):
        return "", (row, _NULL, None)
    return checked_text(value, row, max_length, stats)


def redact_batches(
    batches: Iterable[pd.DataFrame],
    *,
    text_col: str,
    model: str,
    operators: Mapping[str, Any] | None,
    key_env: str | None,
    batch_size: int,
    output_cols: tuple[str, str | None, str | None],
    error_col: str | None = ERROR_COL,
) -> Iterator[pd.DataFrame]:
    """The ``mapInPandas`` function: append the output columns to each pandas batch."""
    redacted_col, spans_col, risk_col = output_cols
    risk = risk_col is not None
    nlp = cached_pipeline(model, operators, key_env, risk)
    opts = StreamOptions(risk=risk, batch_size=batch_size)
    for frame in batches:
        stats = StreamStats()
        values = frame[text_col].tolist()
        items = (_item(v, row, nlp.max_length, stats) for row, v in enumerate(values, start=1))
        columns: dict[str, list[str | None]] = {redacted_col: []}
        for name in (spans_col, risk_col, error_col):
            if name is not None:
                columns[name] = []
        for record, _vault in redact_items(nlp, items, opts, stats):
            error = record.get("error")
            done = error is None
            columns[redacted_col].append(record["text"] if done else None)
            if spans_col is not None:
                columns[spans_col].append(compact_json(record["spans"]) if done else None)
            if risk_col is not None:
                columns[risk_col].append(compact_json(record["risk"]) if done else None)
            if error_col is not None:
                columns[error_col].append(None if error == _NULL else error)
        yield frame.assign(**columns)


def _warn_if_key_shown(df: DataFrame, key_env: str | None) -> None:
    conf = df.sparkSession.conf
    name = f"spark.executorEnv.{key_env}"
    if not key_env or conf.get(name, None) is None:
        return
    pattern = conf.get("spark.redaction.regex") or "(?i)secret|password|token|access[.]?key"
    try:
        hidden = re.search(pattern, name) is not None
    except re.error:
        return
    if not hidden:
        logger.warning("%s is shown in the Spark UI; add it to spark.redaction.regex", name)


def redact_dataframe(
    df: DataFrame,
    text_col: str,
    *,
    model: str = "default",
    output_cols: tuple[str, str | None, str | None] = DEFAULT_OUTPUT_COLS,
    operators: Mapping[str, Any] | None = None,
    key_env: str | None = "SPACY_PII_KEY",
    batch_size: int = DEFAULT_BATCH_SIZE,
    error_col: str | None = ERROR_COL,
) -> DataFrame:
    """Return ``df`` with the redaction of ``text_col`` in new string columns.

    Args:
        df: the input DataFrame; every column is kept.
        text_col: a string column. A null cell gives null outputs and no error.
        model: ``"rules"``, ``"default"``, or a pipeline package name or path that every
            executor can load (see the module docs).
        output_cols: names for the redacted text, the spans JSON (offsets index the input
            text; no values) and the risk JSON (``find_combinations`` findings). Set the
            spans or risk name to ``None`` to leave that column out; no risk column also
            skips the risk check.
        operators: per-type operators, as for :func:`spacy_pii.redact`.
        key_env: the environment variable that holds the ``hash``/``fake`` key on the
            executors.
        batch_size: texts per ``nlp.pipe`` batch.
        error_col: a column with the error kind of a row that was not processed
            (``too_long``, ``pipeline_error``), null otherwise; ``None`` leaves it out.

    Raises:
        ConfigError: a missing or non-string ``text_col``, an output name already in ``df``,
            or an invalid operator config.
        MissingExtra: pyspark is not installed.
    """
    try:
        from pyspark.sql.types import StringType, StructField, StructType
    except ImportError:
        from ..redaction import MissingExtra

        raise MissingExtra("redact_dataframe needs pip install 'spacy-pii[spark]'") from None
    if text_col not in df.columns:
        raise ConfigError(f"the DataFrame has no column {text_col!r}")
    if not isinstance(df.schema[text_col].dataType, StringType):
        raise ConfigError(f"column {text_col!r} must be a string column")
    if len(output_cols) != 3 or not output_cols[0]:
        raise ConfigError("output_cols needs three names; the first may not be None")
    names = [name for name in (*output_cols, error_col) if name is not None]
    clash = sorted(set(names) & set(df.columns))
    if clash or len(set(names)) != len(names):
        raise ConfigError(f"output columns must be new and distinct; clash: {clash}")
    if batch_size < 1:
        raise ConfigError("batch_size must be at least 1")
    parse_operators(operators)
    _warn_if_key_shown(df, key_env)
    schema = StructType(
        [*df.schema.fields, *(StructField(name, StringType(), True) for name in names)]
    )
    # A partial of a module-level function pickles by reference: the workers import this
    # module (spacy-pii must be installed there) and share its pipeline cache.
    function = partial(
        redact_batches,
        text_col=text_col,
        model=model,
        operators=dict(operators) if operators else None,
        key_env=key_env,
        batch_size=batch_size,
        output_cols=(output_cols[0], output_cols[1], output_cols[2]),
        error_col=error_col,
    )
    return df.mapInPandas(function, schema)
