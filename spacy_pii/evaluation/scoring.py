"""Exact-span scoring of PII spans, in pure Python.

The scorer consumes spans, not a model, so the same code grades the rule lane, a trained
pipeline or a peer such as Presidio. It reports:

* entity level: per-label TP/FP/FN, precision, recall, F1 and F2, micro and macro averages.
  A span is a true positive only when its start, end and public type equal a gold span's
  *in the same document*; a boundary miss therefore costs one FP and one FN, because a
  half-masked identifier still leaks digits;
* token level (whitespace tokens, or any tokenizer passed in) and character level, which
  credit partial overlap and are for diagnosis, not for release decisions;
* character leakage: the share of gold PII characters that no prediction covers, whatever
  its label, which is what a redactor built on these predictions would leave readable;
* overlap level: a gold span is found when a prediction of its label overlaps it, and a
  prediction is right when it overlaps a gold span of its label. It is the measure that
  peers' name benchmarks report, and it separates "found the name" from "found its edges";
* boundary misses and wrong types, counted apart from plain misses and spurious spans;
* the false-negative worklist, with a context window in which PII is masked by default.

Zero-denominator convention (fixed, so that figures compare across runs and releases):
precision is 1.0 when nothing was predicted and recall is 1.0 when there was nothing to
find. These vacuous values are reported, never trusted: the gate
(:mod:`spacy_pii.evaluation.gate`) fails a label whose gold support is too small before it
looks at recall.

Labels are folded through the taxonomy on the way in, so ``US_SSN`` and ``GOV_ID`` never
fork a metric. A label the taxonomy drops explicitly (``DATE_TIME``) is skipped on both
sides and counted per source label; an unknown label raises
:class:`~spacy_pii.errors.UnknownLabel`.

Why this module is over 400 lines: every level (entity, token, character, overlap, leakage,
the worklist) is scored from the same matched spans in one call, and the result types sit
beside the code that fills them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import (
    Field,
)

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..detectors.text import merged_intervals
from .documents import (
    Document,
    DroppedSpan,
    FrozenModel,
    Span,
    check_alignment,
)

_WHITESPACE_TOKEN = re.compile(r"\S+")

# 40 characters each side is about seven English words (mean word length 4.79 letters plus
# a space; Norvig 2012, "English Letter Frequency Counts: Mayzner Revisited", Google Books):
# enough to see the cue ("SSN:", "call me at") that a detector missed, short enough to
# keep one entry on one report line.
DEFAULT_CONTEXT_CHARS = 40

Tokenizer = Callable[[str], Iterable[tuple[int, int]]]
MissKind = Literal["boundary", "wrong_type", "missed"]
SpuriousKind = Literal["boundary", "wrong_type", "spurious"]


# -- results --------------------------------------------------------------------------------


def _ratio(numerator: int, denominator: int) -> float:
    # Seed 000's convention: an empty denominator is vacuously perfect. See the module doc.
    return 1.0 if denominator == 0 else numerator / denominator


def f_beta(precision: float, recall: float, beta: float) -> float:
    """Van Rijsbergen's F-measure; beta=2 weighs recall four times as much as precision."""
    b2 = beta * beta
    denominator = b2 * precision + recall
    return 0.0 if denominator == 0 else (1 + b2) * precision * recall / denominator


class Scores(FrozenModel):
    """Counts and rates for one label (or a micro pool) at one level of granularity."""

    tp: int = Field(ge=0)
    fp: int = Field(ge=0)
    fn: int = Field(ge=0)
    precision: float = Field(ge=0.0, le=1.0)
    recall: float = Field(ge=0.0, le=1.0)
    f1: float = Field(ge=0.0, le=1.0)
    f2: float = Field(ge=0.0, le=1.0)

    @property
    def support(self) -> int:
        """Gold units (spans, tokens or characters) of this label."""
        return self.tp + self.fn

    @property
    def predicted(self) -> int:
        return self.tp + self.fp

    @classmethod
    def from_counts(cls, tp: int, fp: int, fn: int) -> Scores:
        precision = _ratio(tp, tp + fp)
        recall = _ratio(tp, tp + fn)
        return cls(
            tp=tp,
            fp=fp,
            fn=fn,
            precision=precision,
            recall=recall,
            f1=f_beta(precision, recall, 1.0),
            f2=f_beta(precision, recall, 2.0),
        )


