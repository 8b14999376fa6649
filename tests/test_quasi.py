"""Re-identification risk: combinations of quasi-identifiers, with evidence rules."""

from __future__ import annotations

import json
import re
import time

import pytest

import spacy_pii.core.quasi
from spacy_pii.core.quasi import BIRTH_CUE_WINDOW, QuasiFinding, find_combinations
from spacy_pii.errors import InvalidInput


def names(text: str) -> list[tuple[str, str]]:
    return [(finding.name, finding.risk) for finding in find_combinations(text)]


POSITIVE = [
    pytest.param(
        "Patient born 1985-03-14, ZIP 94110, male, follow-up booked.",
        [("postcode_dob_sex", "high")],
        id="sweeney2002-zip-dob-sex-seed",
    ),
    pytest.param(
        "DOB: 03/14/1985. Sex: F.",
        [("dob_sex", "medium")],
        id="sweeney2002-dob-sex",
    ),
    pytest.param(
        "Date of birth 14 March 1985, postcode SW1A 1AA.",
        [("postcode_dob", "medium")],
        id="sweeney2002-uk-postcode-dob",
    ),
    pytest.param(
        "Date of birth (DD/MM/YYYY): 14/03/1985; PLZ 10115",
        [("postcode_dob", "medium")],
        id="sweeney2002-plz-dob-format-hint",
    ),
    pytest.param(
        "Ships to K1A 0B1. Customer aged 42.",
        [("postcode_age", "medium")],
        id="gdpr-art4-canada-postal-code-age",
    ),
    pytest.param(
        "A 42-year-old from SW1A 1AA called.",
        [("postcode_age", "medium")],
        id="gdpr-art4-uk-postcode-year-old",
    ),
    pytest.param(
        "age: 67; zip code: 94110-1234",
        [("postcode_age", "medium")],
        id="gdpr-art4-zip-plus-four-usps",
    ),
    pytest.param(
        "Lives in San Francisco, CA 94110 and was born on March 14, 1985.",
        [("postcode_dob", "medium")],
        id="sweeney2002-usps-pub28-last-line",
    ),
    pytest.param(
        "Postal code K1A, born in 1979.",
        [("postcode_age", "medium")],
        id="gdpr-art4-cued-fsa-birth-year",
    ),
    pytest.param(
        "Postcode SW1A. D.O.B. 2 Feb 1990. A 34-year-old woman.",
        [("postcode_dob_sex", "high"), ("postcode_age", "medium")],
        id="sweeney2002-triple-plus-age",
    ),
    pytest.param(
        "Gender: female\nDate of birth: 1990-02-02",
        [("dob_sex", "medium")],
        id="sweeney2002-form-fields",
    ),
    pytest.param(
        "Referral: 45 yo male, born 12.05.1979, postal code 75011.",
        [("postcode_dob_sex", "high"), ("postcode_age", "medium")],
        id="sweeney2002-clinical-shorthand",
    ),
]


@pytest.mark.parametrize(("text", "expected"), POSITIVE)
def test_combinations_are_found(text: str, expected: list[tuple[str, str]]) -> None:
    assert names(text) == expected


NEGATIVE = [
    pytest.param("Invoice 94110 dated 2024-03-14, total 1,250.00 EUR.", id="invoice-number-date"),
    pytest.param("Order id 48291 shipped on 2025-01-02 to a male customer.", id="order-id"),
    pytest.param("Meeting moved to 14 March 1985 at 10:00, room 12345.", id="plain-date"),
    pytest.param("The patient, aged 42, reported chest pain. Sex: M.", id="age-sex-no-postcode"),
    pytest.param("Reference 12345, female connector, qty 2.", id="five-digits-no-cue"),
    pytest.param("She was born in a small town, ZIP 94110.", id="born-without-date"),
    pytest.param("ZIP 94110 only.", id="postcode-alone"),
    pytest.param("Born 1985-03-14.", id="dob-alone"),
    pytest.param("USB male to female adapter, part 55512, ships 2024-05-01.", id="adapter-gender"),
    pytest.param("B2B and P2P payments via code A1B 2C3X on the M25.", id="letter-codes-no-cue"),
    pytest.param("Invoices aged 30 days: 12; ZIP 94110.", id="receivables-ageing"),
    pytest.param("Date of birth field is required. Postcode 94110.", id="dob-cue-without-date"),
    pytest.param(
        "He was born. The call on 2024-03-14 went well; ZIP 94110.", id="cue-other-clause"
    ),
    pytest.param("Sex and the City season 2, ID 12345.", id="sex-word-without-value"),
    pytest.param("Stage 4 rollout, page 42, postcode 94110.", id="age-inside-word"),
    pytest.param("Age: 150 years at ZIP 94110.", id="age-beyond-human-lifespan"),
    pytest.param("", id="empty"),
]


