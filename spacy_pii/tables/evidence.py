"""Column evidence (cell detections, header context) and the decision it gives.

A column's decision is ``pii``, ``maybe`` or ``clean``, with the id of the rule that made it
(:data:`RULES` says what each means). Shares are of the column's non-empty cells that were
examined; a Wilson 95% interval comes with a share whenever the cells were sampled.

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from ..core.taxonomy import load_taxonomy
from ..evaluation.gate import wilson_interval
from ..evaluation.scoring import text_shape
from .headers import HeaderCue

Decision = Literal["pii", "maybe", "clean"]
PolicyName = Literal["mask", "spans", "hash", "fake", "keep"]

# Thresholds on the share of a column's non-empty cells. A structured column is typed by
# the type that at least half its cells hold: a majority, so one type per column, the
# convention of column-level scanners (Presidio Structured types a column by the most
# common entity in its sample). Under MAYBE_SHARE, a few detections in a column of product
# codes or free labels are the detectors' false alarms more often than data; measured on
# the table suite (corpus/tables, spacy_pii.tables.suite), between 0.1 and 0.5 is `maybe`.
PII_SHARE = 0.5
MAYBE_SHARE = 0.1
# A strong header is confirmed when this share of its cells fits the type's shape, and
# contradicted under CONTRADICTED_SHARE: "email_verified" holding true/false.
SHAPE_AGREES = 0.8
CONTRADICTED_SHARE = 0.2
# A column whose sampled cells average this many words is free text (notes, tickets): its
# cells run through the whole pipeline and only the spans inside them are redacted. Six
# words: longer than any name, address line or product title in the table suite.
FREE_TEXT_WORDS = 6.0
# Under a free-text header ("notes", "plan"), cells of at least three words on average:
# fewer is a label or a code, not prose.
FREE_TEXT_HEADER_WORDS = 3.0
# A free-text column with no detection in this many cells is clean (the Wilson upper bound
# on its share is then under 12%); fewer cells cannot tell.
FREE_TEXT_MIN_CELLS = 30
# A column with fewer distinct values than this among its examined cells, and fewer than
# half as many as cells, is a category ("Vertrieb", "ICU", "aktywny"): a model's name or
# place verdict on three repeated words is not evidence of people. Validated types
# (emails, phones, ids) and a header that names the type still decide.
CATEGORICAL_DISTINCT = 20
CATEGORICAL_SHARE = 0.5
# The types the rule lane validates (grammar, checksum, libphonenumber): these override
# a header; the model's types (names, addresses, places) do not.
VALIDATED_TYPES = frozenset({"SECRET", "GOV_ID", "PAYMENT", "EMAIL", "PHONE", "IP_ADDRESS"})
# In free text any detection counts: one name in fifty notes is still personal data.
FREE_TEXT_SHARE = 0.02
# Types of the taxonomy's lowest severity (ORG, LOCATION) are context, not personal data
# on their own: a "company" or "city" column is reported, and at most `maybe` (a
# quasi-identifier) when its header names the type.
CONTEXT_SEVERITY = "low"
SHAPES_SHOWN = 3
SHAPE_CHARS = 32
_WORD = re.compile(r"\S+")

RULES: dict[str, str] = {
    "header+cells": "the header names the type and the detectors find it in most cells",
    "header+shape": "a strong header names the type and most cells fit its shape "
    "(no detector validates this type in these cells: found by the header)",
    "cells": "the detectors find one type in most cells; the header says nothing of it",
    "cells-override-header": "the detectors find another type in most cells than the "
    "header names (an 'id' holding phone numbers)",
    "weak-header+cells": "an ambiguous header ('name') and the detectors agree",
    "free-text": "free text with personal data inside some cells; spans are redacted",
    "free-text-unconfirmed": "free text, no detection, too few cells examined to tell",
    "free-text-clean": "free text without detections; still redacted span by span",
    "categorical": "few distinct values: a category, whatever a model reads in it",
    "header-disagrees": "a strong header, but only some cells fit the type's shape",
    "header-contradicted": "a strong header, but the cells do not fit the type",
    "cells-minority": "the detectors find personal data in a minority of cells",
    "quasi-identifier": "a place or organisation column: personal only with other columns",
    "key": "an id or key column without personal data; kept so that joins survive",
    "no-evidence": "neither the header nor the cells point to personal data",
}


@dataclass
class CellCounts:
    """Per-type counts over the examined cells of one column; merges by addition."""

    cells: int = 0
    detected: Counter[str] = field(default_factory=Counter)
    whole: Counter[str] = field(default_factory=Counter)
    header_fit: int = 0
    words: int = 0
    # Cells that hold the header's type: detected, or fitting its shape (cell-level recall).
    header_typed: int = 0

    def merge(self, other: CellCounts) -> None:
        self.cells += other.cells
        self.detected.update(other.detected)
        self.whole.update(other.whole)
        self.header_fit += other.header_fit
        self.words += other.words
        self.header_typed += other.header_typed

    def to_state(self) -> dict[str, Any]:
        return {"cells": self.cells, "detected": dict(self.detected), "whole": dict(self.whole),
                "header_fit": self.header_fit, "words": self.words,
                "header_typed": self.header_typed}  # fmt: skip

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> CellCounts:
        return cls(state["cells"], Counter(state["detected"]), Counter(state["whole"]),
                   state["header_fit"], state["words"], state["header_typed"])  # fmt: skip


def count_cells(
    texts: Sequence[str],
    spans: Sequence[Sequence[tuple[int, int, str]]],
    cue: HeaderCue,
    shape: re.Pattern[str] | None,
) -> CellCounts:
    """Count, per type, the cells with a detection, and the cells that fit the cue's shape."""
    counts = CellCounts()
    for text, cell_spans in zip(texts, spans, strict=True):
        counts.cells += 1
        counts.words += len(_WORD.findall(text[:2000]))
        stripped = text.strip()
        found = {label for _, _, label in cell_spans}
        for type_name in found:
            counts.detected[type_name] += 1
        for start, end, label in cell_spans:
            if text[start:end].strip() == stripped:
                counts.whole[label] += 1
                break
        fits = shape is not None and len(stripped) <= 400 and bool(shape.fullmatch(stripped))
        counts.header_fit += fits
        counts.header_typed += fits or cue.type in found
    return counts


