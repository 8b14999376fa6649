"""Parallel scaling of redaction: ``spacy-pii redact --n-process 1, 2`` and Spark ``local[N]``.

    python training/scaling.py --model rules --lines 40000 [--spark]

Writes the benchmark's short texts (cycled) as a JSONL file, times ``spacy-pii redact`` in a
fresh process per process count, and with ``--spark`` times ``redact_dataframe`` on
``local[1]`` and ``local[2]`` sessions over the same texts. Prints docs/s, the speed-up over
one process, the efficiency (speed-up / processes) and the load average before and after
each run: the machine may be shared, and a busy core makes any figure here smaller.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from spacy_pii.benchmark import DEFAULT_CORPORA, load_corpus
from spacy_pii.core.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parents[1]


def _texts(lines: int) -> list[str]:
    texts = [d.text for d in load_corpus([ROOT / p for p in DEFAULT_CORPORA], load_taxonomy())]
    return [texts[i % len(texts)] for i in range(lines)]


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def time_redact(source: Path, model: str, processes: int) -> float:
    """Wall seconds of one ``spacy-pii redact`` run, model load excluded (an empty run first)."""
    command = [sys.executable, "-m", "spacy_pii.io.cli", "redact", str(source), "--model", model]
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.jsonl"
        empty.write_text("", encoding="utf-8")
        out = Path(folder) / "out.jsonl"
        started = time.perf_counter()
        subprocess.run([*command[:4], str(empty), *command[5:]], check=True, capture_output=True)
        loading = time.perf_counter() - started
        started = time.perf_counter()
        subprocess.run(
            [*command, "-o", str(out), "--n-process", str(processes)],
            check=True,
            capture_output=True,
        )
        return time.perf_counter() - started - loading


def time_spark(texts: list[str], model: str, cores: int) -> float:
    """Wall seconds of ``redact_dataframe`` over ``texts`` on ``local[cores]``, second run."""
    from pyspark.sql import SparkSession

    from spacy_pii.io.spark import redact_dataframe

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (
        SparkSession.builder.master(f"local[{cores}]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    try:
        df = spark.createDataFrame([(t,) for t in texts], ["text"]).repartition(2 * cores).cache()
        df.count()
        out = redact_dataframe(df, "text", model=model)
        # The first run loads the pipeline in every Python worker, which Spark reuses.
        out.write.format("noop").mode("overwrite").save()
        started = time.perf_counter()
        out.write.format("noop").mode("overwrite").save()
        return time.perf_counter() - started
    finally:
        spark.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="rules")
    parser.add_argument("--lines", type=int, default=40_000)
    parser.add_argument("--spark", action="store_true")
    parser.add_argument("--spark-only", action="store_true")
    args = parser.parse_args(argv)
    texts = _texts(args.lines)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "in.jsonl"
        source.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), "utf-8")
        for processes in () if args.spark_only else (1, 2):
            before = _load()
            seconds = time_redact(source, args.model, processes)
            rows.append(("redact --n-process", processes, seconds, before, _load()))
    if args.spark or args.spark_only:
        for cores in (1, 2):
            before = _load()
            seconds = time_spark(texts, args.model, cores)
            rows.append(("Spark local", cores, seconds, before, _load()))
    print(f"{args.lines:,} texts, model {args.model}, {os.cpu_count()} CPUs")
    print("| run | processes | docs/s | speed-up | efficiency | load before | load after |")
    print("|---|---:|---:|---:|---:|---|---|")
    base: dict[str, float] = {}
    for kind, count, seconds, before, after in rows:
        rate = args.lines / seconds
        base.setdefault(kind, rate)
        speedup = rate / base[kind]
        print(
            f"| {kind} | {count} | {rate:,.0f} | {speedup:.2f}x | {speedup / count:.0%} "
            f"| {before} | {after} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
