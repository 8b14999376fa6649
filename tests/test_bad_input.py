"""Bad input gets a typed error or a documented result, and no message repeats the input."""

from __future__ import annotations

import pytest

from spacy_pii.detectors import RuleSettings, build_detectors, find_hits, find_rule_hits
from spacy_pii.detectors.text import replace_lone_surrogates
from spacy_pii.errors import InputTooLarge, InvalidInput

SECRET_TEXT = "ada@example.com 4242424242424242"


@pytest.mark.parametrize("value", [None, b"ada@example.com", 42, ["ada@example.com"]])
def test_non_text_is_a_typed_error_naming_only_the_type(value):
    with pytest.raises(InvalidInput) as caught:
        find_rule_hits(value)
    assert "ada@example.com" not in str(caught.value)
    assert type(value).__name__ in str(caught.value)


def test_empty_text_has_no_spans():
    assert find_rule_hits("") == []


def test_length_limit_is_a_typed_error_with_lengths_only():
    with pytest.raises(InputTooLarge) as caught:
        find_hits(SECRET_TEXT, build_detectors(RuleSettings()), max_length=10)
    assert "example" not in str(caught.value)


def test_ten_megabyte_text_is_scanned_whole():
    # Documented result: the pure API has no length limit; every pattern is linear.
    head = "Note from ada@example.com about card 4242 4242 4242 4242. "
    text = head + "lorem ipsum dolor sit amet 12 " * 340_000
    assert len(text) > 10_000_000
    hits = find_rule_hits(text)
    assert [text[h.start : h.end] for h in hits] == ["ada@example.com", "4242 4242 4242 4242"]


def test_lone_surrogates_are_replaced_without_moving_offsets(rules_nlp):
    raw = "mail \ud800ada@example.com\udfff ok"
    cleaned = replace_lone_surrogates(raw)
    assert len(cleaned) == len(raw) and "\ufffd" in cleaned
    doc = rules_nlp(cleaned)
    (span,) = doc.spans["pii"]
    assert raw[span.start_char : span.end_char] == "ada@example.com"


def test_control_characters_keep_offsets_exact(rules_nlp):
    text = "\x00\x07mail:\x1bada@example.com\x7f, card\t4242424242424242\x0c"
    doc = rules_nlp(text)
    found = [(text[s.start_char : s.end_char], s.label_) for s in doc.spans["pii"]]
    assert found == [("ada@example.com", "EMAIL"), ("4242424242424242", "PAYMENT")]


def test_zero_width_characters_inside_a_value_stay_inside_the_span(rules_nlp):
    text = "card 4242\u200b4242\u200b4242\u200b4242."
    doc = rules_nlp(text)
    (span,) = doc.spans["pii"]
    assert span.text == "4242\u200b4242\u200b4242\u200b4242"


class _SpacedDetector:
    """A user's detector whose hits carry the whitespace around their values."""

    id = "user.spaced"

    def find(self, text):
        from spacy_pii.core.hits import Hit

        yield Hit(0, 7, "USERNAME", None, self.id)  # " alice "
        yield Hit(7, 10, "USERNAME", None, self.id)  # "\n \t": no value at all


def test_whitespace_at_a_hits_edges_is_trimmed_and_a_blank_hit_dropped(rules_nlp):
    text = " alice \n \tbob"
    hits = find_hits(text, [_SpacedDetector()], fold=False)
    assert [(h.start, h.end) for h in hits] == [(1, 6)]
    assert text[hits[0].start : hits[0].end] == "alice"
