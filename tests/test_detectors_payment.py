"""Payment rules: ISO/IEC 7812 cards with Luhn, ISO 13616 IBANs with MOD-97-10.

Every table row names the standard clause or the trap it pins down. Spans are asserted
exactly: ``text[start:end]`` must be the number and nothing else.
"""

from __future__ import annotations

import random
import time
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import luhn as stdnum_luhn

from spacy_pii.detectors import RuleSettings, find_rule_hits
from spacy_pii.detectors.payment import (
    CardDetector,
    IbanDetector,
    card_issuer,
    iban_valid,
    luhn_valid,
    payment_spans,
)

CARD = CardDetector()
IBAN = IbanDetector()


def _slices(detector, text: str) -> list[str]:
    return [text[hit.start : hit.end] for hit in detector.find(text)]


# ---------------------------------------------------------------------------------------
# Pure helpers
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("digits", "expected"),
    [
        pytest.param("4242424242424242", True, id="luhn-visa-test-number"),
        pytest.param("4242424242424241", False, id="luhn-wrong-check-digit"),
        pytest.param("79927398713", True, id="luhn-iso7812-annexB-example"),
        pytest.param("", False, id="luhn-empty"),
        pytest.param("4242 4242 4242 4242", False, id="luhn-separators-refused"),
        pytest.param("４２４２４２４２４２４２４２４２", False, id="luhn-non-ascii-digits-refused"),
        pytest.param("abc", False, id="luhn-letters"),
    ],
)
def test_luhn_valid(digits: str, expected: bool):
    assert luhn_valid(digits) is expected


@pytest.mark.parametrize(
    ("compact", "expected"),
    [
        pytest.param("DE89370400440532013000", True, id="iso13616-DE-22"),
        pytest.param("NO9386011117947", True, id="iso13616-shortest-NO-15"),
        pytest.param("RU0304452522540817810538091310419", True, id="iso13616-longest-RU-33"),
        pytest.param("LC55HEMM000100010012001200023015", True, id="iso13616-LC-32"),
        pytest.param("BE68539007547034", True, id="iso13616-BE-registry-example"),
        pytest.param("DE89370400440532013001", False, id="iso7064-mod97-wrong-check"),
        pytest.param("DE8937040044053201300", False, id="iso13616-DE-one-short"),
        pytest.param("DE893704004405320130000", False, id="iso13616-DE-one-long"),
        pytest.param("XX89370400440532013000", False, id="iso13616-unknown-country"),
        pytest.param("de89370400440532013000", False, id="compact-form-is-upper-case"),
        pytest.param("DE89 3704 0044 0532 0130 00", False, id="compact-form-only"),
    ],
)
def test_iban_valid(compact: str, expected: bool):
    assert iban_valid(compact) is expected


@pytest.mark.parametrize(
    ("digits", "network"),
    [
        pytest.param("4242424242424242", "visa", id="iso7812-visa-4"),
        pytest.param("5555555555554444", "mastercard", id="iso7812-mastercard-51-55"),
        pytest.param("2223003122003222", "mastercard", id="iso7812-mastercard-2221-2720"),
        pytest.param("378282246310005", "amex", id="iso7812-amex-37"),
        pytest.param("30569309025904", "diners", id="iso7812-diners-300-305"),
        pytest.param("3530111333300000", "jcb", id="iso7812-jcb-3528-3589"),
        pytest.param("6011111111111117", "discover", id="iso7812-discover-6011"),
        pytest.param("6200000000000005", "unionpay", id="iso7812-unionpay-62"),
        pytest.param("6759649826438453", "maestro", id="iso7812-maestro-67"),
        pytest.param("122000000000003", "uatp", id="iso7812-mii1-uatp-15"),
        pytest.param("1220000000000030", None, id="iso7812-mii1-uatp-not-16"),
        pytest.param("9000000000000001", None, id="iso7812-mii9-national-use"),
    ],
)
def test_card_issuer(digits: str, network: str | None):
    assert card_issuer(digits) == network


# ---------------------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------------------