class MacroScores(FrozenModel):
    """Unweighted means of the per-label rates over every label seen in gold or predictions."""

    precision: float
    recall: float
    f1: float
    f2: float
    labels: int


class LevelScores(FrozenModel):
    per_label: dict[str, Scores]
    micro: Scores


class Leakage(FrozenModel):
    """Gold PII characters that no prediction covers, overall and per gold label."""

    gold_chars: int
    leaked_chars: int
    rate: float = Field(description="leaked/gold; 0.0 when there are no gold characters")
    per_label: dict[str, float]


class ErrorBreakdown(FrozenModel):
    """Why a label's spans failed to match exactly.

    A false negative is a ``boundary`` miss when a prediction of the same label overlaps it,
    a ``wrong_type`` when only predictions of other labels overlap it, else ``missed``.
    A false positive is ``boundary``/``wrong_type`` likewise against gold, else ``spurious``.
    """

    fn_boundary: int = 0
    fn_wrong_type: int = 0
    fn_missed: int = 0
    fp_boundary: int = 0
    fp_wrong_type: int = 0
    fp_spurious: int = 0


class SpanError(FrozenModel):
    """One unmatched span: a gold span missed (``fn``) or a prediction unmatched (``fp``)."""

    side: Literal["fn", "fp"]
    label: str
    start: int
    end: int
    kind: str
    other_labels: tuple[str, ...] = ()


class WorklistItem(FrozenModel):
    """A missed gold span for review. ``value`` is filled only when values were asked for."""

    document: int
    document_id: str | None
    label: str
    start: int
    end: int
    kind: MissKind
    context: str
    value: str | None = None


class EvaluationResult(FrozenModel):
    """Everything the scorer measured on one gold/prediction pairing."""

    schema_version: Literal[1] = 1
    taxonomy_version: str
    documents: int = Field(ge=0)
    per_label: dict[str, Scores]
    micro: Scores
    macro: MacroScores
    overlap: LevelScores
    token: LevelScores
    char: LevelScores
    leakage: Leakage
    errors: dict[str, ErrorBreakdown]
    confusions: dict[str, dict[str, int]] = Field(
        description="gold label -> predicted label -> count of wrong-type overlaps"
    )
    dropped_gold: dict[str, int]
    dropped_pred: dict[str, int]
    worklist: tuple[WorklistItem, ...]
    values_shown: bool = False


# -- matching -------------------------------------------------------------------------------


def document_errors(gold: Document, pred: Document) -> list[SpanError]:
    """Classify every unmatched span of one document pair (exact-span matching)."""
    gold_spans = _unique(gold.spans)
    pred_spans = _unique(pred.spans)
    gold_keys = {s.key for s in gold_spans}
    pred_keys = {s.key for s in pred_spans}
    found: list[SpanError] = []
    for side, own, others, other_keys in (
        ("fn", gold_spans, pred_spans, pred_keys),
        ("fp", pred_spans, gold_spans, gold_keys),
    ):
        for span in own:
            if span.key in other_keys:
                continue
            touching = [o for o in others if o.overlaps(span)]
            if any(o.label == span.label for o in touching):
                kind = "boundary"
            elif touching:
                kind = "wrong_type"
            else:
                kind = "missed" if side == "fn" else "spurious"
            other_labels = tuple(sorted({o.label for o in touching if o.label != span.label}))
            found.append(
                SpanError(
                    side=side,
                    label=span.label,
                    start=span.start,
                    end=span.end,
                    kind=kind,
                    other_labels=other_labels,
                )
            )
    return found


def overlap_matches(gold: Iterable[Span], pred: Iterable[Span]) -> dict[str, Counter[str]]:
    """Per label: gold spans overlapped by a same-label prediction, and the converse.

    Returns ``found``/``gold`` (for recall) and ``right``/``pred`` (for precision) counts.
    Each span asks the other side's spans of its label, sorted by start with a running
    maximum of their ends, whether one starts before it ends and ends after it starts: a
    binary search per span, so a document with thousands of spans stays cheap.
    """
    gold_spans, pred_spans = _unique(gold), _unique(pred)
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for side, own, others in (("gold", gold_spans, pred_spans), ("pred", pred_spans, gold_spans)):
        hit = "found" if side == "gold" else "right"
        index = _overlap_index(others)
        for span in own:
            counts[span.label][side] += 1
            starts, max_ends = index.get(span.label, ([], []))
            before = bisect_left(starts, span.end)  # others that start before this one ends
            if before and max_ends[before - 1] > span.start:
                counts[span.label][hit] += 1
    return counts


