"""Per-token heads over a listened encoder's vectors, run over bounded token windows.

A component that listens to a shared ``tok2vec`` (``span_finder``, ``pii_peer_tagger``)
gets, at prediction time, the vectors that ``tok2vec`` left in ``doc.tensor``; what
follows the listener in its model (its *head*) turns them into per-token scores. On a long
document that head's arrays grow with the document (the peer tagger widens every vector
threefold and then fourfold), so here the head runs on windows of the document's vectors
of at most :data:`~spacy_pii.core.windows.WINDOW_TOKENS` tokens, each with the
head's own context (the window of its ``expand_window`` layers) on either side, and only
the windows' cores are kept: the scores of the whole document, in bounded memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy
from spacy.tokens import Doc
from thinc.api import Model
from thinc.types import Floats2d

from ..core import windows
from ..core.windows import plan_token_windows

LISTENER_NAME = "tok2vec-listener"


def listened_head(model: Model) -> tuple[list[Model], int] | None:
    """The layers after ``model``'s listener and the tokens they see either side, or
    ``None`` when ``model`` is not ``listener >> per-token layers``.

    A head's context is the sum of the windows of its ``expand_window`` layers; every other
    layer of the heads this package configures (maxout, softmax, logistic, the list and
    ragged conversions) reads one token at a time.
    """
    if not model.layers or model.layers[0].name != LISTENER_NAME:
        return None
    head = list(model.layers[1:])
    context = 0
    for layer in head:
        for node in layer.walk():
            if node.name == LISTENER_NAME:
                return None
            if node.name == "expand_window":
                context += int(node.attrs["window_size"])
    return head, context


def has_vectors(doc: Doc) -> bool:
    """Whether ``doc.tensor`` holds one vector per token (the listened encoder ran)."""
    return len(doc) > 0 and doc.tensor.ndim == 2 and doc.tensor.shape[0] == len(doc)


def head_in_windows(
    head: Sequence[Model],
    context: int,
    tensors: Sequence[Any],
    *,
    window_tokens: int | None = None,
) -> list[Floats2d]:
    """``head``'s per-token output for each of ``tensors``, computed window by window.

    Windows of several short documents share a call of at most ``window_tokens`` tokens;
    a head whose last layer flattens (``span_finder``'s) or not (the tagger's) both work.
    ``tensors`` are ``doc.tensor`` arrays (which spaCy's stubs type as any ndarray).
    ``window_tokens`` defaults to :data:`~spacy_pii.core.windows.WINDOW_TOKENS`.
    """
    window_tokens = window_tokens or windows.WINDOW_TOKENS
    pieces: list[tuple[int, int, int, int, int]] = []  # doc, start, end, core start, end
    for index, tensor in enumerate(tensors):
        for window in plan_token_windows(len(tensor), window_tokens, context):
            pieces.append((index, window.start, window.end, window.core_start, window.core_end))
    cores: list[list[Floats2d]] = [[] for _ in tensors]
    call: list[tuple[int, int, int, int, int]] = []
    tokens = 0
    for piece in [*pieces, None]:
        size = 0 if piece is None else piece[2] - piece[1]
        if call and (piece is None or tokens + size > window_tokens):
            _run_call(head, tensors, call, cores)
            call, tokens = [], 0
        if piece is not None:
            call.append(piece)
            tokens += size
    xp = head[0].ops.xp
    return [xp.concatenate(parts) if len(parts) != 1 else parts[0] for parts in cores]


def _run_call(
    head: Sequence[Model],
    tensors: Sequence[Any],
    call: list[tuple[int, int, int, int, int]],
    cores: list[list[Floats2d]],
) -> None:
    output: object = [tensors[index][start:end] for index, start, end, _, _ in call]
    for layer in head:
        output = layer.predict(output)
    if isinstance(output, list):
        per_piece = output
    else:  # a flattened head: rows of the pieces, in order
        bounds = numpy.cumsum([end - start for _, start, end, _, _ in call])[:-1].tolist()
        per_piece = head[0].ops.xp.split(output, bounds)
    for (index, start, _, core_start, core_end), scores in zip(call, per_piece, strict=True):
        cores[index].append(scores[core_start - start : core_end - start])


__all__ = ["has_vectors", "head_in_windows", "listened_head"]
