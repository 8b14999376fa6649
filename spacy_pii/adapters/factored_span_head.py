"""spaCy's span-categorizer head at prediction time, with its first product factored by token.

``spacy.SpanCategorizer.v1`` with ``spacy.mean_max_reducer.v1`` scores a candidate span by
concatenating four reductions of its token vectors (last, first, mean, max), multiplying
that by the maxout layer's weights, and then applying the maxout, a layer norm and the
scorer. That product is a sum of one product per reduction, so it can be taken apart: the
last and first parts once per token instead of once per candidate, and the mean and max
parts on the candidate's two reduced vectors alone. With every 1- to 4-gram a candidate, a
token sits in about four candidates, so this does about 1.6 times fewer multiplications for
the same scores (the same sums in another order: equal to float32 rounding).

:func:`factored_head` recognises that head among a model's layers; any other head is left
to thinc (``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy
from thinc.api import Model

REDUCTIONS = "reduce_last|reduce_first|reduce_mean|reduce_max"
# The longest span reduced from running windows; longer ones are reduced over their rows.
RUNNING_LENGTHS = 8


@dataclass(frozen=True)
class FactoredSpanHead:
    """The maxout weights split by reduction, and the layers after the maxout.

    The maxout's rows are stored piece by piece (all units of piece 0, then of piece 1, ...),
    so that the maxout is an elementwise maximum of contiguous blocks.
    """

    per_token: numpy.ndarray  # (width, 2 * rows): the last and the first blocks
    per_span: numpy.ndarray  # (2 * width, rows): the mean and the max blocks
    bias: numpy.ndarray  # (rows,)
    pieces: int
    after: Callable[[numpy.ndarray], numpy.ndarray]  # the layer norm and the scorer
    # The maxout layer's own ops: its matrix product and that product's thread limit.
    gemm: Callable[[numpy.ndarray, numpy.ndarray], numpy.ndarray]

    def scores(
        self, vectors: numpy.ndarray, starts: numpy.ndarray, ends: numpy.ndarray
    ) -> numpy.ndarray:
        """The scorer's output for the spans ``[starts, ends)`` of the rows of ``vectors``.

        Args:
            vectors: one float32 row per token.
            starts, ends: integer row bounds of each candidate, ``ends > starts``.
        """
        rows = self.bias.shape[0]
        projected = self.gemm(vectors, self.per_token)
        pre = projected[ends - 1, :rows]
        pre += projected[starts, rows:]
        pre += self.gemm(_mean_and_max(vectors, starts, ends - starts), self.per_span)
        pre += self.bias
        units = rows // self.pieces
        hidden = pre[:, :units]
        for piece in range(1, self.pieces):
            numpy.maximum(hidden, pre[:, piece * units : (piece + 1) * units], out=hidden)
        return self.after(numpy.ascontiguousarray(hidden))


def _mean_and_max(vectors: numpy.ndarray, starts: numpy.ndarray, lengths: numpy.ndarray):
    """Each span's mean and max vector, side by side: ``(spans, 2 * width)``.

    Spans of up to :data:`RUNNING_LENGTHS` tokens (every n-gram candidate) read running sums
    and maxima over windows of 1, 2, 3, ... tokens, one pass over the vectors per length;
    longer ones (a span finder's) are reduced over their own rows, so the work stays linear
    in the rows and the spans' tokens whatever the longest span.
    """
    width = vectors.shape[1]
    out = numpy.empty((len(starts), 2 * width), dtype=vectors.dtype)
    total = vectors.copy()
    peak = vectors.copy()
    for length in range(1, min(int(lengths.max()), RUNNING_LENGTHS) + 1):
        if length > 1:
            total = total[:-1] + vectors[length - 1 :]
            peak = numpy.maximum(peak[:-1], vectors[length - 1 :])
        at = numpy.flatnonzero(lengths == length)
        if len(at):
            first = starts[at]
            out[at, :width] = total[first] / length
            out[at, width:] = peak[first]
    at = numpy.flatnonzero(lengths > RUNNING_LENGTHS)
    if len(at):
        long_lengths = lengths[at]
        offsets = numpy.cumsum(long_lengths) - long_lengths
        rows = numpy.repeat(starts[at] - offsets, long_lengths) + numpy.arange(
            int(long_lengths.sum())
        )
        gathered = vectors[rows]
        out[at, :width] = numpy.add.reduceat(gathered, offsets, axis=0) / long_lengths[:, None]
        out[at, width:] = numpy.maximum.reduceat(gathered, offsets, axis=0)
    return out


def factored_head(reducer: Model, scorer: Model) -> FactoredSpanHead | None:
    """The factored form of ``reducer >> scorer``, or ``None`` when ``reducer`` is not
    spaCy's mean-max reducer (concatenated reductions, then maxout, layer norm, dropout)."""
    if len(reducer.layers) != 2 or reducer.layers[0].name != REDUCTIONS:
        return None
    leaves = {node.name: node for node in reducer.layers[1].walk() if not node.layers}
    if set(leaves) not in ({"maxout", "layernorm", "dropout"}, {"maxout", "layernorm"}):
        return None
    maxout, layernorm = leaves["maxout"], leaves["layernorm"]
    weights = numpy.asarray(maxout.get_param("W"), dtype="float32")
    units, pieces, inputs = weights.shape
    width = inputs // 4
    # (pieces * units, inputs), piece by piece
    by_piece = weights.transpose(1, 0, 2).reshape((pieces * units, inputs))
    last, first, mean, peak = (by_piece[:, k * width : (k + 1) * width].T for k in range(4))
    bias = numpy.asarray(maxout.get_param("b"), dtype="float32").T.reshape(-1)

    def after(hidden: numpy.ndarray) -> numpy.ndarray:
        return numpy.asarray(scorer.predict(layernorm.predict(hidden)))

    def gemm(x: numpy.ndarray, y: numpy.ndarray) -> numpy.ndarray:
        # thinc's stubs name only its own array types; NumpyOps takes and gives numpy's.
        return numpy.asarray(maxout.ops.gemm(x, y))  # type: ignore[arg-type]

    return FactoredSpanHead(
        per_token=numpy.ascontiguousarray(numpy.concatenate([last, first], axis=1)),
        per_span=numpy.ascontiguousarray(numpy.concatenate([mean, peak], axis=0)),
        bias=numpy.ascontiguousarray(bias),
        pieces=pieces,
        after=after,
        gemm=gemm,
    )


__all__ = ["FactoredSpanHead", "factored_head"]