def _overlap_index(spans: Iterable[Span]) -> dict[str, tuple[list[int], list[int]]]:
    """Per label: the spans' starts in order, and the largest end among the first k."""
    by_label: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for span in spans:
        by_label[span.label].append((span.start, span.end))
    index = {}
    for label, bounds in by_label.items():
        bounds.sort()
        max_ends, running = [], -1
        for _, end in bounds:
            running = max(running, end)
            max_ends.append(running)
        index[label] = ([start for start, _ in bounds], max_ends)
    return index


def _overlap_scores(counts: Counter[str]) -> Scores:
    precision = _ratio(counts["right"], counts["pred"])
    recall = _ratio(counts["found"], counts["gold"])
    return Scores(
        tp=counts["found"],
        fp=counts["pred"] - counts["right"],
        fn=counts["gold"] - counts["found"],
        precision=precision,
        recall=recall,
        f1=f_beta(precision, recall, 1.0),
        f2=f_beta(precision, recall, 2.0),
    )


def _overlap_level(counts: Mapping[str, Counter[str]]) -> LevelScores:
    total: Counter[str] = Counter()
    for value in counts.values():
        total.update(value)
    return LevelScores(
        per_label={k: _overlap_scores(v) for k, v in sorted(counts.items())},
        micro=_overlap_scores(total),
    )


def leaked_share(
    gold: Sequence[Document], cover: Sequence[Iterable[tuple[int, int]]], label: str
) -> float:
    """The share of gold ``label`` characters that no interval of ``cover`` covers.

    ``cover`` holds, per document, every span a system would mask, whatever its type:
    a peer's place or date spans mask a name's characters as well as its person spans.
    """
    gold_chars = left = 0
    for doc, intervals in zip(gold, cover, strict=True):
        wanted = merged_intervals((s.start, s.end) for s in doc.spans if s.label == label)
        covered = merged_intervals(intervals)
        gold_chars += _length(wanted)
        left += _length(wanted) - _overlap(wanted, covered)
    return left / gold_chars if gold_chars else 0.0


def _unique(spans: Iterable[Span]) -> list[Span]:
    # Identical keys collapse: two copies of one detection are one TP, not two, so a detector
    # that reports a span twice gains nothing by it.
    seen: dict[tuple[int, int, str], Span] = {}
    for span in spans:
        seen.setdefault(span.key, span)
    return sorted(seen.values(), key=lambda s: s.key)


def whitespace_tokens(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _WHITESPACE_TOKEN.finditer(text)]


def _length(intervals: list[tuple[int, int]]) -> int:
    return sum(end - start for start, end in intervals)


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    """Characters in both of two merged, sorted interval lists (two-pointer walk)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        total += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def _token_hits(tokens: list[tuple[int, int]], spans: Iterable[Span]) -> dict[str, set[int]]:
    """Token indices each label's spans overlap (a token is credited on any overlap)."""
    ends = [end for _, end in tokens]
    hits: dict[str, set[int]] = defaultdict(set)
    for span in spans:
        index = bisect_right(ends, span.start)
        while index < len(tokens) and tokens[index][0] < span.end:
            hits[span.label].add(index)
            index += 1
    return hits


# -- masking --------------------------------------------------------------------------------


