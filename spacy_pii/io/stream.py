"""Streaming redaction: a JSONL or plain-text file in, one JSON record per input line out.

This module holds the file side of ``spacy-pii redact``: reading, checking, ordering,
writing and resuming. The per-batch core that turns docs into records, shared with
:mod:`spacy_pii.io.spark`, is :mod:`spacy_pii.io.records`.

Input. ``jsonl``: one JSON object per line, the text in a configurable field. ``text``: one
document per line, the line ending (``\\n`` or ``\\r\\n``) removed. The file is read as
bytes and each line is decoded strictly as UTF-8, so one bad line costs one record, never
the run. A UTF-8 byte order mark on line 1 is ignored. A lone surrogate (a JSON escape such
as ``"\\ud800"`` without its pair) is replaced with U+FFFD, one code point for one, so every
offset still indexes the text as decoded (see
:func:`~spacy_pii.detectors.text.replace_lone_surrogates`).

Output. One line per input line, in input order::

    {"line": 7, "text": "<redacted>", "spans": [{"start": 6, "end": 30, "label": "EMAIL",
     "score": null, "detector": "rules.email"}], "risk": [...]}

``line`` counts from 1. ``spans`` index the *input* text (after the surrogate replacement),
not the redacted one. ``risk`` is present only when asked for. No field of the input is
copied unless named with ``keep_fields``: other fields are not scanned and may hold personal
data themselves; a kept field is copied as-is, right after ``line``. The values of the
spans are written only with ``include_values`` (as ``"value"``); a secret's value never is
(docs/how-it-works.md: Errors), whatever the flag. A line that was not processed becomes
``{"line": N, "error": KIND}``, with KIND one of :data:`ERROR_KINDS`, so nothing is dropped
silently. The vault, when asked for, goes to its own file as ``{"line": N, "vault": {...}}``
for each line that has placeholders.

In a text file a blank line is a document with no text, and gets a record like any other.

Processes. Lines go out in chunks of ``batch_size``; each chunk is decoded, redacted and
encoded as JSON in one process, by ``nlp.pipe(as_tuples=True)`` with the line numbers as
contexts. With ``n_process`` above 1, worker processes do the chunks and the main process
only reads, orders and writes; the output is byte-identical to a single-process run.

Resume. Each chunk is written, flushed and synced to the disk as soon as it is done, the
vault before the output, so a killed run loses at most a partial trailing line of each, and
a power loss at most the batch being written. :func:`resume_point`
cuts that partial line, reads the ``line`` of the last complete record and drops vault
records past it; the rerun skips that many input lines and appends. The input must be the
same file.

Why this module is over 400 lines: reading, ordering, writing and resuming share the record
format and the chunk protocol between the processes; the per-batch core that turns docs into
records already lives in :mod:`spacy_pii.io.records`.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..errors import ConfigError
from ..redaction.mask import PLACEHOLDER
from .records import (
    ERROR_KINDS,
    Item,
    StreamFailed,
    StreamOptions,
    StreamStats,
    checked_text,
    load_redaction_pipeline,
    max_text_length,
    redact_items,
)

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = [
    "ERROR_KINDS",
    "StreamFailed",
    "StreamOptions",
    "StreamStats",
    "iter_lines",
    "load_redaction_pipeline",
    "parse_line",
    "redact_file",
    "resume_point",
]

# UTF-8 spends at most 4 bytes per code point (RFC 3629), so a line longer than this many
# bytes per allowed character is too long without decoding it; 2 more for "\r\n".
MAX_BYTES_PER_CHAR = 4
_DRAIN_CHUNK = 1 << 20
_TAIL_CHUNK = 1 << 16
# Chunks in flight per worker process: one being worked on, one queued, so that no worker
# waits for the main process while memory holds a bounded number of chunks.
CHUNKS_PER_WORKER = 2
# How often a worker checks that the main process still lives; a killed run's workers are
# gone within this many seconds.
PARENT_POLL_SECONDS = 1.0


# -- reading -----------------------------------------------------------------------------------


def parse_line(
    raw: bytes | None, line: int, opts: StreamOptions, max_length: int, stats: StreamStats
) -> Item:
    """Decode and check one input line. Error items carry an empty text, never the content."""
    if raw is None:
        return "", (line, "too_long", None)
    if line == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "", (line, "invalid_utf8", None)
    if opts.fmt == "text":
        return checked_text(decoded.rstrip("\n").removesuffix("\r"), line, max_length, stats)
    if not decoded.strip():
        return "", (line, "blank_line", None)
    try:
        data = json.loads(decoded)
    except (json.JSONDecodeError, RecursionError):
        return "", (line, "invalid_json", None)
    if not isinstance(data, dict):
        return "", (line, "not_an_object", None)
    if opts.text_field not in data:
        return "", (line, "missing_field", None)
    text, (_, error, _) = checked_text(data[opts.text_field], line, max_length, stats)
    kept = {name: data[name] for name in opts.keep_fields if name in data} or None
    return text, (line, error, kept)


def iter_lines(stream: IO[bytes], max_bytes: int) -> Iterator[bytes | None]:
    """Lines as bytes, ``None`` for a line longer than ``max_bytes``: memory stays bounded."""
    while raw := stream.readline(max_bytes + 1):
        if len(raw) > max_bytes and not raw.endswith(b"\n"):
            while (rest := stream.readline(_DRAIN_CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield None
        else:
            yield raw


# -- resume -------------------------------------------------------------------------------


def _last_newline(fh: IO[bytes], before: int) -> int:
    """Offset of the last ``\\n`` strictly before ``before``, or -1; reads backwards."""
    position = before
    while position > 0:
        size = min(_TAIL_CHUNK, position)
        fh.seek(position - size)
        found = fh.read(size).rfind(b"\n")
        if found >= 0:
            return position - size + found
        position -= size
    return -1


def _complete_lines(path: Path) -> tuple[IO[bytes], int]:
    """Open ``path`` for update with a partial trailing line cut off; return it and its size."""
    fh = path.open("r+b")
    end = _last_newline(fh, fh.seek(0, os.SEEK_END)) + 1
    fh.truncate(end)
    return fh, end


def _line_of(fh: IO[bytes], end: int) -> tuple[int, int]:
    """``(start offset, "line" field)`` of the complete record that ends at ``end``."""
    start = _last_newline(fh, end - 1) + 1
    fh.seek(start)
    try:
        number = json.loads(fh.read(end - start))["line"]
    except (ValueError, KeyError, TypeError):
        number = None
    if not isinstance(number, int) or isinstance(number, bool):
        raise ConfigError(f"{fh.name}: the record before offset {end} has no line number")
    return start, number


def resume_point(output: Path, vault: Path | None = None) -> int:
    """Prepare ``output`` (and ``vault``) for appending; return the last line done, 0 if none.

    A partial trailing line is cut from both files, then vault records past the output's
    last line: the vault is written before the output, so it may run ahead, never behind.
    A vault that ends before an output line with placeholders has lost records (cut,
    replaced, or from another run): resuming would leave those placeholders unrestorable.

    Raises:
        ConfigError: the output or the vault has a record without a line number, or the
            vault ends before the last output line that has placeholders.
    """
    if not output.exists():
        return 0
    fh, end = _complete_lines(output)
    with fh:
        done = _line_of(fh, end)[1] if end else 0
        if vault is None:
            return done
        vault_done = 0
        if vault.exists():
            vh, vend = _complete_lines(vault)
            with vh:
                while vend:
                    start, number = _line_of(vh, vend)
                    if number <= done:
                        vault_done = number
                        break
                    vend = start
                vh.truncate(vend)
        behind = _placeholder_line_after(fh, end, vault_done)
    if behind is not None:
        raise ConfigError(
            f"cannot resume: output line {behind} has placeholders but the vault ends at "
            f"line {vault_done}; the vault and the output disagree, so start a new run"
        )
    return done


def _placeholder_line_after(fh: IO[bytes], end: int, line: int) -> int | None:
    """The last output line after ``line`` whose text holds a placeholder, or ``None``.

    Reads backwards only over the records after ``line``: in a run that agrees, none.
    """
    while end:
        start, number = _line_of(fh, end)
        if number <= line:
            return None
        fh.seek(start)
        record = json.loads(fh.read(end - start))
        if _has_placeholder(record):
            return number
        end = start
    return None


def _has_placeholder(record: dict) -> bool:
    text, spans = record.get("text"), record.get("spans") or ()
    if not isinstance(text, str):
        return False
    labels = {span.get("label") for span in spans if isinstance(span, dict)}
    return any(
        match.group(2) is not None and match.group(1) in labels
        for match in PLACEHOLDER.finditer(text)
    )


def _open_private(path: Path, append: bool) -> IO[bytes]:
    # The vault maps placeholders back to personal data: readable by its owner only.
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    return os.fdopen(os.open(path, flags, 0o600), "ab" if append else "wb")


def _dumps(record: dict) -> bytes:
    # ensure_ascii=False keeps text readable and short; surrogates were replaced on input.
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One batch of lines, processed: encoded output and vault lines, counts, a failure."""

    output: bytes
    vault: bytes
    lines: int
    stats: StreamStats
    failure: tuple[int, str] | None = None


