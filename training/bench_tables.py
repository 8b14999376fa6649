"""Benchmark the table scan: a 1,000,000-row, 20-column CSV with sampling, and a full
pass at growing row counts (linear in rows?).

    python training/bench_tables.py [--rows 1000000] [--model default] [--full-rows 2000,4000,8000]
        [--folder /tmp/spacy-pii-bench] [--output bench.json]

The CSV is written first (not timed) from pools of Faker values, so a million rows take
seconds to write. The scan's time is wall time from opening the file to the last column's
decision; the pipeline's load time is reported apart. The full passes run without the
cache of distinct cells, so every cell goes through the pipeline. Peak memory is the process's
maximum resident set (``ru_maxrss``), model included.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import time
from pathlib import Path

from spacy_pii.tables import scan_table
from spacy_pii.tables.detect import PipelineCells, load_detector

HEADER = ["id", "first_name", "last_name", "email", "phone", "dob", "street_address", "city",
          "zip", "company", "job", "signup_date", "status", "plan", "amount", "ip", "username",
          "notes", "sku", "country"]  # fmt: skip
POOL = 5000


def write_csv(path: Path, rows: int, seed: int = 0) -> None:
    from faker import Faker

    from spacy_pii.generator import ids

    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    pools = {
        "first_name": [fake.first_name() for _ in range(POOL)],
        "last_name": [fake.last_name() for _ in range(POOL)],
        "email": [fake.email() for _ in range(POOL)],
        "phone": [ids.phone(fake, rng, "en_US") for _ in range(POOL)],
        "dob": [fake.date_of_birth().isoformat() for _ in range(POOL)],
        "street_address": [fake.street_address() for _ in range(POOL)],
        "city": [fake.city() for _ in range(POOL)],
        "zip": [fake.postcode() for _ in range(POOL)],
        "company": [fake.company() for _ in range(POOL)],
        "job": [fake.job() for _ in range(POOL)],
        "ip": [fake.ipv4_public() for _ in range(POOL)],
        "username": [fake.user_name() for _ in range(POOL)],
        "notes": [
            f"Called {fake.name()} about the invoice, follow up Friday." for _ in range(POOL)
        ],
    }
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        for i in range(rows):
            pick = rng.randrange
            writer.writerow([
                i, *(pools[name][pick(POOL)] for name in HEADER[1:11]),
                f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}", ("active", "trial")[i % 2],
                ("free", "team")[i % 2], f"{pick(100000) / 100:.2f}", pools["ip"][pick(POOL)],
                pools["username"][pick(POOL)], pools["notes"][pick(POOL)], f"SKU-{pick(10**6)}",
                ("US", "DE", "FR")[i % 3],
            ])  # fmt: skip


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--model", default="default")
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--full-rows", default="2000,4000,8000")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/spacy-pii-bench"))
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--full-model", default=None, help="Model of the full passes.")
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    big = args.folder / f"table_{args.rows}x20.csv"
    if not big.exists():
        write_csv(big, args.rows)
    start = time.perf_counter()
    detector = load_detector(args.model)
    load_s = time.perf_counter() - start
    start, cpu = time.perf_counter(), time.process_time()
    scan = scan_table(big, detector, sample_size=args.sample)
    scan_s, scan_cpu_s = time.perf_counter() - start, time.process_time() - cpu
    result = {
        "rows": scan.rows,
        "columns": len(scan.columns),
        "file_mb": round(big.stat().st_size / 1e6, 1),
        "model": args.model,
        "sample": args.sample,
        "load_s": round(load_s, 1),
        "scan_s": round(scan_s, 1),
        # CPU seconds of this process: on a shared machine, wall time also holds the waits.
        "scan_cpu_s": round(scan_cpu_s, 1),
        "load_average": [round(v, 1) for v in os.getloadavg()],
        "peak_rss_mb": round(peak_mb()),
        "pii_columns": scan.pii_columns,
        "full_pass": [],
    }
    print(json.dumps({k: v for k, v in result.items() if k != "full_pass"}))
    for rows in (int(n) for n in args.full_rows.split(",")):
        path = args.folder / f"table_{rows}x20.csv"
        if not path.exists():
            write_csv(path, rows, seed=1)
        # No cache of distinct cells: every cell runs, so the cost shows its growth.
        nlp = load_detector(args.full_model).nlp if args.full_model else detector.nlp
        uncached = PipelineCells(nlp, cache_cells=0)
        start = time.perf_counter()
        scan_table(path, uncached, full=True)
        seconds = time.perf_counter() - start
        result["full_pass"].append({"rows": rows, "seconds": round(seconds, 2),
                                    "rows_per_s": round(rows / seconds)})  # fmt: skip
        print(json.dumps(result["full_pass"][-1]))
    if args.output is not None:
        args.output.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
