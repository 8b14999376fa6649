"""The benchmark's texts and their exact-span scores.

The texts are the gold corpora's documents; long documents are built by joining them. The
scores fold every label through the taxonomy, so Presidio's entity names and ours compare.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.taxonomy import Taxonomy
from ..detectors import RULE_TYPES
from ..errors import UnknownLabel
from ..evaluation.documents import Document, Span, read_documents
from ..evaluation.scoring import Scores, evaluate
from .systems import RawSpan

DEFAULT_CORPORA: tuple[str, ...] = (
    "corpus/external/presidio_research_synth_v2.jsonl",
    "corpus/external/wnut17_dev.jsonl",
)

# Scored types: the structured types the rule lane detects, and PERSON, which both
# Presidio (spaCy NER) and our model lane find. ORG, ADDRESS and the rest are left out
# on both sides: the rule lane and Presidio's patterns cannot find them.
STRUCTURED_TYPES: tuple[str, ...] = RULE_TYPES
EVAL_TYPES: tuple[str, ...] = (*STRUCTURED_TYPES, "PERSON")

# The measures: short documents are at most 200 characters, long ones 10,000, and
# cost growth is timed on single documents of 1k, 10k, 100k and 1M characters.
SHORT_DOC_MAX_CHARS = 200
LONG_DOC_CHARS = 10_000
GROWTH_SIZES: tuple[int, ...] = (1_000, 10_000, 100_000, 1_000_000)
QUICK_GROWTH_SIZES: tuple[int, ...] = (1_000, 10_000, 30_000)

# Presidio's scores: pattern recognizers give 0.01 to 0.6 before context, spaCy NER 0.85.
# Its default threshold is 0; the sweep shows what a tuned threshold would change.
PRESIDIO_THRESHOLDS: tuple[float, ...] = (0.0, 0.3, 0.5, 0.7)


# -- corpus ---------------------------------------------------------------------------------


def load_corpus(
    paths: Sequence[str | Path], taxonomy: Taxonomy, limit: int | None = None
) -> list[Document]:
    """Gold documents from JSONL files, ``limit`` from each, spans kept for EVAL_TYPES."""
    documents: list[Document] = []
    for path in paths:
        for document in read_documents(path, taxonomy=taxonomy)[:limit]:
            spans = tuple(s for s in document.spans if s.label in EVAL_TYPES)
            documents.append(Document(text=document.text, spans=spans, id=document.id))
    return documents


def build_text(texts: Sequence[str], size: int, *, start: int = 0, sep: str = "\n\n") -> str:
    """Exactly ``size`` characters: ``texts`` joined by ``sep`` from index ``start``, cycling."""
    if size <= 0:
        return ""
    if not any(texts):
        raise ValueError("cannot build a document from empty texts")
    parts: list[str] = []
    length = -len(sep)  # the separator goes between parts only
    index = start
    while length < size:
        text = texts[index % len(texts)]
        parts.append(text)
        length += len(text) + len(sep)
        index += 1
    return sep.join(parts)[:size]


def short_sample(texts: Sequence[str], count: int) -> list[str]:
    """Up to ``count`` texts of at most SHORT_DOC_MAX_CHARS, evenly spaced over the corpus."""
    short = [t for t in texts if 0 < len(t) <= SHORT_DOC_MAX_CHARS]
    if len(short) <= count:
        return short
    step = len(short) / count
    return [short[int(i * step)] for i in range(count)]


# -- scoring --------------------------------------------------------------------------------


_UNKNOWN = "?"  # never a public type name (they are upper-case words)


def _scores_dict(scores: Scores) -> dict[str, Any]:
    return {
        "precision": scores.precision,
        "recall": scores.recall,
        "f1": scores.f1,
        "tp": scores.tp,
        "fp": scores.fp,
        "fn": scores.fn,
        "support": scores.support,
    }


def score_predictions(
    gold: Sequence[Document],
    predictions: Sequence[Sequence[RawSpan]],
    taxonomy: Taxonomy,
    threshold: float | None = None,
) -> dict[str, Any]:
    """Exact-span scores on EVAL_TYPES after folding predicted labels through the taxonomy.

    A predicted label the taxonomy does not know is counted under ``unmapped_labels`` and
    not scored, so a peer's new entity name shows up in the report instead of aborting it.
    ``threshold`` keeps spans scored at least that much (unscored spans always stay).
    """
    unmapped: Counter[str] = Counter()
    folded: dict[str, str | None] = {}  # label -> public type, None (a drop) or _UNKNOWN
    predicted: list[Document] = []
    for document, raw in zip(gold, predictions, strict=True):
        spans = []
        for start, end, label, score in raw:
            if threshold is not None and score is not None and score < threshold:
                continue
            if label not in folded:
                try:
                    folded[label] = taxonomy.fold(label)
                except UnknownLabel:
                    folded[label] = _UNKNOWN
            public = folded[label]
            if public == _UNKNOWN:
                unmapped[label] += 1
            elif public in EVAL_TYPES:
                spans.append(Span(start=start, end=end, label=public, score=score))
        predicted.append(Document(text=document.text, spans=tuple(spans), id=document.id))
    result = evaluate(gold, predicted, taxonomy=taxonomy, context_chars=0)
    structured = [result.per_label[t] for t in STRUCTURED_TYPES if t in result.per_label]
    return {
        "labels": {label: _scores_dict(s) for label, s in result.per_label.items()},
        "micro": _scores_dict(result.micro),
        "structured": _scores_dict(
            Scores.from_counts(
                sum(s.tp for s in structured),
                sum(s.fp for s in structured),
                sum(s.fn for s in structured),
            )
        ),
        "leakage": result.leakage.rate,
        "unmapped_labels": dict(sorted(unmapped.items())),
    }


def score_with_sweep(
    gold: Sequence[Document],
    predictions: Sequence[Sequence[RawSpan]],
    taxonomy: Taxonomy,
    thresholds: Sequence[float] | None,
) -> dict[str, Any]:
    """Scores at the system's own output, plus a threshold sweep when ``thresholds``."""
    accuracy = score_predictions(gold, predictions, taxonomy)
    if not thresholds:
        return accuracy
    sweep = []
    for threshold in thresholds:
        scored = score_predictions(gold, predictions, taxonomy, threshold)
        sweep.append(
            {"threshold": threshold, "micro": scored["micro"], "structured": scored["structured"]}
        )
    accuracy["threshold_sweep"] = sweep
    accuracy["best_threshold"] = {
        key: {
            "threshold": best["threshold"],
            "f1": best[key]["f1"],
        }
        for key in ("micro", "structured")
        for best in [max(sweep, key=lambda point: point[key]["f1"])]  # used at once
    }
    return accuracy
