"""Mention propagation as pure logic: which strings are repeated, where, and with what."""

from __future__ import annotations

import logging
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_pii.core.hits import Hit
from spacy_pii.core.propagate import (
    MAX_STRINGS,
    PROPAGATED_DETECTOR,
    PropagationSettings,
    name_parts,
    propagate_mentions,
)
from spacy_pii.errors import ConfigError

ON = PropagationSettings(types=("PERSON", "USERNAME", "GOV_ID"))


def _hit(text: str, value: str, label: str = "PERSON", score: float | None = 0.95, nth=0) -> Hit:
    start = [m.start() for m in re.finditer(re.escape(value), text)][nth]
    kind = "model" if label in {"PERSON", "USERNAME"} else "rule"
    return Hit(start, start + len(value), label, score, "test", kind)


def _found(text: str, hits: list[Hit], settings: PropagationSettings = ON) -> list[tuple]:
    return [(text[h.start : h.end], h.label) for h in propagate_mentions(text, hits, settings)]


@pytest.mark.parametrize(
    ("text", "source", "label", "expected"),
    [
        pytest.param(
            "John Smith called. Later Mr. Smith wrote back.",
            "John Smith",
            "PERSON",
            [("Smith", "PERSON")],
            id="surname-after-title",
        ),
        pytest.param(
            "Dear Ada Lovelace, ... regards to Ada from Ada Lovelace.",
            "Ada Lovelace",
            "PERSON",
            [("Ada", "PERSON"), ("Ada Lovelace", "PERSON")],
            id="exact-repeat-wins-over-part",
        ),
        pytest.param(
            "login jsmith_42 failed; jsmith_42 locked",
            "jsmith_42",
            "USERNAME",
            [("jsmith_42", "USERNAME")],
            id="username-repeat",
        ),
        pytest.param(
            "SSN 123-45-6789 on file; confirm 123-45-6789 or 123-45-67890",
            "123-45-6789",
            "GOV_ID",
            [("123-45-6789", "GOV_ID")],
            id="id-repeat-not-prefix-of-longer-number",
        ),
        pytest.param(
            "Ann Lee joined. The Annual report, Joanna and Leeds.",
            "Ann Lee",
            "PERSON",
            [],
            id="no-match-inside-words",
        ),
        pytest.param(
            "Donald Ray ate at McDonald's with Donald.",
            "Donald Ray",
            "PERSON",
            [("Donald", "PERSON")],
            id="no-match-at-the-end-of-a-longer-word",
        ),
        pytest.param(
            "Michael Brown signed for Brown-Frederick Inc. and Ann-Marie Brown.",
            "Michael Brown",
            "PERSON",
            [("Brown", "PERSON")],
            id="no-match-inside-hyphenated-compounds",
        ),
        pytest.param(
            "Will Smith said: I will call, you will see.",
            "Will Smith",
            "PERSON",
            [],
            id="lower-case-common-word-not-a-name-part",
        ),
        pytest.param(
            "Dr Maria de la Cruz arrived. Dr Cruz and the Dr left; De facto, Maria stayed.",
            "Dr Maria de la Cruz",
            "PERSON",
            [("Cruz", "PERSON"), ("Maria", "PERSON")],
            id="titles-and-particles-are-not-parts",
        ),
        pytest.param(
            "Li Wu met Kim Lee. Li and Wu left.",
            "Li Wu",
            "PERSON",
            [],
            id="parts-shorter-than-min_part_chars",
        ),
    ],
)
def test_propagates_whole_word_mentions(text, source, label, expected):
    assert _found(text, [_hit(text, source, label)]) == expected


def test_propagated_hits_carry_source_score_kind_and_detector():
    text = "Grace Hopper wrote; Hopper replied."
    (hit,) = propagate_mentions(text, [_hit(text, "Grace Hopper", score=0.93)], ON)
    assert (hit.label, hit.score, hit.kind, hit.detector) == (
        "PERSON",
        0.93,
        "model",
        PROPAGATED_DETECTOR,
    )


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        pytest.param(0.49, [], id="below-min_score"),
        pytest.param(0.5, [("Hopper", "PERSON")], id="at-min_score"),
        pytest.param(None, [], id="unscored-never-qualifies"),
    ],
)
def test_only_confident_sources_are_propagated(score, expected):
    text = "Grace Hopper wrote; Hopper replied."
    assert _found(text, [_hit(text, "Grace Hopper", score=score)]) == expected


