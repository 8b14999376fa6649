"""``pii_span_finder``: spaCy's ``span_finder``, with candidates listed in linear time.

spaCy's component pairs every token scored as a start with every token scored as an end
and only then drops the pairs longer than ``max_length``, so its cost is the product of the
two counts: a text of thousands of names ("Mr. Smith " repeated) takes minutes for the
span listing alone. This component is the same model, settings, training and serialization;
for each start it visits only the ends within ``max_length`` tokens (a binary search over
the sorted ends), which lists the same spans in the same order in time linear in the
tokens and the spans listed.

With ``edge_threshold`` set it also records, in its span group's ``attrs["edges"]``, the
tokens it scored at least that as a start and as an end, with the doc's token count: the
bounds that ``pii.ngram_preset_suggester.v1`` with ``finder_edges`` keeps n-grams between.
Unset (spaCy's behaviour, and every training config here) it records nothing.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from typing import Any

import numpy
from spacy.language import Language
from spacy.pipeline.span_finder import DEFAULT_SPAN_FINDER_MODEL, SpanFinder
from spacy.pipeline.spancat import DEFAULT_SPANS_KEY
from spacy.tokens import Doc, Span
from thinc.api import Model
from thinc.types import Floats2d

from ..adapters.listened_windows import has_vectors, head_in_windows, listened_head
from ..adapters.token_batches import TokenBoundedPipe
from ..errors import ConfigError

# spaCy 3.8's own defaults for its "span_finder" factory, so that the two read
# the same config, and the edge record off.
DEFAULT_SPAN_FINDER_CONFIG = {
    "threshold": 0.5,
    "model": DEFAULT_SPAN_FINDER_MODEL,
    "spans_key": DEFAULT_SPANS_KEY,
    "max_length": 25,
    "min_length": None,
    "scorer": {"@scorers": "spacy.span_finder_scorer.v1"},
    "edge_threshold": None,
}
# The span group's attr holding the edge record: {"tokens": the doc's token count, "starts"
# and "ends": the tokens scored at least ``edge_threshold`` as a start and as an end, in
# order}. One mapping rather than lists beside the spans, so that nothing reads it as one
# value per span; the count tells a reader whether the doc still has the tokens it was
# recorded on.
EDGE_RECORD = "edges"


@Language.factory(
    "pii_span_finder",
    assigns=["doc.spans"],
    default_config=DEFAULT_SPAN_FINDER_CONFIG,
    default_score_weights={
        f"spans_{DEFAULT_SPANS_KEY}_f": 1.0,
        f"spans_{DEFAULT_SPANS_KEY}_p": 0.0,
        f"spans_{DEFAULT_SPANS_KEY}_r": 0.0,
    },
)
def make_pii_span_finder(
    nlp: Language,
    name: str,
    model: Model[Iterable[Doc], Floats2d],
    spans_key: str,
    threshold: float,
    max_length: int | None,
    min_length: int | None,
    scorer: Callable | None,
    edge_threshold: float | None,
) -> LinearSpanFinder:
    """spaCy's span finder (same arguments), listing its candidates in linear time.

    Args:
        edge_threshold: also record the tokens scored at least this as a start or an end
            (the module docstring); ``None`` records nothing. At most ``threshold``, so that
            every span the component writes lies between recorded edges.
    """
    if edge_threshold is not None and not 0.0 <= edge_threshold <= threshold:
        raise ConfigError("span finder edge_threshold must lie between 0 and its threshold")
    finder = LinearSpanFinder(
        nlp,
        model=model,
        name=name,
        spans_key=spans_key,
        threshold=threshold,
        max_length=max_length,
        min_length=min_length,
        scorer=scorer,
    )
    # An attribute, not ``cfg``: spaCy writes ``cfg`` into the folder, and a setting read back
    # from there would outrank the config.
    finder.edge_threshold = edge_threshold
    return finder


class LinearSpanFinder(TokenBoundedPipe, SpanFinder):
    """:class:`spacy.pipeline.SpanFinder` whose ``set_annotations`` is linear, whose
    scoring runs over bounded token windows, and whose settings come from the config."""

    edge_threshold: float | None = None

    # spaCy's component writes its settings (threshold, lengths, key) into the folder as
    # ``cfg`` and reads them back over the config's, so an override at ``spacy.load`` would
    # be lost. The folder is still written in spaCy's layout; on load its settings yield.
    def from_disk(self, path: Any, *, exclude: Iterable[str] = ()) -> LinearSpanFinder:
        settings = dict(self.cfg)
        super().from_disk(path, exclude=exclude)
        self.cfg.update(settings)
        return self

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = ()) -> LinearSpanFinder:
        settings = dict(self.cfg)
        super().from_bytes(bytes_data, exclude=exclude)
        self.cfg.update(settings)
        return self

    def predict(self, docs: Iterable[Doc]) -> Floats2d:
        """Start and end scores of every token, in order (spaCy's ``SpanFinder.predict``).

        Listening to a shared encoder, the scorer runs over bounded windows of
        ``doc.tensor`` (:mod:`spacy_pii.adapters.listened_windows`).
        """
        docs = list(docs)
        found = listened_head(self.model)
        with_tokens = [doc for doc in docs if len(doc)]
        if found is None or not with_tokens or not all(map(has_vectors, with_tokens)):
            return self.model.predict(docs)
        head, context = found
        return self.model.ops.flatten(
            head_in_windows(head, context, [d.tensor for d in with_tokens])
        )

    def set_annotations(self, docs: Iterable[Doc], scores: Floats2d) -> None:
        """Write each doc's candidate spans: the ones spaCy's component writes, in its order."""
        threshold = self.cfg["threshold"]
        shortest = self.cfg["min_length"] or 1
        longest = self.cfg["max_length"]
        key = self.cfg["spans_key"]
        table = self.model.ops.to_numpy(scores)
        offset = 0
        for doc in docs:
            doc_scores = table[offset : offset + len(doc)]
            starts = numpy.flatnonzero(doc_scores[:, 0] >= threshold).tolist()
            ends = numpy.flatnonzero(doc_scores[:, 1] >= threshold).tolist()
            spans: list[Span] = []
            for start in starts:
                first = bisect_left(ends, start + shortest - 1)
                last = len(ends) if longest is None else bisect_right(ends, start + longest - 1)
                spans.extend(doc[start : end + 1] for end in ends[first:last])
            doc.spans[key] = spans
            if self.edge_threshold is not None:
                doc.spans[key].attrs[EDGE_RECORD] = {
                    "tokens": len(doc),
                    "starts": numpy.flatnonzero(doc_scores[:, 0] >= self.edge_threshold).tolist(),
                    "ends": numpy.flatnonzero(doc_scores[:, 1] >= self.edge_threshold).tolist(),
                }
            offset += len(doc)
