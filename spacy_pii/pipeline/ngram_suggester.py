"""``pii.ngram_preset_suggester.v1``: n-grams plus a span finder's spans, for ``pii_ner``.

The candidates of a document are every n-gram of the configured sizes and every span of
``doc.spans[spans_key]``, once each, sorted by start and then end. With ``word_edges`` an
n-gram must start and end on a token that is neither punctuation nor space: such a span is
never a gold span (``corpus/CONVENTIONS.md``), and ``pii_ner`` trims those edges off what it
keeps. On the English default that drops a quarter of the n-grams, leaves the dev suite's
figures within 0.004 (but where a fold chose another threshold) and runs the pipeline 6 to
10 % faster; on the multilingual model, whose historic newspapers put OCR debris beside
names, it lost F1 on eight of twelve sets (``configs/README.md``), so it is off by default.

The candidates are built with numpy, and :meth:`NgramPresetSuggester.chunks` lists them a
bounded number at a time, so that ``pii_ner`` never holds all the candidates of a long
document: a million characters hold about a million of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy
from spacy.attrs import IS_PUNCT, IS_SPACE
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Ops, get_current_ops
from thinc.types import Ragged

from ..errors import ConfigError


class NgramPresetSuggester:
    """Suggest every n-gram of ``sizes`` (with ``word_edges``, those with a word at both
    edges), plus the spans in ``doc.spans[spans_key]``."""

    def __init__(self, sizes: list[int], spans_key: str, word_edges: bool = False) -> None:
        self.sizes = sorted(set(sizes))
        self.spans_key = spans_key
        self.word_edges = word_edges

    def __call__(self, docs: Iterable[Doc], *, ops: Ops | None = None) -> Ragged:
        """spaCy's suggester protocol: all candidates of each doc, as one ``Ragged``."""
        ops = ops or get_current_ops()
        rows = []
        lengths = []
        for doc in docs:
            found = self._between(doc, self._preset(doc), 0, len(doc), self._edges(doc))
            rows.append(found)
            lengths.append(len(found))
        data = numpy.concatenate(rows) if rows else numpy.zeros((0, 2), dtype="i")
        # thinc's Ops accept numpy arrays at run time; its stubs name only its own array types.
        return Ragged(ops.asarray2i(data), ops.asarray1i(numpy.asarray(lengths, dtype="i")))  # type: ignore[arg-type]

    def chunks(self, doc: Doc, max_candidates: int) -> Iterator[numpy.ndarray]:
        """The doc's candidates in order, in arrays of about ``max_candidates`` rows.

        Each array holds the candidates that start in a run of tokens, ``max_candidates //
        len(sizes)`` tokens long; a run where the span finder proposed more spans holds
        more rows.
        """
        preset = self._preset(doc)
        edges = self._edges(doc)
        step = max(1, max_candidates // max(1, len(self.sizes)))
        for start in range(0, len(doc), step):
            found = self._between(doc, preset, start, min(len(doc), start + step), edges)
            if len(found):
                yield found

    def _preset(self, doc: Doc) -> numpy.ndarray:
        group = doc.spans.get(self.spans_key, None)
        if group is None or not len(group):
            return numpy.zeros((0, 2), dtype="i")
        bounds = numpy.asarray([(span.start, span.end) for span in group], dtype="i")
        return bounds[numpy.argsort(bounds[:, 0], kind="stable")]

    def _edges(self, doc: Doc) -> numpy.ndarray | None:
        """Per token, whether an n-gram may start or end on it (not on a punctuation or
        space token); ``None`` without ``word_edges``, where it may on any."""
        if not self.word_edges:
            return None
        if not len(doc):
            return numpy.zeros(0, dtype=bool)
        flags = numpy.asarray(doc.to_array([IS_PUNCT, IS_SPACE]), dtype=bool)
        return numpy.logical_not(flags.any(axis=1))

    def _between(
        self,
        doc: Doc,
        preset: numpy.ndarray,
        first: int,
        last: int,
        edges: numpy.ndarray | None,
    ) -> numpy.ndarray:
        """The candidates starting at tokens ``[first, last)``, unique, by start then end."""
        length = len(doc)
        starts = numpy.arange(first, last, dtype="int64")
        keys = []
        for size in self.sizes:
            begin = starts[: max(0, min(last, length - size + 1) - first)]
            if edges is not None:
                begin = begin[edges[begin] & edges[begin + size - 1]]
            keys.append(begin * (length + 1) + begin + size)
        low, high = numpy.searchsorted(preset[:, 0], [first, last])
        inside = preset[low:high].astype("int64")
        keys.append(inside[:, 0] * (length + 1) + inside[:, 1])
        unique = numpy.unique(numpy.concatenate(keys))
        found = numpy.empty((len(unique), 2), dtype="i")
        found[:, 0] = unique // (length + 1)
        found[:, 1] = unique % (length + 1)
        return found


@registry.misc("pii.ngram_preset_suggester.v1")
def build_ngram_preset_suggester(
    sizes: list[int], spans_key: str, word_edges: bool = False
) -> NgramPresetSuggester:
    """Suggest every n-gram of the given sizes, plus the spans in ``doc.spans[spans_key]``.

    Short n-grams cover names (1 to 4 tokens hold 99% of PERSON and ORG gold spans in
    presidio synth and WNUT-17 train) without waiting for a span finder to learn them;
    the span finder's key adds the long spans (addresses run to 20 tokens there) that an
    n-gram range could only cover at twenty candidates per token.

    Args:
        sizes: the n-gram lengths, in tokens.
        spans_key: the span group whose spans are suggested as they are.
        word_edges: suggest only the n-grams that start and end on a token that is neither
            punctuation nor space (the module docstring has the measurements).
    """
    if not sizes or min(sizes) < 1:
        raise ConfigError("n-gram sizes must be positive")
    return NgramPresetSuggester(sizes, spans_key, word_edges)


__all__ = ["NgramPresetSuggester", "build_ngram_preset_suggester"]
