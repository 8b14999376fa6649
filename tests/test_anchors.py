"""The shared pre-scan: what it counts, what its cue gates let through, how find_hits uses it.

The gates' safety on real and generated texts (no hit lost) is tested with every other
prefilter in ``test_detector_prefilters.py``; this file pins the building blocks.
"""

from __future__ import annotations

import re

import pytest

from spacy_pii.core.hits import Hit
from spacy_pii.detectors import find_hits
from spacy_pii.detectors.anchors import Anchors, CueGate, forget, prescan


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("", 0),
        ("no digits here", 0),
        ("call 555-0123", 7),
        ("fullwidth ４２ and Arabic-Indic ٤٢ are not ASCII digits", 0),
    ],
)
def test_digits_counts_ascii_digits_only(text, digits):
    assert Anchors(text).digits == digits


def _cue_pattern(phrases):
    # The shape of the cue patterns the gates stand in for (gov_id, phone): whole words,
    # any case, spaces between a phrase's words.
    body = "|".join(r"[ \t]{1,3}".join(map(re.escape, p.split())) for p in phrases)
    return re.compile(rf"(?i)\b(?:{body})\b")


PHRASES = ("national id", "nino", "steuer-id", "fødselsnummer", "ssn")


@pytest.mark.parametrize(
    "text",
    [
        "National  ID: 12",
        "NINO AB123456C",
        "nino",
        "his Steuer-ID is",
        "FØDSELSNUMMER 0101",
        "ssn",
        "no cue in this text",
        "ninon and lassn",  # inside words: no match
        "n\u0130no",  # "İ" matches "i" under IGNORECASE, but lowers to "i̇"
        "\u017fsn",  # long s matches "s"
        "national_id",  # "_" is a word character: no boundary, no match
    ],
)
def test_cue_gate_lets_through_every_text_the_cue_pattern_matches(text):
    pattern = _cue_pattern(PHRASES)
    gate = CueGate(PHRASES)
    if pattern.search(text):
        assert gate.may_match(Anchors(text))


def test_cue_gate_turns_away_texts_without_a_cue_word():
    gate = CueGate(PHRASES)
    assert not gate.may_match(Anchors("ninon and lassn, nationally"))
    assert not gate.may_match(Anchors("a plain sentence"))


def test_cue_gate_refuses_an_empty_phrase():
    with pytest.raises(ValueError, match="at least one word"):
        CueGate(["  "])


def test_prescan_is_shared_for_one_text_and_forgotten_after():
    text = "Mail ada@example.com"
    first = prescan(text)
    assert prescan(text) is first
    forget()
    assert prescan(text) is not first
    forget()


class _Recorder:
    """A detector whose gate says no to texts without a digit, and that records its calls."""

    id = "test.recorder"
    types = frozenset({"PHONE"})

    def __init__(self) -> None:
        self.calls: list[str] = []

    def may_occur(self, anchors: Anchors) -> bool:
        return anchors.digits > 0

    def find(self, text: str) -> list[Hit]:
        self.calls.append(text)
        return [Hit(0, 1, "PHONE", None, self.id)]


def test_find_hits_runs_a_detector_only_where_its_gate_says_yes():
    recorder = _Recorder()
    assert find_hits("no digits", [recorder]) == []
    assert recorder.calls == []
    assert find_hits("1 digit", [recorder]) == [Hit(0, 1, "PHONE", None, "test.recorder")]
    assert recorder.calls == ["1 digit"]