def test_types_outside_the_setting_are_not_propagated():
    text = "mail ada@example.com then ada@example.com"
    assert _found(text, [_hit(text, "ada@example.com", "EMAIL", 1.0)]) == []


def test_disabled_settings_do_nothing():
    text = "Grace Hopper wrote; Hopper replied; Grace Hopper again."
    assert propagate_mentions(text, [_hit(text, "Grace Hopper")], PropagationSettings()) == []


def test_names_written_once_build_no_pattern_and_a_repeated_one_still_does(monkeypatch):
    import spacy_pii.core.propagate as propagate

    built: list[list[tuple[str, bool]]] = []
    real_build = propagate.build_scan_pattern

    def counting_build(targets):
        built.append(list(targets))
        return real_build(targets)

    monkeypatch.setattr(propagate, "build_scan_pattern", counting_build)
    text = "Grace Hopper met Ada Lovelace."
    hits = [_hit(text, "Grace Hopper"), _hit(text, "Ada Lovelace")]
    assert propagate_mentions(text, hits, ON) == []
    assert built == []
    text = "Grace Hopper met Ada Lovelace; Hopper left."
    hits = [_hit(text, "Grace Hopper"), _hit(text, "Ada Lovelace")]
    assert _found(text, hits) == [("Hopper", "PERSON")]
    # Only the string written twice is a branch of the pattern.
    assert built == [[("Hopper", False)]]


def test_case_insensitive_option_matches_exact_strings_in_any_case():
    text = "Ada Lovelace posted. ada lovelace replied; ADA LOVELACE; lovelace alone."
    source = [_hit(text, "Ada Lovelace")]
    assert _found(text, source) == []
    loose = PropagationSettings(types=("PERSON",), case_insensitive=True)
    # The parts stay capitalised-only: "lovelace" alone is not found.
    assert _found(text, source, loose) == [
        ("ada lovelace", "PERSON"),
        ("ADA LOVELACE", "PERSON"),
    ]


def test_name_parts_can_be_turned_off():
    text = "Grace Hopper wrote; Hopper replied; Grace Hopper again."
    exact = PropagationSettings(types=("PERSON",), name_parts=False)
    assert _found(text, [_hit(text, "Grace Hopper")], exact) == [("Grace Hopper", "PERSON")]


def test_occurrences_covered_or_touched_by_any_hit_are_skipped():
    text = "Grace Hopper; mail hopper@x.org or Hopper Street 4; Hopper."
    hits = [
        _hit(text, "Grace Hopper"),
        _hit(text, "hopper@x.org", "EMAIL", 1.0),
        _hit(text, "Hopper Street 4", "ADDRESS", 0.8),
    ]
    found = propagate_mentions(text, hits, ON)
    assert [(h.start, h.end) for h in found] == [(text.rindex("Hopper"), len(text) - 1)]
    assert not any(f.overlaps(h) for f in found for h in hits)


def test_one_string_for_two_types_gives_one_hit_per_type_for_the_resolver():
    text = "@jordan says hi. Jordan Peel replied to jordan and to Jordan."
    hits = [_hit(text, "jordan", "USERNAME", 0.97), _hit(text, "Jordan Peel", "PERSON", 0.92)]
    loose = PropagationSettings(types=("PERSON", "USERNAME"), case_insensitive=True)
    found = _found(text, hits, loose)
    # "jordan" as USERNAME (any case) and as a PERSON part (capitalised only).
    assert found == [("jordan", "USERNAME"), ("Jordan", "PERSON"), ("Jordan", "USERNAME")]


def test_output_is_sorted_and_independent_of_input_order():
    text = "Ada Lovelace, @ada9 and 078-05-1120. Later Lovelace, ada9, 078-05-1120 and Ada."
    hits = [
        _hit(text, "Ada Lovelace"),
        _hit(text, "ada9", "USERNAME", 0.99),
        _hit(text, "078-05-1120", "GOV_ID", 1.0),
    ]
    expected = propagate_mentions(text, hits, ON)
    assert expected == sorted(expected, key=lambda h: (h.start, h.end, h.label, h.kind))
    assert [text[h.start : h.end] for h in expected] == ["Lovelace", "ada9", "078-05-1120", "Ada"]
    for seed in range(5):
        shuffled = hits[:]
        random.Random(seed).shuffle(shuffled)
        assert propagate_mentions(text, shuffled, ON) == expected


