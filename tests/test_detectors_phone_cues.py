"""The phone rule's cue pass: national numbers of :data:`CUE_REGIONS` after a phone cue.

Standards: ITU-T E.164 and each region's national numbering plan, as libphonenumber's
metadata encodes them; every number here is one ``phonenumbers.is_valid_number`` accepts
for its region (checked by ``test_examples_are_valid``), so the tests do not trust a
hand-typed number.
"""

from __future__ import annotations

import phonenumbers
import pytest

from spacy_pii.detectors.phone import CUE_REGIONS, CUE_WINDOW, PhoneDetector, cue_windows
from spacy_pii.detectors.phone_obfuscated import ObfuscatedPhoneDetector
from tests.test_detectors_contact import PHONE_CASES

DETECTOR = PhoneDetector(("US", "GB"))
NO_CUES = PhoneDetector(("US", "GB"), cue_regions=())

# (region, national-format number) pairs quoted by the held-out generated test.
NATIONAL = [
    pytest.param("DE", "03834 17936", id="DE-national-plan"),
    pytest.param("FR", "05 56 98 78 79", id="FR-national-plan"),
    pytest.param("AU", "0402 812 949", id="AU-mobile"),
    pytest.param("AU", "0246200129", id="AU-fixed-compact"),
    pytest.param("DK", "80 08 66 13", id="DK-8-digit-plan"),
    pytest.param("IN", "8756942871", id="IN-mobile-no-prefix"),
    pytest.param("PT", "(351) 933 061 022", id="PT-e164-code-in-parens"),
]


def _found(detector: PhoneDetector, text: str) -> list[tuple[str, float | None]]:
    return [(text[h.start : h.end], h.score) for h in detector.find(text)]


@pytest.mark.parametrize(("region", "number"), NATIONAL)
def test_examples_are_valid(region: str, number: str):
    assert phonenumbers.is_valid_number(phonenumbers.parse(number, region))


@pytest.mark.parametrize(("region", "number"), NATIONAL)
@pytest.mark.parametrize(
    "template",
    [
        "phone: {}",
        "Tel. {}",
        "Mob: {}",
        "call me on {} tomorrow",
        "Téléphone : {}",
        "id,name,phone,created_at\n7,Ana,{},2024-01-02",
        "id;Mobile phone;city\n7;{};Lyon",
        "I can be reached at {} or by mail",
        "Called customer back on {}, no answer",
        "wants a callback on {}",
        "Text me on {}.",
        "My home number is {}.",
        "my phone died and i lost everything\nits {}\nthx",
        "Phone:\n{}",
    ],
    ids=[
        "form", "tel-abbr", "mob", "chat", "french", "csv-comma", "csv-semicolon",
        "reached-at", "called-back", "callback", "text-me", "my-number", "next-line",
        "cue-alone-on-its-line",
    ],
)  # fmt: skip
def test_cue_finds_national_number(template: str, region: str, number: str):
    assert _found(DETECTOR, template.format(number)) == [(number, 1.0)]


@pytest.mark.parametrize(("region", "number"), NATIONAL)
def test_no_cue_no_foreign_national_number(region: str, number: str):
    assert _found(DETECTOR, f"ref {number} noted") == []


