"""The template language and its renderer, which computes span offsets while it writes.

A template is plain text with three kinds of markup:

- ``{name}`` or ``{entity.attr}``: a slot, filled by a value factory. A slot may carry
  modifiers after a bar: ``{p.last|upper}``. The same slot name gives the same value
  everywhere in one document, so ``{p.first}`` twice names one person.
- ``{~one|two|}``: a choice; one alternative (possibly empty) is rendered. Alternatives may
  hold slots and nested choices. Inside a choice a ``}`` always closes it, so a literal
  closing brace cannot appear there.
- ``{{`` and ``}}`` outside a choice: literal braces (JSON, YAML flow maps, code).

Offsets are exact by construction: the renderer appends each piece to the output and
records ``(start, end, label)`` for a labelled slot at the position where it writes the
value, then checks every span against the finished text. Case transforms that the
generator applies to a whole document keep the length of every character (see
:func:`upper_same_length`), so offsets survive them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from ..errors import SpanOffsetError

_SLOT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.")
MODIFIERS: dict[str, Callable[[str], str]] = {
    "upper": lambda v: upper_same_length(v),
    "lower": lambda v: lower_same_length(v),
    "title": lambda v: " ".join(w[:1].upper() + w[1:] for w in v.split(" ")),
    "cap": lambda v: v[:1].upper() + v[1:],
}


class TemplateError(ValueError):
    """A template does not parse. The message names the template position, never values."""


@dataclass(frozen=True, slots=True)
class Lit:
    text: str


@dataclass(frozen=True, slots=True)
class Slot:
    name: str
    attr: str | None
    mods: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Choice:
    alts: tuple[tuple[Node, ...], ...]


Node = Lit | Slot | Choice


class Resolver(Protocol):
    """What the renderer needs from a document context."""

    def resolve(self, name: str, attr: str | None) -> tuple[str | None, str]: ...

    def choose(self, n: int) -> int: ...


@dataclass(frozen=True, slots=True)
class Rendered:
    text: str
    spans: tuple[tuple[int, int, str], ...]


def _parse_slot(body: str, at: int) -> Slot:
    head, *mods = body.split("|")
    if not head or any(c not in _SLOT_CHARS for c in head) or head.count(".") > 1:
        raise TemplateError(f"bad slot name at offset {at}")
    for mod in mods:
        if mod not in MODIFIERS:
            raise TemplateError(f"unknown modifier {mod!r} at offset {at}")
    name, _, attr = head.partition(".")
    return Slot(name, attr or None, tuple(mods))


def _parse_seq(src: str, i: int, in_choice: bool) -> tuple[tuple[Node, ...], int]:
    nodes: list[Node] = []
    buf: list[str] = []

    def flush() -> None:
        if buf:
            nodes.append(Lit("".join(buf)))
            buf.clear()

    n = len(src)
    while i < n:
        c = src[i]
        if c == "{":
            if src.startswith("{{", i):
                buf.append("{")
                i += 2
                continue
            flush()
            if src.startswith("{~", i):
                start = i
                i += 2
                alts: list[tuple[Node, ...]] = []
                while True:
                    seq, i = _parse_seq(src, i, True)
                    alts.append(seq)
                    if i >= n:
                        raise TemplateError(f"unclosed choice at offset {start}")
                    i += 1
                    if src[i - 1] == "}":
                        break
                nodes.append(Choice(tuple(alts)))
                continue
            end = src.find("}", i)
            if end < 0:
                raise TemplateError(f"unclosed slot at offset {i}")
            nodes.append(_parse_slot(src[i + 1 : end], i))
            i = end + 1
        elif in_choice and c in "|}":
            break
        elif c == "}":
            if not src.startswith("}}", i):
                raise TemplateError(f"lone closing brace at offset {i}")
            buf.append("}")
            i += 2
        else:
            buf.append(c)
            i += 1
    flush()
    return tuple(nodes), i


@lru_cache(maxsize=4096)
def parse(template: str) -> tuple[Node, ...]:
    """Parse a template (dedented, outer blank lines stripped) into nodes."""
    src = textwrap.dedent(template).strip("\n")
    nodes, i = _parse_seq(src, 0, False)
    if i != len(src):
        raise TemplateError(f"trailing text at offset {i}")
    return nodes


def slots_of(nodes: Sequence[Node]) -> list[Slot]:
    """Every slot in a parsed template, choices included."""
    out: list[Slot] = []
    for node in nodes:
        if isinstance(node, Slot):
            out.append(node)
        elif isinstance(node, Choice):
            for alt in node.alts:
                out.extend(slots_of(alt))
    return out


def render_template(template: str, ctx: Resolver) -> Rendered:
    """Render ``template`` against ``ctx``; every span is checked against the text.

    Raises:
        SpanOffsetError: a span does not slice back to its value (a bug, never data).
    """
    parts: list[str] = []
    checks: list[tuple[int, int, str, str]] = []
    pos = 0

    def walk(nodes: Sequence[Node]) -> None:
        nonlocal pos
        for node in nodes:
            if isinstance(node, Lit):
                parts.append(node.text)
                pos += len(node.text)
            elif isinstance(node, Choice):
                walk(node.alts[ctx.choose(len(node.alts))])
            else:
                label, value = ctx.resolve(node.name, node.attr)
                for mod in node.mods:
                    value = MODIFIERS[mod](value)
                if label is not None:
                    # A few Faker locales end a value with a space or newline (da_DK, de_AT
                    # streets); a span never starts or ends with one.
                    value = value.strip()
                if label is not None and value:
                    checks.append((pos, pos + len(value), label, value))
                parts.append(value)
                pos += len(value)

    walk(parse(template))
    text = "".join(parts)
    for start, end, _label, value in checks:
        if text[start:end] != value or value != value.strip():
            raise SpanOffsetError(f"span {start}:{end} does not match its value")
    return Rendered(text, tuple((s, e, lab) for s, e, lab, _ in checks))


def upper_same_length(text: str) -> str:
    """Upper-case ``text`` without changing any character's offset.

    ``str.upper`` maps some code points to two (``ß`` -> ``SS``, ``ŉ``); those are kept
    as they are, so a span's offsets stay valid after the transform.
    """
    up = text.upper()
    if len(up) == len(text):  # no code point expanded, so each maps one-to-one
        return up
    return "".join(u if len(u := c.upper()) == 1 else c for c in text)


def lower_same_length(text: str) -> str:
    """Lower-case ``text`` without changing any character's offset (``İ`` stays)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(lo if len(lo := c.lower()) == 1 else c for c in text)