def process_chunk(
    nlp: Language, first_line: int, raws: list[bytes | None], opts: StreamOptions, vault: bool
) -> Chunk:
    """Parse, redact and encode consecutive lines numbered from ``first_line``."""
    stats = StreamStats()
    items = (
        parse_line(raw, number, opts, max_text_length(nlp, opts), stats)
        for number, raw in enumerate(raws, start=first_line)
    )
    out: list[bytes] = []
    vaults: list[bytes] = []
    failure = None
    try:
        for record, doc_vault in redact_items(nlp, items, opts, stats, first_line=first_line):
            out.append(_dumps(record))
            if vault and doc_vault:
                vaults.append(_dumps({"line": record["line"], "vault": doc_vault}))
    except StreamFailed as err:
        failure = (err.line, err.kind)
    return Chunk(b"".join(out), b"".join(vaults), len(out), stats, failure)


def _chunks(lines: Iterable[bytes | None], size: int, first_line: int):
    iterator = iter(lines)
    while batch := list(islice(iterator, size)):
        yield first_line, batch
        first_line += len(batch)


# The pipeline of a worker process, set once by its initializer.
_WORKER: dict[str, Any] = {}


def _init_worker(nlp: Language, opts: StreamOptions, vault: bool, parent: int) -> None:
    _WORKER.update(nlp=nlp, opts=opts, vault=vault)
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()