@pytest.mark.parametrize(
    "region", [r for r in CUE_REGIONS if r not in ("CA",)], ids=lambda r: f"{r}-example"
)
def test_cue_finds_libphonenumber_example(region: str):
    # CA shares +1 with the US default region: the first pass already reads it.
    example = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    number = phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.NATIONAL)
    assert _found(DETECTOR, f"mobile: {number}") == [(number, 1.0)]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("phone: 05 56 98 78 7", id="FR-too-short-invalid"),
        pytest.param("phone: 000 000 0000", id="invalid-everywhere"),
        pytest.param("our hotel 0402 812 949", id="hotel-is-not-tel"),
        pytest.param("recall 0402 812 949", id="recall-is-not-call"),
        pytest.param("mobiles 0402 812 949", id="mobiles-is-not-mobile"),
        pytest.param("call me on 12.05.2024", id="date-dots-after-cue"),
        pytest.param("call me on 2024-05-12", id="date-iso8601-after-cue"),
        pytest.param("call about 1.250,00 EUR", id="amount-after-cue"),
        pytest.param("phone\nnone\n0402 812 949", id="two-lines-down"),
        pytest.param("phone 1\n0402 812 949", id="cue-line-has-its-digits"),
        pytest.param("ringing 0402 812 949", id="ringing-is-not-ring"),
        pytest.param("the number 0402 812 949", id="bare-number-is-no-cue"),
        pytest.param("order 03455/53135596", id="slash-form-without-cue"),
        pytest.param("phone: " + "x" * CUE_WINDOW + " 0402 812 949", id="beyond-window"),
        pytest.param("id,name,email\n7,Ana,0402 812 949", id="csv-column-without-cue"),
    ],
)
def test_cue_negatives(text: str):
    assert _found(DETECTOR, text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("Tel: +44 20 7946 0958", [("+44 20 7946 0958", 1.0)], id="e164-once"),
        pytest.param("Tel/Fax: 020 7946 0958", [("020 7946 0958", 1.0)], id="gb-two-cues-once"),
        pytest.param(
            "tel 212 555 0100 or 0402 812 949",
            [("212 555 0100", 1.0), ("0402 812 949", 1.0)],
            id="first-pass-and-cue-pass",
        ),
    ],
)
def test_cue_pass_adds_no_duplicate(text: str, expected):
    assert sorted(_found(DETECTOR, text)) == sorted(expected)


@pytest.mark.parametrize(("text", "expected"), PHONE_CASES)
def test_existing_cases_unchanged_by_cue_pass(text: str, expected):
    assert _found(DETECTOR, text) == _found(NO_CUES, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A hyphen then a word with a non-hexadecimal letter is a label, not a token.
        pytest.param("+447700 208 815-Fax", [("+447700 208 815", None)], id="e164-label-fax"),
        pytest.param("+44 20 7946 0958-Office", [("+44 20 7946 0958", 1.0)], id="e164-label"),
        # ITU-T E.164 with a national prefix in parentheses right after the country code.
        pytest.param("+49(0)30 12345678", [("+49(0)30 12345678", 1.0)], id="e164-DE-paren-0"),
        pytest.param("+31(0)20 1234567", [("+31(0)20 1234567", 1.0)], id="e164-NL-paren-0"),
        pytest.param("2125550100-abcdef", [], id="hex-group-still-glued"),
    ],
)
def test_boundaries(text: str, expected):
    assert _found(NO_CUES, text) == expected


@pytest.mark.parametrize(
    "text",
    ["Tel.: 03455/53135596", "id,phone\n7,03455/53135596"],
    ids=["after-cue", "csv-column"],
)
def test_cue_reads_area_code_slash_form(text: str):
    # DIN 5008's old "area code/subscriber" form, common in Germany and Austria.
    assert phonenumbers.is_valid_number(phonenumbers.parse("03455 53135596", "AT"))
    assert _found(DETECTOR, text) == [("03455/53135596", 1.0)]


def test_slash_form_keeps_dates_out():
    assert _found(DETECTOR, "Tel. on 14/03/2024 or 03/14/2024") == []


def test_cue_windows_bounded_and_merged():
    text = "Tel/Fax: " + "1" * 200
    windows = cue_windows(text)
    # "Tel" opens [3, 3 + W), "Fax" [7, 7 + W): one merged window, never the whole line.
    assert windows == [(len("Tel"), len("Tel/Fax") + CUE_WINDOW)]


# The French and German pipelines' regions (spacy_pii/data/languages-2026.12.yaml).
FRENCH_REGIONS = ("FR", "BE", "CH", "LU", "MC")
GERMAN_REGIONS = ("DE", "AT", "CH", "LI", "LU")


# Numbers that Luxembourg's plan validates, each the length of a postcode, a year, an
# amount or an id (every one was a phone of score 1.0 in French and German text before).
LUXEMBOURG_VALID = ["75002", "482913", "2612345", "26123456", "621123456", "2910554750"]


@pytest.mark.parametrize("number", LUXEMBOURG_VALID)
def test_examples_are_valid_in_luxembourg(number: str):
    assert phonenumbers.is_valid_number(phonenumbers.parse(number, "LU"))


@pytest.mark.parametrize("regions", [FRENCH_REGIONS, GERMAN_REGIONS], ids=["fr", "de"])
@pytest.mark.parametrize("number", LUXEMBOURG_VALID)
def test_luxembourg_plan_needs_a_cue(regions: tuple[str, ...], number: str):
    assert _found(PhoneDetector(regions), f"Commande {number} du 3 mars") == []
    assert _found(PhoneDetector(regions), f"Bestellung {number} versandt") == []


