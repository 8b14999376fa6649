"""PERSON figures on plain span tuples, fast enough to score a threshold grid many times.

The same definitions as :func:`spacy_pii.evaluation.scoring.evaluate` (overlap precision:
the share of predicted PERSON spans touching a gold one; overlap recall: the share of gold
PERSON spans touched by a predicted one; exact F1 on identical offsets; duplicates count
once) and :func:`~spacy_pii.evaluation.scoring.leaked_share` (gold name characters that no
predicted span of any type covers), plus the precision sets' figure: **false names per
1,000 words**, predicted PERSON spans that touch no gold name, per 1,000 whitespace words.
A test checks that both code paths agree.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

SpanTuple = tuple[int, int, str]
PERSON = "PERSON"


@dataclass(frozen=True)
class NameFigures:
    """PERSON overlap P/R/F1, exact F1, leak, and false spans per 1,000 words by type."""

    gold: int
    predicted: int
    overlap_p: float
    overlap_r: float
    overlap_f1: float
    exact_f1: float
    leak: float
    words: int
    false_per_1000: dict[str, float]

    def as_dict(self) -> dict:
        return asdict(self)


def _touches(spans: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    ordered = sorted(spans)
    starts, max_ends, running = [], [], -1
    for start, end in ordered:
        running = max(running, end)
        starts.append(start)
        max_ends.append(running)
    return starts, max_ends


def _touched(index: tuple[list[int], list[int]], start: int, end: int) -> bool:
    starts, max_ends = index
    before = bisect_left(starts, end)
    return bool(before) and max_ends[before - 1] > start


def _merged_length(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def _covered(wanted: list[tuple[int, int]], cover: list[tuple[int, int]]) -> int:
    total, j = 0, 0
    for start, end in wanted:
        while j < len(cover) and cover[j][1] <= start:
            j += 1
        k = j
        while k < len(cover) and cover[k][0] < end:
            total += min(end, cover[k][1]) - max(start, cover[k][0])
            k += 1
    return total


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def name_figures(
    texts: Sequence[str],
    gold: Sequence[Iterable[SpanTuple]],
    predicted: Sequence[Iterable[SpanTuple]],
    false_types: Sequence[str] = (PERSON, "ORG", "LOCATION"),
) -> NameFigures:
    """Score per-document predictions against gold (both ``(start, end, label)`` tuples).

    A predicted span of a type in ``false_types`` is false when it touches no gold span of
    its own type (for ORG and LOCATION on sets that label none: every such span).
    """
    n_gold = n_pred = found = right = exact = words = 0
    gold_chars = left = 0
    false_counts = dict.fromkeys(false_types, 0)
    for text, gold_spans, pred_spans in zip(texts, gold, predicted, strict=True):
        gold_set, pred_set = set(gold_spans), set(pred_spans)
        words += len(text.split())
        gold_person = [(s, e) for s, e, label in gold_set if label == PERSON]
        pred_person = [(s, e) for s, e, label in pred_set if label == PERSON]
        gold_index, pred_index = _touches(gold_person), _touches(pred_person)
        n_gold += len(gold_person)
        n_pred += len(pred_person)
        found += sum(_touched(pred_index, s, e) for s, e in gold_person)
        right += sum(_touched(gold_index, s, e) for s, e in pred_person)
        exact += len(set(gold_person) & set(pred_person))
        by_type = {
            label: _touches([(s, e) for s, e, lab in gold_set if lab == label])
            for label in false_types
        }
        for s, e, label in pred_set:
            if label in false_counts and not _touched(by_type[label], s, e):
                false_counts[label] += 1
        wanted = _merged_length(gold_person)
        cover = _merged_length((s, e) for s, e, _ in pred_set)
        length = sum(e - s for s, e in wanted)
        gold_chars += length
        left += length - _covered(wanted, cover)
    precision = right / n_pred if n_pred else 1.0
    recall = found / n_gold if n_gold else 1.0
    exact_p = exact / n_pred if n_pred else 1.0
    exact_r = exact / n_gold if n_gold else 1.0
    scale = 1000 / words if words else 0.0
    return NameFigures(
        gold=n_gold,
        predicted=n_pred,
        overlap_p=precision,
        overlap_r=recall,
        overlap_f1=_f1(precision, recall) if n_gold else 0.0,
        exact_f1=_f1(exact_p, exact_r) if n_gold else 0.0,
        leak=left / gold_chars if gold_chars else 0.0,
        words=words,
        false_per_1000={label: count * scale for label, count in false_counts.items()},
    )
