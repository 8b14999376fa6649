"""The detector protocol and the input checks every entry point shares."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from ..core.hits import Hit
from ..errors import InputTooLarge, InvalidInput


@runtime_checkable
class Detector(Protocol):
    """A pure-Python rule: ``find(text)`` yields hits on ``text``.

    ``id`` is stable and versioned in spirit (``"rules.card"``); it is written into
    ``SpanGroup.attrs["detectors"]``. ``types`` lists the public types it can emit.
    Detectors run on folded text (see :mod:`.fold`); they never see the original.
    """

    id: str
    types: frozenset[str]

    def find(self, text: str) -> Iterable[Hit]: ...


def check_text(text: object, max_length: int | None = None) -> str:
    """Return ``text`` if it is a ``str`` within ``max_length``; raise a typed error otherwise.

    Lone surrogates and control characters are valid ``str`` content: they are kept, and
    no rule matches across them. Bytes are refused rather than guessed at: decoding is the
    caller's decision (``errors="replace"`` or a strict failure).
    """
    if not isinstance(text, str):
        raise InvalidInput(text)
    if max_length is not None and len(text) > max_length:
        raise InputTooLarge(len(text), max_length)
    return text
