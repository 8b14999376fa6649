"""restore(): tolerant placeholders, invented tokens, secrets, the unknown scan, round trips."""

from __future__ import annotations

import json
import logging
import re
import time
from types import SimpleNamespace

import pytest
import spacy
from hypothesis import example, given, settings
from hypothesis import strategies as st
from spacy.language import Language
from standin import register_standin

from spacy_pii.core.hits import Hit
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.errors import InvalidInput, UnknownType
from spacy_pii.redaction import RestoreResult, redact, restore

PROMPT = "Email ada@example.com and card 4242424242424242."
PROMPT_SPANS = [(6, 21, "EMAIL"), (31, 47, "PAYMENT")]

# A stand-in for the real pipeline, so these tests do not wait on the detectors: blank
# English plus a component that writes doc.spans["pii"] from two regexes and a name list.
_STANDIN = re.compile(
    r"(?P<EMAIL>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)|(?P<PAYMENT>\b\d{16}\b)"
    r"|(?P<PERSON>\b(?:Ada Lovelace|Grace Hopper)\b)"
)


register_standin("test_restore_standin_pii", _STANDIN)


@pytest.fixture(scope="module")
def standin_nlp() -> Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("test_restore_standin_pii")
    return nlp


@pytest.fixture(scope="module")
def vault() -> dict[str, str]:
    masked, vault = redact(PROMPT, PROMPT_SPANS)
    assert masked == "Email <EMAIL_1> and card <PAYMENT_1>."
    return vault


def test_seed_restore_example(vault: dict[str, str]) -> None:
    answer = restore("I sent a note to <email_1> about <PAYMENT_1>.", vault)
    assert answer.text == "I sent a note to ada@example.com about 4242424242424242."
    assert answer.resolved == ("<EMAIL_1>", "<PAYMENT_1>")
    assert answer.unresolved == () and answer.unknown == ()
    assert answer.ok is True


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("<EMAIL_1>", id="exact"),
        pytest.param("<email_1>", id="lower-cased"),
        pytest.param("<Email_1>", id="title-cased"),
        pytest.param("< EMAIL 1 >", id="spaced"),
        pytest.param("<email 1>", id="space-for-underscore"),
        pytest.param("<  email_ 1>", id="extra-spaces"),
    ],
)
def test_tolerant_placeholders_resolve(vault: dict[str, str], token: str) -> None:
    answer = restore(f"to {token}.", vault)
    assert answer.text == "to ada@example.com."
    assert answer.resolved == ("<EMAIL_1>",)
    assert answer.ok


def test_multi_word_types_and_leaf_indices_resolve() -> None:
    vault = {"<IP_ADDRESS_1>": "10.0.0.1", "<DATE_OF_BIRTH_2_3>": "1985-03-14"}
    answer = restore("<ip address 1> / < date of birth 2 3 >", vault)
    assert answer.text == "10.0.0.1 / 1985-03-14"
    assert answer.ok


def test_invented_placeholder_is_reported_and_left_in_place(vault: dict[str, str]) -> None:
    answer = restore("Ask <PERSON_9> and < email 7 > about <EMAIL_1>.", vault)
    assert answer.text == "Ask <PERSON_9> and < email 7 > about ada@example.com."
    assert answer.unresolved == ("<PERSON_9>", "< email 7 >")
    assert answer.ok is False


@pytest.mark.parametrize("token", ["<SECRET>", "<secret>", "< Secret >"])
def test_secret_always_comes_back_unresolved(token: str) -> None:
    # Even a vault that (wrongly) holds a secret does not write it back.
    answer = restore(f"The password is {token}.", {"<SECRET>": "hunter2", "<SECRET_1>": "x"})
    assert answer.text == f"The password is {token}."
    assert answer.unresolved == (token,)
    assert not answer.ok


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Use <b>bold</b> and a <br> here.", id="html"),
        pytest.param("Do <step 1> then <Ada Lovelace 2>.", id="not-a-taxonomy-type"),
        pytest.param("Compare 3 < 4 and 5 > 2.", id="comparison"),
        pytest.param("Token <EMAIL_h:1a2b3c4d5e6f7a8b> is a hash.", id="hash-token"),
    ],
)
def test_other_angle_brackets_are_neither_touched_nor_reported(text: str) -> None:
    answer = restore(text, {"<EMAIL_1>": "ada@example.com"})
    assert answer.text == text
    assert answer.unresolved == () and answer.ok


