"""Contact rules: e-mail (RFC 5321 shape), phone (libphonenumber), IP (RFC 3986 / RFC 4291).

Every table row names the standard or the trap it pins down. Spans are asserted exactly:
``text[start:end]`` is the value and nothing of the glued punctuation around it.
"""

from __future__ import annotations

import random
import time
from itertools import pairwise

import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from spacy_pii.detectors import RuleSettings, find_rule_hits
from spacy_pii.detectors.email import EmailDetector
from spacy_pii.detectors.network import IpAddressDetector
from spacy_pii.detectors.phone import PhoneDetector
from spacy_pii.detectors.phone_plan import MAX_CHUNKS, MAX_DIGITS, RegionPlan, groups_kept
from spacy_pii.errors import ConfigError

EMAIL = EmailDetector()
PHONE = PhoneDetector(("US", "GB"))
IP = IpAddressDetector()


def _found(detector, text: str) -> list[tuple[str, float | None]]:
    return [(text[hit.start : hit.end], hit.score) for hit in detector.find(text)]


# ---------------------------------------------------------------------------------------
# Detector contract
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("detector", "detector_id", "types"),
    [
        pytest.param(EMAIL, "rules.email", {"EMAIL"}, id="email"),
        pytest.param(PHONE, "rules.phone", {"PHONE"}, id="phone"),
        pytest.param(IP, "rules.ip", {"IP_ADDRESS"}, id="ip"),
    ],
)
def test_detector_identity(detector, detector_id: str, types: set[str]):
    assert detector.id == detector_id
    assert detector.types == frozenset(types)
    text = "ada@example.com (212) 555-0100 192.0.2.1"
    for hit in detector.find(text):
        assert hit.kind == "rule" and hit.detector == detector_id and hit.label in types


# ---------------------------------------------------------------------------------------
# E-mail
# ---------------------------------------------------------------------------------------

LOCAL_64 = "a" * 64
EMAIL_CASES = [
    pytest.param("ada@example.com", ["ada@example.com"], id="rfc5321-plain"),
    pytest.param("mail ada@example.com.", ["ada@example.com"], id="glued-final-dot"),
    pytest.param("<ada@example.com>", ["ada@example.com"], id="glued-angle-brackets"),
    pytest.param("(ada@example.com)", ["ada@example.com"], id="glued-parentheses"),
    pytest.param("email:ada@example.com,", ["ada@example.com"], id="glued-colon-comma"),
    pytest.param("email=ada@example.com", ["ada@example.com"], id="glued-key-value"),
    pytest.param("'ada@example.com'", ["ada@example.com"], id="glued-quotes"),
    pytest.param("ada.lovelace+pii@mail.example.co.uk", None, id="rfc5322-dot-atom-plus"),
    pytest.param("o'brien@example.ie", None, id="rfc5322-apostrophe-inside"),
    pytest.param("user@xn--80ak6aa92e.com", None, id="rfc5890-a-label-domain"),
    pytest.param("a@xn--d1acufc.xn--p1ai", None, id="rfc5890-a-label-tld"),
    pytest.param(f"{LOCAL_64}@example.com", None, id="rfc5321-local-64"),
    pytest.param(f"{LOCAL_64}a@example.com", [], id="rfc5321-local-65-no-truncation"),
    pytest.param("a@" + ("b" * 63 + ".") * 4 + "com", [], id="rfc5321-domain-over-255"),
    pytest.param(
        LOCAL_64 + "@" + ("b" * 60 + ".") * 3 + "b" * 2 + ".com", None, id="rfc5321-path-254"
    ),
    pytest.param(
        LOCAL_64 + "@" + ("b" * 60 + ".") * 3 + "b" * 3 + ".com", [], id="rfc5321-path-over-254"
    ),
    pytest.param("a@" + "b" * 64 + ".com", [], id="rfc1035-label-over-63"),
    pytest.param("my email is info@presidio.", [], id="dotted-domain-required"),
    pytest.param("root@localhost", [], id="no-dot-no-address"),
    pytest.param("a@example.c0m", [], id="rfc3696-tld-not-numeric"),
    pytest.param("ada..b@example.com", [], id="rfc5322-consecutive-dots"),
    pytest.param("ada.@example.com", [], id="rfc5322-trailing-dot"),
    pytest.param("ada@-example.com", [], id="rfc1035-label-leading-hyphen"),
    pytest.param("hello-world here", [], id="no-at-sign"),
]


