"""The span ranker's lexical evidence: each feature reads what its name says."""

from __future__ import annotations

import pytest

from spacy_pii.core.name_evidence import (
    FEATURE_NAMES,
    Candidate,
    DocumentCasing,
    NameTables,
    candidate_features,
    document_features,
    shipped_tables,
    zipf,
)
from spacy_pii.errors import ConfigError

TABLES = NameTables(
    language="en",
    first_names={"mary": 6.5, "will": 5.7},
    surnames={"smith": 6.4, "foley": 4.5},
    shorthand=frozenset({"NPO", "PRN", "q4h", "BMP"}),
    drugs=frozenset({"zosyn", "lasix"}),
    software=frozenset({"lodash", "jenkins"}),
    places={"florence": 5.6, "new york": 6.9, "york": 5.3},
)


def _features(text: str, fragment: str, **kwargs) -> dict[str, float]:
    start = text.index(fragment)
    candidate = Candidate(
        start=start,
        end=start + len(fragment),
        label=kwargs.pop("label", "PERSON"),
        score=kwargs.pop("score", 0.6),
        from_peer=kwargs.pop("from_peer", False),
        other_types=frozenset(kwargs.pop("other_types", ())),
    )
    language = kwargs.pop("language", None)
    row = candidate_features(text, candidate, DocumentCasing.of(text), TABLES, language)
    return dict(zip(FEATURE_NAMES, row, strict=True))


@pytest.mark.parametrize(
    ("text", "fragment", "feature", "expected"),
    [
        ("We met Mary Smith today.", "Mary Smith", "first_name_share", 0.5),
        ("We met Mary Smith today.", "Mary Smith", "surname_share", 0.5),
        ("We met Mary Smith today.", "Mary Smith", "title_share", 1.0),
        ("We met Mary Smith today.", "Mary Smith", "sentence_start", 0.0),
        ("Today was long. Mary left.", "Mary", "sentence_start", 1.0),
        ("Seen by Dr. Foley on rounds.", "Foley", "honorific_before", 1.0),
        ("Pt NPO after midnight, Zosyn q4h.", "NPO", "shorthand_share", 1.0),
        ("Pt NPO after midnight, Zosyn q4h.", "Zosyn", "drug_share", 1.0),
        # Endings of medical words, and none of names that end alike.
        ("RESP: EUVOLEMIA, BIBASILAR CRACKLES", "EUVOLEMIA", "medical_suffix_share", 1.0),
        ("s/p Hemicolectomy Smith", "Hemicolectomy Smith", "medical_suffix_share", 0.5),
        ("Signed: Jonas Petraitis", "Jonas Petraitis", "medical_suffix_share", 0.0),
        ("Seen with Jeremias and Eufemia", "Jeremias", "medical_suffix_share", 0.0),
        ("call getUserById now", "getUserById", "camel_case", 1.0),
        ("Bump lodash from 4.17.20", "lodash", "software_share", 1.0),
        ("Thanks, Mary Jenkins", "Mary Jenkins", "software_share", 0.5),
        # One of the four tokens looks like code, so the interaction reads a quarter.
        ("Bump lodash to 4.17.21/dist", "lodash", "software_in_code", 0.25),
        ("Thanks, Mary Jenkins", "Mary Jenkins", "software_in_code", 0.0),
        # Part of a longer token of code, and not where prose or shorthand glues a word on.
        ("target down (job=Kibana, instance=10.0.3.17)", "Kibana", "glued_to_code", 1.0),
        ("from src/Render import it", "Render", "glued_to_code", 1.0),
        ("import os.Path as P", "Path", "glued_to_code", 1.0),
        ("Deprecated Session.execute_raw; use it", "Session", "glued_to_code", 1.0),
        ("Argument 1 to Mako(x) is wrong", "Mako", "glued_to_code", 1.0),
        ("pt came w/Mary today", "Mary", "glued_to_code", 0.0),
        ("seen by Mrs.Smith today", "Smith", "glued_to_code", 0.0),
        ("Thanks, Mary Jenkins (our lead).", "Mary Jenkins", "glued_to_code", 0.0),
        # A sentence or a path that ends a line does not glue the next line's first word.
        ("Pt stable overnight.\nMary called at 0800.", "Mary", "glued_to_code", 0.0),
        ("Saved under docs/\nMary reviewed it.", "Mary", "glued_to_code", 0.0),
        ("We drove to Florence", "Florence", "place_share", 1.0),
        ("We drove to Florence", "Florence", "place_strength", 5.6 / 7),
        # A place of several words counts whole, before its words do.
        ("Flights to New York", "New York", "place_strength", 6.9 / 7),
        ("Mary Smith of York", "Mary Smith", "place_strength", 0.0),
        ("colour #1E90FF set", "#1E90FF", "has_digit", 1.0),
        ("colour #1E90FF set", "#1E90FF", "has_symbol", 1.0),
        ("Signed J. K. Rowling", "J. K.", "initial_share", 1.0),
        ("PATIENT SEEN BY MARY", "MARY", "all_caps", 1.0),
        ("PATIENT SEEN BY MARY", "MARY", "doc_uniform_case", 1.0),
        ("PATIENT SEEN BY MARY", "MARY", "title_in_mixed_case", 0.0),
        ("patient seen by mary", "mary", "lower_share", 1.0),
        ("Patient SEEN by mary", "mary", "lower_in_mixed_case", 1.0),
    ],
)
def test_feature_reads_its_evidence(text, fragment, feature, expected):
    assert _features(text, fragment)[feature] == pytest.approx(expected)