CARD_CASES = [
    # (text, expected slices)
    pytest.param("card 4242424242424242 ok", ["4242424242424242"], id="luhn-16-compact"),
    pytest.param("4242 4242 4242 4242", ["4242 4242 4242 4242"], id="grouping-4-4-4-4-spaces"),
    pytest.param("4242-4242-4242-4242", ["4242-4242-4242-4242"], id="grouping-4-4-4-4-hyphens"),
    pytest.param("3782 822463 10005", ["3782 822463 10005"], id="grouping-amex-4-6-5"),
    pytest.param("3056 930902 5904", ["3056 930902 5904"], id="grouping-diners-4-6-4"),
    pytest.param("5000 0000 0009", ["5000 0000 0009"], id="iso7812-shortest-12-maestro"),
    pytest.param(
        "4000 0000 0000 0000 006", ["4000 0000 0000 0000 006"], id="iso7812-longest-19-4-4-4-4-3"
    ),
    pytest.param("4000000000000000006", ["4000000000000000006"], id="iso7812-longest-19-compact"),
    pytest.param("4222222222222", ["4222222222222"], id="iso7812-visa-13"),
    pytest.param("card:4242424242424242", ["4242424242424242"], id="glued-colon"),
    pytest.param("(4242424242424242),", ["4242424242424242"], id="glued-parentheses-comma"),
    pytest.param("pay 4242424242424242.", ["4242424242424242"], id="glued-final-dot"),
    pytest.param("call +441914960105 now", [], id="e164-plus-opens-a-phone-not-a-card"),
    pytest.param(
        "4012888888881881 4012-8888-8888-1881 4012 8888 8888 1881",
        ["4012888888881881", "4012-8888-8888-1881", "4012 8888 8888 1881"],
        id="three-forms-in-a-row",
    ),
    pytest.param(
        "4242424242424242, 5555555555554444",
        ["4242424242424242", "5555555555554444"],
        id="comma-list",
    ),
    pytest.param("4242424242424241", [], id="luhn-wrong-check-digit"),
    pytest.param("9000000000000001", [], id="iso7812-unknown-issuer-luhn-valid"),
    # Outside every listed range, Luhn-valid: a card only after a card cue on its line.
    pytest.param("Card number: 3508-2813-6441-9488", ["3508-2813-6441-9488"], id="cue-jcb-faker"),
    pytest.param("on card 9000000000000001 ok", ["9000000000000001"], id="cue-unlisted-iin"),
    pytest.param("Visa (ends 0001): 9000 0000 0000 0001", ["9000 0000 0000 0001"], id="cue-net"),
    pytest.param("Card:\n9000000000000001", [], id="cue-other-line"),
    pytest.param("cardboard 9000000000000001", [], id="cue-whole-word"),
    pytest.param("card 9000000000000002", [], id="cue-luhn-still-decides"),
    pytest.param("card 900000000006", [], id="cue-12-digits-need-a-range"),
    pytest.param("42424242424", [], id="iso7812-11-digits-too-short"),
    pytest.param("42424242424242421234", [], id="iso7812-20-digits-run-on"),
    pytest.param("4242 4242 4242 4242 1234", [], id="grouping-run-on-fifth-block"),
    pytest.param("4242 4242-4242 4242", [], id="grouping-mixed-separators"),
    pytest.param("4242  4242  4242  4242", [], id="grouping-double-spaces"),
    pytest.param("42424 24242 424242", [], id="grouping-not-embossed"),
    pytest.param("ID4242424242424242", [], id="token-letters-before"),
    pytest.param("4242424242424242abc", [], id="token-letters-after"),
    pytest.param("ref-4242424242424242", [], id="token-hyphen-word-before"),
    pytest.param("4242424242424242-01", [], id="token-hyphen-suffix"),
    pytest.param("1.4242424242424242", [], id="token-decimal-before"),
    pytest.param("4242424242424242.5", [], id="token-decimal-after"),
    pytest.param("4242 4242 4242 4242x", [], id="token-last-group-glued"),
    pytest.param("DE89 3704 0044 0532 0130 00", [], id="never-inside-iban-grouped"),
    pytest.param("DE89370400440532013000", [], id="never-inside-iban-compact"),
]


@pytest.mark.parametrize(("text", "expected"), CARD_CASES)
def test_card_detector(text: str, expected: list[str]):
    hits = list(CARD.find(text))
    assert [text[hit.start : hit.end] for hit in hits] == expected
    assert all(hit.score == 1.0 and hit.label == "PAYMENT" for hit in hits)
    assert all(hit.detector == "rules.card" and hit.kind == "rule" for hit in hits)


# ---------------------------------------------------------------------------------------
# IBAN
# ---------------------------------------------------------------------------------------

