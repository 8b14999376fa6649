"""Data-only serialization for the components whose data is a few named records.

``pii_rules`` (patterns, deny-list), ``pii_merge`` (taxonomy, policy, allow-list) and
``pii_redact`` (taxonomy) save data and never settings, through spaCy's own
``to_disk``/``to_bytes`` helpers, so ``exclude`` works by record name as in spaCy's pipes.
On disk each record is one file, ``<name><suffix>``. JSON goes through the standard
library, not ``srsly.write_json``: that one keeps ten significant digits of a float, and a
policy's threshold cut at 0.99698752164840 must come back as it was, not as 0.9969875216.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import srsly
from spacy.util import from_bytes, from_disk, to_bytes, to_disk


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _write_jsonl(path: Path, records: Any) -> None:
    lines = (json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    path.write_text("".join(lines), encoding="utf-8")


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _read_jsonl(path: Path) -> list[Any]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


_WRITERS: dict[str, Callable[[Path, Any], None]] = {
    ".json": _write_json,
    ".jsonl": _write_jsonl,
    ".yaml": srsly.write_yaml,
}
_READERS: dict[str, Callable[[Path], Any]] = {
    ".json": _read_json,
    ".jsonl": _read_jsonl,
    ".yaml": srsly.read_yaml,
}


def data_to_bytes(data: Mapping[str, Any], exclude: Iterable[str]) -> bytes:
    """The records of ``data`` as one msgpack message, less the names in ``exclude``."""
    return to_bytes(
        {name: partial(srsly.msgpack_dumps, value) for name, value in data.items()}, exclude
    )


def data_from_bytes(
    bytes_data: bytes, names: Iterable[str], exclude: Iterable[str]
) -> dict[str, Any]:
    """The records named ``names`` found in ``bytes_data``, less those in ``exclude``."""
    loaded: dict[str, Any] = {}

    def setter(name: str) -> Callable[[bytes], None]:
        return lambda data: loaded.__setitem__(name, srsly.msgpack_loads(data))

    from_bytes(bytes_data, {name: setter(name) for name in names}, exclude)
    return loaded


def data_to_disk(
    path: str | Path, data: Mapping[str, Any], suffixes: Mapping[str, str], exclude: Iterable[str]
) -> None:
    """Write each record to ``path/<name><suffix>``; a ``None`` record removes its file, so
    that saving over a folder never leaves stale data that would come back on load."""

    def writer(name: str) -> Callable[[Path], None]:
        def write(stem: Path) -> None:
            target = stem.with_suffix(suffixes[name])
            if data[name] is None:
                target.unlink(missing_ok=True)
            else:
                _WRITERS[suffixes[name]](target, data[name])

        return write

    to_disk(path, {name: writer(name) for name in data}, exclude)


def data_from_disk(
    path: str | Path, suffixes: Mapping[str, str], exclude: Iterable[str]
) -> dict[str, Any]:
    """Read ``path/<name><suffix>`` for each record; an absent file is no data."""
    loaded: dict[str, Any] = {}

    def reader(name: str) -> Callable[[Path], None]:
        def read(stem: Path) -> None:
            source = stem.with_suffix(suffixes[name])
            if source.exists():
                loaded[name] = _READERS[suffixes[name]](source)

        return read

    from_disk(path, {name: reader(name) for name in suffixes}, exclude)
    return loaded
