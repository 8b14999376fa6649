"""redact(): placeholders, the vault, secrets, operators, guards and no leaks."""

from __future__ import annotations

import logging
import sys
from types import SimpleNamespace

import pytest
import spacy
from spacy.tokens import SpanGroup

from spacy_pii.core.hits import Hit
from spacy_pii.errors import (
    ConfigError,
    InvalidInput,
    OverlapError,
    SpanOffsetError,
    UnknownLabel,
    UnknownType,
)
from spacy_pii.redaction import MissingExtra, Operator, parse_operators, redact

SOURCE = (
    "Customer Ada Lovelace called from +852 5555 0101. "
    "Email ada@example.com. Card 4242424242424242. Order 48291."
)
SPANS = [(34, 48, "PHONE"), (56, 71, "EMAIL"), (78, 94, "PAYMENT")]
VALUES = ("+852 5555 0101", "ada@example.com", "4242424242424242")
KEY = b"test-key-one"


def test_spans_fixture_slices_the_values() -> None:
    assert tuple(SOURCE[s:e] for s, e, _ in SPANS) == VALUES


def test_seed_quickstart_masks_and_fills_the_vault() -> None:
    masked, vault = redact(SOURCE, SPANS)
    assert masked == (
        "Customer Ada Lovelace called from <PHONE_1>. "
        "Email <EMAIL_1>. Card <PAYMENT_1>. Order 48291."
    )
    assert vault == {
        "<PHONE_1>": "+852 5555 0101",
        "<EMAIL_1>": "ada@example.com",
        "<PAYMENT_1>": "4242424242424242",
    }


def test_numbering_is_left_to_right_per_type_whatever_the_span_order() -> None:
    text = "b@x.io a@x.io b@x.io 555"
    spans = [(14, 20, "EMAIL"), (7, 13, "EMAIL"), (0, 6, "EMAIL"), (21, 24, "PHONE")]
    masked, vault = redact(text, spans)
    assert masked == "<EMAIL_1> <EMAIL_2> <EMAIL_1> <PHONE_1>"
    assert vault == {"<EMAIL_1>": "b@x.io", "<EMAIL_2>": "a@x.io", "<PHONE_1>": "555"}


def test_same_text_of_another_type_gets_its_own_placeholder() -> None:
    masked, vault = redact("ada ada", [(0, 3, "PERSON"), (4, 7, "USERNAME")])
    assert masked == "<PERSON_1> <USERNAME_1>"
    assert set(vault) == {"<PERSON_1>", "<USERNAME_1>"}


def test_secret_is_irreversible_and_never_in_the_vault() -> None:
    text = "password=hunter2 mail ada@example.com token=abc123"
    spans = [(9, 16, "SECRET"), (22, 37, "EMAIL"), (44, 50, "SECRET")]
    masked, vault = redact(text, spans)
    assert masked == "password=<SECRET> mail <EMAIL_1> token=<SECRET>"
    assert vault == {"<EMAIL_1>": "ada@example.com"}
    assert "hunter2" not in str(vault) and "abc123" not in str(vault)


def test_default_operator_does_not_touch_secrets() -> None:
    masked, vault = redact(
        "pw hunter2 ada",
        [(3, 10, "SECRET"), (11, 14, "PERSON")],
        operators={"DEFAULT": "hash"},
        key=KEY,
    )
    assert masked.startswith("pw <SECRET> <PERSON_h:")
    assert vault == {}


def test_secret_accepts_no_reversible_or_keyed_operator() -> None:
    with pytest.raises(ConfigError, match="SECRET is irreversible"):
        redact("pw hunter2", [(3, 10, "SECRET")], operators={"SECRET": "hash"}, key=KEY)


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        pytest.param(Hit(6, 21, "EMAIL", None, "rules.email"), "<EMAIL_1>", id="hit"),
        pytest.param((6, 21, "EMAIL"), "<EMAIL_1>", id="tuple"),
        # A spaCy-like span: token indices in .start/.end must be ignored.
        pytest.param(
            SimpleNamespace(start=1, end=2, start_char=6, end_char=21, label_="EMAIL"),
            "<EMAIL_1>",
            id="span-like-char-offsets-win",
        ),
        pytest.param(SimpleNamespace(start=6, end=21, type="EMAIL"), "<EMAIL_1>", id="typed"),
        pytest.param((6, 21, "EMAIL_ADDRESS"), "<EMAIL_1>", id="presidio-label-folds"),
    ],
)
def test_accepted_span_shapes(span: object, expected: str) -> None:
    masked, _ = redact("Email ada@example.com now", [span])
    assert masked == f"Email {expected} now"


def test_explicitly_dropped_label_is_left_in_place() -> None:
    # The taxonomy drops DATE_TIME with a written reason; redact follows the taxonomy.
    masked, vault = redact("on 2024-01-01", [(3, 13, "DATE_TIME")])
    assert masked == "on 2024-01-01"
    assert vault == {}


def test_unknown_label_is_an_error_without_text() -> None:
    with pytest.raises(UnknownLabel) as info:
        redact("secret value", [(0, 6, "NOT_A_LABEL")])
    assert "secret" not in str(info.value).replace("NOT_A_LABEL", "")


