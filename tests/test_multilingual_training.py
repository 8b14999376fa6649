"""configs/multilingual.cfg trains on a language-tagged corpus, and the result runs per language."""

from __future__ import annotations

from pathlib import Path

import pytest
import spacy
from script_module import load_script
from spacy.cli.train import train
from spacy.tokens import DocBin

from spacy_pii.assembly.build import language_pipeline
from spacy_pii.core.name_evidence import LANGUAGE_KEY

REPO = Path(__file__).resolve().parents[1]
DOCS = [
    ("de", "Frau Anna Schneider wohnt am Bahnhof.", "Anna Schneider"),
    ("fr", "Le docteur Paul Dupont est arrivé hier.", "Paul Dupont"),
    ("en", "Yesterday Mary Jones called the office.", "Mary Jones"),
]


def _corpus_script():
    return load_script(REPO / "training" / "make_corpus_ml.py", "make_corpus_ml_script")


def _raw(lang: str, text: str, name: str) -> dict:
    start = text.index(name)
    span = {"start": start, "end": start + len(name), "label": "PERSON"}
    return {"text": text, "spans": [span], "meta": {"lang": lang}}


@pytest.mark.slow  # about 20 s: spaCy initialises and trains three components
def test_the_multilingual_recipe_trains_on_tagged_documents_and_loads_per_language(tmp_path):
    docbin, _ = _corpus_script()._docbin([_raw(*row) for row in DOCS * 4])
    path = tmp_path / "train.spacy"
    docbin.to_disk(path)
    tagged = [
        d.user_data.get(LANGUAGE_KEY)
        for d in DocBin().from_disk(path).get_docs(spacy.blank("xx").vocab)
    ]
    assert sorted(set(tagged)) == ["de", "en", "fr"]
    output = tmp_path / "out"
    train(
        REPO / "configs" / "multilingual.cfg",
        output,
        overrides={
            "paths.train": str(path),
            "paths.dev": str(path),
            "training.max_steps": 6,
            "training.eval_frequency": 3,
        },
    )
    nlp = language_pipeline("de", model=output / "model-last")
    doc = nlp("Herr Karl Weber, Telefon 030 1234567.")
    assert "pii" in doc.spans
    assert any(s.label_ == "PHONE" for s in doc.spans["pii"])


def _with_org(lang: str, text: str, name: str, org: str) -> dict:
    doc = _raw(lang, text, name)
    start = text.index(org)
    doc["spans"].append({"start": start, "end": start + len(org), "label": "ORG"})
    return doc


def test_the_corpus_gives_pii_ner_the_types_it_is_asked_for():
    # PERSON alone by default (the shipped recipe); ORG too with --ner-types PERSON ORG.
    docs = [_with_org("de", "Anna Schneider arbeitet bei Siemens.", "Anna Schneider", "Siemens")]
    script = _corpus_script()
    vocab = spacy.blank("xx").vocab

    def labels(ner_types: tuple[str, ...]) -> list[str]:
        docbin, _ = script._docbin(docs, ner_types)
        (doc,) = docbin.get_docs(vocab)
        return sorted(span.label_ for span in doc.spans["pii_ner"])

    assert labels(script.NER_TYPES) == ["PERSON"]
    assert labels(("PERSON", "ORG")) == ["ORG", "PERSON"]
