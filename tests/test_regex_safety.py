"""Every compiled pattern runs in linear time on adversarial input (no catastrophic backtracking).

Each detector module exposes its patterns in ``PATTERNS``. Each is run over inputs of
100,000 characters built to trigger backtracking (long runs of the characters that the
patterns repeat, with the final character that makes the match fail). A pattern with nested
quantifiers takes minutes to hours on these; a linear one takes milliseconds. The bound is a
termination check, not a speed test.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time

import pytest

import spacy_pii
import spacy_pii.detectors

SIZE = 100_000
BOUND_SECONDS = 5.0


def _pattern_modules():
    modules = []
    for package in (spacy_pii.detectors, spacy_pii):
        for info in pkgutil.iter_modules(package.__path__):
            name = f"{package.__name__}.{info.name}"
            try:
                module = importlib.import_module(name)
            except ImportError:  # an optional extra is missing; its module has no rules here
                continue
            if hasattr(module, "PATTERNS"):
                modules.append(module)
    return modules


def _adversarial_inputs():
    units = [
        "a",
        "1",
        "1.",
        "a.",
        "a@",
        "@",
        ":",
        "1:",
        "a-",
        "1-",
        " 1",
        "x=",
        "=",
        "_",
        "A",
        "aA1",
        "-",
        ".",
        "/",
        "\\",
        "'",
        '"',
        "0x",
        "+1",
        "(",
        "ey",
        "a ",
        "1 ",
    ]
    for unit in units:
        body = unit * (SIZE // len(unit))
        yield f"{unit!r}*n", body
        yield f"{unit!r}*n+!", body + "!"
        yield f"{unit!r}*n+@", body + "@"


MODULES = _pattern_modules()
CASES = [
    pytest.param(pattern, id=f"{module.__name__.rsplit('.', 1)[-1]}[{index}]")
    for module in MODULES
    for index, pattern in enumerate(module.PATTERNS)
]


def test_detector_modules_expose_their_patterns():
    names = {module.__name__.rsplit(".", 1)[-1] for module in MODULES}
    assert {"email", "phone", "payment", "network", "gov_id", "secret"} <= names


@pytest.mark.parametrize("pattern", CASES)
def test_pattern_is_linear_on_adversarial_input(pattern: re.Pattern):
    for label, text in _adversarial_inputs():
        started = time.perf_counter()
        for _ in pattern.finditer(text):
            pass
        elapsed = time.perf_counter() - started
        assert elapsed < BOUND_SECONDS, f"{pattern.pattern[:60]!r} took {elapsed:.1f}s on {label}"