def test_restored_values_are_not_scanned_again() -> None:
    vault = {"<EMAIL_1>": "<EMAIL_2>", "<EMAIL_2>": r"x\1y"}
    assert restore("<EMAIL_1> <EMAIL_2>", vault).text == r"<EMAIL_2> x\1y"


def test_restore_refuses_non_text() -> None:
    with pytest.raises(InvalidInput, match="got NoneType"):
        restore(None, {})  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="vault"):
        restore("x", [("<EMAIL_1>", "a")])  # type: ignore[arg-type]


# -- the unknown scan ----------------------------------------------------------------------


def test_unknown_catches_pii_the_vault_never_held(
    vault: dict[str, str], standin_nlp: Language
) -> None:
    text = "Also grace@example.com wrote in."
    answer = restore(text, vault, nlp=standin_nlp)
    assert [(span.type, span.text) for span in answer.unknown] == [("EMAIL", "grace@example.com")]
    (span,) = answer.unknown
    assert text[span.start : span.end] == span.text
    assert answer.ok is False


def test_unknown_ignores_values_the_vault_holds(
    vault: dict[str, str], standin_nlp: Language
) -> None:
    answer = restore("Sent to <EMAIL_1>, cc ada@example.com.", vault, nlp=standin_nlp)
    assert answer.text == "Sent to ada@example.com, cc ada@example.com."
    assert answer.unknown == ()
    assert answer.ok


def test_unknown_scan_can_be_limited_by_type(vault: dict[str, str], standin_nlp: Language) -> None:
    text = "Grace Hopper wrote from grace@example.com."
    assert {span.type for span in restore(text, vault, nlp=standin_nlp).unknown} == {
        "PERSON",
        "EMAIL",
    }
    limited = restore(text, vault, nlp=standin_nlp, types=["PERSON"])
    assert [span.type for span in limited.unknown] == ["PERSON"]
    with pytest.raises(UnknownType):
        restore(text, vault, nlp=standin_nlp, types=["NOT_A_TYPE"])


def test_spans_on_placeholders_are_not_unknown() -> None:
    # A confused model may tag its own placeholder as a name: that is the mask, not a leak.
    def tagging_nlp(text: str) -> SimpleNamespace:
        hits = [
            Hit(m.start(), m.end(), "PERSON", 0.9, "stub") for m in re.finditer("<[^>]+>", text)
        ]
        return SimpleNamespace(text=text, spans={"pii": hits})

    answer = restore("Ask <PERSON_1>.", {"<PERSON_1>": "Ada"}, nlp=tagging_nlp)
    assert answer.unknown == () and answer.text == "Ask Ada."


def test_a_span_overlapping_any_of_many_placeholders_is_not_unknown() -> None:
    # Spans that end inside, start inside or cover a placeholder are the mask; one between
    # two placeholders is a leak.
    text = " ".join(f"<PERSON_{i}> met" for i in range(1, 200)) + " Grace"

    def tagging_nlp(text: str) -> SimpleNamespace:
        hits = [Hit(m.start() - 1, m.start() + 3, "PERSON", 0.9, "stub")
                for m in re.finditer("<PERSON", text) if m.start()]  # fmt: skip
        hits += [Hit(m.start() + 5, m.end() + 2, "PERSON", 0.9, "stub")
                 for m in re.finditer("<PERSON_[0-9]+>", text)]  # fmt: skip
        last = text.rindex("Grace")
        hits.append(Hit(last, last + 5, "PERSON", 0.9, "stub"))
        return SimpleNamespace(text=text, spans={"pii": sorted(hits, key=lambda h: h.start)})

    vault = {f"<PERSON_{i}>": f"Name{i}" for i in range(1, 200)}
    answer = restore(text, vault, nlp=tagging_nlp)
    assert [span.text for span in answer.unknown] == ["Grace"]


