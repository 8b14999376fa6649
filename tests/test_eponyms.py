"""Eponyms: a sign, test, disease or device named after a person is no name (pure logic,
then the merge that drops such candidates and propagation that may restore a person)."""

from __future__ import annotations

import pytest
import spacy
from join_helpers import best_cpu_seconds, names_with_tails

from spacy_pii.adapters.span_groups import hits_to_group
from spacy_pii.core.eponyms import EponymWords, eponym_words, is_eponym
from spacy_pii.core.hits import Hit

ENGLISH = eponym_words("en")


def _judged(text: str, name: str, words: EponymWords = ENGLISH, label: str = "PERSON") -> bool:
    start = text.index(name)
    return is_eponym(text, start, start + len(name), label, words)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Positive Tinel's sign at both wrists.", "Tinel"),
        ("Suspect Lyme disease; Western blot sent.", "Lyme"),
        ("Suspect Lyme disease; Western blot sent.", "Western"),
        ("History of Graves' disease.", "Graves"),
        ("TINEL'S SIGN POSITIVE BILATERALLY", "TINEL"),
        ("Foley catheter to gravity.", "Foley"),
        ("Swan-Ganz   catheter placed.", "Swan-Ganz"),
        # A finding head without a possessive, where the finding is read out.
        ("Abd soft, +BS. Murphy sign neg (limited exam).", "Murphy"),
        ("Ext: no calf tenderness, Homan sign negative bilat.", "Homan"),
        ("Positive Homan sign.", "Homan"),
        ("BABINSKI SIGN NEGATIVE BILATERALLY", "BABINSKI"),
        ("Ext: Homan sign neg bilat, SCDs on.", "Homan"),
    ],
)
def test_a_one_word_name_before_a_clinical_head_is_an_eponym(text, name):
    assert _judged(text, name)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # A form of address or a word for the patient before it makes it a person's, on the
        # same line or not; so does a full name or a given name before it.
        ("Mr. Okonkwo's syndrome has not changed.", "Okonkwo"),
        ("Mr.\u00a0Okonkwo's syndrome has not changed.", "Okonkwo"),
        ("Mr.\nOkonkwo's syndrome has not changed.", "Okonkwo"),
        ("Mr. T. Okonkwo's syndrome has not changed.", "T. Okonkwo"),
        ("Patient Okonkwo's murmur is louder.", "Okonkwo"),
        ("Seen: John Okonkwo's syndrome has not changed.", "Okonkwo"),
        # A common given name, with or without its accents, is a person.
        ("Seen today: Emma's syndrome has not changed.", "Emma"),
        ("Seen today: Zoë's syndrome has not changed.", "Zoë"),
        # Words a person has or does in ordinary speech are no heads, with a possessive or
        # without: a test, a fracture, a score; "sign" and "test" are verbs too.
        ("Seen today: Okonkwo's test came back positive.", "Okonkwo"),
        ("Seen today: Okonkwo's fracture kept him out.", "Okonkwo"),
        ("Did Okonkwo test positive?", "Okonkwo"),
        ("Please have Okonkwo sign the consent form.", "Okonkwo"),
        ("Okonkwo sign here, positive you want it?", "Okonkwo"),
        ("Did Okonkwo test negative?", "Okonkwo"),
        # A form of address before the name, and a word after the finding, each alone.
        ("Mr. Okonkwo sign negative.", "Okonkwo"),
        ("Okonkwo sign negative on exam.", "Okonkwo"),
        # "sign" as a verb before a finding word that is not read out, or "sign-out".
        ("The court may not compel Okonkwo sign absent consent.", "Okonkwo"),
        ("Would Okonkwo sign absent a court order?", "Okonkwo"),
        ("Would Okonkwo sign absent, say, a court order?", "Okonkwo"),
        ("Would Okonkwo sign positive 30 days later?", "Okonkwo"),
        ("Please have Okonkwo sign POS receipt.", "Okonkwo"),
        ("Covid negative Okonkwo sign-out to night team.", "Okonkwo"),
        ("Tell Okonkwo sign bilat copies.", "Okonkwo"),
        ("Okonkwo sign neg neg neg neg.", "Okonkwo"),
        ("Seen today: Okonkwo's car was parked outside.", "Okonkwo"),
        ("Seen today: Okonkwo testing the new build.", "Okonkwo"),
        ("Seen today: Okonkwo\ndisease free", "Okonkwo"),
        ("Seen today: Newton's law of cooling.", "Newton"),
    ],
)
def test_persons_and_other_words_after_a_name_stay_names(text, name):
    assert not _judged(text, name)