@pytest.mark.parametrize(("text", "expected"), EMAIL_CASES)
def test_email(text: str, expected: list[str] | None):
    expected = [text] if expected is None else expected
    hits = list(EMAIL.find(text))
    assert [text[h.start : h.end] for h in hits] == expected
    assert all(h.score is None for h in hits)  # shape only: nothing confirms an address


# ---------------------------------------------------------------------------------------
# Phone
# ---------------------------------------------------------------------------------------

PHONE_CASES = [
    # (text, [(slice, score)]) for the default regions US and GB
    pytest.param("Call (212) 555-0100.", [("(212) 555-0100", 1.0)], id="libphonenumber-US-valid"),
    pytest.param("(212)555-0123,", [("(212)555-0123", 1.0)], id="glued-parenthesis-comma"),
    pytest.param("tel:212-555-0100;", [("212-555-0100", 1.0)], id="glued-colon-semicolon"),
    pytest.param("US: 212.555.0100", [("212.555.0100", 1.0)], id="dots-as-separators"),
    pytest.param("1-800-555-0199", [("1-800-555-0199", 1.0)], id="us-national-prefix-1"),
    pytest.param("+1 415 555 0132", [("+1 415 555 0132", 1.0)], id="e164-us"),
    pytest.param("+44 20 7946 0958", [("+44 20 7946 0958", 1.0)], id="e164-gb"),
    pytest.param("020 7946 0958", [("020 7946 0958", 1.0)], id="gb-national-prefix-0"),
    pytest.param("0207 946 0958", [("0207 946 0958", 1.0)], id="gb-common-regrouping"),
    pytest.param("+44 (0)20 7946 0958", [("+44 (0)20 7946 0958", 1.0)], id="gb-prefix-in-parens"),
    pytest.param("0044 20 7946 0958", [("0044 20 7946 0958", 1.0)], id="gb-idd-00"),
    pytest.param("011 44 20 7946 0958", [("011 44 20 7946 0958", 1.0)], id="us-idd-011"),
    pytest.param("+852 5555 0101", [("+852 5555 0101", None)], id="e164-possible-not-valid"),
    pytest.param("+44\u00a020 7946 0958", [("+44\u00a020 7946 0958", 1.0)], id="no-break-space"),
    pytest.param(
        "212-555-0100 212-555-0101",
        [("212-555-0100", 1.0), ("212-555-0101", 1.0)],
        id="two-numbers-one-space",
    ),
    pytest.param("212 555 0100 1234", [("212 555 0100", 1.0)], id="longest-valid-window"),
    pytest.param("Order 48291", [], id="local-subscriber-number"),
    pytest.param("call 555-0100", [], id="us-no-area-code"),
    pytest.param("(555)123-4567", [], id="libphonenumber-555-area-invalid"),
    pytest.param("2024-03-14", [], id="date-iso8601"),
    pytest.param("14/03/2024", [], id="date-slashes"),
    pytest.param("03.14.2024", [], id="date-dots"),
    pytest.param("at 12:30:45", [], id="time"),
    pytest.param("550e8400-e29b-41d4-a716-446655440000", [], id="guid-fragment"),
    pytest.param("version 10.0.19041.1", [], id="version-string"),
    pytest.param("v2.125.5501.00", [], id="version-glued-v"),
    pytest.param("ABC2125550100", [], id="token-letters-before"),
    pytest.param("2125550100XYZ", [], id="token-letters-after"),
    pytest.param("ref-212-555-0100", [], id="token-hyphen-word"),
    pytest.param("192.168.100.200", [], id="rfc3986-ipv4-not-phone"),
    pytest.param("21 25 55 01 00", [], id="strict-grouping-table-row"),
    pytest.param("card 4242 4242 4242 4242", [], id="inside-luhn-card"),
    pytest.param("card 4242424242424242", [], id="inside-luhn-card-compact"),
    pytest.param("DE89 3704 0044 0532 0130 00", [], id="inside-iban"),
    pytest.param("+1 4", [], id="e164-too-short"),
]


@pytest.mark.parametrize(("text", "expected"), PHONE_CASES)
def test_phone_default_regions(text: str, expected: list[tuple[str, float | None]]):
    assert _found(PHONE, text) == expected


