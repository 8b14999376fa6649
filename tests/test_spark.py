"""``redact_dataframe``: Spark gives what in-process ``nlp.pipe`` gives, in any partitioning."""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

pytestmark = pytest.mark.spark

pytest.importorskip("pyspark", reason="pyspark is not installed: pip install 'spacy-pii[spark]'")
if shutil.which("java") is None:
    pytest.skip("no JVM on PATH: Spark needs Java 17", allow_module_level=True)

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.testing import assertDataFrameEqual  # noqa: E402

import spacy_pii  # noqa: E402
from spacy_pii.errors import ConfigError  # noqa: E402
from spacy_pii.io.spark import cached_pipeline, redact_dataframe  # noqa: E402

KEY = "spark-test-key-1"
SCHEMA = (
    "id string, text string, redacted string, spans_json string, risk_json string, "
    "redact_error string"
)


def _texts() -> list[tuple[str, str | None]]:
    rows: list[tuple[str, str | None]] = []
    for i in range(120):
        text = f"Order {i}: reply to buyer{i}@example.com"
        if i % 4 == 0:
            text += ", card 4111 1111 1111 1111"
        if i % 10 == 0:
            text += ". Patient born 1985-03-14, ZIP 94110, male."
        rows.append((f"r{i}", text))
    rows.append(("null", None))
    return rows


@pytest.fixture(scope="module")
def spark():
    saved = {name: os.environ.get(name) for name in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    # The workers must run this interpreter, or they cannot import pandas and spaCy.
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("spacy-pii-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.executorEnv.SPACY_PII_KEY", KEY)
        .config("spark.redaction.regex", "(?i)secret|password|token|access[.]?key|spacy_pii_key")
        .getOrCreate()
    )
    yield session
    session.stop()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def _expected(spark, rows, operators=None):
    """The reference: the same pipeline in this process, serialised by hand."""
    nlp = spacy_pii.load("rules")
    nlp.add_pipe("pii_redact", config={"operators": operators or {}, "risk": True})
    out = []
    texts = [(text, row_id) for row_id, text in rows if text is not None]
    for doc, row_id in nlp.pipe(texts, as_tuples=True):
        group = doc.spans["pii"]
        spans = [
            {
                "start": span.start_char,
                "end": span.end_char,
                "label": span.label_,
                "score": score,
                "detector": detector,
            }
            for span, score, detector in zip(
                group, group.attrs["scores"], group.attrs["detectors"], strict=True
            )
        ]
        compact = {"ensure_ascii": False, "separators": (",", ":")}
        out.append(
            (
                row_id,
                doc.text,
                doc._.pii_redacted,
                json.dumps(spans, **compact),
                json.dumps(doc._.pii_risk, **compact),
                None,
            )
        )
    out += [(row_id, None, None, None, None, None) for row_id, text in rows if text is None]
    return spark.createDataFrame(out, SCHEMA)


def test_spark_equals_in_process_pipe_after_repartition(spark):
    rows = _texts()
    df = spark.createDataFrame(rows, "id string, text string").repartition(4)
    # cache(): the checks below are three actions; the redaction runs once.
    actual = redact_dataframe(df, "text", model="rules").cache()
    assert actual.rdd.getNumPartitions() == 4
    expected = _expected(spark, rows)
    assertDataFrameEqual(actual, expected)
    risky = actual.filter(actual.id == "r0").first()
    assert json.loads(risky.risk_json)[0]["name"] == "postcode_dob_sex"


def test_keyed_hash_is_the_same_on_executors_and_the_key_stays_out(spark, monkeypatch):
    monkeypatch.setenv("SPACY_PII_KEY", KEY)
    rows = _texts()[:20]
    operators = {"EMAIL": "hash"}
    df = spark.createDataFrame(rows, "id string, text string").repartition(4)
    actual = redact_dataframe(df, "text", model="rules", operators=operators).cache()
    assertDataFrameEqual(actual, _expected(spark, rows, operators))
    collected = actual.collect()
    assert all("<EMAIL_h:" in row.redacted for row in collected if row.redacted)
    assert not any(KEY in str(value) for row in collected for value in row)


@pytest.mark.parametrize(
    ("column", "kwargs", "message"),
    [
        ("missing", {}, "no column"),
        ("id", {"output_cols": ("text", None, None)}, "clash"),
        ("text", {"operators": {"EMAIL": "shred"}}, "operator"),
    ],
    ids=["missing-column", "output-name-clash", "unknown-operator"],
)
def test_bad_arguments_fail_on_the_driver(spark, column, kwargs, message):
    df = spark.createDataFrame([("a", "x")], "id string, text string")
    with pytest.raises(ConfigError, match=message):
        redact_dataframe(df, column, model="rules", **kwargs)


def test_pipeline_is_loaded_once_per_process_and_settings():
    first = cached_pipeline("rules", {"EMAIL": "partial"}, "SPACY_PII_KEY", False)
    assert cached_pipeline("rules", {"EMAIL": "partial"}, "SPACY_PII_KEY", False) is first
    assert cached_pipeline("rules", None, "SPACY_PII_KEY", False) is not first
