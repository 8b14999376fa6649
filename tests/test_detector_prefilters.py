"""Prefilters never drop a hit: every detector gives the same hits with and without them.

Each rule skips its patterns on texts that cannot hold a match (no "@" for e-mail, fewer
digits than a phone or a card has, no white-space-free run long enough for a vendor token,
no cue literal for the secret grammar, ...). A prefilter that is wrong loses hits
silently, so each one is checked three ways:

- a table of gates and the patterns they stand in front of: wherever the pattern
  matches, the gate must let the text through (on corpus texts and generated ones);
- every rule's hits with the prefilters switched off (monkeypatched to "may hold") equal
  its hits with them on, over the texts of the corpora that the case tests score
  (Presidio's recognizer tests, CredSweeper's fixtures, presidio-research synth) and
  over generated texts built from the fragments the rules look for;
- look-alike folding against the per-character algorithm it replaced.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_pii.detectors import (
    GOV_ID_COUNTRIES,
    RuleSettings,
    build_detectors,
    cues,
    email,
    email_obfuscated,
    find_hits,
    gov_id,
    network,
    payment,
    phone,
    secret,
    secret_cues,
)
from spacy_pii.detectors.anchors import Anchors, CueGate
from spacy_pii.detectors.fold import _NATIVE_LETTER, _TABLE, FoldedText, fold_confusables
from spacy_pii.detectors.secret_formats import FORMATS, match_width
from spacy_pii.detectors.text import at_least_digits

EXTERNAL = Path(__file__).parents[1] / "corpus" / "external"
# Corpora whose texts the case tests use: every rule has positives in them.
CORPUS_FILES = (
    "presidio_analyzer_unit_tests.jsonl",
    "credsweeper_test_samples.jsonl",
    "presidio_research_synth_v2.jsonl",
)

DETECTORS = build_detectors(RuleSettings(gov_id_countries=GOV_ID_COUNTRIES))


@cache
def corpus_texts() -> tuple[str, ...]:
    texts: list[str] = []
    for name in CORPUS_FILES:
        with (EXTERNAL / name).open(encoding="utf-8") as stream:
            texts.extend(json.loads(line)["text"] for line in stream if line.strip())
    return tuple(texts)


@contextmanager
def prefilters_off() -> Iterator[None]:
    """Every prefilter answers "may hold, from the start", so each rule scans every text whole."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secret, "_formats_that_may_occur", lambda text: list(FORMATS))
        patch.setattr(secret_cues, "_may_hold_cue", lambda lowered: True)
        patch.setattr(email, "_may_hold_email", lambda text: True)
        patch.setattr(network, "_ipv4_scan_start", lambda text: 0)
        patch.setattr(network, "_ipv6_scan_start", lambda text: 0)
        patch.setattr(gov_id, "_ssn_scan_start", lambda text: 0)
        patch.setattr(payment, "_card_scan_start", lambda text: 0)
        patch.setattr(payment, "_iban_scan_start", lambda text, gate=None: 0)
        patch.setattr(phone.PhoneDetector, "_scan_start", lambda self, text: 0)
        # The shared pre-scan's gates (spacy_pii.detectors.anchors): every detector runs.
        patch.setattr(CueGate, "may_match", lambda self, anchors: True)
        for detector in DETECTORS:
            if hasattr(detector, "may_occur"):
                patch.setattr(type(detector), "may_occur", lambda self, anchors: True)
        yield


