"""Spark table scans and redaction equal the in-process ones on local[2], in any partitioning."""

from __future__ import annotations

import os
import re
import shutil
import sys

import pytest

pytestmark = pytest.mark.spark

pytest.importorskip("pyspark", reason="pyspark is not installed: pip install 'spacy-pii[spark]'")
if shutil.which("java") is None:
    pytest.skip("no JVM on PATH: Spark needs Java 17", allow_module_level=True)

from pyspark import cloudpickle  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

from spacy_pii.errors import TableError  # noqa: E402
from spacy_pii.tables import redact_table, rows_source, scan_table  # noqa: E402
from spacy_pii.tables.spark import redact_dataframe, scan_dataframe  # noqa: E402

# The stub detector below travels to the workers by value, not by module name.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

NAMES = re.compile(r"\b(?:Ada|Grace|Alan|Joy)\b")
EMAIL = re.compile(r"[\w.]+@example\.com")


def detector(texts):
    out = []
    for text in texts:
        spans = [(m.start(), m.end(), "PERSON") for m in NAMES.finditer(text)]
        spans += [(m.start(), m.end(), "EMAIL") for m in EMAIL.finditer(text)]
        out.append(sorted(spans))
    return out


COLUMNS = ["id", "first_name", "email", "notes", "qty"]


def _rows(n=400):
    first = ["Ada", "Grace", "Alan", "Joy", "Mark", None]
    return [
        (f"r{i}", first[i % 6], f"u{i % 50}@example.com",
         f"Call {first[(i + 1) % 5]} about <PERSON_1> order {i}" if i % 3 else None,
         i % 7)
        for i in range(n)
    ]  # fmt: skip


@pytest.fixture(scope="module")
def spark():
    saved = {name: os.environ.get(name) for name in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("spacy-pii-table-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    yield session
    session.stop()
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


SCHEMA = "id string, first_name string, email string, notes string, qty long"


@pytest.mark.parametrize("full", [False, True])
def test_scan_dataframe_equals_scan_table(spark, full):
    rows = _rows()
    # parallelize keeps the order; five partitions, each merged on the driver.
    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 5), SCHEMA)
    assert df.rdd.getNumPartitions() == 5
    local = scan_table(rows_source(COLUMNS, rows), detector, sample_size=100, seed=4, full=full)
    remote = scan_dataframe(df, detector, sample_size=100, seed=4, full=full)
    assert remote.to_dict()["columns"] == local.to_dict()["columns"]
    assert remote.column("first_name").decision == "pii"
    assert remote.column("notes").rule == "free-text"


def test_redact_dataframe_equals_redact_table(spark):
    rows = _rows(300)
    masks = {"first_name": "PERSON", "email": "EMAIL"}
    columns = {name: {"policy": "mask", "type": type_} for name, type_ in masks.items()}
    policy = {"columns": {**columns, "notes": "spans"}}
    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 3), SCHEMA)
    out, vault = redact_dataframe(df, policy, detector)
    local = redact_table(rows_source(COLUMNS, rows), policy, detector=detector)
    assert [tuple(r) for r in out.collect()] == local.output
    assert vault == local.vault and out.schema == df.schema
    with pytest.raises(TableError, match="column 'qty' is bigint"):
        redact_dataframe(df, {"columns": {"qty": {"policy": "mask", "type": "PHONE"}}}, detector)