@pytest.mark.parametrize("text", NEGATIVE)
def test_ordinary_text_gives_no_finding(text: str) -> None:
    assert find_combinations(text) == ()


def test_at_least_nine_negative_cases_are_locked() -> None:
    assert len(NEGATIVE) >= 9


def test_evidence_offsets_slice_the_fields() -> None:
    text = "Patient born 1985-03-14, ZIP 94110, male, follow-up booked."
    (finding,) = find_combinations(text)
    sliced = {field: text[start:end] for field, start, end in finding.evidence}
    assert sliced == {"date_of_birth": "1985-03-14", "postcode": "94110", "sex": "male"}
    assert finding.fields == ("postcode", "date_of_birth", "sex")
    assert finding.source.startswith("Sweeney 2002")


def test_postcode_age_cites_gdpr() -> None:
    (finding,) = find_combinations("Ships to K1A 0B1. Customer aged 42.")
    assert finding.source == "GDPR Art. 4(1)"


def test_birth_cue_window_edge() -> None:
    filler = " " * BIRTH_CUE_WINDOW
    at_edge = f"born{filler}1985-03-14 sex: F"
    past_edge = f"born {filler}1985-03-14 sex: F"
    assert names(at_edge) == [("dob_sex", "medium")]
    assert names(past_edge) == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("sex: F, born 1985-03-14", id="cue-letter"),
        pytest.param("Sex M; DOB 1985-03-14", id="cue-letter-no-colon"),
        pytest.param("born 1985-03-14\nMale\n", id="standalone-line"),
        pytest.param("born 1985-03-14 (female)", id="standalone-brackets"),
        pytest.param("a 30-year-old man, born 1994-01-01", id="after-age"),
    ],
)
def test_sex_evidence_forms(text: str) -> None:
    assert ("dob_sex", "medium") in names(text)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("born 1985-03-14, female connector", id="modifier"),
        pytest.param("born 1985-03-14, male to female", id="adapter"),
        pytest.param("born 1985-03-14, sex offender registry", id="cue-without-value"),
    ],
)
def test_sex_words_as_modifiers_do_not_count(text: str) -> None:
    assert find_combinations(text) == ()


def test_finding_serialises_without_text() -> None:
    text = "Patient born 1985-03-14, ZIP 94110, male, follow-up booked."
    payload = json.dumps([finding.to_dict() for finding in find_combinations(text)])
    for value in ("1985-03-14", "94110", "male,"):
        assert value not in payload
    assert isinstance(find_combinations(text)[0], QuasiFinding)


def test_non_text_is_refused_with_type_only() -> None:
    with pytest.raises(InvalidInput, match="got bytes"):
        find_combinations(b"born 1985-03-14")  # type: ignore[arg-type]


ADVERSARIAL = [
    "born " * 20_000,
    "1" * 100_000,
    "ZIP " + "9" * 99_996,
    ", male" * 16_666,
    "<" + "a " * 49_999,
    "aged " + "4" * 99_995,
    "SW1A " * 20_000,
    "12/" * 33_333,
]


PATTERNS = [v for v in vars(spacy_pii.core.quasi).values() if isinstance(v, re.Pattern)]


@pytest.mark.parametrize("text", ADVERSARIAL, ids=lambda text: repr(text[:8]))
def test_patterns_are_linear_on_adversarial_input(text: str) -> None:
    # A backtracking blow-up on 100,000 characters takes minutes; linear patterns take
    # milliseconds. One CPU second of this process (which other jobs do not add to) is a
    # generous bound.
    started = time.process_time()
    for pattern in PATTERNS:  # every pattern the module compiles
        for _ in pattern.finditer(text):
            pass
    find_combinations(text)
    assert time.process_time() - started < 1.0
