"""Per-language rule data: validation, the computed ``xx``, and the cues it feeds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from spacy_pii.core.languages import (
    MIXED,
    UnknownLanguage,
    language_families,
    language_rules,
    load_languages,
    supported_languages,
)
from spacy_pii.detectors import RuleSettings, find_rule_hits
from spacy_pii.errors import ConfigError

LANGUAGES = ("de", "fr", "es", "pt", "nl", "da", "sv", "hr", "sr", "sk", "ru", "it", "pl")


def _found(text: str, lang: str, label: str) -> list[str]:
    hits = find_rule_hits(text, RuleSettings(language=lang))
    return [text[h.start : h.end] for h in hits if h.label == label]


def test_every_listed_language_and_xx_is_supported():
    assert set(supported_languages()) == {*LANGUAGES, MIXED, "en"}
    for code in LANGUAGES:
        rules = language_rules(code)
        assert rules.code == code
        assert rules.countries and rules.titles and rules.phone_cues and rules.birth_cues


def test_every_shipped_language_has_one_family_and_xx_none():
    families = language_families()
    grouped = [code for codes in families.values() for code in codes]
    assert sorted(grouped) == sorted({*LANGUAGES, "en"})
    assert families["Slavic"] == ("hr", "pl", "ru", "sk", "sr")
    assert language_rules("pt").family == "Romance"
    assert language_rules(MIXED).family is None


def test_an_unknown_code_lists_the_supported_ones():
    with pytest.raises(UnknownLanguage) as caught:
        language_rules("tlh")
    assert isinstance(caught.value, ConfigError)
    assert "de" in str(caught.value) and "xx" in str(caught.value)


def test_xx_is_the_union_without_national_id_defaults():
    mixed = language_rules(MIXED)
    assert mixed.gov_id_countries == ()
    assert {"Telefon", "téléphone", "teléfono"} <= set(mixed.phone_cues)
    # Titles that are English words or initials stay out of the union.
    assert "Dña." in mixed.titles and "Fräulein" in mixed.titles
    assert not {"M.", "Pan", "pan", "Me", "Mme"} & set(mixed.titles)


@pytest.mark.parametrize(
    ("yaml_text", "where"),
    [
        ("version: '1'\nlanguages:\n  de: {name: German, countries: [QQ]}\n", "countries"),
        ("version: '1'\nlanguages:\n  de: {name: German, gov_id_countries: [ZZ]}\n", "gov_id"),
        ("version: '1'\nlanguages:\n  de: {name: German, titles: [' Herr']}\n", "titles"),
        ("version: '1'\nlanguages:\n  xx: {name: Mixed}\n", "languages"),
        ("version: '1'\nlanguages:\n  de: {name: German, colour: red}\n", "colour"),
        ("version: '1'\nlanguages:\n  de: {name: German, family: ''}\n", "family"),
        ("version: '1'\nlanguages:\n  sr: {name: Serbian, latin_script: zz}\n", "latin_script"),
    ],
)
def test_bad_language_data_is_refused_with_its_location(tmp_path: Path, yaml_text, where):
    path = tmp_path / "languages.yaml"
    path.write_text(yaml_text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_languages(path)
    assert where in str(caught.value)


@pytest.mark.parametrize(
    ("lang", "text", "name"),
    [
        ("de", "Sehr geehrte Frau Schneider, wie besprochen", "Schneider"),
        ("de", "Termin mit Herrn Dr. Klaus Weber am Montag", "Klaus Weber"),
        ("fr", "Nous avons reçu Mme Dubois hier.", "Dubois"),
        ("fr", "Le rapport de M. Jean Martin est prêt", "Jean Martin"),
        ("es", "Atendida por la Dra. Carmen Ruiz en urgencias", "Carmen Ruiz"),
        ("es", "Nombre:  Ernesto.\nApellidos: Rivera Bueno.\n", "Ernesto"),
        ("es", "Nombre:  Ernesto.\nApellidos: Rivera Bueno.\n", "Rivera Bueno"),
        ("nl", "Geachte mevrouw, dhr. Jansen belt terug", "Jansen"),
        ("pl", "Rozmawiałem z Panem Kowalskim wczoraj", None),
        ("es", "Remitido por: Dr.Jorge Subirá Ríos. Plaza", "Jorge Subirá Ríos"),
        ("es", "Responsable clínico: Dra: Alejandra Domínguez Urgel.", "Alejandra Domínguez Urgel"),
        ("es", "Apellidos:Mendez Gomez .\n", "Mendez Gomez"),
        ("es", "Médico:  NºCol: 41 41 12345.\n", None),
        ("es", "Acompañada por D.ª Carmen Ruiz, su madre.", "Carmen Ruiz"),
        ("es", "Médico: Dr. José Pérez NºCol: 41 41 98745.", "José Pérez"),
        ("ru", "Г-н Иванов пришёл вовремя", "Иванов"),
        ("es", "Paciente: Varón de 45 años", None),
        ("es", "Hospital Dr. Peset, Valencia", None),
        ("es", "Calle del Dr. Esquerdo, 46", None),
        ("es", "Atendido por el Dr. Peset hoy", "Peset"),
        ("pl", "Pani Anna Nowak przyszła", "Anna Nowak"),
        # Forms of address as they are written mid-sentence, in lower case.
        ("nl", "Het voorstel van den heer van Zuylen werd verworpen", "van Zuylen"),
        ("nl", "Namens de gedaagden trad de heer mr. Heeren op", "Heeren"),
        ("nl", "Zo sprak de Heer tot Mozes", None),
        # Dutch forms of address as historic papers write them: without a full stop, a
        # captain's, a reverend's.
        ("nl", "waargenomen door mr van den Bergh, konkludeerde", "van den Bergh"),
        ("nl", "Het schip van Kapt. Hoogeveen is binnen", "Hoogeveen"),
        ("nl", "De preek van ds. Brouwer duurde lang", "Brouwer"),
        # German capitalises every noun, so a plural or a bare title would cue one.
        ("de", "Die Herren Kollegen stimmten zu", None),
        ("xx", "Format HH. Minutes optional", None),
        ("fr", "Le docteur Vitoux a examiné la malade", "Vitoux"),
        ("fr", "Mgr Dupanloup a prêché hier", "Dupanloup"),
        ("sv", "Föreläsningen hölls av docent Lindqvist i aulan", "Lindqvist"),
        ("fr", "Il a été reçu par monsieur Paul Girard hier", "Paul Girard"),
        ("fr", "Le nommé Lucien Barbier, cultivateur, a été arrêté", "Lucien Barbier"),
        ("es", "Llegó doña Carmen Ruiz con su hija", "Carmen Ruiz"),
        ("it", "Ieri il signor Mario Rossi ha telefonato", "Mario Rossi"),
        ("pt", "Segundo o sr. João Silva, o prazo terminou", "João Silva"),
        ("hr", "Sastanku je prisustvovao gospodin Ivan Horvat", "Ivan Horvat"),
        ("pl", "Wczoraj pan Jan Kowalski przyszedł", "Jan Kowalski"),
        # Each form also matches with a capital, so es "don" stays out with "Don" (a brand too).
        ("es", "Compró una botella de Don Simón", None),
        ("es", "Ingresó en la residencia Nuestra Señora de la Paz", None),
        ("es", "Domicilio: Ada. Nstra Señora de Montserrat, 6", None),
        ("pt", "Foi à igreja de Nossa Senhora de Fátima", None),
        # "Wed." (a Dutch widow's title) is also an English weekday, so no language lists it.
        ("xx", "The meeting moved to Wed. Jan 5 at noon", None),
    ],
)
def test_titles_and_form_labels_cue_names(lang, text, name):
    found = _found(text, lang, "PERSON")
    if name is None:
        assert found == []
    else:
        assert name in found


@pytest.mark.parametrize(
    ("lang", "text", "date"),
    [
        ("de", "Max Mustermann, geb. 12.03.1961, wohnhaft in Köln", "12.03.1961"),
        ("de", "geboren am 3. März 1961 in Wien", "3. März 1961"),
        ("fr", "Jean Martin, né le 3 mars 1961 à Lyon", "3 mars 1961"),
        ("es", "Fecha de nacimiento: 03/03/1946.", "03/03/1946"),
        ("es", "nacida el 5 de mayo de 1980", "5 de mayo de 1980"),
        ("sv", "född 1961-03-12 i Umeå", "1961-03-12"),
        ("it", "nato il 12/03/1961 a Roma", "12/03/1961"),
    ],
)
def test_dates_of_birth_in_the_languages_forms(lang, text, date):
    assert _found(text, lang, "DATE_OF_BIRTH") == [date]


def test_a_date_without_a_birth_cue_is_no_date_of_birth():
    assert _found("Termin am 12.03.2024 um 10 Uhr", "de", "DATE_OF_BIRTH") == []


@pytest.mark.parametrize(
    ("lang", "text", "value", "label"),
    [
        ("es", "NHC: 368503.\nNASS: 26 63514095.\n", "368503", "GOV_ID"),
        ("es", "NHC: 368503.\nNASS: 26 63514095.\n", "26 63514095", "GOV_ID"),
        # A record's prefix before the number is not part of the id.
        ("es", "CIPA: nhc-739146.\nNASS: 71 12345678", "739146", "GOV_ID"),
        ("es", "Servicio: Urgencias.\nEpisodio: 04735665.\n", "04735665", "GOV_ID"),
        ("es", "Dr. José Pérez NºCol: 41 41 98745.", "41 41 98745", "GOV_ID"),
        ("es", "Tuvo un episodio de dolor de 2 horas.", None, "GOV_ID"),
        ("de", "Passwort: Sommer2024! bitte ändern", "Sommer2024!", "SECRET"),
        ("fr", "mot de passe = hX9#kL2p", "hX9#kL2p", "SECRET"),
        ("es", "contraseña: olvidada", None, "SECRET"),
        (
            "es",
            "escribir a juan arroba ejemplo punto com mañana",
            "juan arroba ejemplo punto com",
            "EMAIL",
        ),
        ("de", "Wir trafen uns at home punkt de", None, "EMAIL"),
        ("de", "E-Mail: anna at web punkt de", "anna at web punkt de", "EMAIL"),
    ],
)
def test_id_secret_and_email_cues(lang, text, value, label):
    found = _found(text, lang, label)
    if value is None:
        assert found == []
    else:
        assert value in found


def test_language_phone_plans_and_cues():
    # A Spanish national number with no cue: the English default's plans (US, GB) miss it,
    # the Spanish data's plan (ES) reads it.
    text = "Puede llamar al 967 597 100 por la tarde."
    assert "967 597 100" not in _found(text, None, "PHONE")
    assert _found(text, "es", "PHONE") == ["967 597 100"]
    assert _found("Handy 0171 2345678 ab 18 Uhr", "de", "PHONE") == ["0171 2345678"]


@pytest.mark.parametrize("lang", ["es", "xx"])
def test_a_cued_second_number_after_a_slash_starts_at_its_first_digit(lang):
    # libphonenumber's matcher hands back the second of "a / b" with the space after the
    # slash; find_hits trims it, or spaCy could not place the span on tokens (a training
    # run on MEDDOCAN stopped on this line).
    text = "Madrid Tlf: 918038014 / 656352534\n"
    phones = _found(text, lang, "PHONE")
    assert phones and all(p == p.strip() for p in phones)
    assert "656352534" in phones or "918038014" in phones


def test_an_unknown_language_setting_is_a_config_error():
    import spacy

    assert RuleSettings().language is None
    with pytest.raises(ValueError, match="supported: da, de"):
        RuleSettings(language="tlh")
    with pytest.raises(ConfigError, match="language"):
        spacy.blank("de").add_pipe("pii_rules", config={"language": "tlh"})


@pytest.mark.parametrize(
    ("lang", "text", "name"),
    [
        (
            "ru",
            "Великий писатель Лев Николаевич Толстой родился в Ясной Поляне",
            "Лев Николаевич Толстой",
        ),
        ("ru", "Встреча с Олегом Викторовичем прошла спокойно", "Олегом Викторовичем"),
        ("ru", "Мы говорили с Иваном Петровичем Сидоровым вчера", "Иваном Петровичем Сидоровым"),
        ("ru", "Пациентка Анна Сергеевна жалоб не предъявляет", "Анна Сергеевна"),
        ("ru", "Музыку написал Пётр Ильич Чайковский", "Пётр Ильич Чайковский"),
        ("ru", "Рядом сидела Анна Ильинична", "Анна Ильинична"),
        # Stress marks, as encyclopedias print them, neither split nor start a word.
        ("ru", "Лев Никола́евич Толсто́й — русский писатель", "Лев Никола́евич Толсто́й"),
        ("ru", "Ива́н Петро́вич Си́доров пришёл", "Ива́н Петро́вич Си́доров"),
        # Mixed or unknown text reads every language's endings.
        ("xx", "Report signed by Олег Борисович on Monday", "Олег Борисович"),
    ],
)
def test_a_patronymic_makes_a_name_with_the_given_name_and_surname(lang, text, name):
    assert name in _found(text, lang, "PERSON")


def test_a_surname_that_ends_like_a_patronymic_leaves_no_word_of_the_name_out():
    # Two reads overlap ("Мицкевич" with the word before, "Сергеевич" with "Игорь"): one span.
    text = "Подсудимый Мицкевич Игорь Сергеевич признал вину"
    hits = find_rule_hits(text, RuleSettings(language="ru"))
    spans = [text[h.start : h.end] for h in hits if h.detector.endswith(".patronymic")]
    assert len(spans) == 1 and spans[0].endswith("Мицкевич Игорь Сергеевич")


@pytest.mark.parametrize(
    "text",
    [
        # Adjectives with the endings of a female patronymic's other forms are not listed.
        "Председатель Верховной Рады выступил с заявлением",
        "Ситуация Типична для этого региона",
        # A patronymic needs a capitalised given name right before it, on its line.
        "Встреча с петровичем прошла",
        "Директор,\nПетрович ушёл",
        # Serbian surnames end in -ић, not -ич.
        "Министар Марко Петровић је рекао",
    ],
)
def test_no_name_without_a_capitalised_given_name_and_patronymic(text):
    for lang in ("ru", "xx"):
        hits = find_rule_hits(text, RuleSettings(language=lang))
        assert [h for h in hits if h.detector.endswith(".patronymic")] == [], lang


@pytest.mark.parametrize(
    "unit",
    [
        "Nombre: ",  # a form label with no value, many times
        # Given names and patronymics, each a read; one endless word that ends like one.
        "Иван Петрович Ович ",
        "Петровичович" * 5 + " ",
        # Street words and capitalised names with no house number: each starts a read.
        "Calle De La Del Los Las Gran Vía Mayor Nueva " * 3 + "\n",
        # Compound street endings and short numbers, every one refused ("Straße" alone).
        "Straße 5 weg 12 Gasse 3, ",
    ],
)
def test_language_cues_are_linear_on_hostile_text(unit):
    # 100k against 1M characters, best of three runs, each on text no run has seen.
    rules = RuleSettings(language="xx")

    def best(size: int) -> float:
        times = []
        for run in range(3):
            text = f"{size} {run} " + unit * (size // len(unit))
            start = time.process_time()
            find_rule_hits(text, rules)
            times.append(time.process_time() - start)
        return min(times)

    assert best(1_000_000) < 30 * max(best(100_000), 1e-3)


def test_every_shipped_language_names_only_countries_with_an_id_rule():
    from spacy_pii.core.languages import load_languages
    from spacy_pii.detectors import GOV_ID_COUNTRIES

    table = load_languages()
    for code, rules in table.languages.items():
        assert set(rules.gov_id_countries) <= set(GOV_ID_COUNTRIES), code


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("de", "Bitte anrufen bis 2025."),
        ("fr", "Veuillez appeler le 15 mai 2025 pour confirmer."),
    ],
)
def test_a_year_after_a_phone_cue_is_not_a_phone(lang: str, text: str):
    # 2025 is a valid national number in Luxembourg's and Austria's plans.
    assert _found(text, lang, "PHONE") == []
