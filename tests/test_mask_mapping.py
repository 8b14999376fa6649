"""mask_mapping() / restore_mapping(): tool-call arguments, structure, paths, uniqueness."""

from __future__ import annotations

import json
import logging
import re
from collections import OrderedDict, namedtuple

import pytest
import spacy
from spacy.language import Language
from standin import register_standin

from spacy_pii.errors import InvalidInput
from spacy_pii.redaction import MaskResult, mask_mapping, restore_mapping

# Stand-in pipeline (see tests/test_restore.py): blank English + regex spans in "pii".
_STANDIN = re.compile(
    r"(?P<EMAIL>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)|(?P<PAYMENT>\b\d{16}\b)"
    r"|(?P<SECRET>(?<=password )\S+)"
)


register_standin("test_mask_mapping_standin_pii", _STANDIN)


@pytest.fixture(scope="module")
def nlp() -> Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("test_mask_mapping_standin_pii")
    return nlp


ARGS = {
    "customer": {"email": "ada@example.com"},
    "billing": {"email": "grace@example.com"},
    "note": "card 4242424242424242",
}
VALUES = ("ada@example.com", "grace@example.com", "4242424242424242")


def test_seed_tool_call_example(nlp: Language) -> None:
    masked = mask_mapping(ARGS, nlp)
    assert masked.value == {
        "customer": {"email": "<EMAIL_1_0>"},
        "billing": {"email": "<EMAIL_1_1>"},
        "note": "card <PAYMENT_1_2>",
    }
    assert [(hit.path, hit.types) for hit in masked.hits] == [
        ("customer.email", ("EMAIL",)),
        ("billing.email", ("EMAIL",)),
        ("note", ("PAYMENT",)),
    ]
    assert masked.vault == {
        "<EMAIL_1_0>": "ada@example.com",
        "<EMAIL_1_1>": "grace@example.com",
        "<PAYMENT_1_2>": "4242424242424242",
    }
    assert ARGS["customer"]["email"] == "ada@example.com", "the input is not modified"


def test_seed_inbound_example(nlp: Language) -> None:
    masked = mask_mapping(ARGS, nlp)
    answer = {"email": "<EMAIL_1_0>", "note": "also <PERSON_9>"}
    back = restore_mapping(answer, masked.vault, nlp=nlp)
    assert back.value == {"email": "ada@example.com", "note": "also <PERSON_9>"}
    assert back.resolved == ("<EMAIL_1_0>",)
    assert back.unresolved == ("<PERSON_9>",)
    assert back.ok is False


def test_round_trip_returns_every_value(nlp: Language) -> None:
    masked = mask_mapping(ARGS, nlp)
    back = restore_mapping(masked.value, masked.vault)
    assert back.value == ARGS
    assert back.ok


Point = namedtuple("Point", "label note")

NESTED = {
    "items": [
        {"email": "ada@example.com", "qty": 2, "price": 9.5, "gift": False, "memo": None},
        {"email": "ada@example.com", "tags": ("vip", "mail ada@example.com")},
    ],
    "meta": OrderedDict([("x.y", "grace@example.com"), ("n", 3)]),
    "point": Point("p", "grace@example.com"),
    7: ["card 4242424242424242"],
}


def test_structure_and_non_string_leaves_are_kept(nlp: Language) -> None:
    masked = mask_mapping(NESTED, nlp).value
    assert masked["items"][0]["qty"] == 2 and masked["items"][0]["price"] == 9.5
    assert masked["items"][0]["gift"] is False and masked["items"][0]["memo"] is None
    assert isinstance(masked["items"][1]["tags"], tuple)
    assert isinstance(masked["meta"], OrderedDict) and list(masked["meta"]) == ["x.y", "n"]
    assert isinstance(masked["point"], Point) and masked["point"].label == "p"
    assert list(masked) == list(NESTED)


def test_paths_name_keys_indices_and_odd_keys(nlp: Language) -> None:
    hits = mask_mapping(NESTED, nlp).hits
    assert [hit.path for hit in hits] == [
        "items[0].email",
        "items[1].email",
        "items[1].tags[1]",
        'meta["x.y"]',
        "point[1]",
        "[7][0]",
    ]


def test_top_level_list_and_string() -> None:
    def stub(text: str) -> object:
        return _doc_for(text)

    assert [hit.path for hit in mask_mapping(["x", "ada@example.com"], stub).hits] == ["[1]"]
    masked = mask_mapping("ada@example.com", stub)
    assert masked.value == "<EMAIL_1_0>" and masked.hits[0].path == ""


