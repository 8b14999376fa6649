"""IP addresses: a text-form match, then Python's ``ipaddress`` parser decides.

Sources:

- **IPv4**: the dotted-decimal ``IPv4address`` of RFC 3986 section 3.2.2, four
  ``dec-octet`` values 0 to 255 with no leading zero. A leading zero ("192.168.01.1") is
  refused: RFC 3986 excludes it, ``inet_aton`` reads it as octal, and ``ipaddress``
  rejects it (Python 3.9.5 and later), so its meaning is ambiguous.
- **IPv6**: the text forms of RFC 4291 section 2.2: eight groups of 1 to 4 hex digits,
  ``::`` compression, and a trailing embedded IPv4 address (``::ffff:192.0.2.1``).
- ``ipaddress.ip_address`` confirms every candidate; a confirmed address scores ``1.0``.

Choices, each following Presidio's unit tests where they have one:

- A prefix length (CIDR, RFC 4632 section 3.1 and RFC 4291 section 2.3) is part of the
  span when it is in range: ``/0`` to ``/32`` for IPv4, ``/0`` to ``/128`` for IPv6.
  Out of range ("10.0.0.0/123") the address alone is reported.
- An IPv6 zone index (RFC 4007 section 11, "fe80::1%eth0") is part of the span. Its
  characters are letters, digits, ``_`` and ``-``, at most 15 (Linux ``IFNAMSIZ`` is 16
  with the terminating NUL); a dot ends it, so a sentence's final dot stays out.
- An address never continues a longer token: not after or before a letter or digit
  ("IP192.168.1.1text"), not inside a longer dotted number ("1.2.3.4.5", the version
  "10.0.0.1.2"; Presidio's gold takes "192.168.1.1" out of "192.168.1.1.1", we do not).
- An IPv4 address right after a colon is reported on its own when the IPv6 text around
  it is not an address ("text::ffff:192.0.2.1" gives "192.0.2.1", as in Presidio's tests);
  inside a valid IPv6 address it is not reported twice.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator

from ..core.hits import Hit
from .anchors import Anchors

IP_ADDRESS = "IP_ADDRESS"

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
# RFC 3986 IPv4address; not after a letter, digit, "_" or dot, not before a letter, digit
# or "_", and not before ".digit" (a longer dotted number).
_IPV4 = re.compile(
    rf"(?<![A-Za-z0-9_.]){_OCTET}(?:\.{_OCTET}){{3}}(?![A-Za-z0-9_])(?!\.[0-9])"
    r"(?:/(?P<prefix>[0-9]{1,3}+))?"
)
# An IPv6 candidate: hex groups and colons with at least one colon (at most 39
# characters, the longest RFC 4291 text form), an optional dotted tail for the embedded
# IPv4 form, a zone and a prefix. Possessive and bounded: one pass per start, and the
# look-behind lets a start happen only at the beginning of a hex-and-colon run.
_IPV6 = re.compile(
    r"(?<![A-Za-z0-9_:.%])"
    r"[0-9A-Fa-f]{0,4}+:[0-9A-Fa-f:]{1,38}+"
    r"(?:\.[0-9]{1,3}+){0,3}+"
    r"(?:%(?P<zone>[A-Za-z0-9_\-]{1,15}+))?+"
    r"(?:/(?P<prefix>[0-9]{1,3}+))?+"
)

# Prefilters. An IPv4 address holds a digit, a dot and a digit in a row (the end of its
# first octet, at most three digits, and the start of the next); an IPv6 address holds a
# colon at most four hex digits after its start. Texts without them (most prose) skip the
# patterns, whose look-behinds are otherwise tried at every position, and the others are
# scanned from the first place an address can start (a look-behind still sees the
# characters before the scan's start).
_IPV4_GATE = re.compile(r"[0-9]\.[0-9]")
_OCTET_DIGITS = 3
_IPV4_MIN_DIGITS = 4
_IPV6_MIN_COLONS = 6
_DOTTED_QUAD = re.compile(r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]")
_GROUP_DIGITS = 4


def _ipv4_scan_start(text: str) -> int | None:
    """The first index an IPv4 address can start at, or ``None`` when ``text`` holds none."""
    gate = _IPV4_GATE.search(text)
    return None if gate is None else max(0, gate.start() - (_OCTET_DIGITS - 1))


def _ipv6_scan_start(text: str) -> int | None:
    """The first index an IPv6 address can start at, or ``None`` when ``text`` holds none."""
    colon = text.find(":")
    return None if colon == -1 else max(0, colon - _GROUP_DIGITS)


IPV4_MAX_PREFIX = 32  # RFC 4632 section 3.1
IPV6_MAX_PREFIX = 128  # RFC 4291 section 2.3


def _glued_after(text: str, end: int) -> bool:
    """Whether a letter, digit, "_", ":" or ".digit" continues an IPv6 candidate."""
    if end >= len(text):
        return False
    char = text[end]
    if char.isascii() and (char.isalnum() or char in "_:"):
        return True
    return char == "." and end + 1 < len(text) and text[end + 1].isdigit()


def _split_prefix(match: re.Match[str], text: str, limit: int) -> tuple[int, int]:
    """``(address_end, hit_end)``: the prefix length joins the hit only when in range."""
    if match["prefix"] is None:
        return match.end(), match.end()
    address_end = match.start("prefix") - 1  # before the "/"
    if int(match["prefix"]) <= limit and not _glued_after(text, match.end()):
        return address_end, match.end()
    return address_end, address_end


def ipv6_spans(text: str) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of every IPv6 address that ``ipaddress`` accepts."""
    scan_from = _ipv6_scan_start(text)
    if scan_from is None:
        return
    for match in _IPV6.finditer(text, scan_from):
        if match["prefix"] is None and _glued_after(text, match.end()):
            continue
        address_end, end = _split_prefix(match, text, IPV6_MAX_PREFIX)
        try:
            parsed = ipaddress.ip_address(text[match.start() : address_end])
        except ValueError:
            continue
        if parsed.version == 6:
            yield match.start(), end


