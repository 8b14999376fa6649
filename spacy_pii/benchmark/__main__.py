"""``python -m spacy_pii.benchmark probe|growth ...``: the child side of the probes.

The benchmark itself runs from ``training/benchmark.py`` or ``spacy-pii benchmark``.
"""

from __future__ import annotations

import sys

from .probe import growth_main, probe_main

USAGE = (
    "usage: python -m spacy_pii.benchmark probe NAME TEXTS SPAWNED_AT [--default P]\n"
    "       python -m spacy_pii.benchmark growth NAME TEXTS SIZES CAP [--default P]"
)

if __name__ == "__main__":  # importing this module (a package walk) must not exit
    if len(sys.argv) > 1 and sys.argv[1] == "probe":
        raise SystemExit(probe_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "growth":
        raise SystemExit(growth_main(sys.argv[2:]))
    raise SystemExit(USAGE)
