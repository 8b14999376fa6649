"""``spacy_pii.load(LANG)``: each language's tokenizer, its rule data, the multilingual names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy
from tiny_ner import SUGGESTER, examples, fit

import spacy_pii
from spacy_pii.adapters.span_groups import group_to_hits
from spacy_pii.assembly.build import language_pipeline, multilingual_pipeline_path
from spacy_pii.assembly.name_model_pair import NAMES_KEY
from spacy_pii.core.languages import UnknownLanguage, supported_languages
from spacy_pii.core.span_mean import mean_scored
from spacy_pii.errors import ConfigError

LANGUAGES = ("de", "fr", "es", "pt", "nl", "da", "sv", "hr", "sr", "sk", "ru", "it", "pl", "xx")
# "en" has data too (its tokenizer for the multilingual model); load("en") is the English default.
CODES = (*LANGUAGES, "en")


@pytest.fixture(scope="module")
def tiny_multilingual(tmp_path_factory) -> Path:
    """A multilingual-shaped pipeline (rules, a tiny pii_ner, merge) saved to a folder."""
    nlp = spacy.blank("xx")
    nlp.add_pipe("pii_rules", config={"language": "xx"})
    nlp.add_pipe("pii_ner", config={"suggester": SUGGESTER})
    nlp.add_pipe("pii_merge")
    fit(nlp, examples(nlp), passes=20)
    path = tmp_path_factory.mktemp("xx") / "model"
    nlp.to_disk(path)
    return path


def test_every_language_code_is_supported():
    assert set(supported_languages()) == set(CODES)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_load_lang_runs_that_languages_tokenizer_and_rules(lang, tiny_multilingual):
    nlp = language_pipeline(lang, model=tiny_multilingual)
    assert nlp.lang == lang
    # Serbian, written in two alphabets, has its Cyrillic read by the Latin forms.
    first = ["pii_latin_forms"] if lang == "sr" else []
    assert nlp.pipe_names == [*first, "pii_rules", "pii_ner", "pii_merge"]
    assert nlp.get_pipe("pii_rules").settings.language == lang
    doc = nlp("Kontakt: ada@example.com, IBAN DE89370400440532013000.")
    assert {s.label_ for s in doc.spans["pii"]} >= {"EMAIL", "PAYMENT"}


def test_components_named_in_exclude_are_not_loaded(tiny_multilingual):
    nlp = language_pipeline("de", model=tiny_multilingual, exclude=["pii_ner"])
    assert nlp.pipe_names == ["pii_rules", "pii_merge"]


def test_the_languages_tokenizer_replaces_the_saved_one(tiny_multilingual):
    # French elision: "l'hôpital" is two tokens in French, one in the multilingual tokenizer.
    french = language_pipeline("fr", model=tiny_multilingual)
    assert [t.text for t in french.make_doc("l'hôpital")] == ["l'", "hôpital"]


def test_the_languages_defaults_reach_the_rules(tiny_multilingual):
    nlp = language_pipeline("es", model=tiny_multilingual)
    doc = nlp("Nombre:  Ernesto.\nApellidos: Rivera Bueno.\nTeléfono 967 597 100.\n")
    found = {(s.text, s.label_) for s in doc.spans["pii"]}
    assert {("Ernesto", "PERSON"), ("Rivera Bueno", "PERSON"), ("967 597 100", "PHONE")} <= found
    german = language_pipeline("de", model=tiny_multilingual)
    doc = german("Max Muster, geb. 12.03.1961, Köln")
    assert ("12.03.1961", "DATE_OF_BIRTH") in {(s.text, s.label_) for s in doc.spans["pii"]}


def test_unknown_codes_get_a_typed_error_listing_the_supported_ones():
    with pytest.raises(UnknownLanguage) as caught:
        spacy_pii.load("tlh")
    assert isinstance(caught.value, ConfigError)
    listed = str(caught.value).split("supported: ")[1].split(", ")
    assert listed == sorted(CODES)
    with pytest.raises(UnknownLanguage):
        language_pipeline("zz")


def test_a_user_adds_our_components_to_their_own_german_pipeline(tiny_multilingual):
    source = spacy.load(tiny_multilingual)
    nlp = spacy.blank("de")
    nlp.add_pipe("pii_rules", config={"language": "de"})
    nlp.add_pipe("pii_ner", source=source)
    nlp.add_pipe("pii_merge", config={"types": ["PERSON", "PHONE", "DATE_OF_BIRTH"]})
    doc = nlp("Sehr geehrte Frau Schneider, Handy 0171 2345678, geb. 3. März 1961.")
    found = {(s.text, s.label_) for s in doc.spans["pii"]}
    assert {("Schneider", "PERSON"), ("0171 2345678", "PHONE")} <= found
    assert ("3. März 1961", "DATE_OF_BIRTH") in found


shipped = pytest.mark.skipif(
    multilingual_pipeline_path() is None, reason="this build has no embedded xx_pii_default"
)


@shipped
def test_load_de_uses_the_embedded_multilingual_model():
    nlp = spacy_pii.load("de")
    assert "pii_ner" in nlp.pipe_names and nlp.lang == "de"
    # No title or form label here: the names come from the model, not the cues.
    doc = nlp("Bundeskanzlerin Angela Merkel sprach in Berlin mit Olaf Scholz.")
    names = {s.text for s in doc.spans["pii"] if s.label_ == "PERSON"}
    assert "Olaf Scholz" in names
    assert "Berlin" not in names


@shipped
def test_a_name_before_a_possessive_s_is_found_in_each_language_that_writes_it():
    # Dutch, German, Danish and Swedish rules keep "Anna's" whole; the model, which read the
    # multilingual tokens ("Anna" "'s"), proposed nothing for the whole token.
    for lang, text in [
        ("nl", "Ik heb Anna's fiets geleend van Pieter."),
        ("de", "Ich habe Andrea's Auto geliehen."),
        ("sv", "Vi var hemma hos Mario's familj i går."),
    ]:
        doc = spacy_pii.load(lang)(text)
        names = {s.text for s in doc.spans["pii"] if s.label_ == "PERSON"}
        assert names & {"Anna", "Andrea", "Mario"}, lang


@shipped
def test_the_multilingual_ranker_weighs_names_in_the_texts_language():
    nlp = spacy_pii.load("de")
    ranker = nlp.get_pipe("pii_span_ranker")
    assert ranker.model is not None and ranker.language == "de"
    # German writes every noun with a capital: no name here, though each looks like one.
    doc = nlp("Der Hund lief über die Straße, und die Kinder spielten im Garten.")
    assert [s.text for s in doc.spans["pii"] if s.label_ == "PERSON"] == []


@shipped
def test_the_embedded_models_components_source_into_a_blank_pipeline():
    source = spacy.load(multilingual_pipeline_path())
    nlp = spacy.blank("fr")
    nlp.add_pipe("pii_rules", config={"language": "fr"})
    names = [n for n in source.pipe_names if n not in ("pii_rules", "pii_merge")]
    for name in names:
        nlp.add_pipe(name, source=source)
    nlp.add_pipe("pii_merge", config={"candidate_keys": ["pii_rules", NAMES_KEY]})
    doc = nlp("Le président Emmanuel Macron a reçu Mme Dubois à Paris.")
    found = {s.text for s in doc.spans["pii"] if s.label_ == "PERSON"}
    assert "Emmanuel Macron" in found and "Dubois" in found
    ours = spacy_pii.load("fr")(doc.text)
    assert found == {s.text for s in ours.spans["pii"] if s.label_ == "PERSON"}


@shipped
def test_the_embedded_model_is_two_runs_of_one_recipe_scored_by_their_mean():
    nlp = spacy_pii.load("de")
    assert [n for n in nlp.pipe_names if n.startswith(("tok2vec", "pii_ner"))] == [
        "tok2vec",
        "pii_ner",
        "tok2vec_2",
        "pii_ner_2",
        "pii_ner_mean",
    ]
    # The ranker is off here, so the mean group keeps the mean the merge would see ranked.
    with nlp.select_pipes(disable=["pii_span_ranker", "pii_merge"]):
        doc = nlp("Frau Annegret Kramp-Karrenbauer traf Herrn Müller in Saarbrücken.")
    runs = [group_to_hits(doc.spans[key]) for key in ("pii_ner", "pii_ner_2")]
    assert runs[0] != runs[1]
    mean = [(h.start, h.end, h.label, h.score) for h in group_to_hits(doc.spans[NAMES_KEY])]
    assert mean == [(h.start, h.end, h.label, h.score) for h in mean_scored(runs, "m")]


@shipped
def test_names_in_serbian_cyrillic():
    # No corpus here is in Cyrillic: the name model learns it from the Serbian and
    # Croatian documents copied into Serbian Cyrillic (spacy_pii.generator.script_copies).
    # The shipped model before the copies found both names in Latin letters and none in
    # Cyrillic; "Dragoslav" and "Milovanović" are in no training document.
    nlp = spacy_pii.load("sr")
    assert nlp.pipe_names[0] == "pii_latin_forms"
    texts = [
        "Predsednik opštine Dragoslav Milovanović razgovarao je sa Vesnom Radulović u Kragujevcu.",
        "Председник општине Драгослав Миловановић разговарао је са Весном Радуловић у Крагујевцу.",
    ]
    names = [[s.text for s in doc.spans["pii"] if s.label_ == "PERSON"] for doc in nlp.pipe(texts)]
    assert names == [
        ["Dragoslav Milovanović", "Vesnom Radulović"],
        ["Драгослав Миловановић", "Весном Радуловић"],
    ]


PROBES = Path(__file__).parent / "data"


def _probe_counts(lang: str) -> tuple[int, int, int]:
    """Names, names found (a PERSON span touches them) and PERSON spans touching no name,
    on ``tests/data/{lang}_names_probe.jsonl`` through ``spacy_pii.load(lang)``."""
    nlp = spacy_pii.load(lang)
    path = PROBES / f"{lang}_names_probe.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    found = invented = total = 0
    for row, doc in zip(rows, nlp.pipe(row["text"] for row in rows), strict=True):
        gold, at = [], 0
        for name in row["names"]:
            start = row["text"].index(name, at)
            gold.append((start, start + len(name)))
            at = start + len(name)
        spans = [(s.start_char, s.end_char) for s in doc.spans["pii"] if s.label_ == "PERSON"]
        total += len(gold)
        found += sum(any(s < e and g < t for s, t in spans) for g, e in gold)
        invented += sum(not any(s < e and g < t for g, e in gold) for s, t in spans)
    return total, found, invented


@shipped
@pytest.mark.parametrize(
    ("lang", "names", "min_found", "max_invented"),
    [
        # Measured on 6 December 2026 (09:28 UTC): Russian 47 of 95 found, none invented (5
        # before the Cyrillic training copies, 34 before the Russian names in them; 55 at
        # 19:25 UTC with names read around patronymics); Italian 86 of 110, 11 invented;
        # Polish 55 of 103, 10 invented. At 23:33 UTC, with Polish read with the Slovak word
        # list and Russian with the Serbo-Croatian one (``frequencies_as``): Russian 68, 3
        # invented; Polish 77, 21 invented (most of them genitive names of places and
        # bodies, "Dworca Gdańskiego"); Italian 88, 9 invented. On 7 December (01:45 UTC),
        # with the case forms of Polish stations, libraries, districts, cups, orchestras,
        # stadiums and airports among the institution words: Polish 77, 14 invented. With two
        # runs of the recipe side by side (12:38 UTC): Russian 70, 4 invented; Italian 91, 13
        # invented; Polish 80, 12 invented. With the ranker's five bagged tree ensembles and
        # PERSON from 0.50 (21:15 UTC): Russian 63, 3 invented; Italian 90, 9; Polish 76, 11.
        pytest.param("ru", 95, 62, 6, id="ru"),
        pytest.param("it", 110, 80, 14, id="it"),
        pytest.param("pl", 103, 70, 17, id="pl"),
        # French and Dutch are trained on historic newspapers (OCR) only, Spanish on clinical
        # case reports only; these sentences are modern prose.
        # Measured on 7 December 2026 (15:40 UTC): French 84 of 95 found, 3 invented (Presidio
        # on fr_core_news_md: 85 and 4); Spanish 75 of 97, 2 invented; Dutch 69 of 100, 5
        # invented. Most misses are first names alone in chat and letters, and Dutch names
        # with "van" or "de" that the model scores under 0.2. With the ranker's five bagged tree
        # ensembles and PERSON from 0.50 (21:15 UTC): French 83, 3 invented; Spanish 72, 1;
        # Dutch 67, 3.
        pytest.param("fr", 95, 78, 6, id="fr"),
        pytest.param("es", 97, 68, 5, id="es"),
        pytest.param("nl", 100, 62, 8, id="nl"),
    ],
)
def test_names_on_sentences_written_for_the_tests(
    lang: str, names: int, min_found: int, max_invented: int
):
    # 60 sentences per language written for this test (news, encyclopedia, letters and
    # chat, medical and official records, 5 without a name but with capitalised places,
    # firms and streets; public figures and invented people). No corpus here is in Russian,
    # Italian or Polish: their names come from what the model learned from its neighbours.
    total, found, invented = _probe_counts(lang)
    assert total == names
    assert found >= min_found
    assert invented <= max_invented
