"""``pii_ner_mean``: two or more name models' spans as one group, each scored by their mean.

The multilingual pipeline runs two encoders and two ``pii_ner`` components, trained by one
recipe with different seeds (``training/pair_name_models.py`` puts them side by side). This
component reads their span groups and writes one: the union of their spans, each with the
mean of its scores (:func:`spacy_pii.core.span_mean.mean_scored`: a model that did not
propose a span counts 0). ``pii_span_ranker`` and ``pii_merge`` then read that group as they
read one model's. Settings come from the config; the component holds no data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example

from ..adapters.span_groups import group_to_hits, hits_to_group
from ..core.span_mean import mean_scored
from ..errors import validated_settings

DEFAULT_NER_MEAN_CONFIG: dict[str, Any] = {
    "input_keys": ["pii_ner", "pii_ner_2"],
    "spans_key": "pii_names",
    "scorer": {"@scorers": "pii.spans_scorer.v1", "spans_key": "pii_names"},
}


class PiiNerMeanSettings(BaseModel):
    """``pii_ner_mean``'s settings, validated; built from the factory's arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_keys: tuple[str, ...] = Field(default=("pii_ner", "pii_ner_2"), min_length=2)
    spans_key: str = Field(default="pii_names", min_length=1)

    @model_validator(mode="after")
    def _distinct_keys(self) -> PiiNerMeanSettings:
        if len(set(self.input_keys)) != len(self.input_keys):
            raise ValueError("input_keys must name different span groups")
        if self.spans_key in self.input_keys:
            raise ValueError("spans_key must not be one of input_keys")
        return self


@Language.factory(
    "pii_ner_mean",
    assigns=["doc.spans"],
    requires=["doc.spans"],
    default_config=DEFAULT_NER_MEAN_CONFIG,
)
def make_pii_ner_mean(
    nlp: Language,
    name: str,
    input_keys: list[str],
    spans_key: str,
    scorer: Callable | None,
) -> PiiNerMean:
    """Write ``doc.spans[spans_key]``: the spans of ``input_keys``, scored by their mean.

    Args:
        input_keys: the span groups of the name models, at least two; every one must be
            in each doc (a model that is disabled would halve every score silently).
        spans_key: the ``doc.spans`` key to write; list it in ``pii_span_ranker``'s and
            ``pii_merge``'s ``candidate_keys``.
        scorer: the scoring function for ``nlp.evaluate``.
    """
    settings = validated_settings(PiiNerMeanSettings, "pii_ner_mean", locals())
    return PiiNerMean(name, settings, scorer=scorer)


class PiiNerMean:
    """The ``pii_ner_mean`` component: see the module docstring."""

    def __init__(
        self, name: str, settings: PiiNerMeanSettings, *, scorer: Callable | None = None
    ) -> None:
        self.name = name
        self.settings = settings
        self.scorer = scorer

    def __call__(self, doc: Doc) -> Doc:
        missing = [key for key in self.settings.input_keys if key not in doc.spans]
        if missing:
            raise ValueError(
                f"{self.name}: no span group {', '.join(map(repr, missing))} in the doc; "
                "each name model must run before it"
            )
        groups = [group_to_hits(doc.spans[key]) for key in self.settings.input_keys]
        doc.spans[self.settings.spans_key] = hits_to_group(
            doc, self.settings.spans_key, mean_scored(groups, self.name)
        )
        return doc

    def score(self, examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        return self.scorer(examples, **kwargs) if self.scorer else {}
