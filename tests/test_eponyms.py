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
        ("McMurray's Test: Negative.", "McMurray"),
        ("TINEL'S SIGN POSITIVE BILATERALLY", "TINEL"),
        ("Foley catheter to gravity.", "Foley"),
        ("Swan-Ganz   catheter placed.", "Swan-Ganz"),
    ],
)
def test_a_one_word_name_before_a_clinical_head_is_an_eponym(text, name):
    assert _judged(text, name)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        # A form of address, a word for the patient or a given name before it makes it a
        # person's, on the same line or not; so does a full name, and a given name alone.
        ("Mr. Shaw's test came back normal.", "Shaw"),
        ("Dr Shaw's test came back normal.", "Shaw"),
        ("Mr.\u00a0Shaw's test came back normal.", "Shaw"),
        ("Mr.\nShaw's test came back normal.", "Shaw"),
        ("Patient Jones's murmur is louder.", "Jones"),
        ("John Shaw's test came back normal.", "John Shaw"),
        ("John Shaw's test came back normal.", "Shaw"),
        ("Emma's tumour has shrunk since March.", "Emma"),
        ("Mary's test results came back normal.", "Mary"),
        # No head, a head that is part of a longer word, a head on the next line.
        ("Shaw's car was parked outside.", "Shaw"),
        ("Shaw testing the new build.", "Shaw"),
        ("Ada Shaw\nsign here", "Shaw"),
        # Words outside the clinical heads stay names.
        ("Newton's law of cooling.", "Newton"),
    ],
)
def test_persons_and_other_words_after_a_name_stay_names(text, name):
    assert not _judged(text, name)


def test_a_prefix_phrase_makes_a_surname_after_it_an_eponym_in_its_language():
    spanish = eponym_words("es")
    assert _judged("Presenta signo de Trousseau y signo de Chvostek.", "Trousseau", spanish)
    assert _judged("Antecedente de linfoma de B. Burkitt.", "B. Burkitt", spanish)
    assert _judged("Síndrome de  Down.", "Down", spanish)
    assert _judged("maladie de Parkinson", "Parkinson", eponym_words("fr"))
    assert _judged("Verdacht auf Morbus Crohn.", "Crohn", eponym_words("de"))
    # A full name or a given name after the prefix is a person's disease.
    assert not _judged("La enfermedad de Juan García empeoró.", "Juan García", spanish)
    assert not _judged("la maladie de Pierre s'aggrave", "Pierre", eponym_words("fr"))
    assert not _judged("de ziekte van Jan de Vries", "Jan de Vries", eponym_words("nl"))
    # Whole words only ("consíndrome de"), and not in another language's data.
    assert not _judged("Un consíndrome de Wilkie.", "Wilkie", spanish)
    assert not _judged("Presenta signo de Trousseau.", "Trousseau", ENGLISH)


def test_everyday_words_and_genitives_are_no_eponym_cues():
    # "saco" is also a jacket, "scala" a staircase; a Danish genitive is a person's illness.
    assert not _judged("Le saco de Juan", "Juan", eponym_words("es"))
    assert not _judged("il Teatro alla Scala di Milano", "Milano", eponym_words("it"), "LOCATION")
    assert not _judged("Peters sygdom er værre.", "Peters", eponym_words("da"))
    assert not _judged("Patient Jones signs the consent form.", "Jones")


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