def test_shorthand_matches_case_folded_only_in_uniformly_cased_text():
    assert _features("Pt is npo and stable, Dr. Mary Smith aware.", "npo")["shorthand_share"] == 0
    assert _features("pt is npo and stable", "npo")["shorthand_share"] == 1


def test_a_common_word_at_a_sentence_start_carries_its_frequency():
    common = _features("The plan. Will continue.", "Will")
    rare = _features("The plan. Xqzvor continue.", "Xqzvor")
    assert common["common_word_at_start"] > 0.5
    assert rare["common_word_at_start"] == 0.0
    assert rare["unknown_word_share"] == 1.0
    assert common["zipf_max"] > rare["zipf_max"]


def test_words_in_no_name_table_are_known_when_common_shorthand_or_a_drug():
    # "Report" is common (Zipf 5), "Xqzvor" never seen; "Mary" and "Smith" are names however
    # common. "PACU" (Zipf 2.0) counts only as shorthand, "Zosyn" (never seen) only as a drug,
    # and both in any case, in prose too.
    assert _features("Nursing Report", "Report")["known_non_name_share"] == 1.0
    assert _features("seen by Xqzvor today", "Xqzvor")["known_non_name_share"] == 0.0
    assert _features("Mary Smith called", "Mary Smith")["known_non_name_share"] == 0.0
    assert _features("Dr. Will Report", "Will Report")["known_non_name_share"] == 0.5
    tables = NameTables(language="en", shorthand=frozenset({"PACU"}), drugs=frozenset({"zosyn"}))
    text = "Seen in the Pacu by the team, then Zosyn given before Mary Smith was told the plan."
    for fragment in ("Pacu", "Zosyn"):
        start = text.index(fragment)
        candidate = Candidate(start, start + len(fragment), "PERSON", 0.9, False)
        row = candidate_features(text, candidate, DocumentCasing.of(text, tables), tables)
        assert row[FEATURE_NAMES.index("known_non_name_share")] == 1.0
    assert _features("Seen in the Pacu today", "Pacu")["known_non_name_share"] == 0.0


def test_other_detectors_agreement_by_type():
    same = _features("I saw Mary there", "Mary", other_types={"PERSON"})
    other = _features("I saw Mary there", "Mary", other_types={"ORG"})
    assert (same["other_source_same_type"], same["other_source_other_type"]) == (1.0, 0.0)
    assert (other["other_source_same_type"], other["other_source_other_type"]) == (0.0, 1.0)