def test_luxembourg_numbers_after_a_cue_or_a_plus():
    # Among the French regions and the cue regions, only Luxembourg validates these, so a
    # hit after a cue comes from the text's own cue-only region; a "+" needs no cue.
    without_luxembourg = PhoneDetector(("FR", "BE", "CH", "MC"))
    for number in ("44 55 66", "866701", "5178410"):
        assert phonenumbers.is_valid_number(phonenumbers.parse(number, "LU"))
        assert _found(without_luxembourg, f"Tel. {number}") == []
        assert _found(PhoneDetector(FRENCH_REGIONS), f"Tel. {number}") == [(number, 1.0)]
        assert _found(PhoneDetector(FRENCH_REGIONS), f"Ref. {number}") == []
    text = "appelez le +352 26 12 34 56"
    assert _found(PhoneDetector(FRENCH_REGIONS), text) == [("+352 26 12 34 56", 1.0)]


def test_short_national_numbers_need_a_cue():
    # A valid German number of ten digits is read without a cue, one of six digits only
    # after one.
    detector = PhoneDetector(GERMAN_REGIONS)
    assert phonenumbers.is_valid_number(phonenumbers.parse("030 123", "DE"))
    assert _found(detector, "Ruf 0711 123456 an") == [("0711 123456", 1.0)]
    assert _found(detector, "Zimmer 030 123 im Plan") == []
    assert _found(detector, "Telefon 030 123") == [("030 123", 1.0)]


def test_san_marino_six_digit_numbers_after_a_cue():
    # San Marino's national prefix is rewritten ("0549" + six digits), so its numbers are
    # shorter than its plan's lengths say; the cue pass still reads them.
    detector = PhoneDetector(("IT", "CH", "SM", "VA"))
    assert _found(detector, "Telefono 886377") == [("886377", 1.0)]
    assert _found(detector, "Codice 886377") == []


@pytest.mark.parametrize(
    "text", ["Contact: Cambridge, MA 02139", "Call our Boston office (MA 02110)", "Phone: 645 391"]
)
def test_foreign_short_numbers_are_not_read_after_a_cue(text: str):
    # A US ZIP code after "Contact" is no Norwegian phone: the cue regions' numbers need
    # as many digits as uncued ones.
    assert _found(DETECTOR, text) == []
    assert _found(DETECTOR, text + ", order 1234567") == []


@pytest.mark.parametrize("regions", [FRENCH_REGIONS, GERMAN_REGIONS], ids=["fr", "de"])
def test_spread_out_forms_keep_years_and_luxembourg_out(regions: tuple[str, ...]):
    detector = ObfuscatedPhoneDetector(regions)
    # 88366946 is valid in Luxembourg alone of these regions.
    for text in ("Saison 2019 - 2020", "geöffnet 1998 - 2004", "Ref. 8836 - 6946"):
        assert list(detector.find(text)) == []
    text = "Ruf 0171 - 234 - 5678 an" if regions == GERMAN_REGIONS else "Tél 01 - 42 - 68 - 53 - 00"
    found = [text[h.start : h.end] for h in detector.find(text)]
    assert found == [text.split(" ", 1)[1].removesuffix(" an")]


@pytest.mark.parametrize(
    ("regions", "text", "number"),
    [
        # A US number after a cue in German text: Liechtenstein accepts its last seven
        # digits, which must not cut the whole number.
        (GERMAN_REGIONS, "Tel. 315 794 5008", "315 794 5008"),
        # A German mobile in French text: Luxembourg accepts its last seven digits.
        (FRENCH_REGIONS, "Tel. 01512 4393328", "01512 4393328"),
        (FRENCH_REGIONS, "Telefon contact (212) 555-0123", "(212) 555-0123"),
    ],
)
def test_after_a_cue_the_whole_number_wins_over_a_part(
    regions: tuple[str, ...], text: str, number: str
):
    assert _found(PhoneDetector(regions), text) == [(number, 1.0)]


def test_san_marino_alone_reads_its_six_digit_numbers_after_a_cue():
    assert _found(PhoneDetector(("SM",)), "Telefono 886377") == [("886377", 1.0)]