# Pieces of the forms the rules look for, so that generated texts reach every gate.
FRAGMENTS = (
    " ",
    "\n",
    "\t",
    "\u00a0",
    "\u200b",
    "+",
    "(",
    ")",
    "-",
    ".",
    ":",
    "::",
    "/",
    "@",
    "=",
    '"',
    "'",
    "0",
    "1",
    "42",
    "555",
    "0100",
    "4242",
    "123-45-6789",
    "078-05-1120",
    "192.168",
    ".1",
    "fe80",
    "+44 20 7946 0958",
    "(212) 555-0123",
    "4111 1111 1111 1111",
    "GB82 WEST 1234 5698 7654 32",
    "DE89370400440532013000",
    "de89370400440532013000",
    "gb82 west 1234 5698 7654 32",
    "ada@example.com",
    "x.org",
    "AKIA",
    "ghp_",
    "xoxb-",
    "sk_live_",
    "sk-",
    "T3BlbkFJ",
    "glpat-",
    "hooks.slack.com/services/",
    "AIza",
    "Q~",
    "A" * 10,
    "eyJ",
    "abcdefghij",
    "ABCDEFGHIJ",
    "0123456789",
    "Zx9Qw3Er7Ty1",
    "password",
    "Password=",
    "PASSWD: ",
    "pwd=",
    "api_key=",
    "Token ",
    "secret:",
    "Bearer ",
    "Authorization: ",
    "oauth",
    "private_key",
    "-p",
    "curl -u",
    "IDENTIFIED BY ",
    "https://user:",
    "ssn",
    "SSN ",
    "Mrs. ",
    "DR ",
    "Lord Justice ",
    "Anna Liz",
    "phone: ",
    "TEL ",
    "my number",
    "t\u00e9l\u00e9phone ",
    "national id",
    "NHS no ",
    "first_name,last_name\n",
    "user",
    "\u0130",
    "\u0131",
    "\u017f",
    "\u212a",
    "é",
    "ａ",
    "٤",
)
generated_texts = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), max_size=24).map("".join),
    st.lists(st.sampled_from(FRAGMENTS), max_size=12).map(" ".join),
    st.text(max_size=80),
)


# -- gates in front of patterns -----------------------------------------------------------


def _lower_may_hold_cue(text: str) -> int | None:
    return 0 if secret_cues._may_hold_cue(text.lower()) else None


def _may_hold_email(text: str) -> int | None:
    return 0 if email._may_hold_email(text) else None


def _gate(search):
    """A yes/no gate as a scan start: 0 where it lets the text through."""
    return lambda text: 0 if search(text) else None


def _gate_anchors(may_match):
    return lambda text: 0 if may_match(Anchors(text)) else None


class _Capitalised:
    """The title pattern's matches that the title cue keeps (a capital first)."""

    def __init__(self, pattern):
        self.pattern = pattern

    def search(self, text):
        return next((m for m in self.pattern.finditer(text) if m.group()[0].isupper()), None)


class _LongRun:
    """The phone run pattern's matches that hold at least ``digits`` digits."""

    def __init__(self, pattern, digits):
        self.pattern, self.digits = pattern, digits

    def search(self, text):
        runs = self.pattern.finditer(text)
        return next((m for m in runs if sum(c.isdigit() for c in m.group()) >= self.digits), None)


# (scan start, pattern): wherever the pattern matches first, the scan start must be an
# index at or before it (the yes/no gates count as "from 0").
GATED_PATTERNS = [
    pytest.param(_may_hold_email, email._EMAIL, id="email-RFC5321-at"),
    pytest.param(network._ipv4_scan_start, network._IPV4, id="ipv4-RFC3986-digit-dot-digit"),
    pytest.param(network._ipv6_scan_start, network._IPV6, id="ipv6-RFC4291-colon"),
    pytest.param(gov_id._ssn_scan_start, gov_id._SSN_SEPARATED, id="ssn-SSA-separated-area"),
    pytest.param(gov_id._ssn_scan_start, gov_id._SSN_BARE, id="ssn-SSA-bare-area"),
    pytest.param(payment._iban_scan_start, payment._IBAN, id="iban-ISO13616-head"),
    pytest.param(
        lambda text: payment._iban_scan_start(text, payment._IBAN_LOWER_GATE),
        payment._IBAN_LOWER,
        id="iban-lower-case-head",
    ),
    pytest.param(_lower_may_hold_cue, secret_cues._CUE, id="secret-cue-literals"),
    pytest.param(_gate(cues._TITLE_GATE.search), _Capitalised(cues._TITLE), id="title-capital"),
    pytest.param(_gate_anchors(phone._CUE_GATE.may_match), phone._CUE, id="phone-cue-words"),
    pytest.param(_gate_anchors(gov_id._ID_CUE_GATE.may_match), gov_id._ID_CUE, id="id-cue-words"),
    pytest.param(
        _gate(phone._digit_run(7).search), _LongRun(phone._RUN, 7), id="phone-digits-in-one-run"
    ),
    pytest.param(
        _gate(lambda t: secret._LITERALS.search(t.lower())), secret_cues._CUE, id="secret-literals"
    ),
    pytest.param(_gate(payment._IBAN_HEAD.search), payment._IBAN, id="iban-head-upper"),
    pytest.param(_gate(payment._IBAN_HEAD.search), payment._IBAN_LOWER, id="iban-head-lower"),
    pytest.param(_gate(network._DOTTED_QUAD.search), network._IPV4, id="ipv4-dotted-quad"),
    pytest.param(
        _gate(payment._CARD_DIGIT_RUN.search),
        _LongRun(payment._CARD_RUN, payment.CARD_MIN_DIGITS),
        id="card-digits-in-one-run",
    ),
    pytest.param(_gate(gov_id._SSN_SHAPE.search), gov_id._SSN_SEPARATED, id="ssn-shape-separated"),
    pytest.param(_gate(gov_id._SSN_SHAPE.search), gov_id._SSN_BARE, id="ssn-shape-bare"),
]


