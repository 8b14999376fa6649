"""config.cfg is the one source of settings: overrides on a saved pipeline take effect.

Each component is saved with its defaults, then loaded with one setting overridden at
``spacy.load(path, config=...)``; the behaviour must change. (pii_ner's case, on the shipped
model, is ``test_ner_component.test_the_shipped_pipeline_splits_a_list_of_names``.)
"""

from __future__ import annotations

import spacy
from spacy.util import load_model_from_config

# A German landline in national format: valid for region DE, not for the default US, GB.
GERMAN = "Ruf mich an: 030 1234567 oder schreib an ada@example.com"


def _spans(doc, key="pii"):
    return [(span.text, span.label_) for span in doc.spans[key]]


def test_pii_rules_phone_regions_override_on_a_saved_pipeline(saved_rules):
    assert _spans(spacy.load(saved_rules)(GERMAN)) == [("ada@example.com", "EMAIL")]
    override = {"components": {"pii_rules": {"phone_regions": ["DE"]}}}
    nlp = spacy.load(saved_rules, config=override)
    assert nlp.config["components"]["pii_rules"]["phone_regions"] == ["DE"]
    assert _spans(nlp(GERMAN)) == [("030 1234567", "PHONE"), ("ada@example.com", "EMAIL")]


def test_pii_merge_write_ents_override_on_a_saved_pipeline(saved_rules):
    assert spacy.load(saved_rules)(GERMAN).ents == ()
    nlp = spacy.load(saved_rules, config={"components": {"pii_merge": {"write_ents": True}}})
    doc = nlp(GERMAN)
    assert [(ent.text, ent.label_) for ent in doc.ents] == [("ada@example.com", "EMAIL")]


def test_pii_redact_operators_override_on_a_saved_pipeline(saved_rules, tmp_path):
    nlp = spacy.load(saved_rules)
    nlp.add_pipe("pii_redact")
    nlp.to_disk(tmp_path / "redacting")
    text = "card 4242 4242 4242 4242 please"
    assert spacy.load(tmp_path / "redacting")(text)._.pii_redacted == "card <PAYMENT_1> please"
    override = {"components": {"pii_redact": {"operators": {"PAYMENT": "partial"}}}}
    masked = spacy.load(tmp_path / "redacting", config=override)(text)._.pii_redacted
    assert masked != "card <PAYMENT_1> please" and masked.endswith("4242 please")


def test_add_pipe_config_and_the_components_block_take_effect():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules", config={"phone_regions": ["DE"]})
    nlp.add_pipe("pii_merge")
    assert ("030 1234567", "PHONE") in _spans(nlp(GERMAN))
    # The same settings from a [components] block, as `spacy assemble` reads it.
    rebuilt = load_model_from_config(nlp.config, auto_fill=True)
    assert rebuilt.get_pipe("pii_rules").settings.phone_regions == ("DE",)
    assert _spans(rebuilt(GERMAN)) == _spans(nlp(GERMAN))


def test_saved_folders_hold_data_only(saved_rules):
    assert sorted(p.name for p in (saved_rules / "pii_rules").iterdir()) == [
        "deny_list.json",
        "patterns.jsonl",
    ]
    assert sorted(p.name for p in (saved_rules / "pii_merge").iterdir()) == [
        "allow_list.json",
        "taxonomy.yaml",
    ]


def test_exclude_is_honoured_on_save(tmp_path):
    merge = spacy.blank("en").add_pipe("pii_merge")
    merge.to_disk(tmp_path / "merge", exclude=["allow_list"])
    assert [p.name for p in (tmp_path / "merge").iterdir()] == ["taxonomy.yaml"]
