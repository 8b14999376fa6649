"""``pii.spans_scorer.v1``: exact-span P/R/F per type for one span group, via spaCy's Scorer.

It makes ``nlp.evaluate`` and ``spacy evaluate --spans-key pii`` report ``spans_pii_p``,
``spans_pii_r``, ``spans_pii_f`` and ``spans_pii_per_type``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from spacy.scorer import Scorer
from spacy.training import Example
from spacy.util import registry


def score_pii_spans(
    examples: Iterable[Example], *, spans_key: str = "pii", **kwargs: Any
) -> dict[str, Any]:
    """Score ``doc.spans[spans_key]`` against the reference docs' group of the same key."""
    return Scorer.score_spans(
        examples,
        f"spans_{spans_key}",
        getter=lambda doc, attr: doc.spans.get(spans_key, []),
        has_annotation=lambda doc: spans_key in doc.spans,
        labeled=True,
        allow_overlap=True,
        **kwargs,
    )


@registry.scorers("pii.spans_scorer.v1")
def make_pii_spans_scorer(spans_key: str = "pii") -> Callable[..., dict[str, Any]]:
    def scorer(examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        # spaCy's span components pass their own spans_key and allow_overlap; the key this
        # scorer was registered with decides, and overlap is always allowed in candidates.
        for fixed in ("spans_key", "allow_overlap", "labeled", "attr"):
            kwargs.pop(fixed, None)
        return score_pii_spans(examples, spans_key=spans_key, **kwargs)

    return scorer
