"""Secrets: a cue word with an assigned value, vendor token formats, JWTs and PEM private keys.

Sources, one per rule family (the hit's ``detector`` is ``rules.secret.<family>``):

- ``assignment``, ``cli``, ``sql``, ``auth_header``, ``url``: a cue word ("password",
  "passwd", "pwd", "secret", "token", "api_key", "credential", ...) followed by an
  assignment in code, configuration (YAML, JSON, ``.env``, INI, XML), a command-line flag,
  an SQL ``IDENTIFIED BY``/``PASSWORD`` clause (MySQL and PostgreSQL grammars), an HTTP
  ``Authorization`` header (RFC 9110 section 11.6.2: scheme, then credentials), or the
  userinfo of a URL (RFC 3986 section 3.2.1: ``user:password@host``). This is the project's
  SECRET rule: "cue word plus an assignment, or a mention whose value holds a digit or a
  symbol". The span is the value only, without quotes. Score ``None``: nothing validates it.
- ``prose``: the mention half of that rule, "my wifi password is R@inb0w1600$": a password
  word, then "is" or "was", then one word holding a digit or a symbol.
- A value earns its place by holding a digit or a symbol, or by its Shannon entropy
  reaching detect-secrets' default limits (4.5 bits per character for base64-alphabet
  strings, 3.0 for hex; Yelp/detect-secrets ``Base64HighEntropyString`` and
  ``HexHighEntropyString``). Values after the weak cues "key", "api" and "auth" alone must
  also mix upper case, lower case and a digit or symbol over at least 8 characters, as
  CredSweeper's ``SECRET_PAIR`` pattern requires; a password value needs 4 characters, the
  minimum of CredSweeper's ``PASSWD_PAIR``.
- Vendor formats: see :mod:`.secret_formats` (GitHub tokens score ``1.0`` on their CRC32).
  The cue grammar and the value checks live in :mod:`.secret_cues`.
- ``jwt``: RFC 7519 compact JWS, three base64url segments whose header decodes to a JSON
  object with the REQUIRED ``alg`` member (RFC 7515 section 4.1.1). The decode proves the
  slice is a JWT, not that it grants access (ID tokens and signed public claims are JWTs
  too), so the score stays ``None``; the decode is a gate against look-alikes.
- ``jwk``: the private members of a JSON Web Key (RFC 7518: ``d`` for EC, RSA and OKP
  keys, ``p``, ``q``, ``dp``, ``dq``, ``qi`` for RSA, ``k`` for symmetric keys), inside a
  JSON object that also has ``kty`` (RFC 7517 section 4.1).
- ``pem``: RFC 7468 private-key blocks (``-----BEGIN ... PRIVATE KEY-----`` through the
  next ``-----END ...-----``, one span over all lines, also inside string concatenations
  and log prefixes). The body must hold a 64-character base64 run (RFC 7468's line length),
  which rejects header-only and ellipsis examples. Encrypted keys are reported: a key
  protected by a passphrase is still key material. A block with no END within 32 KiB is
  reported from BEGIN through the base64 lines that follow it, so a truncated paste is
  still masked.

False positives avoided on purpose: empty values, placeholders (``<your password>``,
``${PASSWORD}``, ``{{ token }}``, ``%s``, ``?``, ``:name``), masks (``****``), code that
reads a secret rather than holding one (``os.environ[...]``, ``getenv(...)``, ``None``,
``self.password``), numbers and hex literals, and prose without a value ("password reset",
"the password is wrong").

Every scan is linear in the text: cues are found with one pattern, each value is scanned
once (a rejected value's run is cached for cues inside it), and every repetition that is
not delimited is bounded.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from bisect import bisect_right
from collections.abc import Iterator

from ..core.hits import Hit
from .anchors import Anchors, literal_alternation
from .secret_cues import (
    CUE_LITERALS,
    MAX_VALUE,
    cue_strength,
    cue_values,
    high_entropy,
    shannon_entropy,
    value_is_secret,
)
from .secret_formats import FORMATS, TokenFormat, match_width, placeholder_token

SECRET = "SECRET"
_ID = "rules.secret"


# ---------------------------------------------------------------------------------------
# JWT and PEM
# ---------------------------------------------------------------------------------------

# Each segment is bounded by 8 KiB, the common HTTP header line limit a JWT travels in.
_JWT = re.compile(
    r"(?<![A-Za-z0-9_\-.])eyJ[A-Za-z0-9_\-]{2,8192}+\.[A-Za-z0-9_\-]{1,8192}+"
    r"\.[A-Za-z0-9_\-]{0,8192}+(?![A-Za-z0-9_\-])"
)
_JWK_MEMBER = re.compile(
    r'"(?:d|p|q|dp|dq|qi|k)"[ \t]{0,16}:[ \t]{0,16}"(?P<value>[A-Za-z0-9_\-]{16,'
    + str(MAX_VALUE)
    + r'}+)"'
)
_JWK_OBJECT_REACH = 1024  # characters searched for the enclosing object's braces
_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]{1,16} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[A-Z0-9 ]{0,64}-----")
_PEM_END_PREFIX = "-----END"
# The largest standard key, RSA-16384 in PKCS#8, is about 12.6 KB of PEM; 32 KiB leaves
# room for the line prefixes of logs and string concatenation in code.
_PEM_MAX = 32768
_PEM_KEY_RUN = re.compile(r"[A-Za-z0-9+/]{64}")
_PEM_BODY_LINES = re.compile(r"(?:\r?\n[A-Za-z0-9+/=]{16,128}){1,512}")


def _json_segment(segment: str) -> object:
    try:
        return json.loads(base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4)))
    except (binascii.Error, ValueError, RecursionError):  # deep nesting: not a JWT
        return None


def jwt_structure_valid(token: str) -> bool:
    """Whether ``token`` is a compact JWS whose header has ``alg`` and whose claims parse.

    RFC 7515 section 4.1.1 makes ``alg`` REQUIRED; RFC 7519 section 7.2 requires the
    payload of a JWT to be a JSON object (the claims set).
    """
    header, payload, _signature = token.split(".", 2)
    parsed = _json_segment(header)
    if not (isinstance(parsed, dict) and isinstance(parsed.get("alg"), str)):
        return False
    return isinstance(_json_segment(payload), dict)


# ECMA-48 SGR sequences ("ESC [ 93 m"): terminal colours that logs put right before a
# value. Blanking them with spaces of equal length keeps every offset.
_ANSI_SGR = re.compile(r"\x1b\[[0-9;]{0,16}m")


def blank_ansi(text: str) -> str:
    """``text`` with ANSI colour sequences replaced by as many spaces."""
    if "\x1b" not in text:
        return text
    return _ANSI_SGR.sub(lambda match: " " * len(match.group()), text)


class SecretDetector:
    """Credentials by cue-word assignments, vendor formats, JWT headers and PEM blocks."""

    id = _ID
    types = frozenset({SECRET})

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold a secret.

        A format's match lies in a white-space-free run at least as long as the shortest
        format (see :func:`_formats_that_may_occur`); a PEM block, a JWT, a JWK and every
        cue grammar need a literal that the lower-cased text then holds. One search for
        the literals and one for the run turn most prose away (2 µs against 4 µs for the
        detector's own checks, measured on the benchmark's texts).
        """
        if _UNGATED_FORMATS or _LONG_RUN.search(anchors.text) is not None:
            return True
        return _LITERALS.search(anchors.lowered) is not None

    def find(self, text: str) -> Iterator[Hit]:
        """Yield ``SECRET`` hits on ``text``, sorted by offset."""
        text = blank_ansi(text)
        pem = list(_pem_blocks(text)) if "-----BEGIN" in text else []
        hits = [Hit(start, end, SECRET, None, f"{_ID}.pem") for start, end in pem]
        for fmt in _formats_that_may_occur(text):
            for match in fmt.pattern.finditer(text):
                score: float | None = None
                if fmt.check is not None:
                    checked = fmt.check(match.group(fmt.group))
                    if checked is False:
                        continue
                    score = checked  # type: ignore[assignment]
                if placeholder_token(match.group(fmt.group)):
                    continue
                start, end = match.span(fmt.group)
                hits.append(Hit(start, end, SECRET, score, f"{_ID}.{fmt.family}"))
        if "eyJ" in text:
            for match in _JWT.finditer(text):
                if jwt_structure_valid(match.group()):
                    hits.append(Hit(match.start(), match.end(), SECRET, None, f"{_ID}.jwt"))
        if '"kty"' in text:
            for start, end in _jwk_members(text):
                hits.append(Hit(start, end, SECRET, None, f"{_ID}.jwk"))
        if pem:
            # Key material inside a PEM block may look like a token; the block says more.
            in_block = _Coverage(hits[: len(pem)])
            hits[len(pem) :] = [
                h for h in hits[len(pem) :] if not in_block.contains(h.start, h.end)
            ]
        covered = _Coverage(hits) if hits else None
        seen: set[tuple[int, int]] = set()
        for family, start, end in cue_values(text):
            # One hit per value: the first family to claim it ("SET PASSWORD 'x'" is both
            # an assignment and SQL), and none inside a format hit, which says more.
            if (start, end) in seen or (covered is not None and covered.contains(start, end)):
                continue
            seen.add((start, end))
            hits.append(Hit(start, end, SECRET, None, f"{_ID}.{family}"))
        if hits:
            yield from sorted(set(hits))


