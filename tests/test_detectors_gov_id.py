"""GOV_ID rules: the US SSN by the SSA's structure rules, opt-in national ids by python-stdnum.

Each table row names the standard that decides it. The national-id examples are the
documented sample numbers of python-stdnum's modules (valid by construction); the invalid
ones change a check digit or break a structural rule.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_pii.detectors import GOV_ID_COUNTRIES, RuleSettings, find_rule_hits
from spacy_pii.detectors.gov_id import (
    COUNTRIES,
    NationalIdDetector,
    SsnDetector,
    nino_valid,
    ssn_structure_valid,
)
from spacy_pii.errors import ConfigError


def _values(detector, text: str) -> list[tuple[str, float | None, str]]:
    return [(text[h.start : h.end], h.score, h.detector) for h in detector.find(text)]


# ---------------------------------------------------------------------------------------
# US SSN
# ---------------------------------------------------------------------------------------

SSN_FOUND = [
    pytest.param("SSN 123-45-6780 on file", "123-45-6780", id="ssa-hyphens"),
    pytest.param("number 123 45 6780.", "123 45 6780", id="ssa-spaces"),
    pytest.param("id 078.05.1123", "078.05.1123", id="dotted-form"),
    pytest.param("(536-22-8726)", "536-22-8726", id="ssa-in-parentheses"),
    pytest.param("SSN: 536228726", "536228726", id="bare-nine-digits-after-cue-ssn"),
    pytest.param(
        "Her social security number is 536228726", "536228726", id="bare-after-cue-phrase"
    ),
    pytest.param("SS# 536228726", "536228726", id="bare-after-cue-ss-hash"),
]


@pytest.mark.parametrize(("text", "value"), SSN_FOUND)
def test_ssn_found_with_null_score(text: str, value: str):
    assert _values(SsnDetector(), text) == [(value, None, "rules.us_ssn")]


SSN_REJECTED = [
    pytest.param("000-12-3456", id="ssa-area-000"),
    pytest.param("666-12-3456", id="ssa-area-666"),
    pytest.param("912-34-5678", id="ssa-area-9xx-itin-range"),
    pytest.param("123-00-4567", id="ssa-group-00"),
    pytest.param("123-45-0000", id="ssa-serial-0000"),
    pytest.param("078-05-1120", id="ssa-void-woolworth"),
    pytest.param("219-09-9999", id="ssa-void-pamphlet"),
    pytest.param("111-11-1111", id="one-repeated-digit"),
    pytest.param("536228726", id="bare-digits-need-a-cue"),
    pytest.param("078-051121", id="mixed-separators"),
    pytest.param("1536-22-87261", id="inside-longer-digit-run"),
    pytest.param("call 1 536 22 8726 now", id="inside-digit-groups"),
    pytest.param("v536-22-8726", id="glued-to-a-word"),
    pytest.param("SSN 5362287261", id="ten-digits-after-cue"),
]


@pytest.mark.parametrize("text", SSN_REJECTED)
def test_ssn_rejected(text: str):
    assert _values(SsnDetector(), text) == []


def test_ssn_cue_must_be_in_the_five_words_before():
    # Presidio's context window: five words before the number, on the same line.
    far = "SSN one two three four five six 536228726"
    near = "SSN one two three four 536228726"
    other_line = "SSN\n536228726"
    assert _values(SsnDetector(), far) == []
    assert _values(SsnDetector(), near) == [("536228726", None, "rules.us_ssn")]
    assert _values(SsnDetector(), other_line) == []


@given(st.integers(min_value=0, max_value=999_999_999))
def test_ssn_structure_rule_matches_the_ssa_definition(number: int):
    digits = f"{number:09d}"
    area, group, serial = int(digits[:3]), int(digits[3:5]), int(digits[5:])
    expected = (
        area not in (0, 666)
        and area < 900
        and group != 0
        and serial != 0
        and len(set(digits)) > 1
        and digits not in ("078051120", "219099999")
    )
    assert ssn_structure_valid(digits) is expected


@settings(max_examples=200)
@given(st.text(alphabet="0123456789 -.SN:abc\n", max_size=60))
def test_ssn_hits_are_exact_valid_slices(text: str):
    for hit in SsnDetector().find(text):
        digits = "".join(c for c in text[hit.start : hit.end] if c.isdigit())
        assert ssn_structure_valid(digits)
        assert hit.score is None


# ---------------------------------------------------------------------------------------
# UK NINO (HMRC NIM39110; no check digit, so the score is None)
# ---------------------------------------------------------------------------------------

NINO_FOUND = [
    pytest.param("NI AB123456C", "AB123456C", id="hmrc-compact"),
    pytest.param("AB 12 34 56 C", "AB 12 34 56 C", id="hmrc-printed-pairs"),
    pytest.param("tw987654a", "tw987654a", id="hmrc-compact-lower-case"),
    pytest.param("nino: PR 123612C", "PR 123612C", id="irregular-spacing-after-cue"),
    pytest.param(
        "National Insurance number YZ 61 48 68 B", "YZ 61 48 68 B", id="hmrc-after-phrase"
    ),
]


@pytest.mark.parametrize(("text", "value"), NINO_FOUND)
def test_nino_found_with_null_score(text: str, value: str):
    detector = NationalIdDetector(("GB",))
    assert _values(detector, text) == [(value, None, "rules.national_id.gb")]


NINO_REJECTED = [
    pytest.param("DA123456C", id="nim39110-first-letter-D"),
    pytest.param("AO123456C", id="nim39110-second-letter-O"),
    pytest.param("BG123456A", id="nim39110-prefix-BG"),
    pytest.param("nino: nt 99 88 77 a", id="nim39110-prefix-NT"),
    pytest.param("UV 98 76 54 B", id="nim39110-letters-U-V"),
    pytest.param("AB123456E", id="nim39110-suffix-E"),
    pytest.param("AB 12 34 56 1", id="numeric-suffix"),
    pytest.param("PR 123612C", id="irregular-spacing-without-cue"),
    pytest.param("XAB123456C", id="inside-a-longer-code"),
]


@pytest.mark.parametrize("text", NINO_REJECTED)
def test_nino_rejected(text: str):
    assert _values(NationalIdDetector(("GB",)), text) == []


@pytest.mark.parametrize(
    ("prefix", "suffix", "valid"),
    [("AB", "C", True), ("QQ", "A", False), ("ZZ", "A", False), ("ab", "d", True)],
)
def test_nino_prefix_rules(prefix: str, suffix: str, valid: bool):
    assert nino_valid(prefix, suffix) is valid


# ---------------------------------------------------------------------------------------
# Checksummed national ids (python-stdnum decides; score 1.0)
# ---------------------------------------------------------------------------------------

NATIONAL_FOUND = [
    pytest.param("DE", "Steuer-ID 36574261809", "36574261809", id="de-idnr-compact"),
    pytest.param("DE", "IdNr 36 574 261 809.", "36 574 261 809", id="de-idnr-grouped"),
    pytest.param("FR", "NIR 2 95 10 99 126 111 93", "2 95 10 99 126 111 93", id="fr-nir-spaced"),
    pytest.param("FR", "NIR 295109912611193", "295109912611193", id="fr-nir-compact"),
    pytest.param("ES", "DNI 54362315K", "54362315K", id="es-dni"),
    pytest.param("ES", "DNI 54362315-k", "54362315-k", id="es-dni-hyphen-lower"),
    pytest.param("ES", "DNI 1111111-G", "1111111-G", id="es-dni-leading-zero-dropped"),
    pytest.param("ES", "NIE X2482300W", "X2482300W", id="es-nie"),
    pytest.param("IT", "CF RCCMNL83S18D969H", "RCCMNL83S18D969H", id="it-codice-fiscale"),
    pytest.param("NL", "BSN 111222333", "111222333", id="nl-bsn-compact"),
    pytest.param("NL", "BSN 1112.22.333", "1112.22.333", id="nl-bsn-dotted"),
    pytest.param("SE", "pnr 880320-0016", "880320-0016", id="se-personnummer-10"),
    pytest.param("SE", "pnr 198803200016", "198803200016", id="se-personnummer-12"),
    pytest.param("IN", "Aadhaar 2341 2341 2346", "2341 2341 2346", id="in-aadhaar-spaced"),
    pytest.param("IN", "Aadhaar 234123412346", "234123412346", id="in-aadhaar-compact"),
    pytest.param("CA", "SIN 130 692 544", "130 692 544", id="ca-sin-spaced"),
    pytest.param("CA", "SIN 130-692-544", "130-692-544", id="ca-sin-hyphens"),
    pytest.param("BR", "CPF 390.533.447-05", "390.533.447-05", id="br-cpf-formatted"),
    pytest.param("BR", "CPF 39053344705", "39053344705", id="br-cpf-compact"),
]


@pytest.mark.parametrize(("country", "text", "value"), NATIONAL_FOUND)
def test_national_id_found_with_checksum_score(country: str, text: str, value: str):
    detector = NationalIdDetector((country,))
    assert _values(detector, text) == [(value, 1.0, f"rules.national_id.{country.lower()}")]


NATIONAL_REJECTED = [
    pytest.param("DE", "36574261808", id="de-idnr-check-digit"),
    pytest.param("DE", "12345678903", id="de-idnr-bzst-digit-distribution"),
    pytest.param("FR", "295109912611194", id="fr-nir-key"),
    pytest.param("ES", "54362315A", id="es-dni-check-letter"),
    pytest.param("ES", "W2482300W", id="es-nie-prefix"),
    pytest.param("IT", "RCCMNL83S18D969A", id="it-cf-check-letter"),
    pytest.param("NL", "111222334", id="nl-bsn-eleven-test"),
    pytest.param("SE", "880320-0017", id="se-pnr-luhn"),
    pytest.param("SE", "200504422381", id="se-pnr-invalid-date"),
    pytest.param("IN", "1234 5678 9012", id="in-aadhaar-first-digit"),
    pytest.param("IN", "3123:4567:8909", id="in-aadhaar-colon-not-a-uidai-layout"),
    pytest.param("IN", "AL47 2121 1009 0000 0002 3569 8741", id="in-aadhaar-inside-iban"),
    pytest.param("CA", "046 454 286", id="ca-sin-first-digit-0"),
    pytest.param("CA", "130-692 544", id="ca-sin-mixed-separators"),
    pytest.param("BR", "111.111.111-11", id="br-cpf-repeated-digit"),
    pytest.param("BR", "390.533.447-06", id="br-cpf-check-digits"),
]


@pytest.mark.parametrize(("country", "text"), NATIONAL_REJECTED)
def test_national_id_rejected(country: str, text: str):
    assert _values(NationalIdDetector((country,)), text) == []


def test_countries_are_opt_in():
    text = "IdNr 36574261809 and NINO AB123456C"
    assert _values(NationalIdDetector(("GB",)), text) == [
        ("AB123456C", None, "rules.national_id.gb")
    ]
    default = find_rule_hits(text, RuleSettings(types=("GOV_ID",)))
    assert default == []


def test_country_list_is_the_settings_list():
    assert set(COUNTRIES) == set(GOV_ID_COUNTRIES)


def test_unknown_country_is_a_config_error():
    with pytest.raises(ConfigError):
        NationalIdDetector(("XX",))


def test_detector_order_does_not_depend_on_the_callers():
    assert NationalIdDetector(("SE", "DE")).countries == NationalIdDetector(("DE", "SE")).countries


def test_find_rule_hits_maps_fullwidth_digits_back():
    text = "SSN １２３-４５-６７８０"
    hits = find_rule_hits(text, RuleSettings(types=("GOV_ID",)))
    assert [(text[h.start : h.end], h.detector) for h in hits] == [
        ("１２３-４５-６７８０", "rules.us_ssn")
    ]


# ---------------------------------------------------------------------------------------
# Termination on adversarial input: a generous bound, a hang would take minutes.
# ---------------------------------------------------------------------------------------

ADVERSARIAL = {
    "digits": "1" * 100_000,
    "digit-groups": "123 " * 25_000,
    "ssn-like": "123-45-6789 " * 8_000,
    "nino-like": "AB 12 34 56 C " * 7_000,
    "letters": "A" * 100_000,
    "separators": "-" * 100_000,
    "cue-words": "SSN nino " * 11_000,
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
@pytest.mark.parametrize(
    "detector",
    [SsnDetector(), NationalIdDetector(GOV_ID_COUNTRIES)],
    ids=["us_ssn", "national_id"],
)
def test_detector_terminates_on_adversarial_input(detector, name: str):
    started = time.perf_counter()
    for _ in detector.find(ADVERSARIAL[name]):
        pass
    assert time.perf_counter() - started < 5.0