def masked_text(
    text: str,
    start: int,
    end: int,
    masks: Iterable[tuple[int, int, str]],
    *,
    target: tuple[int, int] | None = None,
) -> str:
    """``text[start:end]`` with every masked interval replaced by its type, as a shape.

    Overlapping masks merge into one placeholder. The placeholder holding ``target`` reads
    ``[[TYPE]]`` so a reviewer can tell the span under review from its neighbours
    (``[TYPE]``). Between the placeholders only the shape of the text is left
    (:func:`text_shape`: every letter ``x`` or ``X``, every digit ``d``): personal data that
    neither the gold nor a prediction marks would otherwise print as it is. Whitespace runs
    fold to one space so a context stays on one line.
    """
    clipped = sorted(
        (max(s, start), min(e, end), label) for s, e, label in masks if s < end and e > start
    )
    groups: list[list[Any]] = []
    for s, e, label in clipped:
        if groups and s < groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], e)
            groups[-1][2].add(label)
        else:
            groups.append([s, e, {label}])
    pieces: list[str] = []
    cursor = start
    for s, e, labels in groups:
        pieces.append(text_shape(text[cursor:s]))
        is_target = target is not None and s < target[1] and target[0] < e
        name = "|".join(sorted(labels))
        pieces.append(f"[[{name}]]" if is_target else f"[{name}]")
        cursor = e
    pieces.append(text_shape(text[cursor:end]))
    return " ".join("".join(pieces).split())


def text_shape(text: str) -> str:
    """``text`` with every letter as ``X`` (upper case) or ``x`` and every digit as ``d``.

    Any script's letters and digits count (``str.isalpha``, ``str.isnumeric``); punctuation,
    symbols and white space stay, so a reviewer still sees "xxxx: dd-dd, [[PERSON]]".
    """
    return "".join(
        ("X" if char.isupper() else "x") if char.isalpha() else "d" if char.isnumeric() else char
        for char in text
    )


def _worklist_item(
    index: int,
    gold: Document,
    pred: Document,
    error: SpanError,
    context_chars: int,
    show_values: bool,
) -> WorklistItem:
    lo = max(0, error.start - context_chars)
    hi = min(len(gold.text), error.end + context_chars)
    if show_values:
        context = " ".join(gold.text[lo:hi].split())
        value: str | None = gold.text[error.start : error.end]
    else:
        # Predictions are masked too: a spurious span is often PII the annotators missed.
        every: tuple[Span | DroppedSpan, ...] = (
            *gold.spans,
            *pred.spans,
            *gold.dropped_spans,
            *pred.dropped_spans,
        )
        masks = [(s.start, s.end, s.label) for s in every]
        context = masked_text(gold.text, lo, hi, masks, target=(error.start, error.end))
        value = None
    return WorklistItem(
        document=index,
        document_id=gold.id,
        label=error.label,
        start=error.start,
        end=error.end,
        kind=error.kind,  # type: ignore[arg-type]
        context=context,
        value=value,
    )


# -- the scorer -----------------------------------------------------------------------------