def test_every_candidate_gets_one_value_per_feature_name():
    text = "Mary Smith saw Dr. Foley."
    candidates = [Candidate(0, 10, "PERSON", 0.9, False), Candidate(19, 24, "ORG", None, True)]
    rows = document_features(text, candidates, TABLES)
    assert [len(row) for row in rows] == [len(FEATURE_NAMES)] * 2
    assert rows[1][FEATURE_NAMES.index("score")] == 0.0
    assert rows[1][FEATURE_NAMES.index("label_org")] == 1.0


def test_a_score_is_read_to_four_decimals_so_float_noise_between_machines_is_not_an_input():
    # The same pipeline on another CPU scored the same spans in the eighth decimal apart.
    here = _features("I saw Mary there", "Mary", score=0.6123456789)
    elsewhere = _features("I saw Mary there", "Mary", score=0.6123456701)
    assert here == elsewhere
    assert here["score"] == pytest.approx(0.6123)
    assert _features("I saw Mary there", "Mary", score=0.61236)["score"] != here["score"]


def test_a_span_without_letters_has_features_too():
    row = _features("build 1234 done", "1234")
    assert row["has_digit"] == 1.0 and row["zipf_max"] == 0.0 and row["first_name_share"] == 0


def test_prose_is_not_uniformly_cased_though_its_letters_are_nearly_all_lower_case():
    prose = (
        "The patient was reviewed this morning with her daughter, and Mary Smith from the "
        "ward team agreed that the plan for discharge should wait until the results are back."
    )
    casing = DocumentCasing.of(prose)
    assert casing.lower_share > 0.95
    assert casing.letters_in_one_case
    assert not casing.uniform
    assert DocumentCasing.of(prose.lower()).uniform
    assert DocumentCasing.of(prose.upper()).uniform


def test_shorthand_in_long_prose_is_matched_only_as_written():
    prose = (
        "Reviewed on the ward this morning with her daughter present, and Dee Smith from the "
        "team agreed that the plan should wait until the results come back; Pt is npo for now."
    )
    tables = NameTables(language="en", shorthand=frozenset({"NPO", "DEE"}))
    casing = DocumentCasing.of(prose, tables)
    assert casing.shorthand_share == 0.0
    lower = prose.lower()
    assert DocumentCasing.of(lower, tables).shorthand_share > 0.0
    start = prose.index("Dee")
    row = candidate_features(
        prose, Candidate(start, start + 3, "PERSON", 0.9, False), casing, tables
    )
    assert row[FEATURE_NAMES.index("shorthand_share")] == 0.0


def test_words_of_a_script_without_case_leave_a_latin_name_among_them_unfolded():
    # Arabic words have no capitals; counted as lower case they made this text "uniform",
    # and the name "Ali" matched the shorthand "ALI".
    text = "وصل المريض إلى المستشفى صباح اليوم وتم فحصه " * 5 + "مع Ali Hassan"
    tables = NameTables(language="en", shorthand=frozenset({"ALI"}))
    casing = DocumentCasing.of(text, tables)
    assert casing.capital_word_share == 1.0
    assert not casing.uniform
    assert casing.shorthand_share == 0.0


def test_text_without_letters_still_has_its_share_of_code():
    casing = DocumentCasing.of("== {} 12:30 //")
    assert casing.code_share > 0.5
    assert (casing.upper_share, casing.lower_share) == (0.0, 0.0)


def test_document_casing_shares():
    casing = DocumentCasing.of("ABC def")
    assert (casing.upper_share, casing.lower_share) == (0.5, 0.5)
    assert not casing.uniform
    assert DocumentCasing.of("1234 !!").upper_share == 0.0


def test_tables_round_trip_and_malformed_tables_are_refused():
    assert NameTables.from_dict(TABLES.to_dict()) == TABLES
    with pytest.raises(ConfigError):
        NameTables.from_dict({"language": "en", "first_names": {"mary": "many"}})


def test_a_drug_weighs_by_the_documents_shorthand():
    def drug_in_shorthand(text: str) -> float:
        start = text.index("Zosyn")
        candidate = Candidate(start, start + 5, "PERSON", 0.6, False)
        row = document_features(text, [candidate], TABLES)[0]
        return row[FEATURE_NAMES.index("drug_in_shorthand")]

    # Half of the tokens are shorthand (NPO, q4h), so the drug reads half.
    assert drug_in_shorthand("NPO Zosyn q4h x") == 0.5
    assert drug_in_shorthand("Thanks, Zosyn") == 0.0


