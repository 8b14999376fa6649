"""Recall and false positives of the rules pipeline on an adversarial suite.

The suite is a JSONL table (``tests/data/adversarial_suite.jsonl``): each row has a ``kind``
(the obfuscation or the look-alike family), a ``text``, and for a positive the ``label`` and
the ``value`` whose single occurrence in the text is the expected exact span; a negative
has ``label: null``, and every span predicted on it is a false positive. Run::

    python -m spacy_pii.benchmark.adversarial tests/data/adversarial_suite.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

# (start, end, label) spans predicted on one text.
Predict = Callable[[list[str]], list[list[tuple[int, int, str]]]]


@dataclass(frozen=True)
class Case:
    """One row of the suite."""

    kind: str
    text: str
    label: str | None
    value: str | None

    @property
    def span(self) -> tuple[int, int, str] | None:
        """The expected exact span of a positive; ``None`` for a negative."""
        if self.label is None or self.value is None:
            return None
        start = self.text.index(self.value)
        return start, start + len(self.value), self.label


@dataclass
class SuiteScore:
    """Per-label recall on the positives and false positives on the negatives."""

    positives: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    negatives: int = 0
    false_positives: Counter[str] = field(default_factory=Counter)
    missed: list[tuple[str, str]] = field(default_factory=list)  # (label, kind)

    def recall(self, label: str) -> float:
        return self.found[label] / self.positives[label] if self.positives[label] else 0.0

    def table(self) -> list[str]:
        lines = ["| type | positives | found | recall | FP on negatives |", "|---|---|---|---|---|"]
        labels = sorted(set(self.positives) | set(self.false_positives))
        for label in labels:
            lines.append(
                f"| {label} | {self.positives[label]} | {self.found[label]} | "
                f"{self.recall(label):.2f} | {self.false_positives[label]} |"
            )
        total_pos, total_found = sum(self.positives.values()), sum(self.found.values())
        lines.append(
            f"| all | {total_pos} | {total_found} | {total_found / max(total_pos, 1):.2f} | "
            f"{sum(self.false_positives.values())} (on {self.negatives} negatives) |"
        )
        return lines


def read_suite(path: str | Path) -> list[Case]:
    """The rows of a suite file, each checked to name its value exactly once."""
    cases = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        case = Case(row["kind"], row["text"], row.get("label"), row.get("value"))
        if case.value is not None and case.text.count(case.value) != 1:
            raise ValueError(f"suite line {number}: the value must occur exactly once")
        cases.append(case)
    return cases


def score_suite(cases: Iterable[Case], predict: Predict) -> SuiteScore:
    """Score ``predict`` on ``cases``: exact spans for positives, any span on a negative."""
    cases = list(cases)
    predictions = predict([case.text for case in cases])
    score = SuiteScore()
    for case, spans in zip(cases, predictions, strict=True):
        expected = case.span
        if expected is None:
            score.negatives += 1
            score.false_positives.update(label for _, _, label in spans)
            continue
        score.positives[expected[2]] += 1
        if expected in spans:
            score.found[expected[2]] += 1
        else:
            score.missed.append((expected[2], case.kind))
    return score


def pipeline_predict(nlp) -> Predict:
    """Predictions of a spaCy PII pipeline: ``doc.spans["pii"]``."""

    def predict(texts: list[str]) -> list[list[tuple[int, int, str]]]:
        return [
            [(span.start_char, span.end_char, span.label_) for span in doc.spans["pii"]]
            for doc in nlp.pipe(texts)
        ]

    return predict


def main(argv: list[str] | None = None) -> None:
    from ..assembly.build import load_pipeline

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--model", default="rules", help="rules, default, a name or path")
    parser.add_argument("--missed", action="store_true", help="list the kinds missed")
    args = parser.parse_args(argv)
    score = score_suite(read_suite(args.suite), pipeline_predict(load_pipeline(args.model)))
    print("\n".join(score.table()))
    if args.missed:
        for label, kind in sorted(Counter(score.missed).elements()):
            print(f"missed {label} {kind}")


if __name__ == "__main__":
    main()