def ipv4_spans(text: str) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of every IPv4 address (RFC 3986 dotted decimal)."""
    scan_from = _ipv4_scan_start(text)
    if scan_from is None:
        return
    for match in _IPV4.finditer(text, scan_from):
        address_end, end = _split_prefix(match, text, IPV4_MAX_PREFIX)
        try:
            ipaddress.IPv4Address(text[match.start() : address_end])
        except ValueError:  # the pattern already enforces dec-octet; kept as the decider
            continue
        yield match.start(), end


class IpAddressDetector:
    """IPv4 and IPv6 addresses, confirmed by ``ipaddress``; score 1.0."""

    id = "rules.ip"
    types = frozenset({IP_ADDRESS})

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text may hold an address.

        Dotted decimal holds four dot-joined octets (RFC 3986 section 3.2.2). An IPv6
        text form holds "::", or its eight groups' seven colons, or six before an embedded
        dotted-decimal tail (RFC 4291 section 2.2); a clock time's two colons are neither.
        """
        text = anchors.text
        if anchors.digits >= _IPV4_MIN_DIGITS and _DOTTED_QUAD.search(text) is not None:
            return True
        return "::" in text or text.count(":") >= _IPV6_MIN_COLONS

    def find(self, text: str) -> Iterator[Hit]:
        """Yield one ``IP_ADDRESS`` hit per address in ``text``, in text order."""
        v6 = list(ipv6_spans(text))
        spans = list(v6)
        index = 0
        for start, end in ipv4_spans(text):
            # Both lists are in text order: advance past IPv6 spans that end before this.
            while index < len(v6) and v6[index][1] <= start:
                index += 1
            if index < len(v6) and v6[index][0] < end:
                continue  # the dotted tail of an embedded-IPv4 IPv6 address
            spans.append((start, end))
        for start, end in sorted(spans):
            yield Hit(start, end, IP_ADDRESS, 1.0, self.id)


__all__ = ["IPV4_MAX_PREFIX", "IPV6_MAX_PREFIX", "IpAddressDetector"]