def _exit_with_parent(parent: int) -> None:
    # A pool worker blocks on its task queue forever if the main process is killed (SIGKILL
    # runs no cleanup; measured here: the workers stayed). Reparenting changes getppid().
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def _work(first_line: int, raws: list[bytes | None]) -> Chunk:
    return process_chunk(_WORKER["nlp"], first_line, raws, _WORKER["opts"], _WORKER["vault"])


def _processed(
    nlp: Language, chunks: Iterable[tuple[int, list]], opts: StreamOptions, vault: bool
) -> Iterator[Chunk]:
    """Chunks in input order, in this process or in ``opts.n_process`` worker processes.

    Workers do all the work: decoding, the pipeline, JSON encoding. They get raw lines and
    send back bytes. (``nlp.pipe(n_process=2)`` was measured here at 54 docs/s against 961
    with one process: it ships every Doc back through msgpack, whose decoder lookup
    rescans the installed packages' entry points on every call.)
    """
    if opts.n_process == 1:
        for first_line, raws in chunks:
            yield process_chunk(nlp, first_line, raws, opts, vault)
        return
    window: deque[tuple[int, Future[Chunk]]] = deque()
    # The default start method, as nlp.pipe uses: fork on Linux shares the loaded pipeline.
    pool = ProcessPoolExecutor(
        opts.n_process, initializer=_init_worker, initargs=(nlp, opts, vault, os.getpid())
    )
    try:
        for first_line, raws in chunks:
            window.append((first_line, pool.submit(_work, first_line, raws)))
            if len(window) >= CHUNKS_PER_WORKER * opts.n_process:
                yield _result(*window.popleft())
        while window:
            yield _result(*window.popleft())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _result(first_line: int, future: Future[Chunk]) -> Chunk:
    try:
        return future.result()
    except BrokenProcessPool:
        # A worker died (killed, out of memory): nothing from its chunk on is written.
        raise StreamFailed(first_line, "pipeline_error") from None


