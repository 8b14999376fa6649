"""Every compiled pattern runs in linear time on adversarial input (no catastrophic backtracking).

The patterns are collected from the package itself, not from a hand-kept list: every module
of ``spacy_pii`` is imported, and every ``re.Pattern`` reachable from its globals (directly,
inside tuples, lists, sets and dicts, or on the objects and classes the package defines) is
tested. Each is run over inputs of 100,000 characters built to trigger backtracking (long runs
of the characters that the patterns repeat, with the final character that makes the match
fail). A pattern with nested quantifiers takes minutes to hours on these; a linear one takes
milliseconds. The bound is a termination check, not a speed test.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import time
from types import ModuleType

import pytest

import spacy_pii

SIZE = 100_000
# In CPU seconds of this process, which other jobs on a shared machine do not add to.
BOUND_SECONDS = 5.0
# Modules whose optional extra is not installed cannot be imported; they are reported in
# test_every_module_is_scanned rather than silently dropped.
OPTIONAL = ("spacy_pii.io.spark", "spacy_pii.serve")


def _modules() -> tuple[list[ModuleType], list[str]]:
    found, missing = [], []
    for info in pkgutil.walk_packages(spacy_pii.__path__, prefix="spacy_pii."):
        try:
            found.append(importlib.import_module(info.name))
        except ImportError:
            missing.append(info.name)
    return found, missing


def _patterns_in(value: object, seen: set[int], depth: int = 0, skip: tuple[type, ...] = ()):
    if id(value) in seen or depth > 4 or isinstance(value, skip):
        return
    seen.add(id(value))
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _patterns_in(item, seen, depth + 1, skip)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _patterns_in(item, seen, depth + 1, skip)
    elif getattr(type(value), "__module__", "").startswith("spacy_pii") or (
        isinstance(value, type) and value.__module__.startswith("spacy_pii")
    ):
        attributes = dict(vars(value)) if hasattr(value, "__dict__") else {}
        for slot in getattr(type(value), "__slots__", ()):
            if hasattr(value, slot):
                attributes[slot] = getattr(value, slot)
        for item in attributes.values():
            yield from _patterns_in(item, seen, depth + 1, skip)


def _built() -> dict[str, re.Pattern[str]]:
    """Patterns the package builds at run time from data, one of each shape (the same
    shape, only longer, as every one it builds)."""
    from spacy_pii.core.propagate import build_pattern
    from spacy_pii.detectors import GOV_ID_COUNTRIES, RuleSettings, build_detectors
    from spacy_pii.detectors.patterns import DenyListDetector, parse_deny_list
    from spacy_pii.detectors.phone_plan import RegionPlan

    names = ["Ada Lovelace", "Lovelace", "@ada_1815", "123-45-6789", "aaa", "Ada"]
    deny = DenyListDetector(parse_deny_list({"value": v, "type": "PERSON"} for v in names))
    # The detectors compile some patterns when they are built (a phone plan's digit run).
    # A RegionPlan's compiled patterns are libphonenumber's own metadata, which only ever
    # see a window of at most MAX_DIGITS digits; they are not ours to test here.
    built: dict[str, re.Pattern[str]] = {}
    every = RuleSettings(gov_id_countries=GOV_ID_COUNTRIES)
    for detector in build_detectors(every):
        for index, pattern in enumerate(_patterns_in(detector, set(), skip=(RegionPlan,))):
            built[f"{detector.id}[built {index}]"] = pattern
    return built | {
        "propagate.build_pattern": build_pattern(
            [(name, False) for name in names] + [("ada lovelace", True)]
        ),
        "detectors.patterns.DenyListDetector": deny._pattern,
    }


def _collect() -> dict[tuple[str, int], tuple[str, re.Pattern[str]]]:
    modules, _ = _modules()
    patterns: dict[tuple[str, int], tuple[str, re.Pattern[str]]] = {}
    for where, built in _built().items():
        patterns[(built.pattern, built.flags)] = (where, built)
    seen: set[int] = set()
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, ModuleType):
                continue
            if inspect.isroutine(value):
                continue  # a function's patterns are module globals or object attributes
            for pattern in _patterns_in(value, seen):
                key = (pattern.pattern, pattern.flags)
                patterns.setdefault(
                    key, (f"{module.__name__.removeprefix('spacy_pii.')}.{name}", pattern)
                )
    return patterns


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


PATTERNS = _collect()
CASES = [
    pytest.param(pattern, id=f"{where}[{index}]")
    for index, (where, pattern) in enumerate(PATTERNS.values())
]


def test_every_module_is_scanned_and_the_known_owners_are_found():
    _, missing = _modules()
    assert set(missing) <= set(OPTIONAL), missing
    owners = {where.rsplit(".", 1)[0] for where, _ in PATTERNS.values()}
    # Modules a hand-kept list once missed are among them.
    for module in ("detectors.email", "detectors.phone", "detectors.payment", "core.quasi"):
        assert module in owners, module
    # The placeholder pattern is named after the first module that imports it (io.stream
    # reads it too), so it is looked up by value.
    from spacy_pii.redaction.mask import PLACEHOLDER

    assert (PLACEHOLDER.pattern, PLACEHOLDER.flags) in PATTERNS


@pytest.mark.parametrize("pattern", CASES)
def test_pattern_is_linear_on_adversarial_input(pattern: re.Pattern):
    for label, text in _adversarial_inputs():
        started = time.process_time()
        for _ in pattern.finditer(text):
            pass
        elapsed = time.process_time() - started
        assert elapsed < BOUND_SECONDS, f"{pattern.pattern[:60]!r} took {elapsed:.1f}s on {label}"