def test_shipped_english_tables_know_names_shorthand_drugs_and_software():
    tables = shipped_tables("en")
    assert tables.first_names["mary"] > 6 and tables.surnames["smith"] > 6
    assert {"NPO", "PRN"} <= tables.shorthand
    assert "furosemide" in tables.drugs
    # Devices, dressings and drug short forms that notes write like names (written here).
    assert {"foley", "mepilex", "tegaderm", "vanco"} <= tables.drugs
    # Package stems without their packaging (node-lodash, python3-sphinx).
    assert {"lodash", "sphinx", "jekyll"} <= tables.software
    assert "mary" not in tables.software
    assert tables.places["paris"] > 6 and tables.places["new york city"] > 6
    # A language without tables gets empty ones, so its table features read zero.
    assert shipped_tables("xx").first_names == {}


def test_word_frequencies_follow_the_texts_language_and_mixed_text_has_none():
    assert zipf("und", "de") > 5 and zipf("und", "en") < zipf("und", "de")
    # Croatian and Serbian words are in wordfreq's Serbo-Croatian list.
    assert zipf("nije", "hr") > 4 and zipf("nije", "sr") == zipf("nije", "hr")
    assert zipf("und", "xx") == 0.0


def test_the_language_of_the_text_decides_the_frequency_features():
    text = "Gestern kam Haus zurück."
    start = text.index("Haus")
    candidate = Candidate(start, start + 4, "PERSON", 0.6, False)
    casing = DocumentCasing.of(text)
    english = candidate_features(text, candidate, casing, TABLES)
    german = candidate_features(text, candidate, casing, TABLES, language="de")
    zipf_max = FEATURE_NAMES.index("zipf_max")
    assert german[zipf_max] > english[zipf_max]


def test_address_words_before_a_candidate_follow_the_texts_language():
    def reads(text: str, fragment: str, language: str) -> float:
        return _features(text, fragment, language=language)["address_word_before"]

    # A street or an institution named after a person: the language's place words.
    assert reads("Domicilio: Calle de Francisco Berkal, 4", "Francisco Berkal", "es") == 1.0
    assert reads("Domicilio: C/ Martin Luther King, 12", "Martin Luther King", "es") == 1.0
    assert reads("Il habite 3, rue Victor Hugo.", "Victor Hugo", "fr") == 1.0
    # Mixed text reads every language's place words.
    assert reads("Il habite 3, rue Victor Hugo.", "Victor Hugo", "xx") == 1.0
    # Only the two words before the candidate, on its own line.
    assert reads("Calle\nFrancisco Berkal vino ayer.", "Francisco Berkal", "es") == 0.0
    assert (
        reads("La calle estaba vacía cuando Francisco Berkal llegó.", "Francisco Berkal", "es")
        == 0.0
    )
    assert reads("Visto por Francisco Berkal ayer.", "Francisco Berkal", "es") == 0.0
    # English has no place words in the language data: the feature stays off.
    assert reads("She lives on Calle de Francisco Berkal.", "Francisco Berkal", "en") == 0.0


def test_serbian_cyrillic_words_are_looked_up_by_their_latin_forms():
    # The tables hold Serbian names in Latin letters; Serbian is written in both alphabets,
    # Russian in Cyrillic only, so only Serbian text is looked up by its Latin form.
    tables = NameTables(language="xx", first_names={"dragoslav": 3.0}, surnames={"jovanović": 4.0})
    text = "Састанак: Драгослав Јовановић."
    start = text.index("Драгослав")
    candidate = Candidate(
        start=start, end=len(text) - 1, label="PERSON", score=0.6, from_peer=False
    )

    def shares(language: str) -> tuple[float, float]:
        row = dict(
            zip(
                FEATURE_NAMES,
                candidate_features(text, candidate, DocumentCasing.of(text), tables, language),
                strict=True,
            )
        )
        return row["first_name_share"], row["surname_share"]

    assert shares("sr") == (0.5, 0.5)
    assert shares("ru") == (0.0, 0.0)
