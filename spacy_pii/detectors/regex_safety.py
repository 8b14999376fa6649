"""Refuse a user's regular expression that could backtrack catastrophically.

Python's ``re`` is a backtracking engine: ``(a+)+b`` takes time exponential in the length of
a run of ``a``, and ``\\d+\\d+x`` quadratic. A pattern that a user gives (through
``pii_rules``' ``initialize``) runs on every document, so it is checked twice before it is
accepted:

1. A static check on the parse tree (``re._parser``, the parser ``re.compile`` itself uses)
   refuses the three shapes that cause super-linear backtracking:

   - an unbounded repeat inside an unbounded repeat (``(a+)+``, ``(?:\\w*,)*``);
   - an unbounded repeat over an alternation whose branches can start with the same
     character (``(a|ab)*``, ``(\\w|\\d)+``);
   - two unbounded repeats in sequence, with only optional items between them, that can
     match the same character (``\\d+\\d+``, ``\\w+\\s?\\w+``, ``.*.*``).

   Possessive repeats (``a*+``) and atomic groups (``(?>...)``) never backtrack into, so they
   are exempt; they are what the package's own patterns use.
2. A timed trial: the pattern searches adversarial strings (long runs of each character its
   repeats accept, then a character that makes the match fail) and must finish within
   :data:`TRIAL_SECONDS`. A linear pattern takes microseconds on them.

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
import string
import time
from collections.abc import Iterator

# The parser and constants ``re.compile`` itself uses (Python 3.11+); typeshed leaves these
# private modules out.
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser as _p  # type: ignore[attr-defined]
from typing import Any

from ..errors import ConfigError

# The trial. Each run length is searched in turn; any one search over TRIAL_SECONDS fails
# the pattern. An exponential pattern doubles its time per character, so the lengths start
# at a dozen characters (``(a|a)*c`` took 6 s on 26 here). A quadratic one, such as
# ``[a-z]+@x`` (``search`` retries from every start of a long run of letters), took 0.25 s
# on 5,000 characters on a loaded machine and under 0.05 s on 8,192 on an idle one: the
# ladder ends at 32,768 characters, where a quadratic search takes over a second anyway,
# and a linear one still microseconds. Between the last two lengths (4x longer) a quadratic
# pattern's time grows about 16x, a linear pattern's about 4x, so growth over GROWTH_LIMIT
# fails it once the longer search takes more than GROWTH_FLOOR_SECONDS (below that, timer
# noise dominates).
TRIAL_LADDER = (12, 16, 20, 24, 512, 2048, 8192, 32768)
TRIAL_SECONDS = 0.25
TRIAL_CHARS = 12
GROWTH_LIMIT = 8.0
GROWTH_FLOOR_SECONDS = 0.05
# A user pattern longer than this is refused outright: the static check walks the parse
# tree, and no identifier format needs more.
MAX_PATTERN_CHARS = 1000

_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT}
_POSSESSIVE = getattr(_c, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(_c, "ATOMIC_GROUP", None)
# Characters that a category or "any" stands for, for the overlap test and the trial.
_CATEGORY_CHARS = {
    _c.CATEGORY_DIGIT: string.digits,
    _c.CATEGORY_NOT_DIGIT: string.ascii_letters + " -_.",
    _c.CATEGORY_SPACE: " \t\n",
    _c.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits + "-_.@",
    _c.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    _c.CATEGORY_NOT_WORD: " -.@:/",
}
_ANY_CHARS = string.ascii_letters + string.digits + " -_.@:/"


class UnsafePattern(ConfigError):
    """A user pattern could backtrack catastrophically. The message names its pattern id."""


def _is_unbounded(op: Any, av: Any) -> bool:
    return op in _REPEATS and av[1] == _c.MAXREPEAT


def _first_chars(items: Any) -> set[str]:
    """Characters that can start a match of ``items`` (approximated by a sample set)."""
    found: set[str] = set()
    for op, av in items:
        found |= _item_chars(op, av)
        if not _can_be_empty(op, av):
            break
    return found


def _item_chars(op: Any, av: Any) -> set[str]:
    if op == _c.LITERAL:
        return {chr(av)}
    if op == _c.NOT_LITERAL or op == _c.ANY:
        return set(_ANY_CHARS)
    if op == _c.IN:
        chars: set[str] = set()
        negated = False
        for sub_op, sub_av in av:
            if sub_op == _c.NEGATE:
                negated = True
            elif sub_op == _c.LITERAL:
                chars.add(chr(sub_av))
            elif sub_op == _c.RANGE:
                low, high = sub_av
                chars.update(chr(code) for code in range(low, min(high, low + 128) + 1))
            elif sub_op == _c.CATEGORY:
                chars.update(_CATEGORY_CHARS.get(sub_av, _ANY_CHARS))
        return set(_ANY_CHARS) - chars if negated else chars
    if op in _REPEATS or op == _POSSESSIVE:
        return _first_chars(av[2])
    if op == _c.SUBPATTERN:
        return _first_chars(av[-1])
    if op == _ATOMIC:
        return _first_chars(av)
    if op == _c.BRANCH:
        return set().union(*(_first_chars(branch) for branch in av[1]))
    return set()


def _can_be_empty(op: Any, av: Any) -> bool:
    if op in _REPEATS or op == _POSSESSIVE:
        return av[0] == 0 or all(_can_be_empty(*item) for item in av[2])
    if op == _c.SUBPATTERN:
        return all(_can_be_empty(*item) for item in av[-1])
    if op == _c.BRANCH:
        return any(all(_can_be_empty(*item) for item in branch) for branch in av[1])
    return op in {_c.AT, _c.ASSERT, _c.ASSERT_NOT}


def _contains_unbounded(items: Any) -> bool:
    for op, av in items:
        if _is_unbounded(op, av) or (op == _POSSESSIVE and av[1] == _c.MAXREPEAT):
            return True
        if any(_contains_unbounded(child) for child in _children(op, av)):
            return True
    return False


def _children(op: Any, av: Any) -> Iterator[Any]:
    if op in _REPEATS or op == _POSSESSIVE:
        yield av[2]
    elif op == _c.SUBPATTERN:
        yield av[-1]
    elif op == _ATOMIC:
        yield av
    elif op == _c.BRANCH:
        yield from av[1]
    elif op in {_c.ASSERT, _c.ASSERT_NOT}:
        yield av[1]


def _branches_overlap(items: Any) -> bool:
    for op, av in items:
        if op == _c.BRANCH:
            seen: set[str] = set()
            empty = 0
            for branch in av[1]:
                first = _first_chars(branch)
                empty += all(_can_be_empty(*item) for item in branch)
                if seen & first or empty > 1:
                    return True
                seen |= first
        elif op == _c.SUBPATTERN and _branches_overlap(av[-1]):
            return True
    return False


def _problem(items: Any, inside_unbounded: bool = False) -> str | None:
    """The first unsafe shape in ``items``, described, or ``None``."""
    previous_chars: set[str] | None = None
    for op, av in items:
        if _is_unbounded(op, av):
            body = av[2]
            if inside_unbounded or _contains_unbounded(body):
                return "nested unbounded quantifiers"
            if _branches_overlap(body):
                return "an unbounded repeat over alternatives that can match the same text"
            chars = _first_chars(body)
            if previous_chars is not None and previous_chars & chars:
                return "two unbounded repeats in sequence that can match the same characters"
            previous_chars = chars
            found = _problem(body, inside_unbounded=True)
            if found:
                return found
            continue
        if op in (_POSSESSIVE, _ATOMIC):
            previous_chars = None
            continue
        for child in _children(op, av):
            found = _problem(child, inside_unbounded)
            if found:
                return found
        if not _can_be_empty(op, av):
            previous_chars = None
    return None


def _trial_chars(items: Any) -> list[str]:
    chars: set[str] = set()

    def collect(sub: Any) -> None:
        for op, av in sub:
            chars.update(_item_chars(op, av))
            for child in _children(op, av):
                collect(child)

    collect(items)
    return sorted(chars)[:TRIAL_CHARS] or ["a"]


def _timed_search(compiled: re.Pattern[str], text: str) -> float:
    began = time.perf_counter()
    compiled.search(text)
    return time.perf_counter() - began


def _trial_problem(compiled: re.Pattern[str], items: Any) -> str | None:
    """Run the pattern on runs of each character it repeats; describe a failure, or ``None``.

    The short lengths come first, so that an exponential pattern the static check missed is
    caught at a few dozen characters, long before its time explodes. A growth that looks
    super-linear is measured again (the least of three runs each), so that a pause of the
    machine between two searches does not refuse a linear pattern.
    """
    for char in _trial_chars(items):
        for ending in ("!", "\x00", " "):
            times: dict[int, float] = {}
            for length in TRIAL_LADDER:
                times[length] = _timed_search(compiled, char * length + ending)
                if times[length] > TRIAL_SECONDS:
                    return f"over {TRIAL_SECONDS} s on a {length}-character adversarial input"
            short_length, long_length = TRIAL_LADDER[-2], TRIAL_LADDER[-1]
            short, long = times[short_length], times[long_length]
            if long > GROWTH_FLOOR_SECONDS and long > GROWTH_LIMIT * short:
                short = min(_timed_search(compiled, char * short_length + ending) for _ in range(3))
                long = min(_timed_search(compiled, char * long_length + ending) for _ in range(3))
                if long > GROWTH_FLOOR_SECONDS and long > GROWTH_LIMIT * short:
                    return (
                        f"time grew {long / max(short, 1e-9):.0f}x for 4x the input on an "
                        "adversarial input (super-linear)"
                    )
    return None


def check_pattern(pattern: str, pattern_id: str = "pattern") -> re.Pattern[str]:
    """Compile ``pattern`` if it cannot backtrack catastrophically, else raise.

    Raises:
        UnsafePattern: the pattern is too long, has a shape that backtracks super-linearly,
            or failed the timed trial. The message names ``pattern_id`` and the shape.
        ConfigError: the pattern does not compile.
    """
    if not isinstance(pattern, str) or not pattern:
        raise ConfigError(f"pattern {pattern_id!r} must be a non-empty string")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise UnsafePattern(
            f"pattern {pattern_id!r} has {len(pattern)} characters; the limit is "
            f"{MAX_PATTERN_CHARS}"
        )
    try:
        compiled = re.compile(pattern)
        parsed = _p.parse(pattern)
    except re.error as err:
        raise ConfigError(f"pattern {pattern_id!r} does not compile: {err.msg}") from None
    problem = _problem(list(parsed))
    if problem:
        raise UnsafePattern(
            f"pattern {pattern_id!r} can backtrack catastrophically ({problem}); bound the "
            "repeats or make them possessive (*+, ++) or atomic ((?>...))"
        )
    failed = _trial_problem(compiled, list(parsed))
    if failed:
        raise UnsafePattern(
            f"pattern {pattern_id!r} failed the backtracking trial ({failed}); bound the "
            "repeats ({1,64}) or anchor their start with a lookbehind such as (?<![a-z])"
        )
    return compiled
