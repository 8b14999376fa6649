"""Speed, memory, cost growth and accuracy of spacy-pii against Presidio, in one run.

``run_benchmark(...)`` measures and returns a JSON-ready dict; ``render_markdown(results)``
and ``write_outputs(results, out_dir)`` report it; ``check_targets(results)`` holds the
targets. ``training/benchmark.py`` and ``spacy-pii benchmark`` are thin wrappers.

Importing this package imports neither spaCy nor Presidio: the systems are loaded inside
:func:`run_benchmark`.
"""

from __future__ import annotations

from .run import run_benchmark, write_outputs
from .summary import (
    check_targets,
    fit_exponent,
    format_checks,
    percentile,
    render_markdown,
    write_chart,
)
from .systems import SYSTEM_NAMES, SystemUnavailable, load_system
from .texts import (
    DEFAULT_CORPORA,
    EVAL_TYPES,
    build_text,
    load_corpus,
    score_predictions,
    short_sample,
)

__all__ = [
    "DEFAULT_CORPORA",
    "EVAL_TYPES",
    "SYSTEM_NAMES",
    "SystemUnavailable",
    "build_text",
    "check_targets",
    "fit_exponent",
    "format_checks",
    "load_corpus",
    "load_system",
    "percentile",
    "render_markdown",
    "run_benchmark",
    "score_predictions",
    "short_sample",
    "write_chart",
    "write_outputs",
]