@dataclass(frozen=True, slots=True)
class TypeEvidence:
    """One type in one column.

    ``source`` is ``cells`` (found by the detectors), ``header+cells`` (both) or ``header``
    (only the header names it: ``share`` and ``interval`` are then ``None``, never a made-up
    score; ``shape_share`` is the share of cells that fit the type's shape).
    """

    type: str
    source: Literal["cells", "header", "header+cells"]
    cells: int
    share: float | None
    interval: tuple[float, float] | None
    shape_share: float | None = None
    whole_share: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "source": self.source,
            "cells": self.cells,
            "share": _round(self.share),
            "interval": None if self.interval is None else [_round(v) for v in self.interval],
            "shape_share": _round(self.shape_share),
            "whole_share": _round(self.whole_share),
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass(frozen=True, slots=True)
class ColumnScan:
    """The scan of one column: its evidence, its decision and the rule that made it."""

    name: str
    rows: int
    empty: int
    examined: int
    sampled: bool
    header: HeaderCue
    types: tuple[TypeEvidence, ...]
    decision: Decision
    rule: str
    pii_type: str | None
    role: str | None
    policy: PolicyName
    distinct_share: float | None
    words_per_cell: float | None
    shapes: tuple[tuple[str, int], ...]
    kinds: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "decision": self.decision,
            "rule": self.rule,
            "pii_type": self.pii_type,
            "role": self.role,
            "policy": self.policy,
            "rows": self.rows,
            "empty": self.empty,
            "examined": self.examined,
            "sampled": self.sampled,
            "header": self.header.to_dict(),
            "types": [t.to_dict() for t in self.types],
            "distinct_share": _round(self.distinct_share),
            "words_per_cell": _round(self.words_per_cell),
            "shapes": [{"shape": shape, "cells": n} for shape, n in self.shapes],
            "kinds": dict(self.kinds),
        }


def masked_shape(text: str) -> str:
    """A cell's shape for a report: letters ``X``/``x``, digits ``d``, at most 32 characters.

    Only punctuation and spaces survive, so no value of letters or digits can be read back.
    """
    shape = text_shape(text.strip()[: SHAPE_CHARS + 1])
    return shape if len(shape) <= SHAPE_CHARS else shape[:SHAPE_CHARS] + "…"


def _share(count: int, total: int, sampled: bool) -> tuple[float, tuple[float, float] | None]:
    share = count / total if total else 0.0
    return share, wilson_interval(count, total) if sampled and total else None


def type_evidence(counts: CellCounts, cue: HeaderCue, sampled: bool) -> tuple[TypeEvidence, ...]:
    """The evidence per type, the header's type first, then by cells counted."""
    total = counts.cells
    rows: list[TypeEvidence] = []
    cued = cue.type if cue.strength == "strong" else None
    named = cue.type
    for type_name, detected in counts.detected.items():
        share, interval = _share(detected, total, sampled)
        whole = counts.whole[type_name] / total if total else None
        if type_name == named:
            fit = counts.header_fit / total if total and cued else None
            rows.append(TypeEvidence(type_name, "header+cells", detected, share, interval,
                                     fit, whole))  # fmt: skip
        else:
            rows.append(TypeEvidence(type_name, "cells", detected, share, interval, None, whole))
    if cued is not None and cued not in counts.detected:
        fit = counts.header_fit / total if total else 0.0
        rows.append(TypeEvidence(cued, "header", 0, None, None, fit, None))
    rows.sort(key=lambda t: (t.type != named, -t.cells, t.type))
    return tuple(rows)