def test_the_highest_source_score_wins_for_a_shared_string():
    text = "Ada Byron; Ada King; later Ada."
    hits = [_hit(text, "Ada Byron", score=0.91), _hit(text, "Ada King", score=0.97)]
    (hit,) = propagate_mentions(text, hits, ON)
    assert (text[hit.start : hit.end], hit.score) == ("Ada", 0.97)


def test_more_than_max_strings_keeps_the_cap_and_logs_counts_only(caplog):
    names = [f"Name{i:03d}x" for i in range(MAX_STRINGS + 10)]
    text = " ".join(names) + " | " + " ".join(names)
    hits = [_hit(text, name, score=0.9 + (i % 10) / 100) for i, name in enumerate(names)]
    with caplog.at_level(logging.DEBUG, logger="spacy_pii.core.propagate"):
        found = propagate_mentions(text, hits, ON)
    kept = {text[h.start : h.end] for h in found}
    assert len(kept) == MAX_STRINGS
    assert caplog.records, "the cap must be reported"
    logged = " ".join(record.getMessage() for record in caplog.records)
    assert not any(name in logged for name in names)
    # The strings dropped are lowest-scoring ones (score 0.90: every tenth name).
    dropped = set(names) - kept
    assert len(dropped) == 10
    assert all(names.index(name) % 10 == 0 for name in dropped)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("John Smith", ["John", "Smith"], id="given-and-surname"),
        pytest.param("Smith", [], id="single-word-has-no-parts"),
        pytest.param("Mr. John O'Neil,", ["John", "O'Neil"], id="title-dropped-punct-stripped"),
        pytest.param("Ludwig van Beethoven", ["Ludwig", "Beethoven"], id="lower-particle"),
        pytest.param("Van Morrison Jr.", ["Morrison"], id="capital-particle-and-suffix"),
        pytest.param("ada lovelace", [], id="lower-case-parts-are-not-names"),
    ],
)
def test_name_parts(value, expected):
    assert name_parts(value, 3) == expected


@pytest.mark.parametrize(
    "config",
    [
        pytest.param({"types": ["PERSON"], "colour": "red"}, id="unknown-key"),
        pytest.param({"types": "PERSON"}, id="types-as-string"),
        pytest.param({"types": ["PERSON", "PERSON"]}, id="duplicate-type"),
        pytest.param({"min_score": 1.5}, id="min_score-above-1"),
        pytest.param({"min_score": "high"}, id="min_score-not-a-number"),
        pytest.param({"min_part_chars": 0}, id="min_part_chars-zero"),
        pytest.param({"name_parts": "yes"}, id="flag-not-bool"),
        pytest.param(["PERSON"], id="not-a-mapping"),
    ],
)
def test_bad_settings_raise_config_error(config):
    with pytest.raises(ConfigError):
        PropagationSettings.from_config(config)


def test_settings_round_trip_through_config():
    settings_ = PropagationSettings(types=("GOV_ID",), min_score=0.8, case_insensitive=True)
    assert PropagationSettings.from_config(settings_.to_config()) == settings_


# -- invariant ----------------------------------------------------------------------------

WORDS = [
    "John",
    "Smith",
    "john",
    "Smithers",
    "McSmith",
    "Ann",
    "ann",
    "Ann's",
    "ann's",
    "Annual",
    "Joanna",
    "will",
    "Will",
    "Mr.",
    "@jo_1",
    "jo_1",
    "xjo_1",
    "12-34",
    "1234",
    "Lee",
    "de",
    "O'Neil",
    "é",
]
SEPARATORS = [" ", ", ", "-", "\n", "'", ".", "_", ""]


