"""``pii.windowed_tok2vec.v1``: spaCy's ``Tok2Vec.v2`` encoder, run over bounded token windows.

spaCy's encoder embeds and convolves a whole batch at once, so its intermediate arrays grow
with the longest document: the shipped encoder's embedding, static-vector projection and
four convolution layers peaked at 370 MB over 21,456 tokens (100,000 characters) and at 3.75
GB on a million characters (measured, configs/README.md). This architecture is the same
network (the same layers, weights and serialization as ``spacy.Tok2Vec.v2``: a pipeline
saved with either loads with the other) whose forward pass cuts a long document into windows
of at most ``window_tokens`` tokens and runs them a few at a time. A window is its *core*
plus ``context_tokens`` tokens each side
(:func:`spacy_pii.core.windows.plan_token_windows`); only the core's vectors are kept. The
embedding reads one token at a time and the convolutions see ``depth * window_size`` tokens
either way (their receptive field), so with ``context_tokens`` at least that field, a core's
vectors are those the whole document gives there, and a document that fits in one window is
run exactly as ``spacy.Tok2Vec.v2`` runs it.

A window is handed to the embedding as a light view of its document that answers
``to_array`` (what spaCy's ``FeatureExtractor`` and ``StaticVectors`` read) from one array
of the whole document, computed once: a ``Span`` there would copy the whole document's
array for every window (``FeatureExtractor`` reads ``span.doc.to_array(...)``), and a new
``Doc`` per window would lose the tokens' own norms.

The windows do not depend on static vectors: an encoder without them (``MultiHashEmbed``
with ``include_static_vectors = false``) is windowed the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model
from thinc.layers.chain import forward as chain_forward
from thinc.layers.chain import init as chain_init
from thinc.types import Floats2d

from ..core.windows import WINDOW_TOKENS, Window, plan_token_windows
from ..errors import ConfigError


@registry.architectures("pii.windowed_tok2vec.v1")
def build_windowed_tok2vec(
    embed: Model[list[Doc], list[Floats2d]],
    encode: Model[list[Floats2d], list[Floats2d]],
    window_tokens: int = WINDOW_TOKENS,
    context_tokens: int | None = None,
) -> Model[list[Doc], list[Floats2d]]:
    """``spacy.Tok2Vec.v2``'s ``embed >> encode``, run over windows of ``window_tokens``.

    Args:
        embed: embeds each token on its own (``spacy.MultiHashEmbed.v2``).
        encode: the contextual encoder (``spacy.MaxoutWindowEncoder.v2``).
        window_tokens: the most tokens of one call; a longer document is cut into windows.
        context_tokens: tokens each side of a window's core; ``None`` reads the encoder's
            receptive field (the padding spaCy's window encoders declare, ``depth *
            window_size``).

    Raises:
        ConfigError: no ``context_tokens`` and an encoder that declares no receptive field,
            a context narrower than the encoder's field, or windows with no room for a core.
    """
    field = _receptive_field(encode)
    if context_tokens is None:
        if field is None:
            raise ConfigError(
                "pii.windowed_tok2vec.v1: the encoder declares no receptive field; "
                "set context_tokens to the tokens it sees on either side"
            )
        context_tokens = field
    if field is not None and context_tokens < field:
        raise ConfigError(
            f"pii.windowed_tok2vec.v1: context_tokens {context_tokens} is narrower than the "
            f"encoder's receptive field of {field} tokens"
        )
    if window_tokens <= 2 * context_tokens:
        raise ConfigError("pii.windowed_tok2vec.v1: window_tokens must exceed 2 * context_tokens")
    dims: dict[str, int | None] = {"nO": None}
    if embed.has_dim("nI") is not False:
        dims["nI"] = embed.get_dim("nI") if embed.has_dim("nI") else None
    # The node tree is that of thinc's chain (spacy.Tok2Vec.v2), so weights saved by either
    # architecture load into the other; only the forward pass differs.
    model: Model[list[Doc], list[Floats2d]] = Model(
        f"{embed.name}>>{encode.name}",
        _forward,
        init=chain_init,
        dims=dims,
        layers=[embed, encode],
        attrs={"window_tokens": window_tokens, "context_tokens": context_tokens},
    )
    if encode.has_dim("nO"):
        model.set_dim("nO", encode.get_dim("nO"))
    model.set_ref("embed", embed)
    model.set_ref("encode", encode)
    return model


def _receptive_field(encode: Model) -> int | None:
    # spaCy's MaxoutWindowEncoder and MishWindowEncoder wrap their convolutions in
    # with_array(pad=depth * window_size): the padding is the receptive field.
    pad = encode.attrs.get("pad")
    return pad if isinstance(pad, int) and encode.name.startswith("with_array") else None


class _TokenRange:
    """Tokens ``[start, end)`` of a doc, as the embedding reads a doc: ``to_array`` and
    ``to_utf8_array`` sliced from the whole doc's arrays (shared by the doc's windows)."""

    def __init__(self, doc: Doc, start: int, end: int, arrays: dict[Any, Any]) -> None:
        self.doc = doc
        self.vocab = doc.vocab
        self.start = start
        self.end = end
        self._arrays = arrays

    def __len__(self) -> int:
        return self.end - self.start

    def to_array(self, attrs: Any) -> Any:
        key = ("array", tuple(attrs) if isinstance(attrs, list) else attrs)
        if key not in self._arrays:
            self._arrays[key] = self.doc.to_array(attrs)
        return self._arrays[key][self.start : self.end]

    def to_utf8_array(self, nr_char: int = -1) -> Any:
        key = ("utf8", nr_char)
        if key not in self._arrays:
            self._arrays[key] = self.doc.to_utf8_array(nr_char=nr_char)
        return self._arrays[key][self.start : self.end]


@dataclass(frozen=True, slots=True)
class _Piece:
    doc: int
    window: Window
    source: Doc | _TokenRange


def _pieces(docs: Sequence[Doc], window_tokens: int, context_tokens: int) -> list[_Piece]:
    pieces = []
    for index, doc in enumerate(docs):
        plan = plan_token_windows(len(doc), window_tokens, context_tokens)
        if len(plan) == 1:
            pieces.append(_Piece(index, plan[0], doc))
            continue
        arrays: dict[Any, Any] = {}
        for window in plan:
            pieces.append(_Piece(index, window, _TokenRange(doc, window.start, window.end, arrays)))
    return pieces


def _calls(pieces: list[_Piece], window_tokens: int) -> Iterator[list[_Piece]]:
    """Consecutive pieces, at most ``window_tokens`` tokens a call (one piece at least)."""
    call: list[_Piece] = []
    tokens = 0
    for piece in pieces:
        size = piece.window.end - piece.window.start
        if call and tokens + size > window_tokens:
            yield call
            call, tokens = [], 0
        call.append(piece)
        tokens += size
    if call:
        yield call


def _forward(
    model: Model[list[Doc], list[Floats2d]], docs: list[Doc], is_train: bool
) -> tuple[list[Floats2d], Callable[[list[Floats2d]], list]]:
    window_tokens = model.attrs["window_tokens"]
    context_tokens = model.attrs["context_tokens"]
    docs = list(docs)
    if sum(len(doc) for doc in docs) <= window_tokens:
        return chain_forward(model, docs, is_train)
    ops = model.ops
    width = model.get_dim("nO")
    outputs = [ops.alloc2f(len(doc), width) for doc in docs]
    callbacks: list[tuple[list[_Piece], Callable]] = []
    for call in _calls(_pieces(docs, window_tokens, context_tokens), window_tokens):
        # Views and docs alike: the embedding reads both through to_array.
        sources: Any = [piece.source for piece in call]
        vectors, backprop_call = chain_forward(model, sources, is_train)
        for piece, piece_vectors in zip(call, vectors, strict=True):
            window = piece.window
            outputs[piece.doc][window.core_start : window.core_end] = piece_vectors[
                window.core_start - window.start : window.core_end - window.start
            ]
        if is_train:
            callbacks.append((call, backprop_call))

    def backprop(d_outputs: list[Floats2d]) -> list:
        for call, backprop_call in callbacks:
            d_pieces = []
            for piece in call:
                window = piece.window
                d_piece = ops.alloc2f(window.end - window.start, width)
                d_piece[window.core_start - window.start : window.core_end - window.start] = (
                    d_outputs[piece.doc][window.core_start : window.core_end]
                )
                d_pieces.append(d_piece)
            backprop_call(d_pieces)
        return []

    return outputs, backprop


__all__ = ["WINDOW_TOKENS", "build_windowed_tok2vec"]
