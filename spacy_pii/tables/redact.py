"""``redact_table`` and ``restore_table``: column policies, one vault, equal values equal.

Placeholders are numbered per type across the whole run: the same ``(type, value)`` gets
the same ``<TYPE_N>`` in every row and every column, whole cells (``mask``) and spans inside
cells (``spans``) alike, so joins, group-bys and counts on masked columns still work.
Secrets become ``<SECRET>`` and never enter the vault. A placeholder-shaped token already
present in a redacted column is never handed out, so restoring gives the input back. The
output keeps the columns, their order and the row order; ``hash`` and ``fake`` are one-way.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import ConfigError, TableError
from ..redaction.mask import _reserved
from ..redaction.operators import DEFAULT_HASH_LENGTH, Operator, _check_fake, _digest, _fake, _Plan
from ..redaction.restore import _restore_setup, _substitute
from .detect import CellDetector
from .policy import ColumnPolicy, TablePolicy
from .readers import TableSource
from .sampling import cell_text, is_empty

logger = logging.getLogger(__name__)

# A cell redacted span by span is read whole, never cut: a longer one is refused rather
# than left partly unredacted. 100,000 characters is five times the scan's read window.
MAX_REDACT_CHARS = 100_000


class TableMasker:
    """The run's placeholder book: one vault, one counter per type, across every cell."""

    def __init__(
        self,
        taxonomy: Taxonomy,
        key: bytes | str | None,
        *,
        reserved: Iterable[str] = (),
        locale: str = "en_US",
    ) -> None:
        self.plan = _Plan(taxonomy, None, key)
        self.reserved = set(reserved)
        self.locale = locale
        self.vault: dict[str, str] = {}
        self._assigned: dict[tuple[str, str], str] = {}
        self._counters: dict[str, int] = {}

    def replace(self, type_name: str, value: str, policy: str) -> str:
        """The text that stands for ``value`` of ``type_name`` under ``policy``."""
        if self.plan.irreversible(type_name):
            return f"<{type_name}>"
        if policy == "hash":
            digest = _digest(self.plan.key, "hash", type_name, value).hex()  # type: ignore[arg-type]
            return f"<{type_name}_h:{digest[:DEFAULT_HASH_LENGTH]}>"
        if policy == "fake":
            op = Operator(name="fake", locale=self.locale)
            return _fake(self.plan.key, type_name, value, op)  # type: ignore[arg-type]
        token = self._assigned.get((type_name, value))
        if token is None:
            number = self._counters.get(type_name, 0)
            token = ""
            while not token or token in self.reserved:
                number += 1
                token = f"<{type_name}_{number}>"
            self._counters[type_name] = number
            self._assigned[(type_name, value)] = token
            self.vault[token] = value
        return token

    def mask_spans(self, text: str, spans: Sequence[tuple[int, int, str]], policy: str) -> str:
        pieces, cursor = [], 0
        for start, end, type_name in sorted(spans):
            if start < cursor:
                continue  # the merge writes no overlaps; a foreign detector might
            pieces += [text[cursor:start], self.replace(type_name, text[start:end], policy)]
            cursor = end
        pieces.append(text[cursor:])
        return "".join(pieces)


def _check_policies(
    policy: TablePolicy, columns: Sequence[str], key: bytes | str | None, locale: str
) -> list[ColumnPolicy]:
    policy.check_columns(list(columns))
    plans = [policy.for_column(name) for name in columns]
    keyed = sorted({p.policy for p in plans if p.policy in ("hash", "fake")})
    if keyed and key is None:
        raise ConfigError(f"policies {keyed} need a key; none was given")
    for plan in plans:
        if plan.policy == "fake":
            _check_fake(plan.type or "DEFAULT", Operator(name="fake", locale=locale))
    return plans


def _spans_wanted(
    spans: Sequence[tuple[int, int, str]], taxonomy: Taxonomy, wanted: tuple[str, ...] | None
) -> list[tuple[int, int, str]]:
    kept = []
    for start, end, label in spans:
        type_name = taxonomy.fold(label)
        if type_name is not None and (wanted is None or type_name in wanted):
            kept.append((start, end, type_name))
    return kept


