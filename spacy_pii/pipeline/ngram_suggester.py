"""``pii.ngram_preset_suggester.v1``: n-grams plus a span finder's spans, for ``pii_ner``.

The candidates of a document are every n-gram of the configured sizes and every span of
``doc.spans[spans_key]``, once each, sorted by start and then end. With ``word_edges`` an
n-gram must start and end on a token that is neither punctuation nor space: such a span is
never a gold span (``corpus/CONVENTIONS.md``), and ``pii_ner`` trims those edges off what it
keeps. On the English default that drops a quarter of the n-grams, leaves the dev suite's
figures within 0.004 (but where a fold chose another threshold) and runs the pipeline 6 to
10 % faster; on the multilingual model, whose historic newspapers put OCR debris beside
names, it lost F1 on eight of twelve sets (``configs/README.md``), so it is off by default.

With ``finder_edges`` an n-gram must also start on a token that the span finder recorded as
a possible start and end on one it recorded as a possible end (``pii_span_finder``'s
``edge_threshold``). ``pii_ner`` keeps a few in a hundred of its candidates, and the ones it
keeps start and end on such tokens at a low bar, so scoring only those is a speed choice
(``configs/README.md`` has the counts). A group without the record gates nothing (the
training configs set no ``edge_threshold``, so training scores every n-gram), and neither
does a record made on another tokenization, which a retokenizer after the span finder or a
window of a longer doc leaves (its token count differs).

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
from .pii_span_finder import EDGE_RECORD


class NgramPresetSuggester:
    """Suggest every n-gram of ``sizes`` (with ``word_edges``, those with a word at both
    edges; with ``finder_edges``, those between the span finder's recorded edges), plus the
    spans in ``doc.spans[spans_key]``."""

    def __init__(
        self, sizes: list[int], spans_key: str, word_edges: bool = False, finder_edges: bool = False
    ) -> None:
        self.sizes = sorted(set(sizes))
        self.spans_key = spans_key
        self.word_edges = word_edges
        self.finder_edges = finder_edges

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
        """The doc's candidates in order, in arrays of at most about ``max_candidates`` rows.

        Each array holds the candidates that start in a run of tokens, ``max_candidates //
        len(sizes)`` tokens long; a run where the span finder proposed more spans holds
        more rows, and one where n-grams are gated fewer.
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

    def _edges(self, doc: Doc) -> tuple[numpy.ndarray, numpy.ndarray] | None:
        """Per token, whether an n-gram may start on it and whether one may end on it;
        ``None`` where neither ``word_edges`` nor a recorded ``finder_edges`` gates any."""
        starts = ends = None
        if self.word_edges:
            flags = numpy.asarray(doc.to_array([IS_PUNCT, IS_SPACE]), dtype=bool).reshape((-1, 2))
            starts = ends = numpy.logical_not(flags.any(axis=1))
        group = doc.spans.get(self.spans_key, None) if self.finder_edges else None
        record = group.attrs.get(EDGE_RECORD) if group is not None else None
        if isinstance(record, dict) and record.get("tokens") == len(doc):
            recorded = []
            for name in ("starts", "ends"):
                mask = numpy.zeros(len(doc), dtype=bool)
                mask[numpy.asarray(record[name], dtype="int64")] = True
                recorded.append(mask)
            starts = recorded[0] if starts is None else starts & recorded[0]
            ends = recorded[1] if ends is None else ends & recorded[1]
        if starts is None or ends is None:
            return None
        return starts, ends

    def _between(
        self,
        doc: Doc,
        preset: numpy.ndarray,
        first: int,
        last: int,
        edges: tuple[numpy.ndarray, numpy.ndarray] | None,
    ) -> numpy.ndarray:
        """The candidates starting at tokens ``[first, last)``, unique, by start then end."""
        length = len(doc)
        starts = numpy.arange(first, last, dtype="int64")
        keys = []
        for size in self.sizes:
            begin = starts[: max(0, min(last, length - size + 1) - first)]
            if edges is not None:
                begin = begin[edges[0][begin] & edges[1][begin + size - 1]]
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
    sizes: list[int], spans_key: str, word_edges: bool = False, finder_edges: bool = False
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
        finder_edges: suggest only the n-grams that start and end on tokens the span finder
            of ``spans_key`` recorded as possible edges, where it recorded them.
    """
    if not sizes or min(sizes) < 1:
        raise ConfigError("n-gram sizes must be positive")
    return NgramPresetSuggester(sizes, spans_key, word_edges, finder_edges)


__all__ = ["NgramPresetSuggester", "build_ngram_preset_suggester"]
