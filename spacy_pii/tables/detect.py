"""Cells through a pipeline: the one place a table scan touches spaCy, through ``nlp.pipe``.

:class:`PipelineCells` is a callable ``texts -> spans per text``; the scan and the redaction
take any callable of that shape, so tests and other recognizers can stand in for spaCy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..detectors.text import replace_lone_surrogates

CellSpans = list[tuple[int, int, str]]
CellDetector = Callable[[Sequence[str]], list[CellSpans]]

# A scan reads at most this many characters of a cell: enough for any note or ticket in
# the table suite many times over, and a bound on the pipeline's memory per cell (the
# default pipeline peaks near 6.9 GB on one 1,000,000-character document, ENVIRONMENT.md).
# Redaction reads whole cells and refuses longer ones (see spacy_pii.tables.redact).
MAX_SCAN_CHARS = 20_000
# Distinct cells remembered: a column of repeated values (status, country) costs once.
CACHE_CELLS = 200_000


class PipelineCells:
    """Run cells through ``nlp`` and return each cell's ``(start, end, type)`` spans.

    Args:
        nlp: a pipeline that writes ``doc.spans[spans_key]`` (``spacy_pii.load()``).
        spans_key: the span group to read.
        max_chars: characters of a cell read; spans beyond are not reported.
        batch_size: ``nlp.pipe``'s batch size.
        cache_cells: distinct cells remembered (0: none, every cell runs).
    """

    def __init__(
        self,
        nlp: Any,
        *,
        spans_key: str = "pii",
        max_chars: int = MAX_SCAN_CHARS,
        batch_size: int = 256,
        cache_cells: int = CACHE_CELLS,
    ) -> None:
        self.nlp = nlp
        self.cache_cells = cache_cells
        self.spans_key = spans_key
        self.max_chars = max_chars
        self.batch_size = batch_size
        self._cache: dict[str, CellSpans] = {}

    def __call__(self, texts: Sequence[str]) -> list[CellSpans]:
        todo = list(dict.fromkeys(text for text in texts if text not in self._cache))
        if len(self._cache) + len(todo) > self.cache_cells:
            self._cache.clear()
        if not self.cache_cells:
            return self._run(list(texts))
        if todo:
            self._cache.update(zip(todo, self._run(todo), strict=True))
        return [self._cache[text] for text in texts]

    def _run(self, texts: list[str]) -> list[CellSpans]:
        cleaned = [replace_lone_surrogates(text[: self.max_chars]) for text in texts]
        found = []
        for doc in self.nlp.pipe(cleaned, batch_size=self.batch_size):
            group = doc.spans.get(self.spans_key, ())
            found.append([(s.start_char, s.end_char, s.label_) for s in group])
        return found


def load_detector(model: str = "default", **kwargs: Any) -> PipelineCells:
    """A :class:`PipelineCells` over ``spacy_pii.load(model)``."""
    from ..assembly.build import load_pipeline

    return PipelineCells(load_pipeline(model), **kwargs)