@st.composite
def documents(draw):
    n = draw(st.integers(1, 25))
    words = draw(st.lists(st.sampled_from(WORDS), min_size=n, max_size=n))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=n, max_size=n))
    text, bounds = "", []
    for word, sep in zip(words, seps, strict=True):
        bounds.append((len(text), len(text) + len(word)))
        text += word + sep
    hits, used = [], set()
    for _ in range(draw(st.integers(0, 4))):
        first = draw(st.integers(0, n - 1))
        last = draw(st.integers(first, min(n - 1, first + 2)))
        start, end = bounds[first][0], bounds[last][1]
        if any(start < e and s < end for s, e in used):
            continue
        used.add((start, end))
        label = draw(st.sampled_from(["PERSON", "USERNAME", "GOV_ID", "EMAIL"]))
        score = draw(st.one_of(st.none(), st.floats(0.0, 1.0)))
        hits.append(Hit(start, end, label, score, "test", "model"))
    loose = draw(st.booleans())
    return text, hits, PropagationSettings(types=ON.types, case_insensitive=loose)


@settings(max_examples=300, deadline=None)
@given(documents())
def test_leaving_out_strings_written_once_changes_no_answer(case):
    import spacy_pii.core.propagate as propagate

    text, hits, config = case
    answer = propagate_mentions(text, hits, config)
    real_check = propagate._written_twice
    propagate._written_twice = lambda text, value: True
    try:
        assert propagate_mentions(text, hits, config) == answer
    finally:
        propagate._written_twice = real_check


def test_a_string_written_once_still_keeps_a_shorter_one_from_matching_inside_it():
    # "Ann's" is written once (inside its hit), yet the lower-case scan must still read the
    # prose "ann's" as one word, not find a lower-case "ann" in it: "Ann" at the line start
    # is then marked, as it was before strings written once were left out.
    text = "Mary Ann's bike. Ann Lee came. i saw ann's dog.\nAnn left."
    hits = [_hit(text, "Mary Ann's"), _hit(text, "Ann Lee")]
    found = propagate_mentions(text, hits, ON)
    assert [(h.start, text[h.start : h.end]) for h in found] == [(text.rindex("Ann"), "Ann")]


@settings(max_examples=200, deadline=None)
@given(documents())
def test_propagated_spans_are_whole_word_copies_of_sources(case):
    text, hits, config = case
    sources = [h for h in hits if h.label in config.types and (h.score or 0) >= config.min_score]
    allowed, allowed_folded = set(), set()
    for h in sources:
        value = text[h.start : h.end]
        allowed.add(value)
        allowed_folded.add(value.lower())
        allowed.update(value.split())  # a superset of the name parts
        allowed.update(w.strip(".,'") for w in value.split())
    found = propagate_mentions(text, hits, config)
    for f in found:
        value = text[f.start : f.end]
        assert value in allowed or (config.case_insensitive and value.lower() in allowed_folded)
        assert not (f.start > 0 and re.match(r"[\w-]", text[f.start - 1]))
        assert not (f.end < len(text) and re.match(r"[\w-]", text[f.end]))
        assert not any(f.overlaps(h) for h in hits)
        assert f.detector == PROPAGATED_DETECTOR
        assert any(s.label == f.label and s.score == f.score for s in sources)
    assert propagate_mentions(text, list(reversed(hits)), config) == found


def test_a_name_the_document_writes_as_a_word_is_not_marked_where_a_sentence_opens():
    text = (
        'Captain John Good came aboard. "Good night," he said. I wished good luck to Good.\n'
        "Good morning, all."
    )
    found = propagate_mentions(text, [_hit(text, "John Good")], ON)
    # Only the mid-sentence "to Good": each other "Good" opens a sentence or an utterance.
    mid_sentence = text.rindex("to Good") + len("to ")
    assert [(h.start, text[h.start : h.end]) for h in found] == [(mid_sentence, "Good")]


def test_a_name_never_written_in_lower_case_is_marked_at_a_sentence_start_too():
    text = "Ada Lovelace wrote first. Lovelace wrote again.\nLovelace signed."
    assert _found(text, [_hit(text, "Ada Lovelace")]) == [("Lovelace", "PERSON")] * 2


def test_a_lower_case_address_or_host_is_not_evidence_of_a_word():
    # "hopper" inside an e-mail address or a host name is not prose: "Hopper." still counts.
    text = "Grace Hopper wrote. Mail hopper@x.org or see hopper.example today. Hopper agreed."
    found = _found(text, [_hit(text, "Grace Hopper"), _hit(text, "hopper@x.org", "EMAIL", 1.0)])
    assert found == [("Hopper", "PERSON")]