def test_result_repr_and_dict_hold_no_value(
    vault: dict[str, str], standin_nlp: Language, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    answer = restore("To <EMAIL_1>, also grace@example.com.", vault, nlp=standin_nlp)
    assert "ada@example.com" in answer.text and answer.unknown
    exposed = [
        repr(answer),
        json.dumps(answer.to_dict()),
        *(repr(span) for span in answer.unknown),
        *(record.getMessage() for record in caplog.records),
    ]
    assert caplog.records
    for value in ("ada@example.com", "grace@example.com", "4242424242424242"):
        assert all(value not in item for item in exposed)
    assert isinstance(answer, RestoreResult)


def test_ok_cannot_be_set_by_hand() -> None:
    with pytest.raises(TypeError):
        RestoreResult("x", (), ("<PERSON_9>",), (), ok=True)  # type: ignore[call-arg]


def test_seed_flow_against_the_rules_pipeline(rules_nlp: Language) -> None:
    """Integration: the real rule lane masks the prompt and scans the answer."""
    doc = rules_nlp(PROMPT)
    masked, vault = redact(doc)
    assert masked == "Email <EMAIL_1> and card <PAYMENT_1>."
    answer = restore("Sent <email_1>; also grace@example.com.", vault, nlp=rules_nlp)
    assert answer.text == "Sent ada@example.com; also grace@example.com."
    assert [(span.type, span.text) for span in answer.unknown] == [("EMAIL", "grace@example.com")]
    assert not answer.ok


# -- the round trip ------------------------------------------------------------------------

REVERSIBLE = [name for name, spec in load_taxonomy().types.items() if spec.mask == "reversible"]
# Characters that make placeholder-shaped text likely, so the property meets it often.
ALPHABET = st.sampled_from([*"<>_ email EMAIL PHONE 0123 \n\tµé", "<EMAIL_1>", "<phone 2>"])


@st.composite
def text_and_spans(draw: st.DrawFn) -> tuple[str, list[tuple[int, int, str]]]:
    text = "".join(draw(st.lists(st.one_of(ALPHABET, st.characters()), max_size=60)))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=12)))
    spans = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if start < end:
            # Half the labels match the placeholder-shaped literals in ALPHABET.
            label = st.one_of(st.sampled_from(["EMAIL", "PHONE"]), st.sampled_from(REVERSIBLE))
            spans.append((start, end, draw(label)))
    return text, spans


@settings(max_examples=300, deadline=None)
@given(text_and_spans())
@example(("<EMAIL_1> ada", [(10, 13, "EMAIL")]))
@example(("<phone 1> <PHONE_2> 555", [(20, 23, "PHONE")]))
def test_restore_inverts_redact(case: tuple[str, list[tuple[int, int, str]]]) -> None:
    """For any text and non-overlapping, non-secret spans, restore(redact(x)) == x.

    Text that already holds a placeholder-shaped token (``<EMAIL_1>``, ``<phone 2>``) is
    handled by redact skipping that number, so the literal is left alone by restore.
    """
    text, spans = case
    masked, vault = redact(text, spans)
    answer = restore(masked, vault)
    assert answer.text == text
    assert set(answer.resolved) == set(vault)
    assert all(key in masked for key in vault)


def test_round_trip_with_a_secret_keeps_the_secret_out() -> None:
    text = "user ada pw hunter2"
    masked, vault = redact(text, [(5, 8, "USERNAME"), (12, 19, "SECRET")])
    answer = restore(masked, vault)
    assert answer.text == "user ada pw <SECRET>"
    assert answer.unresolved == ("<SECRET>",)


ADVERSARIAL = ["<" + "a " * 49_999, "<a_1_" * 20_000, "<" * 100_000, "<EMAIL_1" * 12_500]


@pytest.mark.parametrize("text", ADVERSARIAL, ids=lambda text: repr(text[:8]))
def test_placeholder_scan_is_linear(text: str) -> None:
    # A backtracking pattern would take minutes on 100,000 characters; these take
    # milliseconds. One CPU second of this process (which other jobs do not add to) is a
    # generous bound.
    started = time.process_time()
    restore(text, {"<EMAIL_1>": "x"})
    redact(text, [(0, 5, "EMAIL")])
    assert time.process_time() - started < 1.0


@pytest.mark.parametrize("value", [None, 42, b"ada@example.com", ["ada@example.com"]])
def test_restore_rejects_a_vault_value_that_is_not_a_string(value):
    with pytest.raises(InvalidInput, match="vault value for <EMAIL_1>"):
        restore("write to <EMAIL_1>", {"<EMAIL_1>": value})