IBAN_CASES = [
    pytest.param("DE89370400440532013000", ["DE89370400440532013000"], id="iso13616-compact"),
    pytest.param(
        "DE89 3704 0044 0532 0130 00", ["DE89 3704 0044 0532 0130 00"], id="iso13616-paper-form"
    ),
    pytest.param("NO93 8601 1117 947", ["NO93 8601 1117 947"], id="iso13616-shortest-NO-15"),
    pytest.param(
        "RU03 0445 2522 5408 1781 0538 0913 1041 9",
        ["RU03 0445 2522 5408 1781 0538 0913 1041 9"],
        id="iso13616-longest-RU-33",
    ),
    pytest.param(
        "LC55HEMM000100010012001200023015",
        ["LC55HEMM000100010012001200023015"],
        id="iso13616-LC-32-compact",
    ),
    pytest.param(
        "GB82 WEST 1234 5698 7654 32", ["GB82 WEST 1234 5698 7654 32"], id="iso13616-letters-bban"
    ),
    pytest.param(
        "AL47-2121-1009-0000-0002-3569-8741",
        ["AL47-2121-1009-0000-0002-3569-8741"],
        id="hyphen-groups-accepted",
    ),
    pytest.param(
        "IBAN: DE89370400440532013000.", ["DE89370400440532013000"], id="glued-colon-final-dot"
    ),
    pytest.param(
        "(DE89 3704 0044 0532 0130 00)", ["DE89 3704 0044 0532 0130 00"], id="glued-parentheses"
    ),
    pytest.param(
        "iban VG96 VPVG 0000 0123 4567 8901 X here",
        ["VG96 VPVG 0000 0123 4567 8901"],
        id="iso13616-country-length-cuts-trailing-group",
    ),
    pytest.param("DE89 3704 0044 0532 0130 01", [], id="iso7064-mod97-wrong-check"),
    pytest.param(
        "my iban is de89370400440532013000 thx",
        ["de89370400440532013000"],
        id="all-lower-case-compact",
    ),
    pytest.param(
        "iban: nl91 abna 0417 1643 00", ["nl91 abna 0417 1643 00"], id="all-lower-case-grouped"
    ),
    pytest.param("de89370400440532013001", [], id="all-lower-case-mod97-wrong-check"),
    pytest.param("LV80 bANK 0000 4351 9500 1", [], id="iso13616-mixed-case-refused"),
    pytest.param("dE89370400440532013000", [], id="mixed-case-country-refused"),
    pytest.param("DE89 3704 0044 0532 0130 0012", [], id="iso13616-run-on-group"),
    pytest.param("XDE89370400440532013000", [], id="token-letter-before"),
    pytest.param("DE89370400440532013000X", [], id="token-letter-after"),
    pytest.param("DE89  3704 0044 0532 0130 00", [], id="paper-form-single-spaces-only"),
    pytest.param("AL47/2121/1009/0000/0002/3569/8741", [], id="slash-not-a-separator"),
    pytest.param("IL15 0120 6900 0000 3111 0120 6900 0000 3111 141", [], id="iso13616-IL-misfit"),
]


@pytest.mark.parametrize(("text", "expected"), IBAN_CASES)
def test_iban_detector(text: str, expected: list[str]):
    hits = list(IBAN.find(text))
    assert [text[hit.start : hit.end] for hit in hits] == expected
    assert all(hit.score == 1.0 and hit.detector == "rules.iban" for hit in hits)


def test_iban_in_text_gives_only_the_iban_through_find_rule_hits():
    text = "Pay to DE89 3704 0044 0532 0130 00 by Friday."
    hits = find_rule_hits(text, RuleSettings(types=("PAYMENT", "PHONE")))
    assert [(text[h.start : h.end], h.detector) for h in hits] == [
        ("DE89 3704 0044 0532 0130 00", "rules.iban")
    ]


def test_payment_spans_are_sorted_and_disjoint():
    text = "4242424242424242 and DE89 3704 0044 0532 0130 00 and 5555 5555 5555 4444"
    spans = payment_spans(text)
    assert [text[a:b] for a, b in spans] == [
        "4242424242424242",
        "DE89 3704 0044 0532 0130 00",
        "5555 5555 5555 4444",
    ]
    assert all(left[1] <= right[0] for left, right in pairwise(spans))


