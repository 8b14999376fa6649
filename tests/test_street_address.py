"""Street addresses from each language's rule data (detectors.street_address)."""

from __future__ import annotations

import pytest

from spacy_pii.core.hits import Hit
from spacy_pii.core.languages import language_rules
from spacy_pii.core.resolve import resolve
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.detectors import RuleSettings, find_rule_hits
from spacy_pii.detectors.street_address import StreetAddressDetector


def _addresses(text: str, lang: str) -> list[str]:
    hits = find_rule_hits(text, RuleSettings(language=lang))
    return sorted({text[h.start : h.end] for h in hits if h.label == "ADDRESS"})


@pytest.mark.parametrize(
    ("lang", "text", "address"),
    [
        (
            "es",
            "Domicilio: Calle Carmen Romero, 23, 1D.\nLocalidad: Madrid",
            "Calle Carmen Romero, 23, 1D",
        ),
        (
            "es",
            "Urología. Avda. de la Constitución, 18 9D. 28007 Madrid",
            "Avda. de la Constitución, 18 9D",
        ),
        (
            "es",
            "Hospital Valdecilla. Avda. Valdecilla, s/n 39008 Santander",
            "Avda. Valdecilla, s/n",
        ),
        ("es", "Servicio de Pediatría C/Santa Soria 22, Pamplona", "C/Santa Soria 22"),
        ("es", "Domicilio: C/ San Gaspar, 94, Bajo D.", "C/ San Gaspar, 94, Bajo D"),
        ("es", "Domicilio: Teatinos 180.\nLocalidad: Málaga", "Teatinos 180"),
        ("fr", "Écrire au 32, rue de Rivoli, Paris.", "32, rue de Rivoli"),
        ("fr", "demeurant 12 rue d'Alésia à Paris", "12 rue d'Alésia"),
        ("fr", "au boulevard Poissonnière 53.", "boulevard Poissonnière 53"),
        ("de", "Er wohnt in der Hauptstraße 5, 10115 Berlin.", "Hauptstraße 5"),
        ("de", "Filialen: Kantstr. 34, Charlottenburg", "Kantstr. 34"),
        ("nl", "Kalverstraat 12a, Amsterdam", "Kalverstraat 12a"),
        ("sv", "Kontor på Drottninggatan 5, Stockholm", "Drottninggatan 5"),
        ("da", "Butik i Vesterbrogade 12, København", "Vesterbrogade 12"),
        ("it", "Sede in Via Roma 12, Milano", "Via Roma 12"),
        ("pt", "na rua Major Sertório, 661, no centro", "rua Major Sertório, 661"),
        ("pl", "Biuro: ul. Marszałkowska 10/12 m. 5", "ul. Marszałkowska 10/12 m. 5"),
        ("ru", "Офис: ул. Ленина, д. 5", "ул. Ленина, д. 5"),
        ("sr", "телефон: 011 123 4567, улица Кнеза Милоша 5", "улица Кнеза Милоша 5"),
    ],
)
def test_street_addresses_in_the_languages_forms(lang, text, address):
    assert address in _addresses(text, lang)


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("es", "Estuvo en la calle durante 3 días."),  # no capitalised name
        ("es", "Vive en la calle Mayor desde hace años."),  # no house number
        ("es", "Dirección: maje1946@yahoo.es"),  # an e-mail address in an address field
        ("es", "Domicilio: 37 45673567 04."),  # a field value without a word
        ("de", "Platz 2 ging an Köln."),  # an ending alone is no street name
        ("de", "Die Straße 5 Minuten entfernt."),
        ("xx", "Spring 2020 was warm, and we shipped via Qualcomm MDM9615 chips."),
        ("xx", "As Smith et al. 2019 show, place Order 2 first."),
        ("xx", "Routed via Couponing 4 You."),
    ],
)
def test_no_street_without_a_name_and_a_house_number(lang, text):
    assert _addresses(text, lang) == []


def test_a_long_field_line_is_prose_not_a_form():
    text = "Domicilio: " + "vive con su madre en una casa de campo a las afueras " * 3 + "1."
    assert _addresses(text, "es") == []


def test_addresses_are_shape_only_and_named_by_language():
    hits = find_rule_hits("Domicilio: Calle del Sol, 42.", RuleSettings(language="es"))
    addresses = [h for h in hits if h.label == "ADDRESS"]
    assert addresses and all(h.score is None for h in addresses)
    assert {h.detector for h in addresses} == {"address.lang.es"}


def test_english_has_no_street_rule():
    # English addresses are the English model's; the language data gives English none.
    rules = language_rules("en")
    assert not (rules.street_words or rules.street_endings or rules.address_fields)
    detector = StreetAddressDetector(rules)
    assert list(detector.find("Domicilio: Calle del Sol, 42. 10 Downing Street")) == []


def test_xx_leaves_out_street_words_that_are_english_words():
    words = set(language_rules("xx").street_words)
    assert {"calle", "rue", "c/", "ul."} <= words
    assert not {"via", "place", "al."} & words
    assert "via" in language_rules("it").street_words


def test_a_model_person_inside_a_street_address_keeps_the_merge_order():
    # ADDRESS prefers the model's kind (the English model finds addresses), so where a
    # model's PERSON lies inside the street rule's ADDRESS the merge keeps the PERSON,
    # whole, and drops the address: the taxonomy's order, not a rule of this detector.
    taxonomy = load_taxonomy()
    text = "Domicilio: C/ Martin Luther King, 2, 4 C."
    rule = [h for h in find_rule_hits(text, RuleSettings(language="es")) if h.label == "ADDRESS"]
    assert [text[h.start : h.end] for h in rule] == ["C/ Martin Luther King, 2, 4 C"]
    person = Hit(text.index("Martin"), text.index(","), "PERSON", 0.9, "pii_ner", "model")
    kept = resolve([*rule, person], taxonomy).spans
    assert [(h.label, text[h.start : h.end]) for h in kept] == [("PERSON", "Martin Luther King")]
    # Without the model's span the address stands.
    alone = resolve(rule, taxonomy).spans
    assert [(h.label, text[h.start : h.end]) for h in alone] == [
        ("ADDRESS", rule[0] and text[11:40])
    ]
