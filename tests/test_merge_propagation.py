"""pii_merge with mention propagation: config, resolution against originals, serialization."""

from __future__ import annotations

import logging

import pytest
import spacy

from spacy_pii.adapters.span_groups import hits_to_group
from spacy_pii.core.hits import Hit
from spacy_pii.core.propagate import MAX_STRINGS, PropagationSettings
from spacy_pii.errors import ConfigError, UnknownType
from spacy_pii.pipeline.pii_merge import DEFAULT_MERGE_CONFIG


def _run(text: str, model_hits: list[Hit], rule_hits=(), config=None):
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config=config or {})
    doc = nlp.make_doc(text)
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", model_hits)
    doc.spans["pii_rules"] = hits_to_group(doc, "pii_rules", list(rule_hits))
    doc = merge(doc)
    group = doc.spans["pii"]
    return [
        (s.text, s.label_, score, detector)
        for s, score, detector in zip(
            group, group.attrs["scores"], group.attrs["detectors"], strict=True
        )
    ]


def _model(text: str, value: str, label: str = "PERSON", score: float = 0.95) -> Hit:
    start = text.index(value)
    return Hit(start, start + len(value), label, score, "ner", "model")


def test_default_config_is_visible_and_on():
    config = spacy.blank("en").add_pipe("pii_merge").propagation
    assert DEFAULT_MERGE_CONFIG["propagate"] == config.to_config()
    assert config.types == ("PERSON", "USERNAME", "GOV_ID")


def test_surname_found_later_gets_the_source_score():
    text = "John Smith called. Later Mr. Smith said he would call."
    assert _run(text, [_model(text, "John Smith", score=0.96)]) == [
        ("John Smith", "PERSON", 0.96, "ner"),
        ("Smith", "PERSON", 0.96, "propagated"),
    ]


def test_exact_repeat_found():
    text = "ticket by kim_r42; reassigned from kim_r42 to ops"
    found = _run(text, [_model(text, "kim_r42", "USERNAME", 0.97)])
    assert [(v, d) for v, _, _, d in found] == [("kim_r42", "ner"), ("kim_r42", "propagated")]


@pytest.mark.parametrize(
    "config",
    [
        pytest.param({"propagate": {"types": []}}, id="types-empty-disables"),
        pytest.param({"propagate": {"min_score": 0.99}}, id="source-below-min_score"),
        pytest.param({"thresholds": {"PERSON": 0.97}}, id="source-below-merge-threshold"),
        pytest.param({"types": ["EMAIL"]}, id="type-not-kept-by-merge"),
    ],
)
def test_no_propagation_when_off_or_source_not_confident(config):
    text = "John Smith called. Later Mr. Smith said he would call."
    found = _run(text, [_model(text, "John Smith", score=0.96)], config=config)
    assert all(detector != "propagated" for *_, detector in found)


def test_propagated_hits_never_override_an_overlapping_original():
    # Without the gap rule, a propagated "Ada Lovelace" (PERSON, rank 10, longer) would beat
    # the original USERNAME "Ada" (rank 10, shorter) in resolve(); and "Hopper" would cut
    # into the low-scoring address.
    text = "Ada Lovelace met Grace Hopper. Ada Lovelace lives at 4 Hopper Street."
    second = text.index("Ada Lovelace", 1)
    address = text.index("4 Hopper Street")
    originals = [
        _model(text, "Ada Lovelace", score=0.95),
        _model(text, "Grace Hopper", score=0.95),
        Hit(second, second + 3, "USERNAME", 0.91, "ner", "model"),
        Hit(address, address + 15, "ADDRESS", 0.55, "ner", "model"),
    ]
    assert _run(text, originals) == [
        ("Ada Lovelace", "PERSON", 0.95, "ner"),
        ("Grace Hopper", "PERSON", 0.95, "ner"),
        ("Ada", "USERNAME", 0.91, "ner"),
        ("Lovelace", "PERSON", 0.95, "propagated"),
        ("4 Hopper Street", "ADDRESS", 0.55, "ner"),
    ]