# ---------------------------------------------------------------------------------------
# Look-alike characters: folded by find_hits, spans on the original characters
# ---------------------------------------------------------------------------------------

LOOKALIKE_CASES = [
    pytest.param(
        "card ４２４２４２４２４２４２４２４２ ok",
        "４２４２４２４２４２４２４２４２",
        id="fullwidth-digits",
    ),
    pytest.param(
        "card 4242424242\u200b424242 ok", "4242424242\u200b424242", id="zero-width-space-inside"
    ),
    pytest.param(
        "card \u200b4242424242424242\u200b ok", "4242424242424242", id="zero-width-space-around"
    ),
    pytest.param("card ٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢ ok", "٤٢٤٢٤٢٤٢٤٢٤٢٤٢٤٢", id="arabic-indic-digits"),
    pytest.param(
        "IBAN ＤＥ89370400440532013000", "ＤＥ89370400440532013000", id="fullwidth-country-code"
    ),
    pytest.param(
        "card 4242\u20134242\u20134242\u20134242",
        "4242\u20134242\u20134242\u20134242",
        id="en-dash",
    ),
]


@pytest.mark.parametrize(("text", "expected"), LOOKALIKE_CASES)
def test_lookalikes_map_back_to_the_original_characters(text: str, expected: str):
    hits = find_rule_hits(text, RuleSettings(types=("PAYMENT",)))
    assert [text[hit.start : hit.end] for hit in hits] == [expected]


# ---------------------------------------------------------------------------------------
# Invariants and cost
# ---------------------------------------------------------------------------------------


def _visa(body: str) -> str:
    partial = "4" + body
    return partial + stdnum_luhn.calc_check_digit(partial)


@settings(max_examples=60, deadline=None)
@given(
    body=st.text(alphabet="0123456789", min_size=14, max_size=14),
    before=st.sampled_from(["", "card ", "card:", "(", "'", "\n"]),
    after=st.sampled_from(["", " ok", ".", ",", ")", "\n"]),
    spaced=st.booleans(),
)
def test_a_valid_visa_in_prose_is_found_exactly(body, before, after, spaced):
    number = _visa(body)
    written = " ".join(number[i : i + 4] for i in range(0, 16, 4)) if spaced else number
    text = before + written + after
    assert _slices(CARD, text) == [written]


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="0123456789 -.ABCDEZ", max_size=80))
def test_hits_lie_inside_the_text_and_never_overlap(text):
    for detector in (CARD, IBAN):
        hits = list(detector.find(text))
        assert all(0 <= h.start < h.end <= len(text) for h in hits)
        assert all(a.end <= b.start for a, b in pairwise(hits))


_rng = random.Random(7816)
ADVERSARIAL = [
    pytest.param("1" * 100_000, id="digits"),
    pytest.param("1 " * 50_000, id="digit-space"),
    pytest.param("1-" * 50_000, id="digit-hyphen"),
    pytest.param("1." * 50_000, id="digit-dot"),
    pytest.param("4242 " * 20_000, id="card-blocks-run-on"),
    pytest.param("DE89 " * 20_000, id="iban-heads"),
    pytest.param("AB12" + "C" * 100_000, id="iban-head-long-tail"),
    pytest.param("card 9000000000000001 " * 5_000, id="card-cues-and-unlisted-pans"),
    pytest.param(
        " ".join(str(_rng.randint(0, 9999)) for _ in range(25_000)), id="random-digit-table"
    ),
]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_find_terminates_on_adversarial_input(text: str):
    # A termination bound, not a benchmark: the machine is shared.
    started = time.process_time()
    for detector in (CARD, IBAN):
        list(detector.find(text))
    assert time.process_time() - started < 5.0


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("card 213176828496175 ok", True),  # JCB legacy IIN 2131, 15 digits, Luhn-valid
        ("card 213176828496176 ok", False),  # the same with a wrong check digit
        ("card 2131768284961750 ok", False),  # 16 digits: not a legacy JCB length
    ],
    ids=["iso7812-jcb-2131-15", "iso7812-jcb-2131-bad-luhn", "iso7812-jcb-2131-16"],
)
def test_jcb_legacy_fifteen_digit_range(text, found):
    from spacy_pii.detectors import RuleSettings, find_rule_hits

    hits = find_rule_hits(text, RuleSettings(types=("PAYMENT",)))
    assert bool(hits) is found
