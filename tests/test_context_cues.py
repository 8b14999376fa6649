"""Context cues (spacy_pii.detectors.cues) and the PERSON list split (spacy_pii.core.conventions).

The pure functions are tested on their own; the component tests check that ``pii_rules``
splits tokens at cue boundaries, writes unscored hits, and that the merge lets a model's span
win over a cue's.
"""

from __future__ import annotations

import time

import pytest
import spacy

from spacy_pii.core.conventions import name_list_parts
from spacy_pii.core.hits import Hit
from spacy_pii.core.name_evidence import NameTables
from spacy_pii.core.resolve import resolve
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.detectors import RuleSettings, find_rule_hits
from spacy_pii.detectors.cues import column_cells, titled_names
from spacy_pii.detectors.hashtag_names import HashtagNameDetector, hashtag_name
from spacy_pii.errors import ConfigError


def _names(text: str) -> list[str]:
    return [text[start:end] for start, end in titled_names(text)]


# -- titles ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Lord Justice Gilbert and Lady Justice Bashaar agreed.", ["Gilbert", "Bashaar"]),
        ("Re: Mrs. B. Eriksen v Weller GmbH", ["B. Eriksen"]),
        ("Re: Miss I. de la O v Robertson", ["I. de la O"]),
        ("Lady Justice de Groot agreed", ["de Groot"]),
        ("PHONED MS. GILL (NOK) TO INFORM", ["GILL"]),
        ("DR. SMITH REVIEWED THE PATIENT", ["SMITH"]),
        ("I spoke with Dr. Ada Lovelace-King yesterday.", ["Ada Lovelace-King"]),
        ("Dr. Smith's notes are attached.", ["Smith"]),
        ("The file went to Mr Smith.", ["Smith"]),
        ("Prof. Dr. Anna Weber will chair.", ["Anna Weber"]),
        ("Mrs. Diana Usamov Suite 913 0547 Bygge", ["Diana Usamov"]),
    ],
)
def test_names_after_a_title(text, names):
    assert _names(text) == names


@pytest.mark.parametrize(
    "text",
    [
        "Good lord I feel old",  # a lower-case title is an exclamation here
        "Good Lord I feel old",  # "I" is not a name
        "12 Oak Dr Springfield IL",  # Drive after a house number
        "the Justice Department said",
        "the Ministry of Justice Annual Report",
        "Dear Sir, thank you",
        "Dear Sir or Madam",
        "mr smith called",  # no capital: social text is left to the model
        "Mr. 123",
        "Mr.Smith@example.com",  # no space after the title
    ],
)
def test_no_name_after_a_title(text):
    assert _names(text) == []


def test_a_titled_name_has_at_most_five_words():
    text = "Mr " + " ".join(["Alpha"] * 12)
    (start, end), *_ = titled_names(text)
    assert text[start:end] == " ".join(["Alpha"] * 5)


# -- columns ---------------------------------------------------------------------------


def _cells(text: str) -> list[tuple[str, str]]:
    return [(text[start:end], label) for start, end, label in column_cells(text)]


def test_cells_under_a_person_header_are_names():
    text = (
        "id,first_name,last_name,email\n"
        "85707,Anna Liz,das Neves,aneves@example.nl\n"
        "68522,Graham,Edwards,graham@example.com\n"
    )
    assert _cells(text) == [
        ("Anna Liz", "PERSON"),
        ("das Neves", "PERSON"),
        ("Graham", "PERSON"),
        ("Edwards", "PERSON"),
    ]


@pytest.mark.parametrize(
    ("header", "row", "expected"),
    [
        ("id\tFirst Name\tcity", "1\tAna\tLisbon", [("Ana", "PERSON")]),
        ("id;firstName;city", "1;Ana;Lisbon", [("Ana", "PERSON")]),
        ("user_id | username | plan", "7 | ana_l | pro", [("ana_l", "USERNAME")]),
        ('"id","Full-Name"', '"1","Ana Lopes"', [("Ana Lopes", "PERSON")]),
        ("id,full_name", '1,"Lopes, Ana"', [("Lopes, Ana", "PERSON")]),
        ("id,surname,login", "1,NULL,n/a", []),  # placeholders are not values
        ("id,surname", "1,1234", []),  # no letter, no name
    ],
)
def test_header_forms_and_cells(header, row, expected):
    assert _cells(f"{header}\n{row}") == expected


def test_a_table_ends_at_a_row_of_another_width():
    text = "id,surname\n1,Okafor\nnot, a, row\n2,Mensah"
    assert _cells(text) == [("Okafor", "PERSON")]


@pytest.mark.parametrize(
    "text",
    [
        "id,name,price\n1,Widget,3.50",  # "name" alone names products as often as people
        "first_name is a field we ask for\nAna",  # no delimiter: not a table
        "id,first name?,x\n1,Ana,2",  # a header cell is an identifier, not a sentence
    ],
)
def test_no_table_no_cue(text):
    assert _cells(text) == []


# -- hashtags --------------------------------------------------------------------------


def _tag_names(text: str) -> list[str]:
    return [text[hit.start : hit.end] for hit in HashtagNameDetector().find(text)]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("@amazonin #ShaneWatson #RR captain", ["ShaneWatson"]),
        ("#DonaldSterling #ShelleySterling", ["DonaldSterling", "ShelleySterling"]),
        ("Omg #RIPJohnSmith", ["JohnSmith"]),  # a run of capitals before the name
        ("#MaryJones2020 tour", ["MaryJones"]),
    ],
)
def test_a_first_name_and_surname_in_a_hashtag(text, names):
    assert _tag_names(text) == names


