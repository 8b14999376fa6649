"""Records from docs: the per-batch core of ``spacy-pii redact`` and the Spark helper.

:func:`redact_items` runs ``(text, context)`` items through ``nlp.pipe(as_tuples=True)`` and
yields one plain record per item, in order, with the doc's vault beside it. An input that
cannot be processed travels as an empty text with its error kind in the context, so it keeps
its place; a doc that a failing component left unmarked never comes out as if it were
clean (:func:`mark_failed`). The file handling lives in :mod:`spacy_pii.io.stream`, the
DataFrame handling in :mod:`spacy_pii.io.spark`.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..detectors.text import replace_lone_surrogates
from ..errors import ConfigError, PiiError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

logger = logging.getLogger(__name__)

FORMATS = ("jsonl", "text")
ON_ERROR = ("skip", "fail")
ERROR_KINDS = (
    "invalid_utf8",
    "blank_line",
    "invalid_json",
    "not_an_object",
    "missing_field",
    "field_not_string",
    "too_long",
    "pipeline_error",
)
RESERVED_FIELDS = frozenset({"line", "text", "spans", "risk", "error"})
# The user_data key a failed component leaves on a doc. user_data survives Doc.to_bytes, so
# the mark would survive a trip through nlp.pipe(n_process>1) workers too.
FAILED = "spacy_pii.io.stream.failed"
# Lines listed per error kind in the summary; the output has every one of them.
SUMMARY_LINES = 10


class StreamFailed(PiiError):
    """``on_error="fail"`` met a line it could not process. Line number and kind only."""

    def __init__(self, line: int, kind: str) -> None:
        self.line = line
        self.kind = kind
        super().__init__(f"line {line}: {kind}")


@dataclass(frozen=True, slots=True)
class StreamOptions:
    """How to read lines and what to write for each.

    Attributes:
        fmt: ``jsonl`` or ``text``.
        text_field: the JSONL field that holds the text.
        keep_fields: JSONL fields copied unchanged into each output record.
        include_values: add each span's ``value`` (never a secret's).
        risk: add the quasi-identifier findings (``pii_redact`` must run with ``risk``).
        on_error: ``skip`` writes an error record and goes on; ``fail`` stops.
        batch_size: texts per ``nlp.pipe`` batch, and records per flush.
        n_process: processes for :func:`spacy_pii.io.stream.redact_file`, each running whole
            chunks of ``batch_size`` lines.
        window_chars: ``None`` refuses a text over ``nlp.max_length`` (``too_long``); a
            number runs every text longer than that many characters through
            :func:`~spacy_pii.io.windowed.windowed_doc` (the model in windows of that
            size, the rules and the merge whole), up to :data:`WINDOWED_MAX_FACTOR` times
            ``nlp.max_length``.
    """

    fmt: str = "jsonl"
    text_field: str = "text"
    keep_fields: tuple[str, ...] = ()
    include_values: bool = False
    risk: bool = False
    on_error: str = "skip"
    # Measured on 30,000 short lines, rules pipeline: 1,478 docs/s at 32, 1,610 at 256, 1,622
    # at 1,000. 256 is within 1% of the fastest and keeps each chunk (and each flush) small.
    batch_size: int = 256
    n_process: int = 1
    window_chars: int | None = None

    def __post_init__(self) -> None:
        if self.fmt not in FORMATS:
            raise ConfigError(f"format must be one of {list(FORMATS)}")
        if self.on_error not in ON_ERROR:
            raise ConfigError(f"on_error must be one of {list(ON_ERROR)}")
        if self.batch_size < 1 or self.n_process < 1:
            raise ConfigError("batch_size and n_process must be at least 1")
        if self.window_chars is not None and self.window_chars < 1:
            raise ConfigError("window_chars must be at least 1")
        clash = sorted(RESERVED_FIELDS.intersection(self.keep_fields))
        if clash or self.text_field in self.keep_fields:
            raise ConfigError(f"kept fields may not be the text field or one of {clash}")


@dataclass
class StreamStats:
    """Counts for the summary: per error kind a count and its first line numbers.

    Only the first :data:`SUMMARY_LINES` line numbers of a kind are kept, so a file of
    millions of bad lines still runs in flat memory; the output records every one.
    """

    skipped: int = 0
    redacted: int = 0
    surrogates: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    first_lines: dict[str, list[int]] = field(default_factory=dict)

    def add_error(self, kind: str, line: int) -> None:
        self.errors[kind] += 1
        shown = self.first_lines.setdefault(kind, [])
        if len(shown) < SUMMARY_LINES:
            shown.append(line)

    def merge(self, other: StreamStats) -> None:
        """Add the counts of a later chunk of lines."""
        self.redacted += other.redacted
        self.surrogates += other.surrogates
        for kind, count in other.errors.items():
            self.errors[kind] += count
            shown = self.first_lines.setdefault(kind, [])
            shown.extend(other.first_lines[kind][: SUMMARY_LINES - len(shown)])

    def summary(self) -> list[str]:
        """Lines for stderr: counts and line numbers, never text."""
        failed = self.errors.total()
        head = f"{self.redacted + failed} lines: {self.redacted} redacted, {failed} not processed"
        if self.skipped:
            head += (
                f" (resumed after line {self.skipped}; output and vault are synced per batch,"
                " so a crash costs at most the batch in flight)"
            )
        out = [head]
        for kind in sorted(self.errors, key=_kind_order):
            count = self.errors[kind]
            shown = ", ".join(map(str, self.first_lines[kind]))
            more = f", ... ({count - SUMMARY_LINES} more)" if count > SUMMARY_LINES else ""
            out.append(f"  {kind}: {count} (line {shown}{more})")
        if self.surrogates:
            out.append(f"  lone surrogates replaced with U+FFFD in {self.surrogates} lines")
        return out


def _kind_order(kind: str) -> tuple[int, str]:
    return (ERROR_KINDS.index(kind) if kind in ERROR_KINDS else len(ERROR_KINDS), kind)


# With windows, a text may be this many times nlp.max_length. Its whole-document Doc is what
# grows: measured on the shipped pipeline, 1,000,000 characters peaked at 360 MB in all
# (about 120 MB over the loaded pipeline), so the 10,000,000 this allows would stay near
# 1.5 GB (extrapolated linearly, not measured).
WINDOWED_MAX_FACTOR = 10


def max_text_length(nlp: Language, opts: StreamOptions) -> int:
    """The longest text a run takes: ``nlp.max_length``, or more with windows."""
    if opts.window_chars is None:
        return nlp.max_length
    return WINDOWED_MAX_FACTOR * nlp.max_length


# -- pipeline ----------------------------------------------------------------------------------


def load_redaction_pipeline(
    model: str = "default",
    *,
    operators: Mapping[str, object] | None = None,
    key_env: str | None = "SPACY_PII_KEY",
    risk: bool = False,
) -> Language:
    """Load ``model`` (see :func:`spacy_pii.load`) and end it with a ``pii_redact`` configured
    from the arguments, replacing the pipeline's own if it has one: the caller's options win.

    One empty text is run through it at once, so that a pipeline which writes no
    ``doc.spans["pii"]`` or a keyed operator without its key fails here, not on line 1.
    """
    from ..assembly.build import load_pipeline

    nlp = load_pipeline(model)
    if "pii_redact" in nlp.pipe_names:
        nlp.remove_pipe("pii_redact")
    config = {"operators": dict(operators or {}), "hash_key_env": key_env, "risk": risk}
    nlp.add_pipe("pii_redact", config=config, last=True)
    nlp("")
    return nlp


def mark_failed(
    proc_name: str | None, proc: object, docs: list[Doc] | None, err: Exception
) -> None:
    """spaCy error handler for :func:`redact_items`: mark the docs, log the error's type only.

    spaCy's own components catch, call the handler and go on with the doc, so without the mark
    a doc whose detector failed would come out unredacted.
    """
    for doc in docs or ():
        doc.user_data[FAILED] = True
    # Debug only: the output has an error record and the summary a count for each doc.
    logger.debug("component %s failed: %s", proc_name, type(err).__name__)


def _irreversible(nlp: Language) -> frozenset[str]:
    redactor: Any = nlp.get_pipe("pii_redact")  # spaCy types pipes as plain callables
    taxonomy = redactor.taxonomy
    return frozenset(name for name, t in taxonomy.types.items() if t.mask == "irreversible")


def doc_record(
    doc: Doc, *, include_values: bool, risk: bool, secret_types: frozenset[str]
) -> dict | None:
    """The output record of one processed doc, without ``line``; ``None`` if it failed."""
    redacted = doc._.pii_redacted
    if doc.user_data.get(FAILED) or redacted is None:
        return None
    group = doc.spans["pii"]
    scores = group.attrs.get("scores") or [None] * len(group)
    detectors = group.attrs.get("detectors") or [None] * len(group)
    spans = []
    for span, score, detector in zip(group, scores, detectors, strict=True):
        row = {
            "start": span.start_char,
            "end": span.end_char,
            "label": span.label_,
            "score": score,
            "detector": detector,
        }
        if include_values:
            row["value"] = None if span.label_ in secret_types else span.text
        spans.append(row)
    record = {"text": redacted, "spans": spans}
    if risk:
        record["risk"] = doc._.pii_risk or []
    return record


# -- records in, records out -------------------------------------------------------------------

# A context travels with each text through nlp.pipe: (line, error kind or None, kept fields).
Context = tuple[int, str | None, dict | None]
Item = tuple[str, Context]


def checked_text(value: object, line: int, max_length: int, stats: StreamStats) -> Item:
    """An ``nlp.pipe`` item for one text; an error item (empty text) if it cannot be processed."""
    if not isinstance(value, str):
        return "", (line, "field_not_string", None)
    if len(value) > max_length:
        return "", (line, "too_long", None)
    clean = replace_lone_surrogates(value)
    if clean != value:
        stats.surrogates += 1
    return clean, (line, None, None)


def redact_items(
    nlp: Language,
    items: Iterable[Item],
    opts: StreamOptions,
    stats: StreamStats,
    *,
    first_line: int = 1,
) -> Iterator[tuple[dict, dict | None]]:
    """Run ``items`` through ``nlp.pipe``; yield ``(record, vault)`` per item, in order.

    Error items pass through the pipeline as empty texts so that they keep their place
    without a side buffer. A doc the pipeline dropped (spaCy drops a doc when a component's
    error handler returns) shows as a gap in the line numbers and becomes a
    ``pipeline_error`` record. Items must be numbered consecutively from ``first_line``.
    ``vault`` is the doc's ``pii_vault``, ``None`` for an error record. The error handler
    of ``nlp`` is set to :func:`mark_failed`.

    Raises:
        StreamFailed: with ``on_error="fail"``, at the first line not processed; in either
            mode when the pipeline itself raises (its message is not passed on: it may quote
            text).
    """
    secret_types = _irreversible(nlp)
    last_fed = first_line - 1
    expected = first_line

    def feed() -> Iterator[Item]:
        nonlocal last_fed
        for text, context in items:
            last_fed = context[0]
            yield text, context

    # In both modes: a marked or dropped doc becomes a pipeline_error at its own line, which
    # "skip" records and "fail" stops at.
    # spaCy annotates handlers as never returning; a handler that records and returns is
    # what Language.pipe supports at run time.
    nlp.set_error_handler(mark_failed)  # type: ignore[arg-type]
    try:
        # The zone frees the strings and lexemes these docs add to the vocab. Without it the
        # vocab grows with every new token (ids, numbers, addresses): measured here, 564 to
        # 798 MB over 700,000 short lines. Records are plain Python and outlive the zone.
        with nlp.memory_zone():
            for doc, (line, error, kept) in _annotated(nlp, feed(), opts):
                yield from _gap(expected, line, opts, stats)
                expected = line + 1
                record = None
                if error is None:
                    record = doc_record(
                        doc,
                        include_values=opts.include_values,
                        risk=opts.risk,
                        secret_types=secret_types,
                    )
                    error = "pipeline_error" if record is None else None
                vault = doc._.pii_vault if error is None else None
                yield _finish(line, error, kept, record, opts, stats), vault
    except StreamFailed:
        raise
    except Exception as err:
        logger.error("pipeline failed: %s", type(err).__name__)
        raise StreamFailed(expected, "pipeline_error") from None
    yield from _gap(expected, last_fed + 1, opts, stats)


def _annotated(
    nlp: Language, items: Iterable[Item], opts: StreamOptions
) -> Iterator[tuple[Doc, Context]]:
    """``(doc, context)`` per item, in order: ``nlp.pipe``, long texts through windows."""
    if opts.window_chars is None:
        yield from nlp.pipe(items, as_tuples=True, batch_size=opts.batch_size)
        return
    from .windowed import windowed_doc

    # A text nlp.pipe would refuse goes through the windows too, whatever their size.
    longest_whole = min(opts.window_chars, nlp.max_length)
    batch: list[Item] = []
    for text, context in items:
        if len(text) <= longest_whole:
            batch.append((text, context))
            if len(batch) < opts.batch_size:
                continue
        if batch:
            yield from nlp.pipe(batch, as_tuples=True, batch_size=opts.batch_size)
            batch = []
        if len(text) > longest_whole:
            yield windowed_doc(nlp, text, window_chars=opts.window_chars), context
    if batch:
        yield from nlp.pipe(batch, as_tuples=True, batch_size=opts.batch_size)


def _gap(
    start: int, stop: int, opts: StreamOptions, stats: StreamStats
) -> Iterator[tuple[dict, None]]:
    for missing in range(start, stop):
        yield _finish(missing, "pipeline_error", None, None, opts, stats), None


def _finish(line, error, kept, record, opts: StreamOptions, stats: StreamStats) -> dict:
    if error is not None:
        if opts.on_error == "fail":
            raise StreamFailed(line, error)
        stats.add_error(error, line)
        return {"line": line, "error": error}
    stats.redacted += 1
    return {"line": line, **(kept or {}), **record}