def redact_file(
    nlp: Language,
    source: str | Path,
    output: str | Path = "-",
    opts: StreamOptions | None = None,
    *,
    vault: Path | None = None,
    resume: bool = False,
    progress: bool = True,
) -> StreamStats:
    """Redact ``source`` line by line into ``output``; ``"-"`` means stdin or stdout.

    ``nlp`` comes from :func:`load_redaction_pipeline`. Memory stays flat: lines are read
    lazily in chunks of ``batch_size``, at most two chunks per process are in flight, and
    each chunk is written and flushed as soon as it is done, in input order. The progress
    bar (docs/s) goes to stderr, and only when stderr is a terminal.

    Raises:
        StreamFailed: with ``on_error="fail"``, after writing every line before it.
        ConfigError: ``resume`` with ``output="-"``, or an output that is not ours to resume.
    """
    from tqdm import tqdm

    opts = opts or StreamOptions()
    stats = StreamStats()
    if resume and str(output) == "-":
        raise ConfigError("resume needs an output file, not stdout")
    if resume:
        stats.skipped = resume_point(Path(output), vault)
    max_bytes = MAX_BYTES_PER_CHAR * max_text_length(nlp, opts) + 2
    with (
        _open_input(source) as infile,
        _open_output(output, append=resume) as outfile,
        _open_private(vault, resume) if vault is not None else nullcontext() as vault_file,
    ):
        lines = iter_lines(infile, max_bytes)
        for _ in islice(lines, stats.skipped):
            pass
        chunks = _chunks(lines, opts.batch_size, stats.skipped + 1)
        # disable=None: tqdm shows the bar only on a terminal, so logs and pipes stay clean.
        with tqdm(
            unit="doc", desc="redact", file=sys.stderr, disable=None if progress else True
        ) as bar:
            for chunk in _processed(nlp, chunks, opts, vault is not None):
                # The vault first: after a kill it may run ahead of the output, never behind.
                # Both reach the disk at each batch boundary, so a power loss costs at most
                # the batch being written (see resume_point).
                if vault_file is not None and chunk.vault:
                    vault_file.write(chunk.vault)
                    _synced(vault_file)
                outfile.write(chunk.output)
                _synced(outfile)
                stats.merge(chunk.stats)
                bar.update(chunk.lines)
                if chunk.failure is not None:
                    raise StreamFailed(*chunk.failure)
    return stats


def _synced(fh: IO[bytes]) -> None:
    """Flush ``fh`` and, for a regular file, sync it to the disk (pipes and ttys cannot)."""
    fh.flush()
    try:
        descriptor = fh.fileno()
    except (OSError, ValueError):  # an in-memory stream (a test's stdout) has no file
        return
    if stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.fsync(descriptor)


@contextmanager
def _open_input(source: str | Path) -> Iterator[IO[bytes]]:
    if str(source) == "-":
        yield sys.stdin.buffer
    else:
        with Path(source).open("rb") as fh:
            yield fh


@contextmanager
def _open_output(output: str | Path, *, append: bool) -> Iterator[IO[bytes]]:
    if str(output) == "-":
        yield sys.stdout.buffer
    else:
        with Path(output).open("ab" if append else "wb") as fh:
            yield fh