def evaluate(
    gold: Sequence[Document],
    pred: Sequence[Document],
    *,
    taxonomy: Taxonomy | None = None,
    tokenize: Tokenizer | None = None,
    context_chars: int = DEFAULT_CONTEXT_CHARS,
    show_values: bool = False,
) -> EvaluationResult:
    """Score predicted documents against gold documents, paired by position.

    Args:
        gold: The annotated documents.
        pred: The predictions, one per gold document, on identical text.
        taxonomy: Recorded by version in the result; the shipped one by default.
        tokenize: ``text -> [(start, end), ...]`` for token-level scores; whitespace tokens
            by default.
        context_chars: Characters of context each side of a worklist entry (0 for none).
        show_values: Put raw values and unmasked context in the worklist. Off by default:
            the result may be written to disk and shared.

    Raises:
        AlignmentError: the two sequences differ in length or in a document's text.
    """
    taxonomy = load_taxonomy(taxonomy)
    check_alignment(gold, pred)
    tokenize = tokenize or whitespace_tokens
    span_counts: dict[str, Counter[str]] = defaultdict(Counter)
    overlap_counts: dict[str, Counter[str]] = defaultdict(Counter)
    token_counts: dict[str, Counter[str]] = defaultdict(Counter)
    char_counts: dict[str, Counter[str]] = defaultdict(Counter)
    errors: dict[str, Counter[str]] = defaultdict(Counter)
    confusions: dict[str, Counter[str]] = defaultdict(Counter)
    leak_gold: Counter[str] = Counter()
    leak_left: Counter[str] = Counter()
    dropped_gold: Counter[str] = Counter()
    dropped_pred: Counter[str] = Counter()
    worklist: list[WorklistItem] = []

    for index, (g, p) in enumerate(zip(gold, pred, strict=True)):
        dropped_gold.update(g.dropped)
        dropped_pred.update(p.dropped)
        gold_keys = {s.key for s in g.spans}
        pred_keys = {s.key for s in p.spans}
        for _, _, label in gold_keys & pred_keys:
            span_counts[label]["tp"] += 1
        for error in document_errors(g, p):
            span_counts[error.label][error.side] += 1
            errors[error.label][f"{error.side}_{error.kind}"] += 1
            if error.side == "fn":
                for other in error.other_labels:
                    confusions[error.label][other] += 1
                worklist.append(_worklist_item(index, g, p, error, context_chars, show_values))

        for label, counts in overlap_matches(g.spans, p.spans).items():
            overlap_counts[label].update(counts)

        tokens = list(tokenize(g.text))
        gold_tokens = _token_hits(tokens, g.spans)
        pred_tokens = _token_hits(tokens, p.spans)
        for label in gold_tokens.keys() | pred_tokens.keys():
            gt, pt = gold_tokens.get(label, set()), pred_tokens.get(label, set())
            token_counts[label].update(tp=len(gt & pt), fp=len(pt - gt), fn=len(gt - pt))

        all_pred = merged_intervals((s.start, s.end) for s in p.spans)
        for label in {s.label for s in (*g.spans, *p.spans)}:
            gc = merged_intervals((s.start, s.end) for s in g.spans if s.label == label)
            pc = merged_intervals((s.start, s.end) for s in p.spans if s.label == label)
            both = _overlap(gc, pc)
            char_counts[label].update(tp=both, fp=_length(pc) - both, fn=_length(gc) - both)
            if gc:
                leak_gold[label] += _length(gc)
                leak_left[label] += _length(gc) - _overlap(gc, all_pred)
        all_gold = merged_intervals((s.start, s.end) for s in g.spans)
        leak_gold["__all__"] += _length(all_gold)
        leak_left["__all__"] += _length(all_gold) - _overlap(all_gold, all_pred)

    per_label = _level(span_counts)
    total_gold = leak_gold.pop("__all__", 0)
    total_left = leak_left.pop("__all__", 0)
    return EvaluationResult(
        taxonomy_version=taxonomy.version,
        documents=len(gold),
        per_label=per_label.per_label,
        micro=per_label.micro,
        macro=_macro(per_label.per_label),
        overlap=_overlap_level(overlap_counts),
        token=_level(token_counts),
        char=_level(char_counts),
        leakage=Leakage(
            gold_chars=total_gold,
            leaked_chars=total_left,
            rate=total_left / total_gold if total_gold else 0.0,
            per_label={k: leak_left[k] / n for k, n in sorted(leak_gold.items())},
        ),
        errors={k: ErrorBreakdown(**v) for k, v in sorted(errors.items())},
        confusions={k: dict(sorted(v.items())) for k, v in sorted(confusions.items())},
        dropped_gold=dict(sorted(dropped_gold.items())),
        dropped_pred=dict(sorted(dropped_pred.items())),
        worklist=tuple(worklist),
        values_shown=show_values,
    )


def _level(counts: Mapping[str, Counter[str]]) -> LevelScores:
    per_label = {
        label: Scores.from_counts(c["tp"], c["fp"], c["fn"]) for label, c in sorted(counts.items())
    }
    micro = Scores.from_counts(
        sum(s.tp for s in per_label.values()),
        sum(s.fp for s in per_label.values()),
        sum(s.fn for s in per_label.values()),
    )
    return LevelScores(per_label=per_label, micro=micro)


def _macro(per_label: Mapping[str, Scores]) -> MacroScores:
    n = len(per_label)
    if n == 0:
        return MacroScores(precision=1.0, recall=1.0, f1=0.0, f2=0.0, labels=0)
    return MacroScores(
        precision=sum(s.precision for s in per_label.values()) / n,
        recall=sum(s.recall for s in per_label.values()) / n,
        f1=sum(s.f1 for s in per_label.values()) / n,
        f2=sum(s.f2 for s in per_label.values()) / n,
        labels=n,
    )