def test_overlapping_propagated_candidates_resolve_deterministically():
    # "Jordan" is both a PERSON part (0.92) and a case-insensitive USERNAME (0.97): the
    # resolver's order (same rank, same preferred kind, same length) picks the higher score.
    text = "user jordan wrote. Jordan Peel replied to Jordan."
    hits = [_model(text, "jordan", "USERNAME", 0.97), _model(text, "Jordan Peel", "PERSON", 0.92)]
    config = {"propagate": {"case_insensitive": True}}
    expected = [
        ("jordan", "USERNAME", 0.97, "ner"),
        ("Jordan Peel", "PERSON", 0.92, "ner"),
        ("Jordan", "USERNAME", 0.97, "propagated"),
    ]
    assert _run(text, hits, config=config) == expected
    assert _run(text, hits[::-1], config=config) == expected


def test_a_match_off_token_boundaries_is_skipped_not_an_error():
    # spaCy keeps "O'Smith" as one token, so its "Smith" cannot become a Span.
    text = "Jane Smith wrote to O'Smith and to Smith."
    assert _run(text, [_model(text, "Jane Smith")]) == [
        ("Jane Smith", "PERSON", 0.95, "ner"),
        ("Smith", "PERSON", 0.95, "propagated"),
    ]


def test_unscored_rule_hits_are_not_sources():
    text = "SSN 123-45-6789, again 123-45-6789"
    rule = Hit(4, 15, "GOV_ID", None, "rules.us_ssn", "rule")
    assert [d for *_, d in _run(text, [], [rule])] == ["rules.us_ssn"]


@pytest.mark.parametrize(
    ("propagate", "error"),
    [
        pytest.param({"types": ["SHOE_SIZE"]}, UnknownType, id="unknown-type"),
        pytest.param({"min_score": 1.5}, ConfigError, id="min_score-out-of-range"),
        pytest.param({"min_part_chars": 0}, ConfigError, id="min_part_chars-zero"),
        pytest.param({"colour": "red"}, ConfigError, id="unknown-key"),
    ],
)
def test_bad_propagation_settings_fail_at_add_pipe(propagate, error):
    with pytest.raises(error):
        spacy.blank("en").add_pipe("pii_merge", config={"propagate": propagate})


def test_wrong_propagate_type_is_rejected_by_spacy():
    from thinc.api import ConfigValidationError

    with pytest.raises(ConfigValidationError):
        spacy.blank("en").add_pipe("pii_merge", config={"propagate": "yes"})


def test_the_settings_live_in_the_config_and_an_override_on_load_takes_effect(tmp_path):
    custom = {
        "types": ["GOV_ID", "PERSON"],
        "min_score": 0.8,
        "name_parts": False,
        "min_part_chars": 4,
        "case_insensitive": True,
    }
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_merge", config={"propagate": custom})
    nlp.to_disk(tmp_path / "pipeline")
    # The component's folder holds data only; the settings are in config.cfg.
    assert not list((tmp_path / "pipeline" / "pii_merge").glob("cfg*"))
    loaded = spacy.load(tmp_path / "pipeline")
    assert loaded.get_pipe("pii_merge").propagation == PropagationSettings.from_config(custom)
    override = {"components": {"pii_merge": {"propagate": {"min_score": 0.3}}}}
    changed = spacy.load(tmp_path / "pipeline", config=override)
    assert changed.get_pipe("pii_merge").propagation.min_score == 0.3
    assert changed.get_pipe("pii_merge").propagation.types == ("GOV_ID", "PERSON")


def test_no_source_text_in_logs_or_errors(caplog):
    # Letters only: a PERSON word with a digit is no name to the merge.
    names = [f"Zyx{chr(97 + i // 26)}{chr(97 + i % 26)}q" for i in range(MAX_STRINGS + 4)]
    text = " ".join(names) + " . " + " ".join(names)
    hits = [_model(text, name, score=0.99) for name in names]
    with caplog.at_level(logging.DEBUG):
        found = _run(text, hits)
    assert sum(d == "propagated" for *_, d in found) == MAX_STRINGS
    assert caplog.records, "the cap is logged"
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert not any(name in logged for name in names)
    # A config error names the setting, not the value it was given.
    with pytest.raises(ConfigError) as info:
        PropagationSettings.from_config({"types": ["PERSON"], "min_score": names[1]})
    assert names[1] not in str(info.value)