@pytest.mark.parametrize(
    "text",
    [
        "#MyLife #RoyalBaby #HappyNew #BuddySong",  # parts more common as words than as names
        "#tonymemmel",  # no case marks where the parts meet
        "a#JohnSmith &#JohnSmith ##JohnSmith",  # not a tag: glued to a word, an entity, a tag
        "#John_Smith #SmithJohn",  # an underscore ends the tag; surname first
        "#JoséSmith",  # a part outside ASCII breaks the run
        "John Smith",  # no tag
    ],
)
def test_no_name_in_a_hashtag(text):
    assert _tag_names(text) == []


def test_a_hashtag_name_needs_both_tables():
    tables = NameTables(language="en", first_names={"ada": 4.0}, surnames={"lovelace": 3.0})
    assert hashtag_name("AdaLovelace", tables) == (0, 11)
    assert hashtag_name("TeamAdaLovelace", tables) == (4, 15)
    assert hashtag_name("AdaAda", tables) is None
    # a pair may not end inside a word with letters outside ASCII; a capital starts one
    assert hashtag_name("AdaLovelaceé", tables) is None
    assert hashtag_name("AdaLovelaceÉcole", tables) == (0, 11)
    assert hashtag_name("éAdaLovelace", tables) == (1, 12)
    rare = NameTables(language="en", first_names={"ada": 2.0}, surnames={"lovelace": 3.0})
    assert hashtag_name("AdaLovelace", rare) is None


# -- safety ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Mr " * 50_000,
        "Mr A" * 50_000,
        "Dr. " + "A." * 100_000,
        "first_name," * 50_000 + "\n" + "a," * 50_000,
        ("first_name,x\n" + "Ana,1\n") * 20_000,
        "\n" * 200_000,
        "#" + "Xyz" * 100_000,
        "#AbCd " * 50_000,
    ],
    ids=[
        "titles",
        "title-words",
        "initials",
        "wide-header",
        "long-table",
        "blank-lines",
        "long-tag",
        "many-tags",
    ],
)
def test_cues_scan_adversarial_input_in_bounded_time(text):
    started = time.process_time()
    titled_names(text)
    column_cells(text)
    HashtagNameDetector().find(text)
    # A termination check in this process's CPU seconds, not a speed test.
    assert time.process_time() - started < 5.0


# -- the PERSON list split -------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "parts"),
    [
        (["P.", "Breton", ",", "J.", "Walter"], [(0, 2), (3, 5)]),
        (["Ana", "Lopes", ";", "Ben", "Ode", ",", "Cy", "Vo"], [(0, 2), (3, 5), (6, 8)]),
        (["Smith", ",", "John"], [(0, 3)]),  # an inverted name is one span
        (["Smith", ",", "John", "Paul"], [(0, 4)]),
        (["SCHERRER", ",", "NAZMI"], [(0, 3)]),
        (["Ada", "Lovelace"], [(0, 2)]),
    ],
)
def test_name_list_parts(words, parts):
    assert name_list_parts(words) == parts


# -- in the pipeline -------------------------------------------------------------------


def test_rule_hits_from_cues_are_unscored():
    hits = find_rule_hits("Lord Justice Gilbert agreed.")
    assert [(hit.label, hit.score, hit.detector) for hit in hits] == [
        ("PERSON", None, "cues.title")
    ]
    assert find_rule_hits("Lord Justice Gilbert agreed.", RuleSettings(context_cues=())) == []
    tagged = find_rule_hits("Go #MaryJones!")
    assert [(hit.label, hit.score, hit.detector) for hit in tagged] == [
        ("PERSON", None, "cues.hashtag")
    ]
    assert find_rule_hits("Go #MaryJones!", RuleSettings(context_cues=("titles",))) == []


def test_pii_rules_splits_tokens_at_a_cue():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules")
    text = "id,first_name,last_name\n85707,Anna Liz,das Neves"
    assert "85707,Anna" in [token.text for token in nlp.make_doc(text)]
    doc = nlp(text)
    group = doc.spans["pii_rules"]
    assert [(span.text, span.label_) for span in group] == [
        ("Anna Liz", "PERSON"),
        ("das Neves", "PERSON"),
    ]
    assert group.attrs["scores"] == [None, None]
    assert group.attrs["detectors"] == ["cues.column", "cues.column"]


def test_pii_rules_cues_can_be_turned_off_and_survive_a_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules", config={"context_cues": ["columns"]})
    nlp.to_disk(tmp_path)
    loaded = spacy.load(tmp_path)
    assert loaded.get_pipe("pii_rules").settings.context_cues == ("columns",)
    assert list(loaded("Lord Justice Gilbert agreed.").spans["pii_rules"]) == []


def test_an_unknown_cue_is_a_config_error():
    nlp = spacy.blank("en")
    with pytest.raises(ConfigError, match="context cues"):
        nlp.add_pipe("pii_rules", config={"context_cues": ["titles", "nicknames"]})


@pytest.mark.parametrize(
    "model",
    [
        Hit(0, 9, "PERSON", 0.6, "pii_ner", "model"),  # "Dr. Smith" vs the cue's "Smith"
        Hit(4, 23, "ADDRESS", 0.7, "pii_ner", "model"),  # same class rank, another type
    ],
)
def test_a_model_span_of_equal_rank_wins_over_an_overlapping_cue(model):
    cue = Hit(4, 9, "PERSON", None, "cues.title", "rule")
    assert resolve([cue, model], load_taxonomy()).spans == (model,)