def decide(
    cue: HeaderCue,
    evidence: Sequence[TypeEvidence],
    counts: CellCounts,
    distinct: int | None = None,
) -> tuple[Decision, str, str | None, PolicyName]:
    """``(decision, rule, type, policy)`` for one column; see :data:`RULES`.

    ``distinct`` is the number of distinct values among the examined cells (from the
    sample), which tells a category from a column of people.
    """
    words = counts.words / counts.cells if counts.cells else 0.0
    context = _context_types()
    by_cells = sorted(
        (t for t in evidence if t.share is not None and t.type not in context),
        key=lambda t: -t.cells,
    )
    top = by_cells[0] if by_cells else None
    top_share = top.share if top is not None and top.share is not None else 0.0
    strong = cue.type if cue.strength == "strong" and cue.type not in context else None
    # A free-text header over short cells ("plan" holding "gold") is judged as any column.
    texty = cue.role == "free_text" and words >= FREE_TEXT_HEADER_WORDS
    if texty or (words >= FREE_TEXT_WORDS and strong is None):
        found = [t for t in by_cells if (t.share or 0.0) >= FREE_TEXT_SHARE]
        if found:
            return "pii", "free-text", found[0].type, "spans"
        if counts.cells < FREE_TEXT_MIN_CELLS:
            return "maybe", "free-text-unconfirmed", None, "spans"
        # Free text is still redacted span by span: the next note may hold a name.
        return "clean", "free-text-clean", None, "spans"
    if strong is not None:
        fit = counts.header_fit / counts.cells if counts.cells else 0.0
        own = next((t for t in evidence if t.type == strong), None)
        own_share = own.share if own is not None and own.share is not None else 0.0
        # Only a validated type overrides a strong header: a model reading "12 rue de la
        # Paix" as a name does not make an address column a name column.
        validated = top is not None and top.type in VALIDATED_TYPES
        if validated and top.type != strong and top_share >= PII_SHARE > own_share:  # type: ignore[union-attr]
            return "pii", "cells-override-header", top.type, _policy(top.type)  # type: ignore[union-attr]
        if own_share >= PII_SHARE:
            return "pii", "header+cells", strong, _policy(strong)
        if fit >= SHAPE_AGREES:
            return "pii", "header+shape", strong, _policy(strong)
        if fit >= CONTRADICTED_SHARE or own_share >= MAYBE_SHARE:
            return "maybe", "header-disagrees", strong, "spans"
        return "clean", "header-contradicted", None, "keep"
    if top is not None and top.type not in VALIDATED_TYPES and top.type != cue.type:
        if cue.type in context:
            return "maybe", "quasi-identifier", cue.type, "keep"
        if _categorical(counts.cells, distinct):
            return "clean", "categorical", None, "keep"
    if top is not None and top_share >= PII_SHARE:
        if cue.role == "key":
            return "pii", "cells-override-header", top.type, _policy(top.type)
        rule = "weak-header+cells" if cue.type == top.type else "cells"
        return "pii", rule, top.type, _policy(top.type)
    if cue.role == "key":
        return "clean", "key", None, "keep"
    if top is not None and top_share >= MAYBE_SHARE:
        return "maybe", "cells-minority", top.type, "spans"
    if cue.type in context:
        return "maybe", "quasi-identifier", cue.type, "keep"
    return "clean", "no-evidence", None, "keep"


def _categorical(cells: int, distinct: int | None) -> bool:
    return (
        distinct is not None
        and distinct < CATEGORICAL_DISTINCT
        and distinct < CATEGORICAL_SHARE * cells
    )


@lru_cache(maxsize=1)
def _context_types() -> frozenset[str]:
    taxonomy = load_taxonomy()
    return frozenset(
        name for name, item in taxonomy.types.items() if item.severity == CONTEXT_SEVERITY
    )


def _policy(type_name: str) -> PolicyName:
    return "mask"


def shapes_of(texts: Sequence[str]) -> tuple[tuple[str, int], ...]:
    """The most common masked shapes among ``texts``, most common first."""
    counter = Counter(masked_shape(text) for text in texts)
    return tuple(sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:SHAPES_SHOWN])