@pytest.mark.parametrize(
    ("spans", "message"),
    [
        pytest.param([(0, 9, "EMAIL"), (5, 12, "PHONE")], "0:9 and 5:12", id="partial-overlap"),
        pytest.param([(0, 12, "EMAIL"), (2, 4, "PHONE")], "0:12 and 2:4", id="nested"),
        pytest.param([(0, 5, "EMAIL"), (0, 5, "EMAIL")], "0:5 and 0:5", id="duplicate"),
    ],
)
def test_overlap_is_refused_with_offsets_only(spans: list, message: str) -> None:
    text = "ada@x.io 5551234"
    with pytest.raises(OverlapError) as info:
        redact(text, spans)
    assert message in str(info.value)
    assert "ada" not in str(info.value) and "555" not in str(info.value)


def test_touching_spans_do_not_overlap() -> None:
    masked, _ = redact("ab", [(0, 1, "PERSON"), (1, 2, "PHONE")])
    assert masked == "<PERSON_1><PHONE_1>"


@pytest.mark.parametrize(
    "span",
    [
        pytest.param((3, 3, "EMAIL"), id="empty"),
        pytest.param((5, 3, "EMAIL"), id="reversed"),
        pytest.param((-1, 3, "EMAIL"), id="negative"),
        pytest.param((0, 99, "EMAIL"), id="past-end"),
        pytest.param((0.0, 3, "EMAIL"), id="float"),
        pytest.param((True, 3, "EMAIL"), id="bool"),
    ],
)
def test_bad_offsets_raise_span_offset_error(span: tuple) -> None:
    with pytest.raises(SpanOffsetError) as info:
        redact("ada@x.io", [span])
    assert "ada" not in str(info.value)


def test_source_must_be_text_or_doc() -> None:
    with pytest.raises(InvalidInput, match="got bytes"):
        redact(b"ada@x.io", [])
    with pytest.raises(InvalidInput, match="spans for a str source"):
        redact("ada@x.io")


def test_doc_source_reads_its_pii_span_group() -> None:
    nlp = spacy.blank("en")
    doc = nlp("Email ada@example.com now")
    doc.spans["pii"] = SpanGroup(doc, name="pii", spans=[doc.char_span(6, 21, label="EMAIL")])
    assert redact(doc) == ("Email <EMAIL_1> now", {"<EMAIL_1>": "ada@example.com"})
    doc.spans["other"] = SpanGroup(doc, name="other", spans=[])
    assert redact(doc, spans_key="other")[0] == doc.text


def test_doc_without_the_span_group_fails_closed() -> None:
    doc = spacy.blank("en")("Email ada@example.com now")
    with pytest.raises(ConfigError, match="no span group 'pii'"):
        redact(doc)


def test_placeholder_already_in_the_source_is_skipped() -> None:
    text = "literal <email 1> and ada@x.io"
    masked, vault = redact(text, [(22, 30, "EMAIL")])
    assert masked == "literal <email 1> and <EMAIL_2>"
    assert vault == {"<EMAIL_2>": "ada@x.io"}


# -- operators -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("operator", "value", "expected"),
    [
        pytest.param("partial", "4242424242424242", "************4242", id="pci-dss-last-four"),
        pytest.param("partial", "+852 5555 0101", "**********0101", id="phone-last-four"),
        pytest.param("partial", "12345", "***45", id="never-more-than-half"),
        pytest.param(
            {"operator": "partial", "keep": 2, "char": "#"},
            "555-0101",
            "######01",
            id="custom-keep-char",
        ),
        pytest.param({"operator": "partial", "keep": 0}, "abc", "***", id="keep-none"),
    ],
)
def test_partial_operator(operator: object, value: str, expected: str) -> None:
    masked, vault = redact(value, [(0, len(value), "PAYMENT")], operators={"PAYMENT": operator})
    assert masked == expected
    assert vault == {}


def hashed(value: str, key: bytes, type_name: str = "EMAIL", **op: object) -> str:
    operator = {"operator": "hash", **op} if op else "hash"
    return redact(value, [(0, len(value), type_name)], operators={type_name: operator}, key=key)[0]


def test_hash_is_keyed_stable_and_truncated() -> None:
    first = hashed("ada@example.com", KEY)
    assert first == hashed("ada@example.com", KEY)
    assert first != hashed("ada@example.com", b"another-key")
    assert first != hashed("grace@example.com", KEY)
    assert first != hashed("ada@example.com", KEY, "USERNAME").replace("USERNAME", "EMAIL")
    assert first.startswith("<EMAIL_h:") and first.endswith(">")
    assert len(first) == len("<EMAIL_h:>") + 16
    assert len(hashed("ada@example.com", KEY, length=32)) == len("<EMAIL_h:>") + 32


def test_hash_accepts_a_str_key_equal_to_its_bytes() -> None:
    assert hashed("ada@example.com", "k") == hashed("ada@example.com", b"k")


