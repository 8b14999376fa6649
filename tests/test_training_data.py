"""Gold DocBins for training (spacy_pii.learning.gold_docs)."""

from __future__ import annotations

from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_pii.errors import UnknownType
from spacy_pii.evaluation.documents import Document, read_documents
from spacy_pii.learning.gold_docs import documents_to_docbin, gold_doc, model_types

EXTERNAL = Path(__file__).resolve().parents[1] / "corpus" / "external"


def _doc(text, *spans):
    return Document.from_raw(text, [{"start": s, "end": e, "label": lab} for s, e, lab in spans])


def _groups(doc):
    return {
        key: [(s.start_char, s.end_char, s.label_) for s in doc.spans[key]] for key in doc.spans
    }


def test_model_types_are_the_taxonomy_model_preferred_types(taxonomy):
    assert set(model_types(taxonomy)) == {
        "PERSON",
        "ADDRESS",
        "ORG",
        "USERNAME",
        "DATE_OF_BIRTH",
    }


@pytest.mark.parametrize(
    "text, span",
    [
        ("name:Ada", (5, 8, "PERSON")),
        ("(Ada)", (1, 4, "PERSON")),
        ("user=jdoe;x", (5, 9, "USERNAME")),
        ("mail ada@example.com.", (5, 20, "EMAIL")),
    ],
    ids=["colon-glued", "parenthesised", "key-value", "trailing-full-stop"],
)
def test_glued_gold_spans_are_split_not_lost(text, span):
    nlp = spacy.blank("en")
    doc, report = gold_doc(
        nlp,
        _doc(text, span),
        ner_types=["PERSON", "USERNAME"],
        pii_types=["PERSON", "USERNAME", "EMAIL"],
    )
    assert doc.text == text
    assert not report.misaligned
    keys = _groups(doc)
    assert keys["pii"] == [span]
    assert keys["pii_ner"] == ([span] if span[2] != "EMAIL" else [])


def test_whitespace_boundary_is_counted_as_misaligned():
    nlp = spacy.blank("en")
    # "Ada " ends inside the whitespace after the token: no token boundary can hold it.
    doc, report = gold_doc(
        nlp, _doc("Ada Lovelace", (0, 4, "PERSON")), ner_types=["PERSON"], pii_types=["PERSON"]
    )
    assert report.misaligned == {"PERSON": 1}
    assert report.considered == 1
    assert len(doc.spans["pii"]) == 0


def test_types_route_to_their_groups_and_keys():
    nlp = spacy.blank("en")
    text = "Ada at ada@example.com works for Acme"
    document = _doc(text, (0, 3, "PERSON"), (7, 22, "EMAIL"), (33, 37, "ORG"))
    doc, report = gold_doc(
        nlp,
        document,
        ner_types=["PERSON", "ORG"],
        pii_types=["PERSON", "EMAIL"],
        ner_keys=("pii_ner", "pii_candidates"),
    )
    groups = _groups(doc)
    assert groups["pii_ner"] == [(0, 3, "PERSON"), (33, 37, "ORG")]
    assert groups["pii_candidates"] == groups["pii_ner"]
    assert groups["pii"] == [(0, 3, "PERSON"), (7, 22, "EMAIL")]
    assert report.ner_spans == {"PERSON": 1, "ORG": 1}
    assert report.pii_spans == {"PERSON": 1, "EMAIL": 1}


def test_unknown_type_is_refused():
    with pytest.raises(UnknownType):
        documents_to_docbin([_doc("x")], ner_types=["NAME_OF_PET"])


def test_external_corpus_converts_without_loss(tmp_path):
    # The shipped presidio synth file: every span folds and aligns after token splitting.
    documents = read_documents(EXTERNAL / "presidio_research_synth_v2.jsonl")[:200]
    docbin, report = documents_to_docbin(documents)
    assert report.documents == 200 == len(docbin)
    assert report.misaligned_total == 0
    assert report.considered > 0
    assert sum(report.dropped.values()) > 0  # GPE, DATE_TIME, TITLE ... are explicit drops
    docbin.to_disk(tmp_path / "x.spacy")
    docs = list(DocBin().from_disk(tmp_path / "x.spacy").get_docs(spacy.blank("en").vocab))
    assert sum(len(d.spans["pii_ner"]) for d in docs) == sum(report.ner_spans.values())
    assert sum(len(d.spans["pii"]) for d in docs) == sum(report.pii_spans.values())
