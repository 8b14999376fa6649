"""Benchmark spacy-pii against Presidio on the same texts, in one process.

    python training/benchmark.py --out-dir metrics/benchmark
    python training/benchmark.py --quick --systems rules     # a smoke run

writes ``benchmark.json``, ``benchmark.md`` and ``benchmark.png`` and prints issue 6's
targets, each PASS, FAIL or SKIP. The logic is :mod:`spacy_pii.benchmark`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from spacy_pii.benchmark import (
    DEFAULT_CORPORA,
    SYSTEM_NAMES,
    format_checks,
    run_benchmark,
    write_outputs,
)

Opt = typer.Option


def main(
    out_dir: Annotated[Path, Opt(help="Where the reports go.")] = Path("metrics/benchmark"),
    corpus: Annotated[
        list[Path] | None, Opt(exists=True, dir_okay=False, help="Gold JSONL; repeatable.")
    ] = None,
    systems: Annotated[str, Opt(help="Comma-separated rows to run.")] = ",".join(SYSTEM_NAMES),
    default: Annotated[Path | None, Opt(help="Trained pipeline for the default row.")] = None,
    trf: Annotated[Path | None, Opt(help="Transformer pipeline for the trf row.")] = None,
    limit: Annotated[int | None, Opt(min=1, help="At most N documents per corpus file.")] = None,
    quick: Annotated[
        bool, Opt("--quick", help="Smoke run: fewer documents, smaller sizes.")
    ] = False,
    n_process: Annotated[str, Opt(help="Process counts for throughput, comma-separated.")] = "1,2",
    no_probe: Annotated[
        bool, Opt("--no-probe", help="Skip the fresh-process load/RSS probes.")
    ] = False,
    profile: Annotated[
        bool, Opt("--profile", help="Write a cProfile of each row into --out-dir.")
    ] = False,
    strict: Annotated[bool, Opt("--strict", help="Exit 1 when a target check FAILs.")] = False,
) -> None:
    results = run_benchmark(
        corpora=corpus or list(DEFAULT_CORPORA),
        systems=[s.strip() for s in systems.split(",") if s.strip()],
        default_path=default,
        trf_path=trf,
        limit=limit,
        quick=quick,
        n_process=[int(n) for n in n_process.split(",")],
        probe_load=not no_probe,
        profile_to=out_dir if profile else None,
        log=lambda line: typer.echo(line, err=True),
    )
    written = write_outputs(results, out_dir)
    typer.echo(format_checks(results["checks"]))
    for kind, path in written.items():
        typer.echo(f"{kind}: {path}")
    if strict and any(c["verdict"] == "FAIL" for c in results["checks"]):
        sys.exit(1)


if __name__ == "__main__":
    typer.run(main)
