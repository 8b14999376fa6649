"""pii_span_finder: the spans it writes, the edge record pii_ner's suggester reads, and
settings that come from the config."""

from __future__ import annotations

from pathlib import Path

import numpy
import pytest
import spacy

import spacy_pii
from spacy_pii.errors import ConfigError
from spacy_pii.pipeline.pii_span_finder import EDGE_RECORD


def _finder(**config):
    nlp = spacy.blank("en")
    finder = nlp.add_pipe(
        "pii_span_finder", name="span_finder", config={"spans_key": "cands", **config}
    )
    return nlp, finder


# Start and end scores of "Ada Byron met King" (one row per token).
SCORES = numpy.asarray([[0.9, 0.01], [0.05, 0.8], [0.0005, 0.002], [0.6, 0.7]], dtype="f")


def test_edges_are_recorded_at_the_edge_threshold_beside_the_spans():
    nlp, finder = _finder(threshold=0.5, edge_threshold=0.002)
    doc = nlp.make_doc("Ada Byron met King")
    finder.set_annotations([doc], SCORES)
    group = doc.spans["cands"]
    assert [span.text for span in group] == ["Ada Byron", "Ada Byron met King", "King"]
    assert group.attrs[EDGE_RECORD] == {"tokens": 4, "starts": [0, 1, 3], "ends": [0, 1, 2, 3]}


def test_without_an_edge_threshold_nothing_is_recorded():
    nlp, finder = _finder(threshold=0.5)
    doc = nlp.make_doc("Ada Byron met King")
    finder.set_annotations([doc], SCORES)
    assert len(doc.spans["cands"]) == 3
    assert EDGE_RECORD not in doc.spans["cands"].attrs


def test_the_edge_record_is_no_setting_saved_with_the_component(tmp_path):
    nlp, _ = _finder(threshold=0.5, edge_threshold=0.002)
    nlp.initialize()
    nlp.to_disk(tmp_path)
    assert "edge_threshold" not in (tmp_path / "span_finder" / "cfg").read_text()
    setting = {"components": {"span_finder": {"edge_threshold": 0.01}}}
    reloaded = spacy.load(tmp_path, config=setting)
    assert reloaded.get_pipe("span_finder").edge_threshold == 0.01


@pytest.mark.parametrize("edge_threshold", [-0.1, 0.6])
def test_an_edge_threshold_outside_zero_to_the_threshold_is_refused(edge_threshold):
    with pytest.raises(ConfigError):
        _finder(threshold=0.5, edge_threshold=edge_threshold)


def test_a_config_override_outranks_the_settings_spacy_saved_in_the_folder():
    shipped = Path(spacy_pii.__file__).parent / "models" / "en_pii_default"
    assert '"threshold":0.1' in (shipped / "span_finder" / "cfg").read_text().replace(" ", "")
    override = {"threshold": 0.5, "max_length": 5, "edge_threshold": None}
    nlp = spacy.load(shipped, config={"components": {"span_finder": override}})
    finder = nlp.get_pipe("span_finder")
    assert (finder.cfg["threshold"], finder.cfg["max_length"]) == (0.5, 5)
    doc = nlp("Ada Lovelace met Charles Babbage at 12 St James's Square, London.")
    assert all(len(span) <= 5 for span in doc.spans["pii_candidates"])
    assert "edges" not in doc.spans["pii_candidates"].attrs
