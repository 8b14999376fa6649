"""Names hold no marks of code: the pure test and the merge that drops such name spans."""

from __future__ import annotations

import spacy

from spacy_pii.adapters.span_groups import hits_to_group
from spacy_pii.core.conventions import holds_code_marks
from spacy_pii.core.hits import Hit


def test_code_and_markup_marks_are_found_and_names_have_none():
    for value in ["KEY-----", 'City attr1="value1', "\x1b[93msk", "Serif{\\*", "a|b", "x<y"]:
        assert holds_code_marks(value), value
    # Hyphenated names, firms with "&" or "/", apostrophes, a prose dash, a line break.
    for value in ["Jean-Luc Picard", "AT&T", "AC/DC", "O'Neil", "Macumazahn--Anglicè", "A\nB"]:
        assert not holds_code_marks(value), value


def _merged(text: str, hits: list[Hit]) -> list[tuple[str, str]]:
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config={"types": ["PERSON", "ORG", "SECRET"]})
    doc = nlp.make_doc(text)
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", hits)
    return [(span.text, span.label_) for span in merge(doc).spans["pii"]]


def test_the_merge_drops_a_name_span_with_code_marks_and_keeps_other_types():
    text = 'name = "Ada Lovelace" # City attr1="value1" KEY----- -----END'
    at = text.index
    hits = [
        Hit(at("Ada"), at("Ada") + 12, "PERSON", 0.9, "ner", "model"),
        Hit(at("City"), at("City") + 18, "ORG", 0.9, "ner", "model"),
        Hit(at("KEY"), at("KEY") + 8, "PERSON", 0.9, "ner", "model"),
        Hit(at("-----END"), len(text), "SECRET", 1.0, "rules.pem", "rule"),
    ]
    assert _merged(text, hits) == [
        ("Ada Lovelace", "PERSON"),
        ("-----END", "SECRET"),
    ]
