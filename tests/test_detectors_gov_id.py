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

from spacy_pii.benchmark.hostile import growth_ratio
from spacy_pii.detectors import GOV_ID_COUNTRIES, RuleSettings, find_rule_hits
from spacy_pii.detectors.gov_id import (
    COUNTRIES,
    CuedIdDetector,
    NationalIdDetector,
    SsnDetector,
    nino_valid,
    ssn_structure_valid,
)
from spacy_pii.errors import ConfigError

# As in tests/test_hostile_time.py: ten times the text, linear code reads 8 to 14 here and a
# quadratic step 100.
MAX_GROWTH = 20.0


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
    # By default only the cue rule runs: "NINO" is one of its cues, "IdNr" is not.
    default = find_rule_hits(text, RuleSettings(types=("GOV_ID",)))
    assert [(text[h.start : h.end], h.detector) for h in default] == [
        ("AB123456C", "rules.gov_id_cue.gb.nino")
    ]
    uncued = "36574261809 and AB123456C"
    assert find_rule_hits(uncued, RuleSettings(types=("GOV_ID",))) == []


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
    started = time.process_time()
    for _ in detector.find(ADVERSARIAL[name]):
        pass
    assert time.process_time() - started < 5.0


# ---------------------------------------------------------------------------------------
# Cued national ids: any listed standard after a cue phrase (on by default)
# ---------------------------------------------------------------------------------------

# Each number is valid under the standard named in its id (checked by python-stdnum, or
# by the SSA, HMRC and NHS rules for the standards it has no module for).
CUED_FOUND = [
    pytest.param(
        "holder of national identity number 160540-1467",
        "160540-1467",
        "dk.cpr",
        None,
        id="dk-cpr-date-only",
    ),
    pytest.param(
        "personnummer: 700815-6346",
        "700815-6346",
        "se.personnummer",
        1.0,
        id="se-personnummer-luhn",
    ),
    pytest.param(
        "Steuer-ID 41 662 593 879", "41 662 593 879", "de.idnr", 1.0, id="de-idnr-grouped"
    ),
    pytest.param("tax id 97632383410", "97632383410", "de.idnr", 1.0, id="de-idnr-compact"),
    pytest.param("social insurance 2545160417", "2545160417", "at.vnr", 1.0, id="at-vnr"),
    pytest.param("CPF 897.390.851-05", "897.390.851-05", "br.cpf", 1.0, id="br-cpf"),
    pytest.param("NIF is 152770062", "152770062", "pt.nif", 1.0, id="pt-nif-after-filler"),
    pytest.param(
        "Aadhaar 3357 1958 4111", "3357 1958 4111", "in_.aadhaar", 1.0, id="in-aadhaar-verhoeff"
    ),
    pytest.param(
        "national insurance XX255058D", "XX255058D", "gb.nino", None, id="gb-nino-compact"
    ),
    pytest.param(
        "my id number is HK 07 15 50 A.",
        "HK 07 15 50 A",
        "gb.nino",
        None,
        id="gb-nino-printed-pairs",
    ),
    pytest.param("DNI 70751074S", "70751074S", "es.dni", 1.0, id="es-dni-check-letter"),
    pytest.param(
        "codice fiscale GRZLGN63S18G391K",
        "GRZLGN63S18G391K",
        "it.codicefiscale",
        1.0,
        id="it-codice-fiscale",
    ),
    pytest.param("PPS 3282575I", "3282575I", "ie.pps", 1.0, id="ie-pps"),
    pytest.param("pps no. 0036050Q", "0036050Q", "ie.pps", 1.0, id="ie-pps-leading-zeros"),
    pytest.param("national id 114037728807660", "114037728807660", "fr.nir", 1.0, id="fr-nir-key"),
    pytest.param(
        "Our records show your taxpayer reference as 839 414 053",
        "839 414 053",
        "au.tfn",
        1.0,
        id="au-tfn-weighted",
    ),
    pytest.param("BSN: 235614701", "235614701", "nl.bsn", 1.0, id="nl-bsn-eleven-test"),
    pytest.param("PESEL 32112594481", "32112594481", "pl.pesel", 1.0, id="pl-pesel"),
    pytest.param(
        "fødselsnummer 28070371032", "28070371032", "no.fodselsnummer", 1.0, id="no-fodselsnummer"
    ),
    pytest.param(
        "henkilötunnus 131052-308T",
        "131052-308T",
        "fi.hetu",
        1.0,
        id="fi-hetu-century-sign-as-written",
    ),
    pytest.param("NHS no: 943 476 5919", "943 476 5919", "gb.nhs", 1.0, id="gb-nhs-modulus-11"),
    pytest.param(
        "whats ur ssn again for the tax form\n883215326",
        "883215326",
        "us.ssn",
        None,
        id="us-ssn-next-line-shape-only",
    ),
    pytest.param(
        "CPR 160540-1467 2019", "160540-1467", "dk.cpr", None, id="dk-cpr-trailing-year-dropped"
    ),
]


