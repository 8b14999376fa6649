"""Real-text corpora: folding to our conventions, fixed held-out parts, training pieces."""

from __future__ import annotations

from pathlib import Path

import pytest

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.generator.corpus import check_spans
from spacy_pii.generator.real_text import (
    REAL_TEXT_SOURCES,
    fold_real_doc,
    held_out_group,
    is_held_out,
    load_real_text,
    split_long,
)

EXTERNAL = Path(__file__).resolve().parents[1] / "corpus" / "external"
FOLD = load_taxonomy().fold
HAS_REAL = all(
    (EXTERNAL / f).exists() for pair in REAL_TEXT_SOURCES.values() for f in pair if f is not None
)
needs_real = pytest.mark.skipif(not HAS_REAL, reason="corpus/external lacks a real-text corpus")


def _doc(text: str, *spans: tuple[str, str]) -> dict:
    out = []
    for value, label in spans:
        start = text.index(value)
        out.append({"start": start, "end": start + len(value), "label": label})
    return {"text": text, "spans": out, "meta": {"doc_id": "x"}}


def _values(doc: dict) -> list[tuple[str, str]]:
    return [(doc["text"][s["start"] : s["end"]], s["label"]) for s in doc["spans"]]


@pytest.mark.parametrize(
    ("text", "span", "expected"),
    [
        ("and old Tom said", ("old Tom", "PROP_PER"), [("Tom", "PERSON")]),
        ("poor Mrs. Jellyby wept", ("poor Mrs. Jellyby", "PROP_PER"), [("Jellyby", "PERSON")]),
        ("then maria said", ("maria", "PER"), [("maria", "PERSON")]),
        ("ask Dr. Smith's clerk", ("Dr. Smith's", "PER"), [("Smith", "PERSON")]),
        ("thanks #JohnDoe for it", ("#JohnDoe", "PER"), [("JohnDoe", "PERSON")]),
        ("we met in Leeds", ("Leeds", "LOC"), []),
        ("the Ministry said", ("the Ministry", "organization"), [("the Ministry", "ORG")]),
    ],
    ids=["litbank-modifier", "modifier-and-title", "lower-case-name", "title-possessive",
         "hashtag", "place-dropped", "gum-organization"],
)  # fmt: skip
def test_fold_real_doc_applies_our_person_convention(text, span, expected):
    assert _values(fold_real_doc(_doc(text, span), FOLD, "test")) == expected


def test_a_labelled_mention_is_a_username_whoever_holds_it():
    doc = _doc(
        "RT @SportsCenter: Allen Iverson", ("@SportsCenter", "ORG"), ("Allen Iverson", "PER")
    )
    folded = fold_real_doc(doc, FOLD, "btc")
    assert _values(folded) == [("@SportsCenter", "USERNAME"), ("Allen Iverson", "PERSON")]
    assert folded["meta"]["source"] == "real/btc"


def test_held_out_keeps_the_pieces_of_one_novel_together():
    pieces = [f"1023_bleak_house#{n}" for n in range(12)]
    assert {held_out_group("litbank", p) for p in pieces} == {"1023_bleak_house"}
    assert len({is_held_out("litbank", p) for p in pieces}) == 1
    assert held_out_group("wikigold", "wikigold-doc001") == "wikigold-doc001"


def test_held_out_takes_about_a_fifth():
    ids = [f"wikigold-doc{n:03d}" for n in range(2000)]
    share = sum(is_held_out("wikigold", i) for i in ids) / len(ids)
    assert 0.17 < share < 0.23


def test_split_long_never_cuts_a_span_and_rebases_offsets():
    lines = [f"Line {n} mentions Ada Lovelace here." for n in range(200)]
    text = "\n".join(lines)
    spans = []
    start = 0
    for _line in lines:
        k = text.index("Ada Lovelace", start)
        spans.append({"start": k, "end": k + 12, "label": "PERSON"})
        start = k + 12
    pieces = split_long({"text": text, "spans": spans, "meta": {}}, limit=500)
    assert len(pieces) > 5
    assert "".join(p["text"] for p in pieces) == text
    assert sum(len(p["spans"]) for p in pieces) == len(spans)
    for piece in pieces:
        check_spans(piece)
        assert all(piece["text"][s["start"] : s["end"]] == "Ada Lovelace" for s in piece["spans"])


def test_split_long_does_not_cut_inside_a_multiline_name():
    text = ("x" * 30 + "\n") * 5 + "Mr. Tulkinghorn\nSmith" + ("\n" + "y" * 30) * 5
    start = text.index("Tulkinghorn")
    span = {"start": start, "end": start + len("Tulkinghorn\nSmith"), "label": "PERSON"}
    pieces = split_long({"text": text, "spans": [span], "meta": {}}, limit=20)
    (holder,) = [p for p in pieces if p["spans"]]
    (kept,) = holder["spans"]
    assert holder["text"][kept["start"] : kept["end"]] == "Tulkinghorn\nSmith"


@needs_real
def test_dev_and_train_parts_never_share_a_document():
    train = load_real_text(EXTERNAL, FOLD, split="train")
    dev = load_real_text(EXTERNAL, FOLD, split="dev")
    assert set(train) == set(dev) == set(REAL_TEXT_SOURCES)
    for source in REAL_TEXT_SOURCES:
        train_ids = {d["meta"].get("doc_id") for d in train[source]}
        dev_ids = {d["meta"].get("doc_id") for d in dev[source]}
        assert not (train_ids & dev_ids) - {None}
        assert dev[source], source
        for doc in dev[source]:
            check_spans(doc)
        if source in ("litbank", "wikigold"):
            groups = {held_out_group(source, i) for i in dev_ids}
            assert not groups & {held_out_group(source, i) for i in train_ids}


def test_load_real_text_rejects_an_unknown_split():
    with pytest.raises(ValueError, match="split"):
        load_real_text(EXTERNAL, FOLD, split="test")
