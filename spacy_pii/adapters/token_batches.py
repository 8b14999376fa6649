"""Batches bounded in tokens as well as documents, for the components' ``pipe``.

spaCy's ``TrainablePipe.pipe`` buffers ``batch_size`` documents (``nlp.batch_size``, 256 in
the shipped config) before it runs, and every such component downstream buffers as many
again: ten documents of a million characters each are then all alive at once, each with
its token vectors (``doc.tensor``: 96 floats a token). The components of this package cut
a batch once it holds :data:`BATCH_TOKENS` tokens, so a long document goes through
alone, and short ones are batched as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from spacy.tokens import Doc

from ..core.windows import WINDOW_TOKENS

# Four encoder windows. The benchmark's short documents (at most 200 characters, about 50
# tokens) fill a batch of 256 with about 13,000 tokens, below this bound, so their batches
# are unchanged; a document of 10,000 characters (about 2,500 tokens) shares a batch with
# five others.
BATCH_TOKENS = 4 * WINDOW_TOKENS


def token_batches(
    stream: Iterable[Doc], batch_size: int, max_tokens: int | None = None
) -> Iterator[list[Doc]]:
    """Lists of at most ``batch_size`` docs, cut as soon as one holds ``max_tokens`` tokens
    (:data:`BATCH_TOKENS` by default)."""
    max_tokens = max_tokens or BATCH_TOKENS
    batch: list[Doc] = []
    tokens = 0
    for doc in stream:
        batch.append(doc)
        tokens += len(doc)
        if len(batch) >= batch_size or tokens >= max_tokens:
            yield batch
            batch, tokens = [], 0
    if batch:
        yield batch


class TokenBoundedPipe:
    """A mixin for ``TrainablePipe`` subclasses: spaCy's ``pipe``, batched by
    :func:`token_batches`."""

    name: str

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """spaCy's ``TrainablePipe.pipe``, with batches cut at :data:`BATCH_TOKENS` tokens."""
        component: Any = self
        error_handler = component.get_error_handler()
        for docs in token_batches(stream, batch_size):
            try:
                scores = component.predict(docs)
                component.set_annotations(docs, scores)
                yield from docs
            except Exception as err:
                error_handler(self.name, self, docs, err)


__all__ = ["BATCH_TOKENS", "TokenBoundedPipe", "token_batches"]