def _doc_for(text: str) -> object:
    from types import SimpleNamespace

    spans = [(m.start(), m.end(), "EMAIL") for m in re.finditer(r"\S+@\S+", text)]
    return SimpleNamespace(text=text, spans={"pii": spans})


def test_placeholders_are_unique_across_leaves(nlp: Language) -> None:
    masked = mask_mapping(NESTED, nlp)
    tokens = re.findall(r"<[A-Z_]+_\d+_\d+>", json.dumps(masked.value, default=list))
    assert len(tokens) == len(set(tokens)) == len(masked.vault) == 6
    back = restore_mapping(masked.value, masked.vault)
    assert back.value == NESTED


def test_literal_placeholder_in_another_leaf_is_not_reused(nlp: Language) -> None:
    args = {"a": "ada@example.com", "b": "see <email 1 0> in the docs"}
    masked = mask_mapping(args, nlp)
    assert masked.value["a"] == "<EMAIL_2_0>"
    assert restore_mapping(masked.value, masked.vault).value == args


def test_types_limit_what_is_masked(nlp: Language) -> None:
    masked = mask_mapping(ARGS, nlp, types=["PAYMENT"])
    assert masked.value["customer"]["email"] == "ada@example.com"
    assert masked.value["note"] == "card <PAYMENT_1_2>"


def test_secrets_in_a_tree_stay_irreversible(nlp: Language) -> None:
    masked = mask_mapping({"cmd": "login with password hunter2x"}, nlp)
    assert masked.value == {"cmd": "login with password <SECRET>"}
    assert masked.vault == {}
    back = restore_mapping(masked.value, masked.vault)
    assert back.unresolved == ("<SECRET>",) and not back.ok


def test_operators_apply_per_leaf(nlp: Language) -> None:
    masked = mask_mapping(ARGS, nlp, operators={"PAYMENT": "partial"})
    assert masked.value["note"] == "card ************4242"
    assert "<PAYMENT" not in json.dumps(masked.vault)


def test_restore_mapping_reports_unknown_with_paths(nlp: Language) -> None:
    masked = mask_mapping(ARGS, nlp)
    answer = {"reply": {"text": "sent to <EMAIL_1_0>, cc bob@example.org"}, "n": 1}
    back = restore_mapping(answer, masked.vault, nlp=nlp)
    assert back.value == {"reply": {"text": "sent to ada@example.com, cc bob@example.org"}, "n": 1}
    assert [(s.path, s.type, s.text) for s in back.unknown] == [
        ("reply.text", "EMAIL", "bob@example.org")
    ]
    assert "bob@example.org" not in repr(back) + json.dumps(back.to_dict())
    assert not back.ok


def test_to_dict_and_logs_are_safe(nlp: Language, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    masked = mask_mapping(ARGS, nlp)
    summary = json.dumps(masked.to_dict())
    assert json.loads(summary)["hits"][0] == {
        "path": "customer.email",
        "types": ["EMAIL"],
        "count": 1,
    }
    exposed = [summary, repr(masked), *(record.getMessage() for record in caplog.records)]
    assert caplog.records
    for value in VALUES:
        assert all(value not in item for item in exposed)
    assert isinstance(masked, MaskResult)


def test_cycles_are_refused() -> None:
    tree: dict = {"a": []}
    tree["a"].append(tree)
    with pytest.raises(InvalidInput, match="acyclic"):
        mask_mapping(tree, _doc_for)


def test_shared_subtrees_are_not_cycles() -> None:
    shared = {"email": "ada@example.com"}
    masked = mask_mapping({"a": shared, "b": shared}, _doc_for)
    assert masked.value == {"a": {"email": "<EMAIL_1_0>"}, "b": {"email": "<EMAIL_1_1>"}}


def test_json_escaped_payload_must_be_decoded_first(nlp: Language) -> None:
    # In raw JSON text the "@" is the escape \u0040: no detector sees an address there.
    raw = '{"email": "ada\\u0040example.com"}'
    assert "@" not in raw
    assert mask_mapping(raw, nlp).hits == ()
    decoded = json.loads(raw)
    masked = mask_mapping(decoded, nlp)
    assert masked.value == {"email": "<EMAIL_1_0>"}
    assert [hit.path for hit in masked.hits] == ["email"]


def test_a_pipeline_is_required() -> None:
    with pytest.raises(InvalidInput, match="a pipeline"):
        mask_mapping({"a": "ada@example.com"}, None)
