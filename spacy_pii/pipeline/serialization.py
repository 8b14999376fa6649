"""Data-only serialization for the components whose data is a few named records.

``pii_rules`` (patterns, deny-list), ``pii_merge`` (taxonomy, policy, allow-list) and
``pii_redact`` (taxonomy) save data and never settings, through spaCy's own
``to_disk``/``to_bytes`` helpers, so ``exclude`` works by record name as in spaCy's pipes.
On disk each record is one file, ``<name><suffix>``, written by ``srsly`` after its suffix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import srsly
from spacy.util import from_bytes, from_disk, to_bytes, to_disk

_WRITERS: dict[str, Callable[[Path, Any], None]] = {
    ".json": srsly.write_json,
    ".jsonl": srsly.write_jsonl,
    ".yaml": srsly.write_yaml,
}
_READERS: dict[str, Callable[[Path], Any]] = {
    ".json": srsly.read_json,
    ".jsonl": lambda path: list(srsly.read_jsonl(path)),
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
