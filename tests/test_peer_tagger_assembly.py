"""add_peer_tagger: a trained tagger joins a trained pipeline; the wide pipeline swaps it out."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import spacy
from spacy.language import Language
from tiny_peer_tagger import examples, trained_pipeline

from spacy_pii.assembly.build import (
    PEER_NAME,
    PEER_SPANS_KEY,
    PEER_TAGGER_NAME,
    add_peer_tagger,
    wide_pipeline,
)
from spacy_pii.errors import ConfigError

LISTENER = {"@architectures": "spacy.Tok2VecListener.v1", "width": 96, "upstream": "tok2vec"}


def _base(folder: Path) -> Path:
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules")
    nlp.add_pipe("tok2vec")
    nlp.add_pipe("pii_merge")
    nlp.initialize()
    nlp.to_disk(folder)
    return folder


def _tagger(base: Path, folder: Path, *, freeze_encoder: bool = True) -> Path:
    nlp = spacy.load(base, exclude=["pii_merge"])
    nlp.add_pipe("pii_peer_tagger", config={"model": {"tok2vec": LISTENER}})
    train = examples(nlp)
    random.seed(0)
    nlp.get_pipe(PEER_TAGGER_NAME).initialize(lambda: train, nlp=nlp)
    optimizer = nlp.resume_training()
    frozen = ["pii_rules", "tok2vec"] if freeze_encoder else ["pii_rules"]
    for _ in range(30):
        nlp.update(train, sgd=optimizer, exclude=frozen, annotates=frozen)
    nlp.to_disk(folder)
    return folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("peer")
    base = _base(root / "base")
    return {"base": base, "tagger": _tagger(base, root / "tagger")}


def test_the_tagger_joins_before_the_merge_which_writes_its_types(folders, tmp_path):
    nlp = add_peer_tagger(folders["base"], folders["tagger"])
    assert nlp.pipe_names == [
        "pii_rules",
        "tok2vec",
        PEER_TAGGER_NAME,
        "pii_peer_spans",
        "pii_merge",
    ]
    merge = nlp.get_pipe("pii_merge")
    assert PEER_SPANS_KEY in merge.settings.candidate_keys
    assert {"ORG", "LOCATION"} <= set(merge.types)
    text = "Anna Lee met Bob in Paris ."
    doc = nlp(text)
    assert {(s.text, s.label_) for s in doc.spans["pii"]} >= {("Paris", "LOCATION")}
    # saved, it loads with spaCy alone, the listener connected to the base's encoder
    nlp.to_disk(tmp_path / "assembled")
    again = spacy.load(tmp_path / "assembled")(text)
    assert [(s.text, s.label_) for s in again.spans["pii"]] == [
        (s.text, s.label_) for s in doc.spans["pii"]
    ]


def test_a_tagger_trained_on_another_encoder_is_refused(folders, tmp_path):
    moved = _tagger(folders["base"], tmp_path / "moved", freeze_encoder=False)
    with pytest.raises(ConfigError, match="encoder"):
        add_peer_tagger(folders["base"], moved)


def test_a_tagger_without_the_shared_encoder_is_refused(folders, tmp_path):
    # the standalone tagger has its own embedded tok2vec, no shared one to match
    trained_pipeline(passes=1).to_disk(tmp_path / "standalone")
    with pytest.raises(ConfigError, match="share a tok2vec"):
        add_peer_tagger(folders["base"], tmp_path / "standalone")


def test_a_base_with_a_peer_or_a_folder_that_is_no_pipeline_is_refused(folders, tmp_path):
    add_peer_tagger(folders["base"], folders["tagger"]).to_disk(tmp_path / "once")
    with pytest.raises(ConfigError, match="peer already"):
        add_peer_tagger(tmp_path / "once", folders["tagger"])
    with pytest.raises(ConfigError):
        add_peer_tagger(tmp_path / "nothing", folders["tagger"])
    with pytest.raises(ConfigError, match="no component"):
        add_peer_tagger(folders["base"], folders["base"])


def test_the_wide_pipeline_puts_the_teacher_in_the_tagger_s_place(folders, tmp_path):
    add_peer_tagger(folders["base"], folders["tagger"]).to_disk(tmp_path / "with_tagger")
    peer: Language = spacy.blank("en")
    peer.add_pipe("entity_ruler", name="ner").add_patterns([{"label": "GPE", "pattern": "Leeds"}])
    nlp = wide_pipeline(peer=peer, base=tmp_path / "with_tagger")
    assert PEER_TAGGER_NAME not in nlp.pipe_names
    assert nlp.pipe_names[-3:] == [PEER_NAME, "pii_peer_spans", "pii_merge"]
    keys = nlp.get_pipe("pii_merge").settings.candidate_keys
    assert list(keys).count(PEER_SPANS_KEY) == 1
    doc = nlp("The office in Leeds is open .")
    assert ("Leeds", "LOCATION") in {(s.text, s.label_) for s in doc.spans["pii"]}
