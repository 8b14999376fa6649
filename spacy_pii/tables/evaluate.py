"""Column decisions against the table suite's gold: recall, precision, per-type figures,
and cell-level recall of names under a name header.

A column is *flagged* when its decision is ``pii`` or ``maybe`` (a ``maybe`` goes to a
person, so it is caught); the strict figures count ``pii`` only. ``quasi`` gold columns
(places, postcodes, employers) are reported and left out of both figures.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..evaluation.gate import wilson_interval
from .detect import CellDetector
from .evidence import count_cells
from .headers import header_matcher
from .readers import open_table
from .sampling import cell_text, is_empty
from .scan import DEFAULT_SAMPLE, TableScan, scan_table

TableScanner = Callable[[Path], dict[str, tuple[str, str | None]]]


@dataclass
class SuiteScores:
    """Counts over the suite; :meth:`to_dict` adds the rates and their Wilson intervals."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    strict_tp: int = 0
    strict_fp: int = 0
    strict_fn: int = 0
    per_type: dict[str, dict[str, int]] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)
    false_alarms: list[str] = field(default_factory=list)
    quasi: dict[str, str] = field(default_factory=dict)
    name_cells: int = 0
    name_cells_found: int = 0

    def add(self, where: str, gold: dict[str, Any], decision: str, pii_type: str | None) -> None:
        if gold["gold"] == "quasi":
            self.quasi[where] = decision
            return
        flagged, strict = decision in ("pii", "maybe"), decision == "pii"
        if gold["gold"] == "pii":
            self.tp += flagged
            self.fn += not flagged
            self.strict_tp += strict
            self.strict_fn += not strict
            row = self.per_type.setdefault(gold["type"], {"columns": 0, "found": 0, "typed": 0})
            row["columns"] += 1
            row["found"] += flagged
            row["typed"] += flagged and pii_type == gold["type"]
            if not flagged:
                self.misses.append(where)
        else:
            self.fp += flagged
            self.strict_fp += strict
            if flagged:
                self.false_alarms.append(f"{where} ({decision})")

    def to_dict(self) -> dict[str, Any]:
        def rate(hits: int, total: int) -> dict[str, Any]:
            low, high = wilson_interval(hits, total)
            value = round(hits / total, 4) if total else None
            return {"value": value, "hits": hits, "of": total,
                    "interval": [round(low, 4), round(high, 4)]}  # fmt: skip

        return {
            "recall": rate(self.tp, self.tp + self.fn),
            "precision": rate(self.tp, self.tp + self.fp),
            "strict_recall": rate(self.strict_tp, self.strict_tp + self.strict_fn),
            "strict_precision": rate(self.strict_tp, self.strict_tp + self.strict_fp),
            "per_type": {
                name: {
                    **row,
                    "recall": round(row["found"] / row["columns"], 4),
                    "type_accuracy": round(row["typed"] / row["columns"], 4),
                }
                for name, row in sorted(self.per_type.items())
            },
            "name_cell_recall": rate(self.name_cells_found, self.name_cells),
            "misses": self.misses,
            "false_alarms": self.false_alarms,
            "quasi": self.quasi,
        }


def suite_tables(folder: str | Path) -> list[tuple[Path, dict[str, Any]]]:
    """``(table path, gold)`` for every ``*.gold.json`` in ``folder``, by name."""
    pairs = []
    for gold_path in sorted(Path(folder).glob("*.gold.json")):
        gold = json.loads(gold_path.read_text(encoding="utf-8"))
        stem = gold_path.name[: -len(".gold.json")]
        (table,) = [p for p in gold_path.parent.glob(f"{stem}.*") if p != gold_path]
        pairs.append((table, gold))
    return pairs


def name_cell_recall(path: Path, gold: dict[str, Any], detector: CellDetector) -> tuple[int, int]:
    """Cells counted as PERSON (detected, or fitting the name shape) in the gold PERSON
    columns under a name header, of all their non-empty cells (every cell, no sample)."""
    source = open_table(path)
    matcher = header_matcher()
    cues = {i: matcher.cue(name) for i, name in enumerate(source.columns)}
    wanted = {
        i: cue
        for i, cue in cues.items()
        if cue.type == "PERSON" and gold["columns"][source.columns[i]]["type"] == "PERSON"
    }
    shape = matcher.shapes["PERSON"]
    found = total = 0
    for batch in source.batches():
        for i, cue in wanted.items():
            texts = [cell_text(row[i]) for row in batch if not is_empty(row[i])]
            counts = count_cells(texts, detector(texts), cue, shape)
            found += counts.header_typed
            total += counts.cells
    return found, total


def evaluate_suite(
    folder: str | Path,
    detector: CellDetector,
    *,
    sample_size: int = DEFAULT_SAMPLE,
    seed: int = 0,
    name_cells: bool = True,
) -> tuple[SuiteScores, list[TableScan]]:
    """Scan every table of the suite and score the column decisions against its gold."""
    scores = SuiteScores()
    scans = []
    for path, gold in suite_tables(folder):
        scan = scan_table(path, detector, sample_size=sample_size, seed=seed)
        scans.append(scan)
        for column in scan.columns:
            scores.add(f"{path.name}:{column.name}", gold["columns"][column.name],
                       column.decision, column.pii_type)  # fmt: skip
        if name_cells:
            found, total = name_cell_recall(path, gold, detector)
            scores.name_cells_found += found
            scores.name_cells += total
    return scores, scans


def score_predictions(folder: str | Path, scanner: TableScanner) -> SuiteScores:
    """Score another system's column calls: ``scanner(path) -> {column: (decision, type)}``."""
    scores = SuiteScores()
    for path, gold in suite_tables(folder):
        calls = scanner(path)
        for name, spec in gold["columns"].items():
            decision, pii_type = calls.get(name, ("clean", None))
            scores.add(f"{path.name}:{name}", spec, decision, pii_type)
    return scores
