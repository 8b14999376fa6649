"""The rules pipeline's white-space tokenizer: the same spans as the language's tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy

from spacy_pii.assembly.build import rules_pipeline
from spacy_pii.errors import ConfigError

EXTERNAL = Path(__file__).parents[1] / "corpus" / "external"
CORPORA = (
    "presidio_research_synth_v2.jsonl",
    "presidio_analyzer_unit_tests.jsonl",
    "credsweeper_test_samples.jsonl",
)


def _texts() -> list[str]:
    texts = []
    for name in CORPORA:
        with (EXTERNAL / name).open(encoding="utf-8") as stream:
            texts.extend(json.loads(line)["text"] for line in stream)
    return texts


def _spans(doc, key="pii"):
    group = doc.spans[key]
    return [(s.start_char, s.end_char, s.label_) for s in group], list(group.attrs["scores"])


def test_rules_pipeline_splits_at_white_space_and_at_hits():
    nlp = rules_pipeline()
    assert nlp.config["nlp"]["tokenizer"]["@tokenizers"] == "pii.whitespace_tokenizer.v1"
    doc = nlp("Mail ada@example.com, or call (212) 555-0123!\n\nThanks  Bo")
    assert [t.text for t in doc] == [
        "Mail", "ada@example.com", ",", "or", "call", "(212)", "555-0123", "!", "\n\n",
        "Thanks", " ", "Bo",
    ]  # fmt: skip
    assert doc.text == "Mail ada@example.com, or call (212) 555-0123!\n\nThanks  Bo"
    assert [s.text for s in doc.spans["pii"]] == ["ada@example.com", "(212) 555-0123"]


def test_same_spans_as_the_language_tokenizer_on_the_corpora():
    texts = _texts()
    assert len(texts) > 1000
    fast, language = rules_pipeline(), rules_pipeline(tokenizer="language")
    assert language.config["nlp"]["tokenizer"]["@tokenizers"] == "pii.guarded_tokenizer.v1"
    found = 0
    for ours, theirs in zip(fast.pipe(texts), language.pipe(texts), strict=True):
        assert _spans(ours) == _spans(theirs)
        assert _spans(ours, "pii_rules") == _spans(theirs, "pii_rules")
        found += len(ours.spans["pii"])
    assert found > 700


def test_a_saved_rules_pipeline_keeps_its_tokenizer(tmp_path):
    rules_pipeline().to_disk(tmp_path / "rules")
    loaded = spacy.load(tmp_path / "rules")
    assert loaded.config["nlp"]["tokenizer"]["@tokenizers"] == "pii.whitespace_tokenizer.v1"
    assert [t.text for t in loaded("a,b c")] == ["a,b", "c"]


def test_unknown_tokenizer_choice_is_a_config_error():
    with pytest.raises(ConfigError, match="tokenizer must be one of"):
        rules_pipeline(tokenizer="regex")


def test_load_passes_the_tokenizer_choice_through():
    import spacy_pii
    from spacy_pii.pipeline.guarded_tokenizer import GuardedTokenizer

    assert isinstance(spacy_pii.load("rules", tokenizer="language").tokenizer, GuardedTokenizer)
    assert [t.text for t in spacy_pii.load("rules")("a,b")] == ["a,b"]


def test_a_long_punctuation_run_is_cut_into_pieces_that_join_back():
    # spaCy's rule-less tokenizer is quadratic on such a run; the guard cuts it.
    text = "!?.,;:-([{<>}])" * 2000 + " ok"
    doc = rules_pipeline()(text)
    assert doc.text == text
    assert max(len(t) for t in doc) <= 16 and len(doc) > 1000
