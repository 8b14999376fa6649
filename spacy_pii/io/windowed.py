"""A PII pipeline over a document of any length, in windows cut outside the pipeline.

Deprecated for memory: the components bound their own memory now (``pii.windowed_tok2vec.v1``,
the listened heads and ``pii_ner`` work over bounded token windows; docs/long-documents.md),
so ``nlp(text)`` on a million characters stays under a gigabyte. This module stays for the
CLI's ``--window-chars`` (deprecated) and for pipelines whose own components are not bounded.

:func:`windowed_doc` gives the Doc that ``nlp(text)`` would give, without ``nlp.max_length``
and without the model's memory growing with the text. The components whose cost is linear
in the text (:data:`LINEAR_FACTORIES`: the rules, the merge, redaction) run once on the whole
document, so mention propagation and placeholder numbering see all of it. Every other
component (the model: ``tok2vec``, ``span_finder``, ``pii_ner``) runs on windows of the
whole document's tokens (:func:`spacy_pii.core.windows.plan_windows`); the span groups it writes
are mapped back onto the whole document, each span from the one window whose core holds its
start, so its offsets index the original text exactly and a span on a window edge is
neither lost nor split.

Measured on the shipped pipeline: one document of 1,000,000 characters peaked at 3.7 GB and
took 135 s when run whole, and 360 MB and 26 s through windows of
:data:`~spacy_pii.core.windows.WINDOW_CHARS`; on 50,000 characters in windows of 5,000 the spans
and their scores were those of the whole run.

Model components see only their window's tokens: span groups written before them (the rule
hits) are not copied into the windows, and what they write outside ``doc.spans`` (tags, a
tensor) is not kept. The shipped model reads and writes span groups only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from spacy.tokens import Doc, SpanGroup

from ..core.windows import OVERLAP_TOKENS, WINDOW_CHARS, Window, plan_windows

if TYPE_CHECKING:
    from spacy.language import Language

# Components that run on the whole document: their cost is linear in the text (rules,
# merge and redaction; tests/test_windowed.py checks it), and they need all of it.
LINEAR_FACTORIES: frozenset[str] = frozenset({"pii_rules", "pii_merge", "pii_redact"})


Component = tuple[str, Callable[[Doc], Doc]]


def windowed_doc(
    nlp: Language,
    text: str,
    *,
    window_chars: int = WINDOW_CHARS,
    overlap_tokens: int = OVERLAP_TOKENS,
) -> Doc:
    """Run ``nlp`` over ``text`` of any length, its model over bounded windows.

    Args:
        nlp: a PII pipeline (``spacy_pii.load()`` or a trained one).
        text: the document; ``nlp.max_length`` does not apply.
        window_chars: the most characters one window of the model spans.
        overlap_tokens: tokens shared by neighbouring windows; half of it must cover the
            model's longest span plus its context reach
            (see :data:`~spacy_pii.core.windows.OVERLAP_TOKENS`).

    Returns:
        The whole document, annotated as ``nlp(text)`` annotates it.
    """
    # The tokenizer, not make_doc: make_doc refuses a text over nlp.max_length.
    doc = nlp.tokenizer(text)
    for windowed, components in _stages(nlp):
        if not windowed:
            for name, component in components:
                doc = _run(nlp, name, component, doc)
            continue
        _run_in_windows(nlp, doc, components, window_chars, overlap_tokens)
    return doc


def _stages(nlp: Language) -> list[tuple[bool, list[Component]]]:
    """Consecutive components grouped by whether they run in windows, in pipeline order."""
    stages: list[tuple[bool, list[Component]]] = []
    for name, component in nlp.pipeline:
        windowed = nlp.get_pipe_meta(name).factory not in LINEAR_FACTORIES
        if stages and stages[-1][0] == windowed:
            stages[-1][1].append((name, component))
        else:
            stages.append((windowed, [(name, component)]))
    return stages


def _run(nlp: Language, name: str, component: Callable[[Doc], Doc], doc: Doc) -> Doc:
    """One component on one doc, failures going to its error handler as in ``nlp(text)``."""
    try:
        return component(doc)
    except Exception as err:
        handler = getattr(component, "get_error_handler", None)
        if handler is None:
            raise
        handler()(name, component, [doc], err)
        return doc


def _run_in_windows(
    nlp: Language,
    doc: Doc,
    components: Iterable[Component],
    window_chars: int,
    overlap_tokens: int,
) -> None:
    components = list(components)
    starts = [token.idx for token in doc]
    length = _length(doc) if len(doc) else 0
    plan = plan_windows(starts, length, window_chars=window_chars, overlap_tokens=overlap_tokens)
    if len(plan) == 1:
        for name, component in components:
            doc2 = _run(nlp, name, component, doc)
            if doc2 is not doc:
                raise ValueError(f"component {name!r} returned a new Doc; windows need the same")
        return
    kept: dict[str, _Collected] = {}
    for window in plan:
        piece = _window_doc(doc, window)
        for name, component in components:
            piece = _run(nlp, name, component, piece)
        offset = starts[window.start]
        for key, group in piece.spans.items():
            kept.setdefault(key, _Collected()).add(group, window, offset)
        for key, value in piece.user_data.items():
            doc.user_data.setdefault(key, value)
    for key, collected in kept.items():
        doc.spans[key] = collected.group(doc, key)


def _length(doc: Doc) -> int:
    last = doc[-1]
    return last.idx + len(last.text_with_ws)


def _window_doc(doc: Doc, window: Window) -> Doc:
    tokens = doc[window.start : window.end]
    words = [token.text for token in tokens]
    spaces = [bool(token.whitespace_) for token in tokens]
    return Doc(doc.vocab, words=words, spaces=spaces)


class _Collected:
    """The spans of one group kept from every window, on whole-document offsets."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int, str, int]] = []  # start, end, label, kb_id
        self.attrs: dict[str, list[Any]] = {}
        self.scalars: dict[str, Any] = {}

    def add(self, group: SpanGroup, window: Window, offset: int) -> None:
        positional = {
            name: value
            for name, value in group.attrs.items()
            if isinstance(value, list) and len(value) == len(group)
        }
        for name, value in group.attrs.items():
            if name in positional:
                self.attrs.setdefault(name, [])
            else:
                self.scalars.setdefault(name, value)
        for index, span in enumerate(group):
            if not window.keeps(window.start + span.start):
                continue
            self.spans.append(
                (offset + span.start_char, offset + span.end_char, span.label_, span.kb_id)
            )
            for name, value in positional.items():
                self.attrs.setdefault(name, []).append(value[index])

    def group(self, doc: Doc, key: str) -> SpanGroup:
        spans = []
        for start, end, label, kb_id in self.spans:
            span = doc.char_span(start, end, label=label, kb_id=kb_id)
            if span is None:  # the windows are cut from this doc's tokens
                raise ValueError(f"a windowed span {start}:{end} is off the document's tokens")
            spans.append(span)
        group = SpanGroup(doc, name=key, spans=spans)
        for name, value in self.scalars.items():
            group.attrs[name] = value
        for name, values in self.attrs.items():
            group.attrs[name] = values
        return group


__all__ = ["LINEAR_FACTORIES", "windowed_doc"]