def redact_batches(
    source: TableSource,
    plans: Sequence[ColumnPolicy],
    masker: TableMasker,
    detector: CellDetector | None,
    counts: dict[str, int] | None = None,
) -> Iterator[list[tuple[Any, ...]]]:
    """Redacted row batches of ``source``, in order, one policy per column."""
    taxonomy = masker.plan.taxonomy
    row_number = 0
    for batch in source.batches():
        columns = [list(column) for column in zip(*batch, strict=True)] if batch else []
        for index, (name, plan) in enumerate(zip(source.columns, plans, strict=True)):
            if plan.policy == "keep" or not columns:
                continue
            cells = columns[index]
            todo = [i for i, value in enumerate(cells) if not is_empty(value)]
            if plan.policy == "spans":
                texts = [cell_text(cells[i]) for i in todo]
                for i, text in zip(todo, texts, strict=True):
                    if len(text) > MAX_REDACT_CHARS:
                        raise TableError(
                            f"{source.name}: column {name!r}, row {row_number + i + 1}: a cell"
                            f" of {len(text)} characters exceeds {MAX_REDACT_CHARS}"
                        )
                if detector is None:
                    raise ConfigError("the 'spans' policy needs a detector (a pipeline)")
                found = detector(texts) if texts else []
                for i, text, spans in zip(todo, texts, found, strict=True):
                    wanted = _spans_wanted(spans, taxonomy, plan.types)
                    if wanted:
                        cells[i] = masker.mask_spans(text, wanted, "mask")
            else:
                type_name = plan.type or "PERSON"
                for i in todo:
                    cells[i] = masker.replace(type_name, cell_text(cells[i]), plan.policy)
            if counts is not None:
                counts[name] = counts.get(name, 0) + len(todo)
        row_number += len(batch)
        yield list(zip(*columns, strict=True)) if columns else []


def reserved_tokens(source: TableSource, plans: Sequence[ColumnPolicy]) -> set[str]:
    """Placeholder-shaped text already in the columns to redact (one read of the table)."""
    wanted = [i for i, plan in enumerate(plans) if plan.policy != "keep"]
    reserved: set[str] = set()
    for batch in source.batches():
        texts = [row[i] for row in batch for i in wanted if isinstance(row[i], str)]
        reserved |= _reserved(text for text in texts if "<" in text)
    return reserved


@dataclass(frozen=True, slots=True)
class TableRedaction:
    """What a redaction did. ``vault`` holds real values: it is not in ``repr``."""

    output: Any = field(repr=False)
    vault: dict[str, str] = field(repr=False)
    rows: int
    policies: dict[str, dict[str, Any]]
    replaced: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        """A summary safe to log: policies, counts per column, vault size; no value."""
        return {
            "kind": "spacy-pii.table-redaction",
            "rows": self.rows,
            "policies": self.policies,
            "replaced": self.replaced,
            "placeholders": len(self.vault),
        }


def redact_source(
    source: TableSource,
    policy: TablePolicy,
    detector: CellDetector | None = None,
    *,
    key: bytes | str | None = None,
    locale: str = "en_US",
    taxonomy: Taxonomy | str | None = None,
) -> tuple[Iterator[list[tuple[Any, ...]]], TableMasker, dict[str, int]]:
    """The lazy core of :func:`redact_table`: redacted batches, the masker, the counts.

    The vault fills as the batches are consumed; read it after the last one.
    """
    tax = load_taxonomy(taxonomy)
    plans = _check_policies(policy, source.columns, key, locale)
    masker = TableMasker(tax, key, reserved=reserved_tokens(source, plans), locale=locale)
    counts: dict[str, int] = {}
    return redact_batches(source, plans, masker, detector, counts), masker, counts


def restore_batches(
    source: TableSource,
    vault: Mapping[str, str],
    columns: Iterable[str] | None = None,
    taxonomy: Taxonomy | str | None = None,
) -> Iterator[list[tuple[Any, ...]]]:
    """``source``'s batches with the vault's values back in the named columns (all if
    ``None``). Hash and fake tokens stay; ``<SECRET>`` stays."""
    vault, _, _, known, irreversible = _restore_setup(vault, None, taxonomy)
    names = set(source.columns if columns is None else columns)
    missing = sorted(names - set(source.columns))
    if missing:
        raise ConfigError(f"cannot restore columns the table lacks: {missing}")
    wanted = [i for i, name in enumerate(source.columns) if name in names]
    for batch in source.batches():
        out = []
        for row in batch:
            cells = list(row)
            for i in wanted:
                value = cells[i]
                if isinstance(value, str) and "<" in value:
                    cells[i] = _substitute(value, vault, known, irreversible)[0]
            out.append(tuple(cells))
        yield out