@pytest.mark.parametrize(("text", "value", "standard", "score"), CUED_FOUND)
def test_cued_id_found(text: str, value: str, standard: str, score: float | None):
    expected = [(value, score, f"rules.gov_id_cue.{standard}")]
    assert _values(CuedIdDetector(), text) == expected
    # The default settings run it, with no country enabled.
    hits = find_rule_hits(text, RuleSettings(types=("GOV_ID",)))
    assert [(text[h.start : h.end], h.score, h.detector) for h in hits] == expected


CUED_REJECTED = [
    pytest.param("BSN: 987654320", id="every-checksum-and-the-ssa-ranges-fail"),
    pytest.param("national id 11111111111", id="one-repeated-digit"),
    pytest.param("235614701", id="valid-bsn-without-cue"),
    pytest.param("GRZLGN63S18G391K", id="valid-codice-fiscale-without-cue"),
    pytest.param(
        "national id, which the clerk at the front desk asked for twice, is 114037728807660",
        id="cue-beyond-48-characters",
    ),
    pytest.param("national id\n\n114037728807660", id="cue-two-lines-up"),
    pytest.param("tinder 235614701", id="tin-inside-a-word"),
    pytest.param("sinus 130692544", id="sin-inside-a-word"),
    pytest.param("SSN and DOB (04/01/1975)", id="date-after-cue-passes-au-tfn"),
    pytest.param("id number 2356 1470 1 2 3 4 5 6 7 8 9 1", id="run-longer-than-ten-groups"),
]


@pytest.mark.parametrize("text", CUED_REJECTED)
def test_cued_id_rejected(text: str):
    assert _values(CuedIdDetector(), text) == []


def test_cue_words_are_whole_words_and_the_listed_standards_decide():
    # The same numbers as the rejections above, with the cue standing alone: found.
    assert _values(CuedIdDetector(), "tin 235614701") == [
        ("235614701", 1.0, "rules.gov_id_cue.nl.bsn")
    ]
    assert _values(CuedIdDetector(), "SIN 130692544")[0][:2] == ("130692544", 1.0)


def test_cued_id_is_reported_once_when_its_country_is_enabled():
    text = "BSN: 235614701"
    hits = find_rule_hits(text, RuleSettings(types=("GOV_ID",), gov_id_countries=("NL",)))
    assert [(text[h.start : h.end], h.detector) for h in hits] == [
        ("235614701", "rules.national_id.nl")
    ]


def test_cued_ssn_is_left_to_the_ssn_rule():
    text = "SSN: 536228726"
    hits = find_rule_hits(text, RuleSettings(types=("GOV_ID",)))
    assert [(text[h.start : h.end], h.detector) for h in hits] == [("536228726", "rules.us_ssn")]


_EXISTING_CASES = [
    *((p.values[0], ()) for p in SSN_FOUND + SSN_REJECTED),
    *((p.values[0], ("GB",)) for p in NINO_FOUND + NINO_REJECTED),
    *((p.values[1], (p.values[0],)) for p in NATIONAL_FOUND),
    *((p.values[1], (p.values[0],)) for p in NATIONAL_REJECTED),
]


@pytest.mark.parametrize(("text", "countries"), _EXISTING_CASES)
def test_cued_rule_adds_nothing_to_the_existing_cases(text: str, countries: tuple[str, ...]):
    # The SSN and per-country rules alone, against the full default lane with the cue rule.
    alone = [SsnDetector()] + ([NationalIdDetector(countries)] if countries else [])
    expected = sorted({(h.start, h.end, h.detector) for d in alone for h in d.find(text)})
    hits = find_rule_hits(text, RuleSettings(types=("GOV_ID",), gov_id_countries=countries))
    assert [(h.start, h.end, h.detector) for h in hits] == expected


def test_cued_ids_that_a_national_rule_also_reports_grow_linearly():
    # With the national rules on (as load("nl") has them), every cued BSN is also the Dutch
    # rule's, and comparing each cued slice with every taken one was quadratic: 78 times the
    # CPU time for ten times the text (2.4 s at 100,000 characters, 191 s at 1,000,000).
    detector = CuedIdDetector(GOV_ID_COUNTRIES)

    def run(text: str) -> None:
        for _ in detector.find(text):
            pass

    unit = "BSN 235614701 "
    small, large = unit * (100_000 // len(unit)), unit * (1_000_000 // len(unit))
    assert growth_ratio(run, small, large, rounds=5, limit=MAX_GROWTH) <= MAX_GROWTH


@pytest.mark.parametrize("name", ["cue-then-groups", "cue-then-letters", "cue-then-id"])
def test_cued_detector_terminates_on_adversarial_input(name: str):
    text = {
        "cue-then-groups": "ssn 1 2 3 4 5 6 7 8 " * 5_000,
        "cue-then-letters": "national id AB CD EF " * 5_000,
        "cue-then-id": "BSN 235614701 " * 7_000,
    }[name]
    started = time.process_time()
    for _ in CuedIdDetector(GOV_ID_COUNTRIES).find(text):
        pass
    assert time.process_time() - started < 5.0
