"""Gold documents for training and ``spacy evaluate``: JSONL documents -> ``DocBin``.

Each document becomes a ``Doc`` tokenised the way the pipeline tokenises at run time (the
language's tokenizer, then :func:`~spacy_pii.adapters.span_groups.split_tokens_at`, the same
splitting ``pii_rules`` applies, here at every gold boundary), so a gold span glued to
punctuation (``name:Ada``) still sits on token boundaries. A span that misaligns even then
(one that starts or ends inside whitespace) is counted per type in the report, never dropped
in silence.

Two gold groups are written:

* the model's keys (``pii_ner`` by default): the types a model is trained on, by default the
  taxonomy's ``prefer: model`` types (the rule lane owns the rest: docs/how-it-works.md:
  Merge order);
* ``pii``: every public type the final pipeline should output (the taxonomy's default-on
  types unless told otherwise), for ``spacy evaluate --spans-key pii``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import spacy
from spacy.tokens import Doc, DocBin, Span, SpanGroup

from ..adapters.span_groups import split_tokens_at
from ..core.taxonomy import Taxonomy, load_taxonomy
from ..evaluation.documents import Document

NER_KEY = "pii_ner"
PII_KEY = "pii"


def model_types(taxonomy: Taxonomy | None = None) -> tuple[str, ...]:
    """The public types the taxonomy wants our model to find (``prefer: model``, trained)."""
    taxonomy = load_taxonomy(taxonomy)
    return tuple(
        name for name, spec in taxonomy.types.items() if spec.prefer == "model" and spec.trained
    )


@dataclass
class ConversionReport:
    """What a conversion wrote and what it could not. Counts only, never text.

    ``considered`` counts gold spans of a wanted type; each one is either written (to the
    model's keys, to ``pii``, or both) or counted in ``misaligned``.
    """

    documents: int = 0
    tokens: int = 0
    considered: int = 0
    pii_spans: Counter[str] = field(default_factory=Counter)
    ner_spans: Counter[str] = field(default_factory=Counter)
    misaligned: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)

    def add(self, other: ConversionReport) -> None:
        self.documents += other.documents
        self.tokens += other.tokens
        self.considered += other.considered
        for name in ("pii_spans", "ner_spans", "misaligned", "dropped"):
            getattr(self, name).update(getattr(other, name))

    @property
    def misaligned_total(self) -> int:
        return sum(self.misaligned.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "tokens": self.tokens,
            "considered": self.considered,
            "pii_spans": dict(sorted(self.pii_spans.items())),
            "ner_spans": dict(sorted(self.ner_spans.items())),
            "misaligned": dict(sorted(self.misaligned.items())),
            "dropped": dict(sorted(self.dropped.items())),
        }


def gold_doc(
    nlp: spacy.Language,
    document: Document,
    *,
    ner_types: Iterable[str],
    pii_types: Iterable[str],
    ner_keys: Sequence[str] = (NER_KEY,),
    pii_key: str = PII_KEY,
) -> tuple[Doc, ConversionReport]:
    """One gold ``Doc`` with its span groups, and the counts for it.

    Args:
        nlp: supplies the tokenizer (``spacy.blank(lang)`` in practice).
        document: a parsed document, labels already folded to public types.
        ner_types: the types written to each of ``ner_keys``.
        pii_types: the types written to ``pii_key``.
        ner_keys: the model's gold keys (a span finder may train on its own key).
        pii_key: the key of the final pipeline's gold.
    """
    ner_types, pii_types = frozenset(ner_types), frozenset(pii_types)
    report = ConversionReport(documents=1, dropped=Counter(document.dropped))
    doc = nlp.make_doc(document.text)
    doc = split_tokens_at(doc, (offset for s in document.spans for offset in (s.start, s.end)))
    report.tokens = len(doc)
    ner: list[Span] = []
    pii: list[Span] = []
    for gold in document.spans:
        if gold.label not in ner_types and gold.label not in pii_types:
            continue
        report.considered += 1
        span = doc.char_span(gold.start, gold.end, label=gold.label)
        if span is None:
            report.misaligned[gold.label] += 1
            continue
        if gold.label in ner_types:
            ner.append(span)
            report.ner_spans[gold.label] += 1
        if gold.label in pii_types:
            pii.append(span)
            report.pii_spans[gold.label] += 1
    for key in ner_keys:
        doc.spans[key] = SpanGroup(doc, name=key, spans=ner)
    doc.spans[pii_key] = SpanGroup(doc, name=pii_key, spans=pii)
    return doc, report


def documents_to_docbin(
    documents: Iterable[Document],
    *,
    lang: str = "en",
    ner_types: Iterable[str] | None = None,
    pii_types: Iterable[str] | None = None,
    ner_keys: Sequence[str] = (NER_KEY,),
    taxonomy: Taxonomy | None = None,
) -> tuple[DocBin, ConversionReport]:
    """Convert documents to a ``DocBin`` of gold docs; see :func:`gold_doc`.

    ``ner_types`` defaults to the taxonomy's model types and ``pii_types`` to its
    default-on types, which is what ``pii_merge`` outputs without a ``types`` setting.
    """
    taxonomy = load_taxonomy(taxonomy)
    ner_types = tuple(taxonomy.check_types(list(ner_types or model_types(taxonomy))))
    pii_types = taxonomy.check_types(None if pii_types is None else list(pii_types))
    nlp = spacy.blank(lang)
    docbin = DocBin(store_user_data=False)
    total = ConversionReport()
    for document in documents:
        doc, report = gold_doc(
            nlp, document, ner_types=ner_types, pii_types=pii_types, ner_keys=ner_keys
        )
        docbin.add(doc)
        total.add(report)
    return docbin, total