@pytest.mark.parametrize(
    ("regions", "text", "expected"),
    [
        pytest.param(("DE",), "030 12345678", [("030 12345678", 1.0)], id="DE-with-area-code"),
        pytest.param(("DE",), "ruf 555 0100 an", [], id="DE-local-number-needs-prefix"),
        pytest.param(("DE",), "am 2024-03-14", [], id="DE-date-valid-digits-still-a-date"),
        pytest.param(("PH",), "09171234567", [("09171234567", 1.0)], id="PH-mobile"),
        pytest.param(("PH",), "9171234567", [], id="PH-national-prefix-required"),
        pytest.param(("TR",), "0 532 123 45 67", [("0 532 123 45 67", 1.0)], id="TR-grouped"),
        pytest.param(("US",), "020 7946 0958", [], id="US-only-reads-no-GB-national"),
        pytest.param(("US",), "+44 20 7946 0958", [("+44 20 7946 0958", 1.0)], id="plus-any"),
    ],
)
def test_phone_regions(regions: tuple[str, ...], text: str, expected):
    assert _found(PhoneDetector(regions), text) == expected


@pytest.mark.parametrize("regions", [("XX",), (), ("US", "UK")], ids=["unknown", "empty", "UK"])
def test_phone_region_errors(regions):
    with pytest.raises(ConfigError):
        PhoneDetector(regions)


@pytest.mark.parametrize(
    ("written", "expected", "kept"),
    [
        pytest.param(["212", "555", "0100"], ["212", "555", "0100"], True, id="as-formatted"),
        pytest.param(["2125550100"], ["212", "555", "0100"], True, id="merged"),
        pytest.param(["1", "212", "555", "0100"], ["212", "555", "0100"], True, id="prefix-free"),
        pytest.param(["21", "25", "55", "01", "00"], ["212", "555", "0100"], False, id="too-many"),
    ],
)
def test_groups_kept(written, expected, kept):
    assert groups_kept(written, expected) is kept


def _example_numbers() -> list[str]:
    numbers = []
    for region in PREFILTER_REGIONS:
        for kind in (PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE, PhoneNumberType.TOLL_FREE):
            example = phonenumbers.example_number_for_type(region, kind)
            if example is not None:
                numbers.append(phonenumbers.format_number(example, PhoneNumberFormat.NATIONAL))
    return numbers


# Main and shared-code regions, and regions with a national-prefix transform rule (BR, AG).
PREFILTER_REGIONS = ("US", "CA", "GB", "DE", "IN", "BR", "AG", "CN", "PH")


@settings(max_examples=200, deadline=None)
@given(
    region=st.sampled_from(PREFILTER_REGIONS),
    digits=st.one_of(
        st.sampled_from(_example_numbers()).map(lambda s: "".join(filter(str.isdigit, s))),
        st.text(alphabet="0123456789", min_size=6, max_size=16),
    ),
    cuts=st.lists(st.integers(min_value=1, max_value=15), max_size=4, unique=True),
    separator=st.sampled_from([" ", "-", "."]),
)
def test_prefilter_never_changes_a_verdict(region, digits, cuts, separator, monkeypatch_module):
    # RegionPlan.may_be_valid only spares the parser work: with it forced open, every
    # verdict must stay the same (see the phone_plan docstring for the wider measurement).
    bounds = sorted(c for c in cuts if c < len(digits))
    parts = [digits[a:b] for a, b in zip([0, *bounds], [*bounds, len(digits)], strict=True)]
    candidate = separator.join(parts)
    detector = PhoneDetector((region,))
    written = tuple(parts)
    with_filter = detector._verdict(candidate, digits, written)
    monkeypatch_module.setattr(RegionPlan, "may_be_valid", lambda self, d, w: True)
    without_filter = detector._verdict(candidate, digits, written)
    monkeypatch_module.undo()
    assert with_filter == without_filter


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_phone_limits_come_from_e164_and_metadata():
    # E.164's 15 digits, the longest literal international prefix "0011" and "(0)".
    assert MAX_DIGITS == 15 + 4 + 1
    # Luxembourg's five-group format, plus international prefix, country code, "(0)".
    assert MAX_CHUNKS == 5 + 3


# ---------------------------------------------------------------------------------------
# IP addresses
# ---------------------------------------------------------------------------------------