def test_hash_output_stays_out_of_the_vault() -> None:
    masked, vault = redact(SOURCE, SPANS, operators={"EMAIL": "hash"}, key=KEY)
    assert "<EMAIL_h:" in masked and "<PHONE_1>" in masked
    assert set(vault) == {"<PHONE_1>", "<PAYMENT_1>"}


@pytest.mark.parametrize("operator", ["hash", "fake", {"operator": "hash", "length": 8}])
def test_keyed_operators_require_a_key(operator: object) -> None:
    with pytest.raises(ConfigError, match="need a key"):
        redact(SOURCE, SPANS, operators={"EMAIL": operator})


@pytest.mark.parametrize("key", [b"", ""])
def test_empty_key_is_refused(key: object) -> None:
    with pytest.raises(ConfigError, match="key is empty"):
        redact(SOURCE, SPANS, operators={"EMAIL": "hash"}, key=key)


FAKE_CASES = [
    pytest.param("PERSON", "Ada Lovelace", id="person"),
    pytest.param("EMAIL", "ada@example.com", id="email"),
    pytest.param("PHONE", "+852 5555 0101", id="phone"),
    pytest.param("ADDRESS", "12 Baker Street, London", id="address"),
    pytest.param("PAYMENT", "4242424242424242", id="card"),
    pytest.param("PAYMENT", "GB82WEST12345698765432", id="iban"),
    pytest.param("IP_ADDRESS", "2001:db8::1", id="ipv6"),
    pytest.param("GOV_ID", "123-45-6789", id="gov-id"),
    pytest.param("DATE_OF_BIRTH", "1985-03-14", id="dob"),
]


def faked(type_name: str, value: str, key: bytes) -> str:
    return redact(value, [(0, len(value), type_name)], operators={type_name: "fake"}, key=key)[0]


@pytest.mark.parametrize(("type_name", "value"), FAKE_CASES)
def test_fake_is_deterministic_per_key_and_value(type_name: str, value: str) -> None:
    first = faked(type_name, value, KEY)
    assert first == faked(type_name, value, KEY)
    assert first != value
    assert "\n" not in first
    others = {faked(type_name, value, bytes([n])) for n in range(1, 6)}
    assert len(others | {first}) > 1


def test_fake_values_have_the_shape_of_their_type() -> None:
    assert "@" in faked("EMAIL", "ada@example.com", KEY)
    assert faked("PAYMENT", "GB82WEST12345698765432", KEY)[:2].isalpha()
    assert ":" in faked("IP_ADDRESS", "2001:db8::1", KEY)
    assert faked("DATE_OF_BIRTH", "1985-03-14", KEY)[4] == "-"


def test_fake_without_faker_raises_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faker", None)
    with pytest.raises(MissingExtra, match=r"spacy-pii\[fake\]"):
        faked("EMAIL", "ada@example.com", KEY)


@pytest.mark.parametrize(
    ("operators", "error", "message"),
    [
        pytest.param({"EMAIL": "rot13"}, ConfigError, "must be one of", id="unknown-operator"),
        pytest.param(
            {"EMAIL": {"operator": "partial", "mask": 3}},
            ConfigError,
            "unknown",
            id="unknown-setting",
        ),
        pytest.param(
            {"EMAIL": {"operator": "partial", "keep": -1}}, ConfigError, "keep", id="negative-keep"
        ),
        pytest.param(
            {"EMAIL": {"operator": "partial", "char": "**"}}, ConfigError, "char", id="long-char"
        ),
        pytest.param(
            {"EMAIL": {"operator": "hash", "length": 4}},
            ConfigError,
            "length",
            id="nist-800-107-min-32-bits",
        ),
        pytest.param({"EMAIL": 3}, ConfigError, "name or a mapping", id="not-a-spec"),
        pytest.param({"NOT_A_TYPE": "hash"}, UnknownType, "NOT_A_TYPE", id="unknown-type"),
        pytest.param(["EMAIL"], ConfigError, "mapping", id="not-a-mapping"),
    ],
)
def test_operator_config_is_validated(operators: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        parse_operators(operators)  # type: ignore[arg-type]


def test_parse_operators_normalises_names_and_mappings() -> None:
    parsed = parse_operators({"EMAIL": "hash", "DEFAULT": {"operator": "partial", "keep": 2}})
    assert parsed["EMAIL"] == Operator(name="hash")
    assert parsed["DEFAULT"].keep == 2
    assert parsed["EMAIL"].to_dict()["operator"] == "hash"


# -- no leaks ------------------------------------------------------------------------------


def test_nothing_logged_or_raised_carries_a_value(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    redact(SOURCE, SPANS)
    redact(SOURCE, SPANS, operators={"DEFAULT": "hash"}, key=KEY)
    messages = []
    for spans in ([(34, 60, "PHONE"), (56, 71, "EMAIL")], [(0, 999, "EMAIL")]):
        with pytest.raises((OverlapError, SpanOffsetError)) as info:
            redact(SOURCE, spans)
        messages.append(str(info.value))
    text = " ".join(messages) + " ".join(record.getMessage() for record in caplog.records)
    assert caplog.records, "redact logs its counts at DEBUG"
    for value in (*VALUES, "Lovelace", "48291", KEY.decode()):
        assert value not in text