def _scan_misses(scan_start, pattern, text: str) -> bool:
    first = pattern.search(text)
    if first is None:
        return False
    start = scan_start(text)
    return start is None or start > first.start()


@pytest.mark.parametrize(("scan_start", "pattern"), GATED_PATTERNS)
def test_scan_start_precedes_every_corpus_match(scan_start, pattern):
    matched = [text for text in corpus_texts() if pattern.search(text)]
    assert matched, "the corpora must exercise the pattern for this test to mean anything"
    assert not any(_scan_misses(scan_start, pattern, text) for text in matched)


@settings(max_examples=300, deadline=None)
@given(text=generated_texts)
def test_scan_start_precedes_every_generated_match(text):
    for param in GATED_PATTERNS:
        assert not _scan_misses(*param.values, text), param.id


def test_every_vendor_format_is_gated_and_none_shorter_than_a_slack_token():
    # A format whose match might hold white space would run on every text (no speed-up,
    # still correct); today every format is bounded by its run. The shortest, xoxb- plus
    # ten characters, is what lets most prose skip every format.
    widths = [match_width(fmt.pattern) for fmt in FORMATS]
    assert None not in widths
    assert min(widths) == secret._MIN_WIDTH == 15


def test_format_gate_keeps_every_format_that_matches_a_corpus_text():
    checked = 0
    for text in corpus_texts():
        blanked = secret.blank_ansi(text)
        chosen = {id(fmt) for fmt in secret._formats_that_may_occur(blanked)}
        for fmt in FORMATS:
            if fmt.pattern.search(blanked):
                checked += 1
                assert id(fmt) in chosen, fmt.family
    assert checked > 100  # CredSweeper's fixtures hold well over a hundred vendor tokens


@pytest.mark.parametrize(
    ("pattern", "width"),
    [
        pytest.param(r"ghp_[A-Za-z0-9]{36}", 40, id="literal-and-class"),
        pytest.param(r"(?<![A-Za-z])ab(?![0-9])", 2, id="lookarounds-consume-nothing"),
        pytest.param(r"(?P<sep>[-.])x(?P=sep)", 3, id="backreference"),
        pytest.param(r"\d\w\S", 3, id="non-space-categories"),
        pytest.param(r"a b", None, id="literal-space"),
        pytest.param(r"a\sb", None, id="space-category"),
        pytest.param(r"[^x]", None, id="negated-set"),
        pytest.param(r"a.b", None, id="any-character"),
        pytest.param(r"[\x00-\x7f]", None, id="range-with-spaces"),
        pytest.param(r"(?:ab|c d)", None, id="branch-with-space"),
    ],
)
def test_match_width_is_none_when_a_match_may_hold_white_space(pattern, width):
    assert match_width(re.compile(pattern)) == width