IP_CASES = [
    pytest.param("host 192.168.0.1", ["192.168.0.1"], id="rfc3986-ipv4"),
    pytest.param("(192.168.1.1)", ["192.168.1.1"], id="glued-parentheses"),
    pytest.param("IP: 192.168.1.1.", ["192.168.1.1"], id="glued-final-dot"),
    pytest.param("192.168.1.1:8080", ["192.168.1.1"], id="ipv4-port"),
    pytest.param("0.0.0.0 255.255.255.255", ["0.0.0.0", "255.255.255.255"], id="rfc3986-bounds"),
    pytest.param("10.0.0.0/8.", ["10.0.0.0/8"], id="rfc4632-prefix-in-span"),
    pytest.param("10.0.0.0/33", ["10.0.0.0"], id="rfc4632-prefix-out-of-range"),
    pytest.param("192.168.01.1", [], id="rfc3986-leading-zero-refused"),
    pytest.param("256.1.1.1", [], id="rfc3986-octet-over-255"),
    pytest.param("1.2.3.4.5", [], id="longer-dotted-number"),
    pytest.param("version 10.0.0.1.2", [], id="version-string"),
    pytest.param("IP192.168.1.1text", [], id="token-glued-letters"),
    pytest.param("Version 1.2.3", [], id="three-parts"),
    pytest.param("on 14.03.2024", [], id="date"),
    pytest.param("2001:db8::1", ["2001:db8::1"], id="rfc4291-compressed"),
    pytest.param(
        "ABCD:EF01:2345:6789:ABCD:EF01:2345:6789",
        ["ABCD:EF01:2345:6789:ABCD:EF01:2345:6789"],
        id="rfc4291-2.2-example-full",
    ),
    pytest.param("FF01::101", ["FF01::101"], id="rfc4291-2.2-example-multicast"),
    pytest.param("::13.1.68.3", ["::13.1.68.3"], id="rfc4291-2.2-example-ipv4-compatible"),
    pytest.param(
        "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255",
        ["ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255"],
        id="rfc4291-longest-text-form-45",
    ),
    pytest.param("::", ["::"], id="rfc4291-unspecified"),
    pytest.param("src=:: dst=::1", ["::", "::1"], id="rfc4291-loopback"),
    pytest.param(
        "0:0:0:0:0:FFFF:129.144.52.38", ["0:0:0:0:0:FFFF:129.144.52.38"], id="rfc4291-embedded-ipv4"
    ),
    pytest.param("::ffff:192.0.2.1", ["::ffff:192.0.2.1"], id="rfc4291-mapped-not-twice"),
    pytest.param("[2001:db8::1]:8080", ["2001:db8::1"], id="rfc3986-ip-literal-port"),
    pytest.param("fe80::1%eth0.", ["fe80::1%eth0"], id="rfc4007-zone"),
    pytest.param("2001:db8::/32.", ["2001:db8::/32"], id="rfc4291-prefix-in-span"),
    pytest.param("2001:db8::/129", ["2001:db8::"], id="rfc4291-prefix-out-of-range"),
    pytest.param("text::ffff:192.0.2.1", ["192.0.2.1"], id="glued-ipv6-keeps-ipv4"),
    pytest.param("684D:1111:222:3333:4444:5555:77", [], id="rfc4291-seven-groups"),
    pytest.param("2001::db8::1", [], id="rfc4291-two-compressions"),
    pytest.param("12345:db8::1", [], id="rfc4291-five-hex-digits"),
    pytest.param("fe80::1text", [], id="ipv6-glued-letters"),
    pytest.param("MAC aa:bb:cc:dd:ee:ff", [], id="mac-address"),
    pytest.param("Time 12:34:56", [], id="time"),
    pytest.param("std::cout", [], id="cpp-scope"),
    pytest.param(":::", [], id="three-colons"),
]


@pytest.mark.parametrize(("text", "expected"), IP_CASES)
def test_ip(text: str, expected: list[str]):
    hits = list(IP.find(text))
    assert [text[h.start : h.end] for h in hits] == expected
    assert all(h.score == 1.0 for h in hits)


# ---------------------------------------------------------------------------------------
# Look-alike characters through find_rule_hits: spans on the original characters
# ---------------------------------------------------------------------------------------

