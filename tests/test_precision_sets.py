"""The precision sets: exact offsets, a stable held-out part, the same documents each build."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from spacy_pii.generator.precision import DOMAINS, precision_set, split_of

PRECISION_DIR = Path(__file__).resolve().parents[1] / "corpus" / "precision"


@pytest.mark.parametrize("domain", DOMAINS)
def test_documents_are_reproducible_and_spans_are_exact(domain):
    docs = precision_set(domain, 30, seed=3, negatives=["No acute distress."])
    assert docs == precision_set(domain, 30, seed=3, negatives=["No acute distress."])
    for doc in docs:
        for span in doc["spans"]:
            value = doc["text"][span["start"] : span["end"]]
            assert value and value == value.strip()
    assert {d["meta"]["split"] for d in docs} == {"tune", "held_out"}


def test_a_documents_split_depends_on_its_id_only():
    assert split_of("clinical", "clinical-0-0001") == split_of("clinical", "clinical-0-0001")
    shares = [split_of("legal", f"legal-0-{i:04d}") == "held_out" for i in range(1000)]
    assert 0.35 < sum(shares) / 1000 < 0.45


def test_unknown_domain_is_refused():
    with pytest.raises(ValueError):
        precision_set("poetry", 1, seed=0)


@pytest.mark.parametrize("domain", DOMAINS)
def test_committed_sets_hold_names_and_a_held_out_part(domain):
    lines = (PRECISION_DIR / f"{domain}.jsonl").read_text(encoding="utf-8").splitlines()
    docs = [json.loads(line) for line in lines]
    held = [d for d in docs if d["meta"]["split"] == "held_out"]
    assert len(held) >= 0.3 * len(docs)
    assert sum(s["label"] == "PERSON" for d in held for s in d["spans"]) >= 30


def test_web_held_out_part_names_no_shop_or_venue_of_the_tune_part():
    from spacy_pii.generator import precision_templates as templates

    docs = precision_set("web", 80, seed=1)
    tune_only = {
        *templates.WEB_SHOPS["tune"],
        *templates.WEB_BRANDS["tune"],
        *templates.WEB_HOTELS["tune"],
        *templates.WEB_VENUE_WORDS["tune"],
    }
    held = [d for d in docs if d["meta"]["split"] == "held_out"]
    orgs = [
        d["text"][s["start"] : s["end"]] for d in held for s in d["spans"] if s["label"] == "ORG"
    ]
    assert orgs
    assert not [o for o in orgs if any(word in o for word in tune_only)]


def test_every_mention_of_a_web_documents_shops_is_gold_org():
    for doc in precision_set("web", 40, seed=0):
        text = doc["text"]
        orgs = {(s["start"], s["end"]) for s in doc["spans"] if s["label"] == "ORG"}
        for value in {text[a:b] for a, b in orgs}:
            mentions = {m.span() for m in re.finditer(rf"(?<!\w){re.escape(value)}(?!\w)", text)}
            assert mentions <= orgs
