"""Benchmark spacy-pii against Presidio on the same texts, in one process.

    python training/benchmark.py --out-dir metrics/benchmark
    python training/benchmark.py --quick --systems rules     # a smoke run

A thin wrapper over ``spacy-pii benchmark`` (the same options; see ``--help``), kept so
that ``project.yml`` and old notes keep working. The logic is :mod:`spacy_pii.benchmark`.
"""

from __future__ import annotations

import sys

from spacy_pii.io.cli import app

if __name__ == "__main__":
    app(["benchmark", *sys.argv[1:]], prog_name="training/benchmark.py")