LOOKALIKE_CASES = [
    pytest.param(
        "mail ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ now",
        "EMAIL",
        "ａｄａ＠ｅｘａｍｐｌｅ．ｃｏｍ",
        id="email-fullwidth",
    ),
    pytest.param("mail аda@example.com", "EMAIL", "аda@example.com", id="email-cyrillic-a"),
    pytest.param("mail ada@exa\u200bmple.com", "EMAIL", "ada@exa\u200bmple.com", id="email-zwsp"),
    pytest.param(
        "tel ＋４４ ２０ ７９４６ ０９５８",
        "PHONE",
        "＋４４ ２０ ７９４６ ０９５８",
        id="phone-fullwidth",
    ),
    pytest.param(
        "tel (212)\u2013555\u20130100", "PHONE", "(212)\u2013555\u20130100", id="phone-en-dash"
    ),
    pytest.param(
        "ip １９２．１６８．０．１", "IP_ADDRESS", "１９２．１６８．０．１", id="ipv4-fullwidth"
    ),
]


@pytest.mark.parametrize(("text", "label", "expected"), LOOKALIKE_CASES)
def test_lookalikes_map_back_to_the_original_characters(text: str, label: str, expected: str):
    hits = find_rule_hits(text, RuleSettings(types=(label,)))
    assert [(text[h.start : h.end], h.label) for h in hits] == [(expected, label)]


# ---------------------------------------------------------------------------------------
# Invariants and cost
# ---------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet="0123456789 +-.()/:@abcdefx", max_size=60))
def test_hits_lie_inside_the_text_and_never_overlap(text):
    for detector in (EMAIL, PHONE, IP):
        hits = sorted(detector.find(text), key=lambda h: h.start)
        assert all(0 <= h.start < h.end <= len(text) for h in hits)
        assert all(a.end <= b.start for a, b in pairwise(hits))


@settings(max_examples=40, deadline=None)
@given(
    local=st.from_regex(r"[a-z][a-z0-9._+-]{0,20}[a-z0-9]", fullmatch=True).filter(
        lambda s: ".." not in s
    ),
    before=st.sampled_from(["", "mail ", "<", "(", "email:", "'"]),
    after=st.sampled_from(["", ".", ">", ")", ",", "'", " ok"]),
)
def test_an_address_in_prose_is_found_exactly(local, before, after):
    address = f"{local}@example.org"
    assert [s for s, _ in _found(EMAIL, before + address + after)] == [address]


_rng = random.Random(5321)
ADVERSARIAL = [
    pytest.param("a" * 100_000 + "@", id="local-run-then-at"),
    pytest.param("a@" * 50_000, id="at-pairs"),
    pytest.param("a@b." * 25_000, id="dotted-domains"),
    pytest.param("1" * 100_000, id="digits"),
    pytest.param("1." * 50_000, id="dotted-digits"),
    pytest.param("1 " * 50_000, id="digit-space"),
    pytest.param(":" * 100_000, id="colons"),
    pytest.param("f:" * 50_000, id="hex-colon"),
    pytest.param("+1 " * 30_000, id="plus-one"),
    # 50,000 characters: the slowest case of the phone rule (a window per cell), kept
    # well inside the bound on a shared machine.
    pytest.param(" ".join(str(_rng.randint(0, 99)) for _ in range(16_500)), id="digit-table"),
]


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_find_terminates_on_adversarial_input(text: str):
    # A termination bound in this process's CPU seconds, not a benchmark: other jobs on a
    # shared machine do not add to it.
    for detector in (EMAIL, PHONE, IP):
        started = time.process_time()
        list(detector.find(text))
        assert time.process_time() - started < 5.0, detector.id


def test_quickstart_sentence_gives_exact_typed_spans():
    # The specification's quickstart: a possible-only "+852" number scores None, the
    # address is shape-only (None), the card is Luhn-confirmed, and "Order 48291" is no
    # phone (a local subscriber number without an area code).
    text = (
        "Customer Ada Lovelace called from +852 5555 0101. Email ada@example.com. "
        "Card 4242424242424242. Order 48291."
    )
    settings_ = RuleSettings(types=("EMAIL", "PHONE", "PAYMENT", "IP_ADDRESS"))
    found = [(h.label, text[h.start : h.end], h.score) for h in find_rule_hits(text, settings_)]
    assert found == [
        ("PHONE", "+852 5555 0101", None),
        ("EMAIL", "ada@example.com", None),
        ("PAYMENT", "4242424242424242", 1.0),
    ]
