"""Users extend the rule lane with data: regex patterns, a deny-list, an allow-list, detectors.

Patterns and the deny-list reach ``pii_rules``, the allow-list ``pii_merge``, through
``initialize()`` from the ``[initialize.components]`` block; all survive ``to_disk`` and
``from_disk``. A pattern that could backtrack catastrophically is refused before it runs.
"""

from __future__ import annotations

import time

import pytest
import spacy
import srsly

from spacy_pii.core.hits import Hit
from spacy_pii.detectors.regex_safety import UnsafePattern, check_pattern
from spacy_pii.detectors.registry import detectors
from spacy_pii.errors import ConfigError, UnknownType

# An employee card number with a Luhn check digit: 7992739871 + 3 is Luhn-valid, + 4 is not.
PATTERN = {
    "id": "employee_card",
    "type": "GOV_ID",
    "pattern": r"(?<![A-Z0-9])EMP-[0-9]{11}(?![0-9])",
    "validator": "luhn",
}
DENY = [{"value": "Project Nightingale", "type": "ORG"}, {"value": "Zed Quux", "type": "PERSON"}]
TEXT = "EMP-79927398713 and EMP-79927398714 met Zed Quux about Project Nightingale."


def _spans(doc, key="pii"):
    group = doc.spans[key]
    return [
        (span.text, span.label_, score, detector)
        for span, score, detector in zip(
            group, group.attrs["scores"], group.attrs["detectors"], strict=True
        )
    ]


@pytest.fixture
def configured(tmp_path):
    """A pipeline initialised from files named in its [initialize.components] block."""
    srsly.write_jsonl(tmp_path / "patterns.jsonl", [PATTERN])
    srsly.write_json(tmp_path / "deny.json", DENY)
    srsly.write_json(tmp_path / "allow.json", ["support@example.com"])
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules")
    nlp.add_pipe("pii_merge", config={"types": ["GOV_ID", "EMAIL", "PERSON", "ORG"]})
    nlp.config["initialize"]["components"] = {
        "pii_rules": {
            "patterns": {
                "@readers": "srsly.read_jsonl.v1",
                "path": str(tmp_path / "patterns.jsonl"),
            },
            "deny_list": {"@readers": "srsly.read_json.v1", "path": str(tmp_path / "deny.json")},
        },
        "pii_merge": {
            "allow_list": {"@readers": "srsly.read_json.v1", "path": str(tmp_path / "allow.json")}
        },
    }
    nlp.initialize()
    return nlp


EXPECTED = [
    ("EMP-79927398713", "GOV_ID", 1.0, "patterns.employee_card"),
    ("Zed Quux", "PERSON", 1.0, "deny_list"),
    ("Project Nightingale", "ORG", 1.0, "deny_list"),
]


def test_a_validated_pattern_and_a_deny_list_arrive_through_initialize(configured):
    # The second card fails its Luhn check, so its pattern match is dropped.
    assert _spans(configured(TEXT)) == EXPECTED


def test_user_data_survives_to_disk_and_from_disk(configured, tmp_path):
    configured.to_disk(tmp_path / "saved")
    # The files are no longer needed: the data travels inside the pipeline.
    for name in ("patterns.jsonl", "deny.json", "allow.json"):
        (tmp_path / name).unlink()
    loaded = spacy.load(tmp_path / "saved")
    assert _spans(loaded(TEXT)) == EXPECTED
    assert loaded.get_pipe("pii_merge").allow_list == frozenset({"support@example.com"})
    clone = spacy.blank("en").from_config(configured.config)
    clone.from_bytes(configured.to_bytes())
    assert _spans(clone(TEXT)) == EXPECTED


def test_the_allow_list_suppresses_a_value_whatever_its_case(configured):
    doc = configured("Write to Support@Example.com or ada@example.com.")
    assert [s[0] for s in _spans(doc)] == ["ada@example.com"]


def test_a_pattern_without_a_validator_reports_no_score():
    nlp = spacy.blank("en")
    rules = nlp.add_pipe("pii_rules")
    rules.initialize(patterns=[{**PATTERN, "validator": None}])
    doc = nlp(TEXT)
    found = [(t, score) for t, label, score, _ in _spans(doc, "pii_rules") if label == "GOV_ID"]
    assert found == [("EMP-79927398713", None), ("EMP-79927398714", None)]


@pytest.mark.parametrize(
    "record, error, message",
    [
        ({**PATTERN, "type": "SHOE_SIZE"}, UnknownType, "SHOE_SIZE"),
        ({**PATTERN, "validator": "astrology"}, ConfigError, "no validator"),
        ({**PATTERN, "colour": "red"}, ConfigError, "colour"),
        ({**PATTERN, "pattern": "(unclosed"}, ConfigError, "does not compile"),
        ({**PATTERN, "pattern": r"(a+)+b"}, UnsafePattern, "nested unbounded"),
    ],
    ids=["unknown-type", "unknown-validator", "unknown-field", "bad-regex", "nested-repeat"],
)
def test_bad_patterns_are_refused_with_a_typed_error(record, error, message):
    rules = spacy.blank("en").add_pipe("pii_rules")
    with pytest.raises(error, match=message):
        rules.initialize(patterns=[record])


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a+)+b",  # nested: exponential
        r"(?:\w*,)*$",  # nested: exponential
        r"(a|a)*c",  # overlapping alternatives under a repeat: exponential
        r"\d+\d+x",  # adjacent overlapping repeats: quadratic
        r"\w+\s?\w+!",  # the same, with only an optional item between them
        r"[a-z]+@corp",  # search retries every start of a long run: quadratic (the trial)
    ],
)
def test_catastrophic_patterns_are_refused_quickly(pattern):
    began = time.process_time()
    with pytest.raises(UnsafePattern, match="backtrack"):
        check_pattern(pattern, "user")
    # The refusal itself must not hang on the pattern it refuses.
    assert time.process_time() - began < 5.0


@pytest.mark.parametrize(
    "pattern",
    [
        r"(?<![A-Z0-9])EMP-[0-9]{11}(?![0-9])",
        r"\b[A-Z]{2}[0-9]{6}\b",
        r"(?<![a-z])[a-z]+@corp",
        r"[a-z]{1,64}@corp",
        r"(?:ab|cd)+",
    ],
)
def test_linear_patterns_are_accepted(pattern):
    assert check_pattern(pattern, "user").pattern == pattern


class _TicketDetector:
    id = "test.ticket"
    types = frozenset({"USERNAME"})

    def find(self, text):
        start = text.find("TICKET-")
        if start >= 0:
            yield Hit(start, start + 11, "USERNAME", None, self.id)


def test_a_registered_detector_runs_by_name():
    detectors.register("test.ticket", func=_TicketDetector)
    try:
        nlp = spacy.blank("en")
        nlp.add_pipe("pii_rules", config={"detectors": ["test.ticket"]})
        doc = nlp("see TICKET-1234 now")
        assert _spans(doc, "pii_rules") == [("TICKET-1234", "USERNAME", None, "test.ticket")]
    finally:
        detectors.get_all().pop("test.ticket", None)


def test_an_unregistered_detector_is_a_config_error():
    with pytest.raises(ConfigError, match=r"no detector is registered as 'nobody\.home'"):
        spacy.blank("en").add_pipe("pii_rules", config={"detectors": ["nobody.home"]})
