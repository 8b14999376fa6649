"""Names are written as names: the pure tests and the merge that drops the spans no name
could be (code marks; a class name of code; a person or place without a letter; a digit
inside a person's word; a person written only with forms of address)."""

from __future__ import annotations

import spacy

from spacy_pii.adapters.span_groups import hits_to_group
from spacy_pii.core.conventions import cannot_be_name, holds_code_marks, lone_letter, names_nobody
from spacy_pii.core.hits import Hit
from spacy_pii.core.languages import every_title


def test_code_and_markup_marks_are_found_and_names_have_none():
    for value in ["KEY-----", 'City attr1="value1', "\x1b[93msk", "Serif{\\*", "a|b", "x<y"]:
        assert holds_code_marks(value), value
    # Hyphenated names, firms with "&" or "/", apostrophes, a prose dash, a line break.
    for value in ["Jean-Luc Picard", "AT&T", "AC/DC", "O'Neil", "Macumazahn--Anglicè", "A\nB"]:
        assert not holds_code_marks(value), value


def test_a_person_or_place_has_a_letter_and_a_person_no_digit_inside_a_word():
    for value, label in [
        ("@@", "PERSON"),
        ("\U0001f434", "LOCATION"),
        ("m1TxE3hv4VeGLnxl", "PERSON"),
        ("T8URY", "PERSON"),
        ('Ada "x', "ORG"),
    ]:
        assert cannot_be_name(value, label), (value, label)
    for value, label in [
        ("Ada Lovelace", "PERSON"),
        ("Louis XIV", "PERSON"),
        # A number at a word's edge: an author list's mark, a handle, a superscript.
        ("John Smith1", "PERSON"),
        ("sfitzy93", "PERSON"),
        ("Smith\u00b2", "PERSON"),
        # Places and organisations may hold digits, and an organisation needs no letter.
        ("221B Baker Street", "LOCATION"),
        ("M25", "LOCATION"),
        ("3M", "ORG"),
        ("1&1", "ORG"),
        ("m1TxE3hv4VeGLnxl", "USERNAME"),
        ("@@", "SECRET"),
    ]:
        assert not cannot_be_name(value, label), (value, label)


def test_a_class_name_of_code_is_no_name():
    for value, label in [
        ("KeyError", "ORG"),
        ("KeyError", "PERSON"),
        ("NullPointerException", "ORG"),
        ("RequestHandler", "PERSON"),
        ("DeprecationWarning", "LOCATION"),
    ]:
        assert cannot_be_name(value, label), (value, label)
    # A word alone, words apart, a name that ends so by chance, and other types stay.
    for value, label in [
        ("Error", "PERSON"),
        ("Key Error", "ORG"),
        ("Handler", "PERSON"),
        ("McHandler", "PERSON"),
        ("KeyError", "SECRET"),
    ]:
        assert not cannot_be_name(value, label), (value, label)


def _names_nobody(text: str, value: str, label: str = "PERSON") -> bool:
    start = text.index(value)
    return names_nobody(text, start, start + len(value), label)


def test_a_person_written_only_with_forms_of_address_names_nobody():
    assert _names_nobody("Patrick J. Moynihan, Judge.", "Judge")
    assert _names_nobody("Mrs. said so", "Mrs.")
    assert _names_nobody("Before:\nLORD JUSTICE\nand", "LORD JUSTICE")
    # A name with its title, a title that is also a surname or a given name, one after a
    # form of address, and other types stay.
    assert not _names_nobody("Before Judge Brennan today", "Judge Brennan")
    assert not _names_nobody("Baron and his brother Eric", "Baron")
    assert not _names_nobody("My son Justice is 7", "Justice")
    assert not _names_nobody("Ms. Lord will call you", "Lord")
    assert not _names_nobody("Contact: Mr. Judge, tel 555", "Judge")
    assert not _names_nobody("the Judge said", "Judge", "ORG")
    assert not _names_nobody("", "")


def _lone_letter(text: str, value: str, label: str = "PERSON") -> bool:
    start = text.rindex(value)
    return lone_letter(text, start, start + len(value), label, every_title())


def test_one_letter_alone_names_nothing_unless_a_form_of_address_precedes_a_person():
    assert _lone_letter("See Annex B, points (a) to (d).", "B", "ORG")
    assert _lone_letter("Pupils equal; pulses N", "N", "ORG")
    assert _lone_letter("Knee L. swollen", "L.", "PERSON")
    assert _lone_letter("Road E", "E", "LOCATION")
    assert _lone_letter("Ä stands alone", "Ä", "PERSON")
    # Judgments name parties by a letter after a form of address.
    assert not _lone_letter("The mother: Ms K., represented by", "K.")
    assert not _lone_letter("The applicants, Mr X and Ms Y, are", "X")
    assert not _lone_letter("THE FATHER: MR. Q. in person", "Q.")
    # Forms of two words, forms in brackets or quotes, and other languages' forms.
    assert not _lone_letter("De heer K. verklaarde dat", "K.")
    assert not _lone_letter("The mother (Ms K.) told the court", "K.")
    assert not _lone_letter("“Mr X” said so", "X")
    assert not _lone_letter("pan K. przyszedł", "K.")
    # A title written as an ordinary word is no form of address ("Me", "On." are titles).
    assert _lone_letter("weakness on R", "R")
    assert _lone_letter("call me K", "K")
    # Two letters, an initial with a surname, other types and an empty span stay.
    assert not _lone_letter("Ask AB about it", "AB", "ORG")
    assert not _lone_letter("Ask J. Smith", "J. Smith")
    assert not _lone_letter("Block B", "B", "ADDRESS")
    assert not _lone_letter("", "")


def test_the_merge_keeps_a_letter_after_a_form_of_address_of_another_language():
    text = "Herr K. und die Anlage B"
    at = text.index
    hits = [
        Hit(at("K."), at("K.") + 2, "PERSON", 0.9, "ner", "model"),
        Hit(at("B"), at("B") + 1, "ORG", 0.9, "ner", "model"),
    ]
    assert _merged(text, hits) == [("K.", "PERSON")]


def _merged(text: str, hits: list[Hit]) -> list[tuple[str, str]]:
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config={"types": ["PERSON", "ORG", "SECRET"]})
    doc = nlp.make_doc(text)
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", hits)
    return [(span.text, span.label_) for span in merge(doc).spans["pii"]]


def test_the_merge_drops_a_name_span_with_code_marks_and_keeps_other_types():
    text = 'name = "Ada Lovelace" # City attr1="value1" KEY----- -----END k3yX9 3M @@'
    at = text.index
    hits = [
        Hit(at("Ada"), at("Ada") + 12, "PERSON", 0.9, "ner", "model"),
        Hit(at("City"), at("City") + 18, "ORG", 0.9, "ner", "model"),
        Hit(at("KEY"), at("KEY") + 8, "PERSON", 0.9, "ner", "model"),
        Hit(at("-----END"), at("-----END") + 8, "SECRET", 1.0, "rules.pem", "rule"),
        Hit(at("k3yX9"), at("k3yX9") + 5, "PERSON", 0.9, "ner", "model"),
        Hit(at("3M"), at("3M") + 2, "ORG", 0.9, "ner", "model"),
        Hit(at("@@"), at("@@") + 2, "PERSON", 0.9, "ner", "model"),
    ]
    assert _merged(text, hits) == [
        ("Ada Lovelace", "PERSON"),
        ("-----END", "SECRET"),
        ("3M", "ORG"),
    ]