@pytest.mark.parametrize(
    ("count", "text", "first_digit"),
    [
        pytest.param(7, "call 555 0100", 5, id="seven-digits-split"),
        pytest.param(7, "call 555 010", None, id="six-digits"),
        pytest.param(2, "+4", None, id="one-digit"),
        pytest.param(2, "a1b2", 1, id="two-apart"),
        pytest.param(1, "٤٢", None, id="non-ascii-digits-are-not-counted"),
        pytest.param(12, "4242 4242 4242 4242", 0, id="card-sixteen"),
    ],
)
def test_at_least_digits_counts_ascii_digits_and_finds_the_first(count, text, first_digit):
    match = at_least_digits(count).match(text)
    assert (None if match is None else match.end(1)) == first_digit


# -- hits with and without prefilters ------------------------------------------------------


def _hits_both_ways(text: str) -> tuple[list, list]:
    gated = find_hits(text, DETECTORS)
    with prefilters_off():
        ungated = find_hits(text, DETECTORS)
    return gated, ungated


def test_prefilters_drop_no_hit_on_the_corpora():
    texts = corpus_texts()
    gated = [find_hits(text, DETECTORS) for text in texts]
    with prefilters_off():
        ungated = [find_hits(text, DETECTORS) for text in texts]
    assert sum(map(len, ungated)) > 1000  # the corpora exercise every rule
    differing = [index for index, (a, b) in enumerate(zip(gated, ungated, strict=True)) if a != b]
    assert differing == []


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=generated_texts)
def test_prefilters_drop_no_hit_on_generated_texts(text):
    gated, ungated = _hits_both_ways(text)
    assert gated == ungated


# -- look-alike folding -------------------------------------------------------------------


def _fold_per_character(text: str) -> FoldedText:
    """The algorithm the fast path replaced: one Python step per character."""
    chars: list[str] = []
    origin: list[int] = []
    changed = False
    for index, char in enumerate(text):
        if ord(char) < 0x80:
            chars.append(char)
            origin.append(index)
            continue
        if unicodedata.category(char) == "Cf":
            changed = True
            continue
        replacement = _TABLE.get(ord(char))
        if replacement is not None:
            changed = True
            chars.append(replacement)
        else:
            chars.append(char)
        origin.append(index)
    if not changed:
        return FoldedText(text, None)
    return FoldedText("".join(chars), tuple(origin))


FOLD_ALPHABET = st.sampled_from(
    "a1 .@-"  # ASCII
    "аеоΑΟ＠．－–—"  # Cyrillic, Greek and punctuation look-alikes (UTS #39)
    "ａＺ０９"  # fullwidth forms
    "\u00a0\u202f\u3000"  # spaces that fold to " "
    "٤٢\u0966"  # other decimal digits (Nd)
    "\u200b\u200d\ufeff\U000e0041"  # invisible format characters (Cf), one astral
    "éß中😀"  # non-ASCII that folds to nothing
)


# The per-character algorithm predates the rule that keeps a twin inside a word of its own
# script ("телефон"), which tests/test_fold.py pins; so the texts compared hold no Greek or
# Cyrillic letter without a Latin twin (a random text drew "ͺК", a Greek letter before a
# Cyrillic twin).
_WITHOUT_NATIVE_LETTERS = st.text(max_size=40).filter(lambda t: not _NATIVE_LETTER.search(t))


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(st.text(FOLD_ALPHABET, max_size=40), _WITHOUT_NATIVE_LETTERS))
def test_fold_equals_the_per_character_algorithm(text):
    assert fold_confusables(text) == _fold_per_character(text)


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(
        st.sampled_from([*email_obfuscated._NEEDLES, "a", "t", " ", "@", "&", "%4", "dot", "]"]),
        max_size=12,
    ).map("".join)
)
def test_munged_gate_equals_testing_every_needle(text):
    expected = any(needle in text for needle in email_obfuscated._NEEDLES)
    assert email_obfuscated._may_hold_munged(text) == expected
