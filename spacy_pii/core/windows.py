"""Windows over a long document: where each window starts and ends, and which spans it keeps.

A model's memory grows with the document it is given, so a long document is cut into
windows of bounded size that overlap, and each window is run on its own. The plan here is
pure arithmetic on token offsets; :mod:`spacy_pii.io.windowed` runs a spaCy pipeline
over it.

Each window has a *core*: the cores partition the document, each boundary in the middle of
an overlap. A window keeps exactly the spans that start in its core. A span of at most
``overlap // 2`` tokens that starts in a core lies wholly inside that core's window (its
end is before the window's end), so a span on a window edge is found whole by the window
whose core holds its start and by no other: neither lost nor split nor counted twice. With
``overlap // 2`` at least the longest span plus the model's context reach, every kept span
also has that reach on both sides inside its window, and the window sees what the whole
document would have shown the model there.

Pure Python: no spaCy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A window's size in characters. 10,000 characters are about 2,500 tokens; the shipped
# model's peak memory on one such window is what it costs on the benchmark's 10,000-
# character documents (under 600 MB for the whole process, measured).
WINDOW_CHARS = 10_000

# Tokens two neighbouring windows share. A kept span needs its own length plus the model's
# context reach inside its window on both sides (see above): the shipped model's
# longest span is 25 tokens (span_finder max_length) and its encoder sees 4 tokens either
# way (tok2vec depth 4, window_size 1), so 2 * (25 + 4) = 58 tokens, rounded up.
OVERLAP_TOKENS = 64

# The most tokens one call of a model holds inside the pipeline (pii.windowed_tok2vec.v1,
# and the heads of the components that listen to it): a long document's window, and the
# bound on a batch of short ones. Measured on the shipped encoder (configs/README.md, "Long
# documents"): the time per token is the same from 1,024 tokens to the whole document, and
# a call's peak memory grows with the window (120 MB at 4,096 tokens, 370 MB for 21,456).
WINDOW_TOKENS = 4096


@dataclass(frozen=True, slots=True)
class Window:
    """Tokens ``[start, end)`` of a document, and the core ``[core_start, core_end)``."""

    start: int
    end: int
    core_start: int
    core_end: int

    def keeps(self, span_start: int) -> bool:
        """Whether a span that starts at token ``span_start`` belongs to this window."""
        return self.core_start <= span_start < self.core_end


def plan_windows(
    token_starts: Sequence[int], text_length: int, *, window_chars: int, overlap_tokens: int
) -> list[Window]:
    """Windows of at most ``window_chars`` characters that overlap by ``overlap_tokens``.

    Args:
        token_starts: the character offset of each token, ascending.
        text_length: the length of the text (where the last token ends, or later).
        window_chars: the most characters a window spans. A window always holds more
            tokens than the overlap, so where ``overlap_tokens`` tokens alone are longer
            than that (a run of very long tokens), the window holds ``2 * overlap_tokens
            + 1`` tokens and is longer: the bound then is in tokens.
        overlap_tokens: tokens shared by two neighbouring windows.

    Returns:
        One window for a document that fits (or has no tokens); otherwise windows in
        order, the first starting at token 0 and the last ending at the last token.

    Raises:
        ValueError: ``window_chars`` below 1 or ``overlap_tokens`` below 0.
    """
    if window_chars < 1 or overlap_tokens < 0:
        raise ValueError("window_chars must be at least 1 and overlap_tokens at least 0")
    count = len(token_starts)
    if count == 0 or text_length <= window_chars:
        return [Window(0, count, 0, count)]
    windows: list[Window] = []
    start = 0
    core_start = 0
    while True:
        end = _window_end(token_starts, text_length, start, window_chars)
        end = max(end, min(count, start + 2 * overlap_tokens + 1))
        if end >= count:
            windows.append(Window(start, count, core_start, count))
            return windows
        next_start = end - overlap_tokens
        core_end = next_start + overlap_tokens // 2
        windows.append(Window(start, end, core_start, core_end))
        start, core_start = next_start, core_end


def _window_end(token_starts: Sequence[int], text_length: int, start: int, chars: int) -> int:
    """The last token index (exclusive) such that tokens ``[start, end)`` span ``chars``."""
    limit = token_starts[start] + chars
    # Binary search for the first token that starts at or beyond the limit; the token
    # before it may run past the limit, so step back one when it does.
    low, high = start + 1, len(token_starts)
    while low < high:
        middle = (low + high) // 2
        if token_starts[middle] < limit:
            low = middle + 1
        else:
            high = middle
    end = low
    token_end = token_starts[end] if end < len(token_starts) else text_length
    if end > start + 1 and token_end > limit:
        end -= 1
    return end


def plan_token_windows(length: int, window_tokens: int, context_tokens: int) -> list[Window]:
    """Windows of at most ``window_tokens`` tokens over ``length`` tokens, cores in order.

    The cores partition ``[0, length)``; each window is its core with up to
    ``context_tokens`` more tokens on either side (fewer at the document's ends). A
    component whose output at a token depends on at most ``context_tokens`` tokens each
    side (a CNN's receptive field) gives, on a window's core, the output it gives there on
    the whole document.

    Args:
        length: the document's tokens.
        window_tokens: the most tokens of one window, its context included.
        context_tokens: tokens each side of a core.

    Returns:
        One window ``[0, length)`` when the document fits in one, else windows in order.

    Raises:
        ValueError: a window with no room for a core (``window_tokens`` at most
            ``2 * context_tokens``), or ``context_tokens`` below 0.
    """
    if context_tokens < 0 or window_tokens <= 2 * context_tokens:
        raise ValueError("window_tokens must exceed twice context_tokens, which is at least 0")
    if length <= window_tokens:
        return [Window(0, length, 0, length)]
    core = window_tokens - 2 * context_tokens
    windows = []
    for core_start in range(0, length, core):
        core_end = min(length, core_start + core)
        windows.append(
            Window(
                max(0, core_start - context_tokens),
                min(length, core_end + context_tokens),
                core_start,
                core_end,
            )
        )
    return windows


__all__ = [
    "OVERLAP_TOKENS",
    "WINDOW_CHARS",
    "WINDOW_TOKENS",
    "Window",
    "plan_token_windows",
    "plan_windows",
]
