"""pii_rules and pii_merge as spaCy components: config, serialization, evaluation, processes."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

import spacy_pii
from spacy_pii.core.hits import Hit
from spacy_pii.errors import ConfigError, UnknownType

SAMPLE = "Mail ada@example.com or card 4242 4242 4242 4242, IP 192.168.0.7."


def _spans(doc, key="pii"):
    return [(s.start_char, s.end_char, s.label_) for s in doc.spans[key]]


class _GluedEmail:
    """A stand-in detector: e-mail shapes, so token tests do not depend on real rules."""

    id = "test.email"
    types = frozenset({"EMAIL"})
    _pattern = re.compile(r"[a-z]+@[a-z]+\.[a-z]+")

    def find(self, text):
        for match in self._pattern.finditer(text):
            yield Hit(match.start(), match.end(), "EMAIL", None, self.id)


@pytest.fixture
def stub_nlp(monkeypatch):
    monkeypatch.setattr(
        "spacy_pii.pipeline.pii_rules.build_detectors", lambda settings: [_GluedEmail()]
    )
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules")
    nlp.add_pipe("pii_merge")
    return nlp


@pytest.mark.parametrize(
    "text",
    [
        "mail:ada@example.com.",
        "(ada@example.com),",
        "x<ada@example.com>y",
        "Kontakt:ada@example.comoder",
    ],
)
def test_hits_inside_tokens_are_split_not_shifted(stub_nlp, text):
    doc = stub_nlp(text)
    (span,) = doc.spans["pii"]
    assert span.text == re.search(r"[a-z]+@[a-z]+\.[a-z]+", text).group()
    assert doc.text == text  # splitting never changes the text


def test_rules_write_their_own_group_with_positional_attrs(stub_nlp):
    doc = stub_nlp("a@b.cd and e@f.gh")
    group = doc.spans["pii_rules"]
    assert len(group) == 2
    assert group.attrs["scores"] == [None, None]
    assert group.attrs["detectors"] == ["test.email", "test.email"]


def test_rules_spans_key_none_writes_nothing(monkeypatch):
    monkeypatch.setattr(
        "spacy_pii.pipeline.pii_rules.build_detectors", lambda settings: [_GluedEmail()]
    )
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules", config={"spans_key": None})
    assert "pii_rules" not in nlp("a@b.cd").spans


def test_merge_resolves_overlaps_by_rank_and_keeps_attrs():
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge")
    doc = nlp.make_doc("pay 4242424242424242 now")
    from spacy_pii.adapters.span_groups import hits_to_group

    doc.spans["pii_rules"] = hits_to_group(
        doc,
        "pii_rules",
        [Hit(4, 20, "PAYMENT", 1.0, "rules.card"), Hit(4, 20, "PHONE", None, "rules.phone")],
    )
    doc = merge(doc)
    assert _spans(doc) == [(4, 20, "PAYMENT")]
    assert doc.spans["pii"].attrs["scores"] == [1.0]
    assert doc.spans["pii"].attrs["detectors"] == ["rules.card"]


def test_merge_writes_ents_on_request():
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config={"write_ents": True})
    doc = nlp.make_doc("Ada Lovelace wrote")
    from spacy_pii.adapters.span_groups import hits_to_group

    doc.spans["pii_ner"] = hits_to_group(
        doc, "pii_ner", [Hit(0, 12, "PERSON", 0.9, "ner", "model")]
    )
    doc = merge(doc)
    assert [(e.text, e.label_) for e in doc.ents] == [("Ada Lovelace", "PERSON")]


@pytest.mark.parametrize("write_ents", [False, True], ids=["spans-only", "with-ents"])
def test_merge_without_candidates_writes_an_empty_group_as_resolution_would(write_ents):
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config={"write_ents": write_ents})
    doc = nlp.make_doc("Ada Lovelace wrote")
    doc.ents = [doc.char_span(0, 12, label="PERSON")]
    doc.spans["pii_ner"] = []  # present but empty, as a model that found nothing leaves it
    doc = merge(doc)
    group = doc.spans["pii"]
    assert len(group) == 0
    assert list(group.attrs["scores"]) == [] and list(group.attrs["detectors"]) == []
    assert len(doc.ents) == (0 if write_ents else 1)


def test_merge_applies_thresholds_from_config():
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config={"thresholds": {"PERSON": 0.8}})
    doc = nlp.make_doc("Ada and Bob")
    from spacy_pii.adapters.span_groups import hits_to_group

    doc.spans["pii_ner"] = hits_to_group(
        doc,
        "pii_ner",
        [Hit(0, 3, "PERSON", 0.9, "ner", "model"), Hit(8, 11, "PERSON", 0.5, "ner", "model")],
    )
    assert _spans(merge(doc)) == [(0, 3, "PERSON")]


@pytest.mark.parametrize(
    ("factory", "config", "error"),
    [
        ("pii_rules", {"types": ["SHOE_SIZE"]}, ConfigError),
        ("pii_rules", {"phone_regions": ["XX"]}, ConfigError),
        ("pii_rules", {"gov_id_countries": ["ZZ"]}, ConfigError),
        ("pii_merge", {"types": ["SHOE_SIZE"]}, UnknownType),
        ("pii_merge", {"thresholds": {"PERSON": 1.5}}, ConfigError),
    ],
)
def test_bad_settings_fail_at_add_pipe(factory, config, error):
    with pytest.raises(error):
        spacy.blank("en").add_pipe(factory, config=config)


@pytest.mark.parametrize(
    ("factory", "config"),
    [("pii_rules", {"fold_confusables": "yes please"}), ("pii_merge", {"drop_unscored": [1]})],
)
def test_wrong_config_types_are_rejected_by_spacy(factory, config):
    from thinc.api import ConfigValidationError

    with pytest.raises(ConfigValidationError):
        spacy.blank("en").add_pipe(factory, config=config)


def test_rules_pipeline_finds_structured_pii(rules_nlp):
    doc = rules_nlp(SAMPLE)
    assert _spans(doc) == [
        (5, 20, "EMAIL"),
        (29, 48, "PAYMENT"),
        (53, 64, "IP_ADDRESS"),
    ]
    scores = dict(
        zip([s.label_ for s in doc.spans["pii"]], doc.spans["pii"].attrs["scores"], strict=False)
    )
    assert scores == {"EMAIL": None, "PAYMENT": 1.0, "IP_ADDRESS": 1.0}


def test_serialization_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules", config={"types": ["EMAIL", "PAYMENT"], "phone_regions": ["DE"]})
    nlp.add_pipe(
        "pii_merge",
        config={"thresholds": {"PERSON": 0.7}, "types": ["EMAIL", "PAYMENT", "PERSON"]},
    )
    nlp.to_disk(tmp_path / "pipeline")
    loaded = spacy.load(tmp_path / "pipeline")
    rules, merge = loaded.get_pipe("pii_rules"), loaded.get_pipe("pii_merge")
    assert rules.settings == nlp.get_pipe("pii_rules").settings
    assert merge.thresholds == {"PERSON": 0.7}
    assert merge.types == ("EMAIL", "PAYMENT", "PERSON")
    assert merge.taxonomy == nlp.get_pipe("pii_merge").taxonomy
    assert _spans(loaded(SAMPLE)) == _spans(nlp(SAMPLE))


def test_bytes_round_trip_carries_the_data():
    nlp = spacy_pii.load("rules")
    nlp.get_pipe("pii_merge").initialize(allow_list=["ada@example.com"])
    nlp.get_pipe("pii_rules").initialize(deny_list=[{"value": "Zed Quux", "type": "PERSON"}])
    other = spacy_pii.load("rules")
    other.from_bytes(nlp.to_bytes())
    assert other.get_pipe("pii_merge").allow_list == frozenset({"ada@example.com"})
    assert _spans(other(SAMPLE + " Zed Quux")) == _spans(nlp(SAMPLE + " Zed Quux"))


def test_nlp_evaluate_reports_spans_pii_scores(rules_nlp):
    # The gold side has its own tokens (English's here, finer than the rules pipeline's
    # white-space tokens); spaCy's Example aligns the two.
    english = spacy.blank("en").make_doc(SAMPLE)
    words, spaces = [t.text for t in english], [bool(t.whitespace_) for t in english]
    reference = Doc(rules_nlp.vocab, words=words, spaces=spaces)
    reference.spans["pii"] = [
        reference.char_span(5, 20, label="EMAIL"),
        reference.char_span(53, 64, label="IP_ADDRESS"),
    ]
    scores = rules_nlp.evaluate([Example(rules_nlp.make_doc(SAMPLE), reference)])
    assert scores["spans_pii_r"] == 1.0
    assert scores["spans_pii_p"] == pytest.approx(2 / 3)
    assert set(scores["spans_pii_per_type"]) == {"EMAIL", "IP_ADDRESS", "PAYMENT"}


def test_n_process_2_gives_the_same_spans(rules_nlp):
    texts = [SAMPLE, "nothing here", "write to grace@example.org today"] * 4
    single = [_spans(doc) for doc in rules_nlp.pipe(texts)]
    multi = [_spans(doc) for doc in rules_nlp.pipe(texts, n_process=2, batch_size=3)]
    assert multi == single
    assert any(single)


def test_factories_load_through_entry_points_without_import():
    code = (
        "import spacy\n"
        "nlp = spacy.blank('en')\n"
        "nlp.add_pipe('pii_rules'); nlp.add_pipe('pii_merge')\n"
        "doc = nlp('write to ada@example.com')\n"
        "print([(s.text, s.label_) for s in doc.spans['pii']])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[('ada@example.com', 'EMAIL')]"]


def test_import_spacy_pii_loads_no_ml_framework():
    code = "import sys, spacy_pii; print('torch' in sys.modules, 'transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


def test_scorer_and_colours_are_registered_entry_points():
    from spacy.displacy.render import SpanRenderer
    from spacy.util import registry

    scorer = registry.scorers.get("pii.spans_scorer.v1")
    assert callable(scorer(spans_key="pii"))
    colors = SpanRenderer({}).colors
    for name, spec in spacy_pii.load_taxonomy().types.items():
        assert colors[name] == spec.color
