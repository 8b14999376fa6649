"""pii_peer_tagger: a tagger of names, organisations and places over token vectors."""

from __future__ import annotations

import pytest
import spacy
from tiny_peer_tagger import KEY, examples, trained_pipeline

from spacy_pii.core.entity_tags import tag_names
from spacy_pii.errors import ConfigError

EAGER = {"PERSON": 0.999, "ORG": 0.999, "LOCATION": 0.999}


def test_it_learns_entities_and_writes_them_to_its_span_group_only():
    nlp = trained_pipeline()
    tagger = nlp.get_pipe("pii_peer_tagger")
    assert list(tagger.labels) == tag_names(["PERSON", "ORG", "LOCATION"])
    doc = nlp("Anna Lee met Bob in Paris .")
    assert [(s.text, s.label_) for s in doc.spans[KEY]] == [
        ("Anna Lee", "PERSON"),
        ("Bob", "PERSON"),
        ("Paris", "LOCATION"),
    ]
    assert list(doc.ents) == []  # doc.ents belong to the user's own NER, if any
    assert nlp.evaluate(examples(nlp))[f"spans_{KEY}_f"] > 0.9


def test_a_higher_outside_threshold_proposes_more(tmp_path):
    nlp = trained_pipeline()
    nlp.to_disk(tmp_path / "p")
    eager = spacy.load(
        tmp_path / "p", config={"components": {"pii_peer_tagger": {"outside_thresholds": EAGER}}}
    )
    text = "Please ask Tom about the parcel in Springfield ."
    strict_doc, eager_doc = nlp(text), eager(text)
    strict_tokens = {i for span in strict_doc.spans[KEY] for i in range(span.start, span.end)}
    eager_tokens = {i for span in eager_doc.spans[KEY] for i in range(span.start, span.end)}
    assert strict_tokens < eager_tokens


def test_an_empty_doc_gets_an_empty_group():
    nlp = trained_pipeline(passes=1)
    docs = list(nlp.pipe(["", "Bob ."]))
    assert KEY in docs[0].spans and len(docs[0].spans[KEY]) == 0
    assert KEY in docs[1].spans


def test_it_round_trips_through_disk_with_its_settings(tmp_path):
    nlp = trained_pipeline(outside_thresholds={"PERSON": 0.6, "ORG": 0.5, "LOCATION": 0.7})
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("pii_peer_tagger").settings.outside_thresholds["PERSON"] == 0.6
    text = "Anna Lee met Bob in Paris ."
    before, after = nlp(text), loaded(text)
    assert [(s.start, s.end, s.label_) for s in after.spans[KEY]] == [
        (s.start, s.end, s.label_) for s in before.spans[KEY]
    ]
    assert len(after.spans[KEY]) == 3


@pytest.mark.parametrize(
    "config",
    [
        {"outside_thresholds": {"PERSON": 0.0, "ORG": 0.5, "LOCATION": 0.5}},
        {"outside_thresholds": {"PERSON": 1.5, "ORG": 0.5, "LOCATION": 0.5}},
        {"entity_types": ["PERSON", "ORG", "LOCATION", "NORP"]},
        {"entity_types": ["PERSON"], "outside_thresholds": {"PERSON": 0.5, "ORG": 0.5}},
        {"entity_types": []},
        {"spans_key": ""},
    ],
    ids=[
        "threshold-zero",
        "threshold-above-one",
        "a-type-without",
        "a-threshold-without-type",
        "no-types",
        "empty-key",
    ],
)
def test_settings_are_validated(config):
    with pytest.raises(ConfigError):
        spacy.blank("en").add_pipe("pii_peer_tagger", config=config)


def test_labels_other_than_its_tags_are_refused():
    nlp = spacy.blank("en")
    tagger = nlp.add_pipe("pii_peer_tagger")
    with pytest.raises(ConfigError, match="tags of its entity_types"):
        tagger.initialize(lambda: examples(nlp), nlp=nlp, labels=["O", "B-X"])


def test_model_widths_are_validated():
    config = {"model": {"@architectures": "pii.peer_tagger_model.v1", "hidden_width": 0}}
    with pytest.raises(ConfigError):
        spacy.blank("en").add_pipe("pii_peer_tagger", config=config)
