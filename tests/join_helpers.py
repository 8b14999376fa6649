"""Helpers of the merge's join tests (nicknames, venues): hits on a text's values, and for the
growth tests CPU time rather than wall time, so that a busy machine does not flatter or
punish one size, the best of a few runs, so that one interruption does not decide, and texts
of many one-word names each followed by a chosen tail."""

from __future__ import annotations

import time
from collections.abc import Callable

from spacy_pii.core.hits import Hit


def hit_on(text: str, value: str, label: str = "PERSON", score: float | None = 0.9) -> Hit:
    """A name model's hit on the first occurrence of ``value`` in ``text``."""
    start = text.index(value)
    return Hit(start, start + len(value), label, score, "ner", "model")


def values(text: str, hits) -> list[tuple[str, str]]:
    """Each hit's text and type."""
    return [(text[h.start : h.end], h.label) for h in hits]


def best_cpu_seconds(call: Callable[[], object], repeats: int = 3) -> float:
    """The least CPU time of ``repeats`` runs of ``call``."""
    best = float("inf")
    for _ in range(repeats):
        began = time.process_time()
        call()
        best = min(best, time.process_time() - began)
    return best


def names_with_tails(count: int, tail: Callable[[int], str]) -> tuple[str, list[Hit]]:
    """A text of ``count`` PERSON names ("Ann0", "Ann1", ...), each followed by
    ``tail(index)``, and a hit on each name."""
    pieces: list[str] = []
    hits: list[Hit] = []
    at = 0
    for index in range(count):
        value = f"Ann{index}"
        hits.append(Hit(at, at + len(value), "PERSON", 0.9, "ner", "model"))
        piece = value + tail(index)
        pieces.append(piece)
        at += len(piece)
    return "".join(pieces), hits