# Which vendor formats may occur in a text, decided before any format's pattern runs.
# A format's match holds no white space and is at least as long as its shortest match
# (both read from the parsed pattern by ``match_width``), so the format can only match
# inside a white-space-free run of the text that long, and one of its literal needles
# must occur in such a run. Most prose has no run of 15 characters (the shortest format,
# a Slack token), so most texts skip every format after one search; the others test the
# needles of the formats that fit their longest run, on their long runs only. A format
# whose match might hold white space (none today) would bypass the gate.
_GATE_WIDTH: dict[int, int] = {}
_UNGATED: list[int] = []
for _index, _fmt in enumerate(FORMATS):
    _width = match_width(_fmt.pattern)
    if _width is None:
        _UNGATED.append(_index)
    else:
        _GATE_WIDTH[_index] = _width
_MIN_WIDTH = min(_GATE_WIDTH.values(), default=0)
# ``\S`` is ``not str.isspace()``, the same test ``str.split`` uses; one search (about half
# the cost of a split on short texts, measured) turns most prose away.
_LONG_RUN = re.compile(rf"\S{{{_MIN_WIDTH}}}")
_UNGATED_FORMATS = [FORMATS[index] for index in _UNGATED]


def _literal_gate(literals: set[str]) -> re.Pattern[str]:
    """One search for any of ``literals``; one that holds another ("password", "pas") adds
    nothing, and fewer alternatives make the search faster."""
    needed = {x for x in literals if not any(y != x and y in x for y in literals)}
    return re.compile(literal_alternation(needed))


