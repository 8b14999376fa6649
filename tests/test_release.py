"""From a trained pipeline to a shipped one: vectors, fingerprint, policy, ship."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy
import pytest
import spacy
import srsly

import spacy_pii
import spacy_pii.pipeline.pii_ner
from spacy_pii.assembly.release import (
    assemble_pipeline,
    export_vectors,
    model_fingerprint,
    predict_documents,
    ship_pipeline,
)
from spacy_pii.errors import ConfigError, PolicyMismatch
from spacy_pii.evaluation.calibration import LabelThreshold, ThresholdPolicy


def _policy(version="abc123", **thresholds):
    return ThresholdPolicy(
        labels={
            label: LabelThreshold(
                threshold=value,
                recall_floor=0.9,
                measured_precision=0.8,
                measured_recall=0.95,
                support=100,
            )
            for label, value in thresholds.items()
        },
        eval_set_version="corpus-1:dev.jsonl",
        calibration_version=version,
        taxonomy_version="2026.12",
        decided_at=datetime(2026, 11, 30, tzinfo=UTC),
    ).to_dict()


def test_fingerprint_is_stable_and_follows_the_weights(saved_rules):
    first = model_fingerprint(saved_rules)
    assert first == model_fingerprint(saved_rules)
    assert len(first) == 16
    # meta.json (timestamps, scores) and the merge's saved policy do not count ...
    meta = srsly.read_json(saved_rules / "meta.json")
    srsly.write_json(saved_rules / "meta.json", {**meta, "version": "9.9.9"})
    (saved_rules / "pii_merge" / "policy.json").write_text("{}")
    assert model_fingerprint(saved_rules) == first
    # ... any other file does.
    (saved_rules / "pii_rules" / "patterns.jsonl").write_text('{"id": "x"}\n')
    assert model_fingerprint(saved_rules) != first


def test_fingerprint_refuses_a_folder_that_is_no_pipeline(tmp_path):
    with pytest.raises(ConfigError, match=r"no config\.cfg"):
        model_fingerprint(tmp_path)


def test_assemble_binds_the_merge_to_a_policy_file_through_its_config(saved_rules, tmp_path):
    policy = tmp_path / "policy.json"
    srsly.write_json(policy, _policy(PERSON=0.3, EMAIL=0.05))
    out = assemble_pipeline(
        saved_rules,
        tmp_path / "calibrated",
        settings={"pii_merge": {"model_version": "abc123"}},
        policy=policy,
        meta={"pii_calibration": {"calibration_version": "abc123"}},
    )
    loaded = spacy.load(out)
    merge = loaded.get_pipe("pii_merge")
    assert loaded.config["components"]["pii_merge"]["model_version"] == "abc123"
    assert merge.model_version == "abc123"
    assert merge.thresholds == {"PERSON": pytest.approx(0.3), "EMAIL": pytest.approx(0.05)}
    assert loaded.meta["pii_calibration"] == {"calibration_version": "abc123"}
    # The source folder is left as it was.
    assert spacy.load(saved_rules).get_pipe("pii_merge").policy is None


def test_assemble_refuses_a_policy_for_another_model_version(saved_rules, tmp_path):
    policy = tmp_path / "policy.json"
    srsly.write_json(policy, _policy(PERSON=0.3))
    with pytest.raises(PolicyMismatch):
        assemble_pipeline(
            saved_rules,
            tmp_path / "calibrated",
            settings={"pii_merge": {"model_version": "retrained"}},
            policy=policy,
        )
    with pytest.raises(PolicyMismatch):  # no model_version at all
        assemble_pipeline(saved_rules, tmp_path / "calibrated", policy=policy)


def test_assemble_refuses_an_unknown_component(saved_rules, tmp_path):
    with pytest.raises(ConfigError, match="no component 'pii_ner'"):
        assemble_pipeline(saved_rules, tmp_path / "out", settings={"pii_ner": {}})


def test_ship_copies_with_extras_and_respects_the_budget(saved_rules, tmp_path):
    metrics = tmp_path / "metrics.json"
    metrics.write_text('{"ok": true}')
    destination = tmp_path / "pkg" / "models" / "en_pii_default"
    size = ship_pipeline(saved_rules, destination, extras={"metrics.json": metrics})
    assert size < 1.0
    assert (destination / "config.cfg").is_file()
    assert srsly.read_json(destination / "metrics.json") == {"ok": True}
    assert srsly.read_json(destination / "SHIPPED.json")["extras"] == ["metrics.json"]
    loaded = spacy.load(destination)
    assert loaded.pipe_names == ["pii_rules", "pii_merge"]
    assert (loaded.meta["name"], loaded.meta["version"]) == ("pii_default", spacy_pii.__version__)
    with pytest.raises(ConfigError, match="budget"):
        ship_pipeline(saved_rules, tmp_path / "other", max_mb=0.0001)
    assert not (tmp_path / "other").exists()


def test_export_vectors_keeps_lookups_drops_strings_and_prunes(tmp_path):
    donor = spacy.blank("en")
    rng = numpy.random.default_rng(0)
    for word in ("apple", "pear", "plum", "fig"):
        donor.vocab.set_vector(word, rng.random(8).astype("f"))
    donor.to_disk(tmp_path / "donor")

    summary = export_vectors(tmp_path / "donor", tmp_path / "full")
    rows, width = donor.vocab.vectors.shape  # set_vector grows the table ahead of need
    assert (summary["rows"], summary["width"], summary["keys"]) == (rows, width, 4)
    full = spacy.load(tmp_path / "full")
    for word in ("apple", "fig"):
        numpy.testing.assert_allclose(full.vocab[word].vector, donor.vocab[word].vector)
    assert "apple" not in srsly.read_json(tmp_path / "full" / "vocab" / "strings.json")

    pruned = export_vectors(tmp_path / "donor", tmp_path / "pruned", rows=2)
    assert pruned["rows"] == 2 and pruned["keys"] == 4  # dropped words map to a kept row
    with pytest.raises(ConfigError):
        export_vectors(tmp_path / "donor", tmp_path / "none", rows=0)


def test_predict_documents_reads_the_pii_group_with_scores():
    nlp = spacy_pii.load("rules")
    (document,) = predict_documents(nlp, ["mail ada@example.com now"])
    assert [(s.start, s.end, s.label) for s in document.spans] == [(5, 20, "EMAIL")]


def test_the_shipped_merge_carries_the_package_taxonomy():
    # pii_merge saves its own copy of the taxonomy; a shipped copy that drifts from the
    # package's would fold labels differently from a freshly added pii_merge.
    from spacy_pii.assembly.build import SHIPPED_PIPELINE

    folder = f"{spacy_pii.__path__[0]}/{SHIPPED_PIPELINE}"
    fresh = spacy.blank("en").add_pipe("pii_merge")
    assert srsly.read_yaml(f"{folder}/pii_merge/taxonomy.yaml") == fresh.taxonomy.to_dict()


def test_the_shipped_model_and_the_package_step_follow_the_package_version():
    from spacy_pii.assembly.build import SHIPPED_PIPELINE

    meta = srsly.read_json(f"{spacy_pii.__path__[0]}/{SHIPPED_PIPELINE}/meta.json")
    assert (meta["name"], meta["version"]) == ("pii_default", spacy_pii.__version__)
    project = srsly.read_yaml(f"{spacy_pii.__path__[0]}/../project.yml")["vars"]
    assert (project["package_name"], project["version"]) == ("pii_default", spacy_pii.__version__)


def test_a_policy_threshold_survives_saving_to_the_last_digit(saved_rules, tmp_path):
    # srsly.write_json keeps ten significant digits; a threshold is a measured score and must
    # come back exactly, or a span scored at the cut would fall on the other side of it.
    cut = 0.9969875216484071
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(_policy(PERSON=cut)))
    out = assemble_pipeline(
        saved_rules,
        tmp_path / "a",
        settings={"pii_merge": {"model_version": "abc123"}},
        policy=policy,
    )
    spacy.load(out).to_disk(tmp_path / "b")
    assert spacy.load(tmp_path / "b").get_pipe("pii_merge").thresholds["PERSON"] == cut
