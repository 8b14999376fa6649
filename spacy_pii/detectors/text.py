"""Text hygiene that keeps offsets, and the cheap checks detectors run before their patterns."""

from __future__ import annotations

import re
from collections.abc import Iterable

# A lone surrogate (U+D800..U+DFFF) is not a Unicode scalar value: it cannot be encoded as
# UTF-8, so spaCy's tokenizer raises on it. It reaches Python strings through
# ``errors="surrogateescape"`` decoding or broken JSON escapes.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

REPLACEMENT_CHARACTER = "\ufffd"


def replace_lone_surrogates(text: str) -> str:
    """Replace each lone surrogate with U+FFFD. Length and every other offset are unchanged."""
    return _LONE_SURROGATE.sub(REPLACEMENT_CHARACTER, text)


def at_least_digits(count: int) -> re.Pattern[str]:
    """A pattern whose ``match`` succeeds on a text that holds ``count`` ASCII digits or more.

    Group 1 ends at the first digit. A detector whose every hit holds ``count`` digits
    skips a text that fails it, and starts its scan near the first digit of one that
    passes: one C-speed pass that stops at the ``count``-th digit, instead of its own
    patterns' look-behinds at every position. Anchored at the start (``\\A``), so
    ``search`` and ``finditer`` stay linear too.
    """
    return re.compile(rf"\A([^0-9]*+)[0-9](?:[^0-9]*+[0-9]){{{count - 1}}}")


def merged_intervals(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``(start, end)`` intervals sorted, with overlapping and touching ones joined.

    The result suits :func:`bisect`-based overlap and containment checks.
    """
    merged: list[tuple[int, int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
