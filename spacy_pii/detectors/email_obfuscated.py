"""E-mail addresses written to dodge harvesters: ``ada [at] example [dot] com`` and kin.

The forms, each from what address munging guides and spam-harvesting studies list:

- the ``@`` and the dots spelled in brackets: ``[at]``, ``(at)``, ``{at}``, ``<at>``,
  ``[dot]`` and so on, upper or lower case, with or without spaces around;
- spelled with spaces only: ``ada at example dot com``. Prose says "at" and "dot" too, so
  this form needs a spelled ``dot`` before a common top-level domain, and a first word that
  is no common word before "at" ("looked at", "meet me at");
- ``@`` with spaces around it: ``ada @ example.com``;
- character references (HTML 5): ``&#64;``, ``&#x40;``, ``&commat;`` for ``@`` and
  ``&#46;``, ``&period;`` for the dot; percent-encoding (RFC 3986 section 2.1): ``%40`` in
  a URL;
- spaced letters: ``a d a @ e x a m p l e . c o m``.

Mathematical and other compatibility letters (``𝚊𝚍𝚊@…``) are folded before any rule sees
them (:mod:`.fold`), so the plain e-mail rule finds those. A match here is decided by its
shape alone, so its score is ``None``. The span is the whole written form, so redaction
removes it all. Every repetition is bounded and every alternative starts with a distinct
literal, so a scan is linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..core.hits import Hit
from .anchors import Anchors
from .email import _EMAIL, EMAIL, in_uri_password


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
_LOCAL_WORD = r"[A-Za-z0-9_][A-Za-z0-9_+'\-]{0,63}"

_SPACE = r"[ \t]{0,3}"
_BRACKET_AT = rf"{_SPACE}[\[({{<]{_SPACE}(?:at|AT|At|@){_SPACE}[\])}}>]{_SPACE}"
_BRACKET_DOT = rf"{_SPACE}[\[({{<]{_SPACE}(?:dot|DOT|Dot|\.){_SPACE}[\])}}>]{_SPACE}"
_ENTITY_AT = r"&#0{0,3}64;|&#[xX]0{0,3}40;|&commat;|%40"
_ENTITY_DOT = r"&#0{0,3}46;|&#[xX]0{0,3}2[eE];|&period;|%2[eE]"
_SPELLED_AT = r"[ \t]{1,3}(?:at|AT)[ \t]{1,3}"
_SPELLED_DOT = r"[ \t]{1,3}(?:dot|DOT)[ \t]{1,3}"
# Spaces on both sides: "@handle" after a word is a mention, and ". " ends a sentence.
_SPACED_AT = r"[ \t]{1,3}@[ \t]{1,3}"
_SPACED_DOT = r"[ \t]{1,3}\.[ \t]{1,3}"

_AT = rf"(?P<at>{_BRACKET_AT}|{_ENTITY_AT}|{_SPELLED_AT}|{_SPACED_AT}|@)"
_DOT = rf"(?:{_BRACKET_DOT}|{_ENTITY_DOT}|{_SPELLED_DOT}|{_SPACED_DOT}|\.)"

_MUNGED = re.compile(
    r"(?<![A-Za-z0-9._%+\-&#;])"
    rf"(?P<local>{_LOCAL_WORD}(?:{_DOT}{_LOCAL_WORD}){{0,7}})"
    rf"{_AT}"
    rf"(?P<domain>{_LABEL}(?:{_DOT}{_LABEL}){{1,8}})"
    r"(?![A-Za-z0-9\-])"
)

# Spaced letters: single characters, one space apart, around "@".
_SPACED_LETTERS = re.compile(
    r"(?<!\S)(?P<local>[A-Za-z0-9](?: [A-Za-z0-9._\-]){1,63}) @ "
    r"(?P<domain>[A-Za-z0-9](?: [A-Za-z0-9\-.]){3,253})(?!\S)"
)

# Separators that undo a munged form; the longest first, so "[dot]" is read whole.
_UNMUNGE = re.compile(
    rf"(?P<at>{_BRACKET_AT}|{_ENTITY_AT}|{_SPELLED_AT}|{_SPACED_AT})"
    rf"|(?P<dot>{_BRACKET_DOT}|{_ENTITY_DOT}|{_SPELLED_DOT}|{_SPACED_DOT})"
)

# Top-level domains that a spelled-out address ends in ("ada at example dot com"): the
# common generic ones and the country codes most used in English text.
SPELLED_TLDS = _words(
    "com org net edu gov mil int info biz io co me ai app dev tech online xyz "
    "uk us ca au nz ie de fr es it nl be ch at se no dk fi pl pt cz ru ua in jp cn kr br mx "
    "za eu"
)

# Words that end prose before "at" ("looked at google dot com", "meet me at ..."): a
# spelled-out address never starts with one of them.
_PROSE_BEFORE_AT = _words(
    "look looks looked looking stare stared glance glanced point pointed aim aimed "
    "arrive arrived arriving meet met stay stayed staying live lived work worked working "
    "be is was were are am been being me us him her them it you i we they he she this that "
    "here there home back right left up down out off in on only just even "
    "good bad best better great poor expert hard laugh laughed smile smiled "
    "sit sat stand stood wait waited start started begin began end ended "
    "available online somewhere anywhere everywhere nobody everyone someone not"
)


# Every munged form holds one of these (lower-cased): a spaced or bracketed "@", an encoded
# one, a bracketed "at", or a spelled "dot" (a spelled "at" needs one); C-speed tests spare
# the scan of the many texts whose only "@" is a plain address.
_NEEDLES = (
    " @",
    "@ ",
    "[@",
    "(@",
    "{@",
    "<@",
    "&#",
    "%40",
    "&commat;",
    "at]",
    "at)",
    "at}",
    "at>",
    " dot ",
)
_AT_NEEDLES = tuple(needle for needle in _NEEDLES if "@" in needle)
_BRACKETED_AT = ("at]", "at)", "at}", "at>")


def _may_hold_munged(lowered: str) -> bool:
    # Whether any of _NEEDLES occurs, the tests grouped under the character they need
    # (a third of the cost of testing each needle, measured on the benchmark's texts).
    if "@" in lowered and any(needle in lowered for needle in _AT_NEEDLES):
        return True
    if "&" in lowered and ("&#" in lowered or "&commat;" in lowered):
        return True
    if "%40" in lowered or " dot " in lowered:
        return True
    return any(needle in lowered for needle in _BRACKETED_AT)


def _unmunged(written: str) -> tuple[str, bool]:
    """The plain address of a munged form, and whether a spelled (unbracketed) word was used."""
    spelled = False

    def plain(match: re.Match[str]) -> str:
        nonlocal spelled
        piece = match.group(0).strip().lower()
        if piece in ("at", "dot"):
            spelled = True
        return "@" if match.group("at") is not None else "."

    return _UNMUNGE.sub(plain, written), spelled


_SPACED_AT_ONLY = re.compile(rf"^(?:{_SPACED_AT})$")
_MUNGED_DOT = re.compile(rf"{_BRACKET_DOT}|{_ENTITY_DOT}|{_SPELLED_DOT}")

# Template words that stand for an address rather than being one ("name [at] domain [dot]
# tld", "you (at) yourcompany (dot) com").
_TEMPLATE_LOCALS = _words("name yourname you your user username email someone firstname lastname")
_TEMPLATE_DOMAINS = _words("domain yourdomain company yourcompany host hostname server tld")


def _munged_form_ok(match: re.Match[str], address: str, spelled: bool) -> bool:
    local, _, domain = address.rpartition("@")
    if local.lower() in _TEMPLATE_LOCALS or _TEMPLATE_DOMAINS & set(domain.lower().split(".")):
        return False
    # Only a bracket or an encoding is a deliberate "@"; a spelled or spaced one must end in
    # a common top-level domain ("Fair point @ kyle28walker . Should" is a reply, not mail).
    if domain.rsplit(".", 1)[-1].lower() not in SPELLED_TLDS and (
        spelled or _SPACED_AT_ONLY.search(match["at"]) is not None
    ):
        return False
    if not spelled:
        return True
    if local.split(".", 1)[0].lower() in _PROSE_BEFORE_AT:
        return False
    # A spelled "at" with only plain dots after it is prose ("deals at amazon.com"): the
    # domain must spell or bracket a dot too.
    return _MUNGED_DOT.search(match["domain"]) is not None


class ObfuscatedEmailDetector:
    """Munged e-mail addresses (see module); score ``None``, span the written form."""

    id = "rules.email.obfuscated"
    types = frozenset({EMAIL})

    def may_occur(self, anchors: Anchors) -> bool:
        """Whether ``anchors``' text holds a literal that every munged form needs."""
        return _may_hold_munged(anchors.lowered)

    def find(self, text: str) -> Iterator[Hit]:
        """Yield one ``EMAIL`` hit per munged address in ``text``."""
        lowered = text.lower()
        if not _may_hold_munged(lowered):
            return
        position = 0
        while (match := _MUNGED.search(text, position)) is not None:
            # A rejected match may hide one that starts inside it ("me at j [dot] smith
            # [at] ..."), so the search goes on from its next character; each attempt is
            # bounded, so this stays linear.
            position = match.start() + 1
            written = match.group(0)
            if "@" in written and _UNMUNGE.search(written) is None:
                continue  # a plain address: the e-mail rule's
            address, spelled = _unmunged(written)
            if _EMAIL.fullmatch(address) is None or not _munged_form_ok(match, address, spelled):
                continue
            if in_uri_password(text, match.start()):
                continue
            position = match.end()
            yield Hit(match.start(), match.end(), EMAIL, None, self.id)
        if " @ " in text:
            for match in _SPACED_LETTERS.finditer(text):
                address = match.group(0).replace(" ", "")
                if _EMAIL.fullmatch(address) is not None:
                    yield Hit(match.start(), match.end(), EMAIL, None, self.id)


__all__ = ["SPELLED_TLDS", "ObfuscatedEmailDetector"]
