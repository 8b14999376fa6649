"""Tool-call arguments: mask and restore every string leaf of a nested dict/list/tuple."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import InvalidInput
from .mask import _mask_text, _reserved
from .operators import _Plan
from .restore import (
    UnknownSpan,
    _doc_rows,
    _docs,
    _restore_setup,
    _RestoreVerdict,
    _substitute,
    _unknown,
)

logger = logging.getLogger(__name__)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,99}")


def _child_path(path: str, key: object) -> str:
    if isinstance(key, str) and _IDENTIFIER.fullmatch(key):
        return f"{path}.{key}" if path else key
    shown = json.dumps(key) if isinstance(key, str) else repr(key)
    return f"{path}[{shown}]"


def _walk(value: Any, path: str, visit: Any, active: set[int]) -> Any:
    """Rebuild ``value`` with ``visit(path, leaf)`` applied to each str leaf, depth first."""
    if isinstance(value, str):
        return visit(path, value)
    if isinstance(value, (dict, list, tuple)):
        if id(value) in active:
            raise InvalidInput(value, expected="an acyclic tree")
        active.add(id(value))
        try:
            if isinstance(value, dict):
                out = value.copy()  # keeps OrderedDict, defaultdict and friends
                for key, item in value.items():
                    out[key] = _walk(item, _child_path(path, key), visit, active)
                return out
            items = [_walk(item, f"{path}[{i}]", visit, active) for i, item in enumerate(value)]
            if isinstance(value, list):
                return type(value)(items) if type(value) is not list else items
            if hasattr(value, "_fields"):  # a namedtuple
                return type(value)._make(items)  # type: ignore[attr-defined]  # namedtuple
            return type(value)(items)
        finally:
            active.discard(id(value))
    return value


def _leaves(value: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def record(path: str, leaf: str) -> str:
        found.append((path, leaf))
        return leaf

    _walk(value, "", record, set())
    return found


def _replace_leaves(value: Any, replacements: list[Any]) -> Any:
    supply = iter(replacements)
    return _walk(value, "", lambda _path, _leaf: next(supply), set())


@dataclass(frozen=True, slots=True)
class MaskHit:
    """One string leaf that was masked: where, which types (first appearance), how many."""

    path: str
    types: tuple[str, ...]
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "types": list(self.types), "count": self.count}


@dataclass(frozen=True, slots=True)
class MaskResult:
    """What :func:`mask_mapping` returns. ``vault`` holds real values: it is not in ``repr``."""

    value: Any
    vault: dict[str, str] = field(repr=False)
    hits: tuple[MaskHit, ...]

    def to_dict(self) -> dict[str, Any]:
        """A summary safe to log: the masked tree, the paths and the types, no value."""
        return {
            "value": self.value,
            "hits": [hit.to_dict() for hit in self.hits],
            "placeholders": len(self.vault),
        }


def mask_mapping(
    value: Any,
    nlp: Any,
    *,
    types: Iterable[str] | None = None,
    operators: Mapping[str, object] | None = None,
    key: bytes | str | None = None,
    taxonomy: Taxonomy | str | None = None,
    spans_key: str = "pii",
) -> MaskResult:
    """Mask every string leaf of a nested dict/list/tuple, e.g. a tool call's arguments.

    The copy keeps the structure and every non-string leaf, so the tool still parses it.
    Dict keys are field names: they are neither scanned nor masked, and they appear in
    paths; a mapping keyed by personal data must be reshaped by the caller first. Only
    ``str`` leaves are scanned: decode bytes and JSON text first (see the module docs).

    Placeholders are unique across the tree: each carries the index of its string leaf
    (depth first, in insertion order), ``<EMAIL_1_0>`` in leaf 0 and ``<EMAIL_1_1>`` in leaf
    1, so restoring never writes one leaf's value into another. Paths join keys with dots
    and put list indices in brackets: ``customer.email``, ``items[0].email``, ``[2]`` for a
    top-level list; a key that is not an identifier is quoted, ``meta["x.y"]``.

    Args:
        value: the tree to mask.
        nlp: a pipeline that writes ``doc.spans[spans_key]``; ``nlp.pipe`` is used to batch.
        types: mask only these types; ``None`` masks every type the pipeline finds.
        operators: as for :func:`redact`.
        key: as for :func:`redact`.
        taxonomy: as for :func:`redact`.
        spans_key: the span group ``nlp`` writes.

    Returns:
        A :class:`MaskResult` with the masked tree, the vault and one hit per masked leaf.
    """
    if not callable(nlp):
        raise InvalidInput(nlp, expected="a pipeline (a callable returning a Doc)")
    tax = load_taxonomy(taxonomy)
    plan = _Plan(tax, operators, key)
    wanted = None if types is None else frozenset(tax.check_types(tuple(types)))
    leaves = _leaves(value)
    texts = [text for _, text in leaves]
    reserved = _reserved(texts)
    vault: dict[str, str] = {}
    hits: list[MaskHit] = []
    masked_leaves: list[str] = []
    for index, ((path, text), doc) in enumerate(zip(leaves, _docs(nlp, texts), strict=True)):
        rows = _doc_rows(doc, spans_key, tax, wanted)
        masked, leaf_vault = _mask_text(text, rows, plan, suffix=f"_{index}", reserved=reserved)
        masked_leaves.append(masked)
        vault.update(leaf_vault)
        if rows:
            found = tuple(dict.fromkeys(type_name for _, _, type_name in rows))
            hits.append(MaskHit(path, found, len(rows)))
    result = MaskResult(_replace_leaves(value, masked_leaves), vault, tuple(hits))
    logger.debug("mask_mapping: %d of %d leaves masked", len(hits), len(leaves))
    return result


@dataclass(frozen=True, slots=True)
class RestoreMappingResult(_RestoreVerdict):
    """What :func:`restore_mapping` returns; fields as :class:`RestoreResult`, per tree."""

    value: Any = field(repr=False)
    resolved: tuple[str, ...]
    unresolved: tuple[str, ...]
    unknown: tuple[UnknownSpan, ...]
    ok: bool = field(init=False)

    def to_dict(self) -> dict[str, Any]:
        """A summary safe to log: tokens, types, offsets and paths; no value."""
        return self._summary()


def restore_mapping(
    value: Any,
    vault: Mapping[str, str],
    *,
    nlp: Any = None,
    types: Iterable[str] | None = None,
    taxonomy: Taxonomy | str | None = None,
    spans_key: str = "pii",
) -> RestoreMappingResult:
    """Restore every string leaf of a nested dict/list/tuple, as :func:`restore` does.

    ``unknown`` rows carry the leaf's ``path``; offsets index that leaf's raw text.
    Non-string leaves and the structure come back unchanged.
    """
    vault, tax, wanted, known, irreversible = _restore_setup(vault, types, taxonomy)
    leaves = _leaves(value)
    texts = [text for _, text in leaves]
    values = frozenset(vault.values())
    unknown: list[UnknownSpan] = []
    if nlp is not None:
        for (path, text), doc in zip(leaves, _docs(nlp, texts), strict=True):
            unknown.extend(_unknown(text, doc, values, spans_key, tax, wanted, path))
    resolved: dict[str, None] = {}
    unresolved: dict[str, None] = {}
    restored = []
    for text in texts:
        new_text, leaf_resolved, leaf_unresolved = _substitute(text, vault, known, irreversible)
        restored.append(new_text)
        resolved.update(dict.fromkeys(leaf_resolved))
        unresolved.update(dict.fromkeys(leaf_unresolved))
    result = RestoreMappingResult(
        _replace_leaves(value, restored), tuple(resolved), tuple(unresolved), tuple(unknown)
    )
    logger.debug(
        "restore_mapping: %d resolved, %d unresolved, %d unknown",
        len(resolved),
        len(unresolved),
        len(unknown),
    )
    return result
