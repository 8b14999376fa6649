"""training/calibrate.py: the calibrated pipeline is assembled from the files it writes.

A tiny pii_ner is trained on six sentences and calibrated on the same sentences (a dev set
it fits, so that every floor is reached); the output must be a pipeline whose config binds
the merge to the model's fingerprint and whose data holds the policy and the score map the
script wrote beside it, and the input pipeline must be left as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy
import srsly
import tiny_ner
from script_module import load_script
from thinc.api import Config

from spacy_pii.assembly.release import assemble_pipeline, model_fingerprint
from spacy_pii.errors import PolicyMismatch
from spacy_pii.evaluation.score_map import ScoreMap

REPO = Path(__file__).resolve().parents[1]
TRAIN = tiny_ner.TRAIN


def _script():
    return load_script(REPO / "training" / "calibrate.py", "calibrate_script")


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    nlp = tiny_ner.trained_pipeline(passes=60)
    nlp.add_pipe("pii_merge", config={"candidate_keys": ["pii_ner"], "propagate": {"types": []}})
    root = tmp_path_factory.mktemp("calibrate")
    nlp.to_disk(root / "model-best")
    srsly.write_jsonl(
        root / "dev.jsonl",
        [
            {
                "text": text,
                "spans": [{"start": s, "end": e, "label": label} for s, e, label in spans],
            }
            for text, spans in TRAIN * 4
        ],
    )
    return root


def test_the_calibrated_pipeline_is_assembled_from_the_written_files(trained):
    before = model_fingerprint(trained / "model-best")
    status = _script().main(
        [str(trained / "model-best"), str(trained / "dev.jsonl"), "--output",
         str(trained / "out" / "model-calibrated"), "--min-support", "1", "--min-examples", "1",
         "--proposal-threshold", "0.05"]
    )  # fmt: skip
    assert status == 0
    policy = json.loads((trained / "out" / "policy.json").read_text())
    assert policy["calibration_version"] == before
    assert (trained / "out" / "score_map.json").is_file()
    calibrated = spacy.load(trained / "out" / "model-calibrated")
    merge, ner = calibrated.get_pipe("pii_merge"), calibrated.get_pipe("pii_ner")
    # Settings in the config, data in the components.
    assert calibrated.config["components"]["pii_merge"]["model_version"] == before
    assert merge.policy == policy
    assert ner.settings.threshold == calibrated.meta["pii_calibration"]["proposal_threshold"]
    assert ner.score_map is not None
    assert ner.score_map == ScoreMap.load(trained / "out" / "score_map.json")
    # The trained pipeline is untouched.
    assert model_fingerprint(trained / "model-best") == before
    assert spacy.load(trained / "model-best").get_pipe("pii_merge").policy is None


def test_the_merge_still_refuses_the_policy_for_a_retrained_model(trained):
    with pytest.raises(PolicyMismatch):
        assemble_pipeline(
            trained / "model-best",
            trained / "other",
            settings={"pii_merge": {"model_version": "a-retrained-model"}},
            policy=trained / "out" / "policy.json",
        )


@pytest.mark.parametrize("fallback", [None, 0.2])
def test_failing_closed_keeps_the_score_map_and_proposes_from_the_fallback(trained, fallback):
    output = trained / f"failed-{fallback}"
    extra = [] if fallback is None else ["--fallback-threshold", str(fallback)]
    args = [str(trained / "model-best"), str(trained / "dev.jsonl"), "--output", str(output)]
    # No label has a million dev spans: every floor lacks support, so no policy is fit.
    fit = ["--min-examples", "1", "--proposal-threshold", "0.05"]
    status = _script().main([*args, "--min-support", "1000000", *fit, *extra])
    assert status == 1
    trained_threshold = spacy.load(trained / "model-best").get_pipe("pii_ner").settings.threshold
    ner = spacy.load(output).get_pipe("pii_ner")
    assert ner.settings.threshold == (trained_threshold if fallback is None else fallback)
    assert ner.score_map is not None


def test_a_fallback_threshold_outside_zero_to_one_is_refused(trained):
    args = [str(trained / "model-best"), str(trained / "dev.jsonl")]
    with pytest.raises(SystemExit, match="fallback-threshold"):
        _script().main([*args, "--output", str(trained / "bad"), "--fallback-threshold", "1.5"])


def test_ngram_sizes_replace_only_the_suggester_sizes(tmp_path):
    suggester = {"@misc": "pii.ngram_preset_suggester.v1", "sizes": [1, 2, 3, 4, 5]}
    suggester["spans_key"] = "pii_candidates"
    config = Config({"components": {"pii_ner": {"suggester": suggester}}})
    config.to_disk(tmp_path / "config.cfg")
    settings = _script()._suggester_settings(tmp_path, "4,1,2,3")
    assert settings == {"suggester": {**suggester, "sizes": [1, 2, 3, 4]}}
    assert _script()._suggester_settings(tmp_path, None) == {}
    with pytest.raises(SystemExit, match="whole numbers"):
        _script()._suggester_settings(tmp_path, "1,x")


def test_ngram_word_edges_are_set_with_or_without_new_sizes(tmp_path):
    suggester = {"@misc": "pii.ngram_preset_suggester.v1", "sizes": [1, 2, 3, 4, 5]}
    suggester["spans_key"] = "pii_candidates"
    Config({"components": {"pii_ner": {"suggester": suggester}}}).to_disk(tmp_path / "config.cfg")
    alone = _script()._suggester_settings(tmp_path, None, word_edges=True)
    assert alone == {"suggester": {**suggester, "word_edges": True}}
    both = _script()._suggester_settings(tmp_path, "1,2", word_edges=True)
    assert both == {"suggester": {**suggester, "sizes": [1, 2], "word_edges": True}}


def test_finder_edges_set_the_gate_and_the_span_finders_record(tmp_path):
    suggester = {"@misc": "pii.ngram_preset_suggester.v1", "sizes": [1, 2]}
    suggester["spans_key"] = "pii_candidates"
    finder = {"factory": "pii_span_finder", "spans_key": "pii_candidates", "threshold": 0.1}
    components = {"pii_ner": {"factory": "pii_ner", "suggester": suggester}, "span_finder": finder}
    Config({"components": components}).to_disk(tmp_path / "config.cfg")
    gated = _script()._suggester_settings(tmp_path, None, finder_edges=True)
    assert gated == {"suggester": {**suggester, "finder_edges": True}}
    assert _script()._finder_settings(tmp_path, 0.001) == {"span_finder": {"edge_threshold": 0.001}}
    assert _script()._finder_settings(tmp_path, None) == {}
    with pytest.raises(SystemExit, match="between 0 and the span finder's"):
        _script()._finder_settings(tmp_path, 0.2)
    # A span finder writing another key does not feed pii_ner: no record can gate it.
    components["span_finder"]["spans_key"] = "elsewhere"
    Config({"components": components}).to_disk(tmp_path / "config.cfg")
    with pytest.raises(SystemExit, match="needs a pii_span_finder"):
        _script()._finder_settings(tmp_path, 0.001)
    # Only the preset suggester reads the record.
    components["pii_ner"]["suggester"] = {"@misc": "spacy.ngram_suggester.v1", "sizes": [1]}
    Config({"components": components}).to_disk(tmp_path / "config.cfg")
    with pytest.raises(SystemExit, match="ngram_preset_suggester"):
        _script()._finder_settings(tmp_path, 0.001)


def test_ngram_sizes_need_a_suggester_with_sizes(trained):
    args = [str(trained / "model-best"), str(trained / "dev.jsonl")]
    with pytest.raises(SystemExit, match="needs a suggester with sizes"):
        _script().main([*args, "--output", str(trained / "no-sizes"), "--ngram-sizes", "1,2"])
