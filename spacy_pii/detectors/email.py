"""E-mail addresses by their RFC 5321 shape. No validator exists, so the score is ``None``.

Source: RFC 5321 section 4.5.3.1 size limits (local part at most 64 octets, domain at
most 255, the whole path at most 256 octets with its angle brackets, so 254 for the
address), the dot-atom local part of RFC 5322 section 3.2.3, and domain labels of RFC
1035 section 2.3.4 (1 to 63 letters, digits and inner hyphens). The domain must have a
dot, and its last label (the top-level domain) is letters (RFC 3696 section 2: a TLD is
never all-numeric) or an IDNA A-label such as ``xn--p1ai`` (RFC 5890 section 2.3.2.1).

Choices the standards leave to us, each made for free text:

- The local part uses the RFC 5322 ``atext`` characters that mail providers actually
  issue: letters, digits and ``. _ % + - '``. The other ``atext`` symbols (``= / { | }
  ? ! # $ & * ^ ~`` and the back-tick) are legal but in prose they are glue far more often
  than address ("email=ada@example.com", "a/b@c"), and taking them would put the glue
  inside the span. The local part starts with a letter, a digit or ``_``, so a quote
  before it stays out ("'ada@example.com'").
- Quoted local parts (``"a b"@example.com``) and address literals (``ada@[192.0.2.1]``)
  are legal and not matched: they are rare in text and would widen the pattern.
- A trailing dot belongs to the sentence, not the domain ("mail ada@example.com.").
- A local part longer than 64 characters yields no hit rather than a truncated one.
- The password of a URI's userinfo (RFC 3986 section 3.2.1: ``redis://:password@host``,
  ``https://user:password@host``) is not an address, though ``password@host`` has the
  shape: it is the secret rule's. A user that is an address (``smtps://ada@example.com:
  password@host``) stays one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..core.hits import Hit
from .anchors import Anchors

EMAIL = "EMAIL"

# RFC 5321 section 4.5.3.1.1 and 4.5.3.1.2; 4.5.3.1.3 gives 256 for the path, which
# includes the two angle brackets.
LOCAL_MAX = 64
DOMAIN_MAX = 255
ADDRESS_MAX = 254

_LOCAL_CHARS = r"A-Za-z0-9._%+'\-"
# Every quantifier is bounded by an RFC limit, and each repetition is delimited by a dot
# that no other part can take, so a match attempt costs at most a few hundred steps.
# The look-behind keeps a start off the middle of a longer local part: without it a
# 100-character local part would give a truncated 64-character hit.
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+\-])"
    rf"(?=[{_LOCAL_CHARS}]{{1,{LOCAL_MAX}}}@)"
    r"(?P<local>[A-Za-z0-9_][A-Za-z0-9_%+'\-]{0,63}(?:\.[A-Za-z0-9_%+'\-]{1,63}){0,31})"
    r"@"
    r"(?P<domain>(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.){1,126}"
    r"(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9\-]{1,59}))"
    r"(?![A-Za-z0-9\-])"
)


# How far back from an address the "://" of its URI is looked for: a scheme, a user and
# a password, each bounded by the userinfo rule's 256 characters.
_AUTHORITY_REACH = 544
_AUTHORITY_STOPS = re.compile(r"[\s/?#]")


def in_uri_password(text: str, start: int) -> bool:
    """Whether ``start`` lies after the ":" of a URI's userinfo ("scheme://user:" then no
    "/", "?", "#" or white space)."""
    floor = max(0, start - _AUTHORITY_REACH)
    scheme_end = text.rfind("://", floor, start)
    if scheme_end == -1 or text.find(":", scheme_end + 3, start) == -1:
        return False
    return _AUTHORITY_STOPS.search(text, scheme_end + 3, start) is None


def _may_hold_email(text: str) -> bool:
    # Every match holds the pattern's one literal, "@": a C-speed test spares the scan.
    return "@" in text


def email_shape_ok(local: str, domain: str) -> bool:
    """Whether the parts respect the RFC 5321 section 4.5.3.1 size limits."""
    return (
        len(local) <= LOCAL_MAX
        and len(domain) <= DOMAIN_MAX
        and len(local) + 1 + len(domain) <= ADDRESS_MAX
    )


class EmailDetector:
    """E-mail addresses by RFC 5321/5322 shape; score ``None`` (nothing confirms them)."""

    id = "rules.email"
    types = frozenset({EMAIL})

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold an address: it needs the "@"."""
        return "@" in anchors.text

    def find(self, text: str) -> Iterator[Hit]:
        """Yield one ``EMAIL`` hit per address-shaped slice of ``text``."""
        if not _may_hold_email(text):
            return
        for match in _EMAIL.finditer(text):
            if email_shape_ok(match["local"], match["domain"]) and not in_uri_password(
                text, match.start()
            ):
                yield Hit(match.start(), match.end(), EMAIL, None, self.id)


__all__ = ["ADDRESS_MAX", "DOMAIN_MAX", "LOCAL_MAX", "EmailDetector", "email_shape_ok"]
