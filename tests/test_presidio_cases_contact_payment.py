"""The rule lane on Presidio's own recognizer unit-test strings, scored by exact span.

Source: ``corpus/external/presidio_analyzer_unit_tests.jsonl`` (microsoft/presidio,
``presidio-analyzer/tests/test_*.py``, MIT; see ``corpus/external/SOURCES.md``). Each
document annotates only the entities its Presidio test exercised (``meta.tested_entities``),
so a type is scored only on documents that tested a label folding to it, and only gold
spans with a tested label count.

The floors below are the measured figures rounded down a little (measured on this corpus
with this code; the exact counts are in :data:`MEASURED`). Run ``pytest -s`` for the table.

Every miss, and why the rule is right to miss it:

- IP_ADDRESS, "192.168.1.1.1" (1 FN, 1 doc): Presidio's gold takes "192.168.1.1" out of a
  five-part dotted number. We refuse an address inside a longer dotted number (a version
  string such as "10.0.0.1.2" looks the same), by design.
- PAYMENT, "945456787654" (1 FN): a US bank account number (Presidio's ``US_BANK_NUMBER``,
  folded to PAYMENT). An account number carries no check digit and no issuer range, so no
  standard decides it; the rule lane leaves it to a model.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.detectors import RuleSettings, find_rule_hits
from spacy_pii.errors import UnknownLabel

CORPUS = Path(__file__).parents[1] / "corpus" / "external" / "presidio_analyzer_unit_tests.jsonl"
TYPES = ("EMAIL", "PHONE", "PAYMENT", "IP_ADDRESS")

# The regions each Presidio phone recognizer under test was built for: the generic
# PhoneRecognizer's test fixture uses DEFAULT_SUPPORTED_REGIONS + ("JP", "CN"); the
# Philippine and Turkish recognizers are single-region.
PHONE_REGIONS = {
    "test_phone_recognizer.py": ("US", "GB", "DE", "FR", "IL", "IN", "CA", "BR", "JP", "CN"),
    "test_ph_mobile_number_recognizer.py": ("PH",),
    "test_tr_phone_number_recognizer.py": ("TR",),
}

# Measured on 2026-11-30: (tp, fp, fn) per type, and the floors asserted on them: the
# measured figure rounded down a little, so one new miss on a small type still fails.
MEASURED = {
    "EMAIL": (7, 0, 0),  # P 1.000, R 1.000
    "PHONE": (85, 0, 0),  # P 1.000, R 1.000
    "PAYMENT": (173, 0, 1),  # P 1.000, R 0.994
    "IP_ADDRESS": (85, 0, 1),  # P 1.000, R 0.988
}
FLOORS = {  # (precision, recall)
    "EMAIL": (0.95, 0.95),
    "PHONE": (0.98, 0.98),
    "PAYMENT": (0.98, 0.98),
    "IP_ADDRESS": (0.98, 0.97),
}


def _fold(taxonomy, label: str) -> str | None:
    # Labels of other Presidio recognizers (German ids, ...) are not ours to fold here.
    try:
        return taxonomy.fold(label)
    except UnknownLabel:
        return None


@pytest.fixture(scope="module")
def counts() -> dict[str, Counter]:
    taxonomy = load_taxonomy()
    totals: dict[str, Counter] = {name: Counter() for name in TYPES}
    with CORPUS.open(encoding="utf-8") as handle:
        docs = [json.loads(line) for line in handle]
    for doc in docs:
        tested = {label: _fold(taxonomy, label) for label in doc["meta"]["tested_entities"]}
        test_file = doc["meta"]["test_file"].rsplit("/", 1)[-1]
        for name in TYPES:
            labels = {label for label, folded in tested.items() if folded == name}
            if not labels:
                continue
            settings = RuleSettings(
                types=(name,),
                phone_regions=PHONE_REGIONS.get(test_file, RuleSettings().phone_regions),
            )
            gold = {(s["start"], s["end"]) for s in doc["spans"] if s["label"] in labels}
            found = {(h.start, h.end) for h in find_rule_hits(doc["text"], settings)}
            totals[name]["docs"] += 1
            totals[name]["tp"] += len(gold & found)
            totals[name]["fp"] += len(found - gold)
            totals[name]["fn"] += len(gold - found)
    return totals


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


@pytest.mark.parametrize("name", TYPES)
def test_precision_and_recall_floors(counts, name: str):
    c = counts[name]
    precision_floor, recall_floor = FLOORS[name]
    assert c["tp"] > 0, f"{name}: no true positive"
    assert _ratio(c["tp"], c["tp"] + c["fp"]) >= precision_floor
    assert _ratio(c["tp"], c["tp"] + c["fn"]) >= recall_floor


@pytest.mark.parametrize("name", TYPES)
def test_counts_match_the_measurement(counts, name: str):
    # A change in either direction is news: a new miss, or a fix that the docstring and
    # floors should record.
    c = counts[name]
    assert (c["tp"], c["fp"], c["fn"]) == MEASURED[name]