def test_a_sign_or_syndrome_prefix_makes_a_surname_after_it_an_eponym_in_its_language():
    spanish = eponym_words("es")
    assert _judged("Presenta signo de Trousseau y signo de Chvostek.", "Trousseau", spanish)
    assert _judged("Sospecha de síndrome de B. Wilkie.", "B. Wilkie", spanish)
    assert _judged("Síndrome de  Down.", "Down", spanish)
    assert _judged("Sindrome de Down.", "Down", spanish)
    assert _judged("signo de\u00a0Trousseau", "Trousseau", spanish)
    assert _judged("syndrome de Cushing", "Cushing", eponym_words("fr"))
    assert _judged("syndroom van Down", "Down", eponym_words("nl"))
    assert _judged("Verdacht auf Morbus Crohn.", "Crohn", eponym_words("de"))
    # Two words, a given name or a form of address after the prefix: a person.
    assert not _judged("síndrome de Okonkwo Chidi", "Okonkwo Chidi", spanish)
    assert not _judged("el signo de María", "María", spanish)
    assert not _judged("syndrome de M. Dupuis", "M. Dupuis", eponym_words("fr"))
    # Whole words on one line, and not in another language's data.
    assert not _judged("Un consíndrome de Wilkie.", "Wilkie", spanish)
    assert not _judged("signo de\nTrousseau", "Trousseau", spanish)
    assert not _judged("Presenta signo de Trousseau.", "Trousseau", ENGLISH)


def test_a_disease_of_a_person_is_no_eponym_cue():
    # "La maladie de Mitterrand" and "el tumor de Chávez" are about people; only signs and
    # syndromes are prefixes, and a Danish genitive is a person's illness.
    assert not _judged("La maladie de Mitterrand a été cachée.", "Mitterrand", eponym_words("fr"))
    assert not _judged("El tumor de Okonkwo creció.", "Okonkwo", eponym_words("es"))
    assert not _judged("La malattia di Okonkwo", "Okonkwo", eponym_words("it"))
    assert not _judged("Okonkwos sygdom er værre.", "Okonkwos", eponym_words("da"))


def test_an_organisation_or_a_place_needs_a_head_in_lower_case():
    assert _judged("Suspect Lyme disease.", "Lyme", label="LOCATION")
    assert not _judged("He was named England Syndrome captain.", "England", label="LOCATION")
    assert _judged("He was named England Syndrome captain.", "England", label="PERSON")


def test_an_empty_or_outside_span_is_no_eponym():
    text = "Tinel's sign"
    assert not is_eponym(text, 5, 5, "PERSON", ENGLISH)
    assert not is_eponym(text, -3, 5, "PERSON", ENGLISH)
    assert not is_eponym(text, 0, 50, "PERSON", ENGLISH)


def test_only_name_types_are_judged_and_a_language_without_data_judges_nothing():
    text = "Lyme disease"
    assert _judged(text, "Lyme", label="ORG")
    assert _judged(text, "Lyme", label="LOCATION")
    assert not _judged(text, "Lyme", label="USERNAME")
    assert not _judged(text, "Lyme", EponymWords())
    assert not eponym_words("sk")
    assert not eponym_words(None)
    assert not eponym_words("not-a-language")


def test_judging_every_hit_grows_linearly_with_the_hits():
    # Every name stands after a prefix phrase and before a word that is no head, so that each
    # judgement reads every window; ten times the hits must cost about ten times the time.
    words = eponym_words("xx")

    def judge_all(count: int) -> None:
        text, hits = names_with_tails(count, lambda i: " tests de la signo de ")
        for hit in hits:
            is_eponym(text, hit.start, hit.end, hit.label, words)

    judge_all(1_000)  # warm the caches of the regular expressions
    small = best_cpu_seconds(lambda: judge_all(10_000))
    large = best_cpu_seconds(lambda: judge_all(100_000))
    assert large < 20 * max(small, 1e-3)


def _merged(text: str, hits: list[Hit], drop: bool = True) -> list[tuple[str, str]]:
    nlp = spacy.blank("en")
    merge = nlp.add_pipe(
        "pii_merge", config={"types": ["PERSON", "ORG", "LOCATION"], "drop_eponyms": drop}
    )
    doc = nlp.make_doc(text)
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", hits)
    return [(span.text, span.label_) for span in merge(doc).spans["pii"]]


def _hit(text: str, value: str, label: str = "PERSON", score: float = 0.9, nth: int = 0) -> Hit:
    start = -1
    for _ in range(nth + 1):
        start = text.index(value, start + 1)
    return Hit(start, start + len(value), label, score, "ner", "model")


def test_the_merge_drops_eponyms_and_keeps_them_when_told_not_to():
    text = "Negative Tinel's sign. Lyme disease suspected. Ada Lovelace visited."
    hits = [_hit(text, "Tinel"), _hit(text, "Lyme", "ORG"), _hit(text, "Ada Lovelace")]
    assert _merged(text, hits) == [("Ada Lovelace", "PERSON")]
    assert _merged(text, hits, drop=False) == [
        ("Tinel", "PERSON"),
        ("Lyme", "ORG"),
        ("Ada Lovelace", "PERSON"),
    ]


def test_propagation_restores_a_person_the_document_names_elsewhere():
    text = "Seen with John Shaw today. Shaw's test was normal."
    hits = [_hit(text, "John Shaw"), _hit(text, "Shaw", nth=1)]
    assert _merged(text, hits) == [("John Shaw", "PERSON"), ("Shaw", "PERSON")]