# The literals ``find`` tests before its PEM, JWT and JWK scans, and those of the cue
# grammars, lower-cased: a needle in a case-sensitive test is in the lower-cased text too.
_LITERALS = _literal_gate({"-----begin", "eyj", '"kty"', *CUE_LITERALS})
# (width, index, needles) by width: a text whose longest run has n characters checks the
# needles of the formats that fit in n only (a few, on a typical text with a URL in it).
_BY_WIDTH = sorted((width, index, FORMATS[index].needles) for index, width in _GATE_WIDTH.items())
_WIDTHS = [width for width, _, _ in _BY_WIDTH]


def _formats_that_may_occur(text: str) -> list[TokenFormat]:
    """The formats whose pattern could match ``text``; never leaves out one that matches."""
    if _LONG_RUN.search(text) is None:
        return _UNGATED_FORMATS
    words = text.split()
    longest = max(map(len, words))
    # A needle holds no white space: found in the joined runs, it lies inside one of them.
    runs = " ".join(word for word in words if len(word) >= _MIN_WIDTH)
    chosen = list(_UNGATED)
    for _width, index, needles in _BY_WIDTH[: bisect_right(_WIDTHS, longest)]:
        if not needles or any(needle in runs for needle in needles):
            chosen.append(index)
    return [FORMATS[index] for index in sorted(chosen)]


class _Coverage:
    """Answers "does one of these hits contain [start, end)?" in O(log n)."""

    def __init__(self, hits: list[Hit]) -> None:
        spans = sorted((h.start, h.end) for h in hits)
        self.starts = [s for s, _ in spans]
        self.max_end: list[int] = []
        furthest = -1
        for _, end in spans:
            furthest = max(furthest, end)
            self.max_end.append(furthest)

    def contains(self, start: int, end: int) -> bool:
        index = bisect_right(self.starts, start) - 1
        return index >= 0 and self.max_end[index] >= end


def _jwk_members(text: str) -> Iterator[tuple[int, int]]:
    for match in _JWK_MEMBER.finditer(text):
        opening = text.rfind("{", max(0, match.start() - _JWK_OBJECT_REACH), match.start())
        closing = text.find("}", match.end(), match.end() + _JWK_OBJECT_REACH)
        if opening != -1 and closing != -1 and '"kty"' in text[opening:closing]:
            yield match.span("value")


def _pem_blocks(text: str) -> Iterator[tuple[int, int]]:
    begins = list(_PEM_BEGIN.finditer(text))
    next_end = -2  # cached position of the next "-----END" (-1: none left)
    for index, begin in enumerate(begins):
        body_start = begin.end()
        if next_end != -1 and next_end < body_start:
            next_end = text.find(_PEM_END_PREFIX, body_start)
        next_begin = begins[index + 1].start() if index + 1 < len(begins) else len(text)
        if next_end != -1 and next_end < next_begin and next_end - body_start <= _PEM_MAX:
            end_marker = _PEM_END.match(text, next_end)
            if end_marker is not None:
                if _PEM_KEY_RUN.search(text, body_start, next_end):
                    yield begin.start(), end_marker.end()
                continue
        # No END of its own within reach: the base64 lines right after the header.
        lines = _PEM_BODY_LINES.match(text, body_start)
        if lines is not None and _PEM_KEY_RUN.search(lines.group()):
            yield begin.start(), lines.end()


__all__ = [
    "SecretDetector",
    "blank_ansi",
    "cue_strength",
    "high_entropy",
    "jwt_structure_valid",
    "shannon_entropy",
    "value_is_secret",
]
