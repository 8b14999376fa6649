"""A court, a ministry or a prosecutor's office named in a person's place is an organisation."""

from __future__ import annotations

import gzip
import json
import unicodedata
from importlib import resources
from pathlib import Path

import pytest
import spacy
from join_helpers import hit_on

from spacy_pii.adapters.span_groups import hits_to_group
from spacy_pii.core.hits import Hit
from spacy_pii.core.institutions import institution_words, names_institution, retype_institutions
from spacy_pii.core.languages import load_languages
from spacy_pii.core.name_evidence import shipped_tables

WORDS = institution_words()


@pytest.mark.parametrize(
    "span",
    [
        "Oberster Gerichtshof",
        "Cour de",
        "BUNDESVERFASSUNGSGERICHT",
        "Sąd Rejonowy",
        "Østre Landsret",
        "Staatsanwaltschaft München",
        "Верховный суд",
        # Firms, associations, clubs, newspapers, schools and shops.
        "Hafnia Forsikring",
        "Komuda Brothers Pizzeria",
        "Vrije Universiteit",
        "Ulster Defence Association",
        "Berlingske Tidende",
        "Manchester United",
        "ООО Ромашка",
    ],
)
def test_a_span_with_an_institution_word_names_an_institution(span):
    assert names_institution(span, WORDS)


@pytest.mark.parametrize(
    "span",
    # Surnames and given names that look like a court's words, and words that hold one.
    [
        "Margaret Court",
        "Anna Sala",
        "Marco Consiglio",
        "Gerichtsvollzieher",
        "Courtney",
        # Surnames that are trades or businesses, and ones a firm's word lists would hold.
        "Anna Baker",
        "Jan Brewer",
        "Maria Porter",
        "Tom Holding",
        "Ivan Banka",
        # An elided particle's surname, and surnames a review found in the lists.
        "Michel de L'Hospital",
        "Guillaume de l’Hôpital",
        # The whole word after an apostrophe is skipped, not only its first letter.
        "Pierre d'Euniversité",
        "Vilma Banky",
        "Anna Kavana",
        "Inn Soo",
    ],
)
def test_names_that_resemble_institutions_are_left_alone(span):
    assert not names_institution(span, WORDS)


def test_an_accent_written_as_a_combining_mark_matches():
    assert names_institution(unicodedata.normalize("NFD", "Hôpital Saint-Louis"), WORDS)


def test_every_listed_word_is_letters_only_and_three_or_more():
    # A word with a mark would never match, and two letters are an author's initials.
    for word in WORDS:
        assert word.isalpha() and len(word) >= 3, word


def test_no_institution_word_is_a_name_of_the_shipped_tables():
    # The rule is safe only because no listed word names a person: a word of the tables
    # would turn a real person into an organisation (and unmask it where ORG is off).
    english = shipped_tables("en")
    ranker_tables = resources.files("spacy_pii.models") / "xx_pii_default" / "pii_span_ranker"
    mixed = json.loads(gzip.decompress((ranker_tables / "data" / "tables.json.gz").read_bytes()))
    for word in WORDS:
        assert word not in english.first_names and word not in english.surnames, word
        assert word not in mixed["first_names"] and word not in mixed["surnames"], word


# Gold persons of the corpora here that are an institution's names: annotation slips.
GOLD_SLIPS = {"University of Arkansas", "Kayak Magazine"}


def test_no_institution_word_is_in_a_gold_person_of_the_corpora_here():
    # Every annotated English file of the repository: real text, precision and written sets.
    corpus = Path(__file__).resolve().parent.parent / "corpus"
    files = [*corpus.glob("external/*.jsonl"), *corpus.glob("precision/*.jsonl")]
    files += corpus.glob("written/*.jsonl")
    persons = 0
    for path in files:
        for line in path.open(encoding="utf-8"):
            row = json.loads(line)
            for span in row.get("spans", []):
                if span["label"].upper() in ("PERSON", "PER"):
                    persons += 1
                    name = row["text"][span["start"] : span["end"]]
                    if name not in GOLD_SLIPS:
                        assert not names_institution(name, WORDS), (path.name, span["start"])
    assert persons > 10_000


def test_every_language_with_data_names_its_institutions():
    languages = load_languages().languages
    assert all(rules.institution_words for rules in languages.values())


def test_only_person_hits_change_and_keep_their_offsets_and_score():
    text = "The Oberster Gerichtshof and Anna Berger."
    person = hit_on(text, "Oberster Gerichtshof", score=0.4)
    other = Hit(person.start, person.end, "LOCATION", 0.4, "ner", "model")
    name = hit_on(text, "Anna Berger")
    retyped = retype_institutions(text, [person, other, name], WORDS)
    assert retyped[0] == Hit(person.start, person.end, "ORG", 0.4, person.detector, person.kind)
    assert retyped[1:] == [other, name]
    assert retype_institutions(text, [person], frozenset()) == [person]


def _merge(text: str, hits: list[Hit], config: dict) -> list:
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config=config)
    doc = nlp.make_doc(text)
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", hits)
    return [(span.text, span.label_) for span in merge(doc).spans["pii"]]


def test_the_merge_retypes_by_default_in_any_language_and_the_setting_turns_it_off():
    # An English pipeline reads the German and Polish words too: judgments cite courts so.
    text = "The Oberster Gerichtshof and the Sąd Rejonowy heard Anna Berger."
    hits = [hit_on(text, "Oberster Gerichtshof"), hit_on(text, "Sąd Rejonowy")]
    hits.append(hit_on(text, "Anna Berger"))
    with_org = {"types": ["PERSON", "ORG"]}
    assert _merge(text, hits, with_org) == [
        ("Oberster Gerichtshof", "ORG"),
        ("Sąd Rejonowy", "ORG"),
        ("Anna Berger", "PERSON"),
    ]
    assert _merge(text, hits, {"types": ["PERSON"]}) == [("Anna Berger", "PERSON")]
    assert _merge(text, hits, {**with_org, "retype_institutions": False})[0] == (
        "Oberster Gerichtshof",
        "PERSON",
    )
