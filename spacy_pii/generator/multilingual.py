"""The corpora in other European languages: validated, folded to our types, split.

Each file of the shared multilingual folder (UNER, GermEval 2014, Europeana newspapers,
MEDDOCAN) is JSONL, one document a line: ``{"text", "spans": [{"start", "end", "label"}],
"meta": {"doc_id", "lang", ...}}``. A row is validated here (:class:`CorpusRow`); a bad row
raises :class:`~spacy_pii.evaluation.documents.CorpusLineError` naming its line, never its
text. Labels fold through the taxonomy's label map, whose MEDDOCAN, GermEval and UNER
entries say why each label maps or drops.

Splits, fixed so that a dev part is never trained on:

- UNER and MEDDOCAN ship train and dev files: train trains, dev is dev;
- GermEval 2014 dev and test are both training data here (this project reports nothing on
  GermEval; the shared SOURCES.md says so);
- the Europeana files have no split: the last :data:`EUROPEANA_HELD_OUT_FRACTION` of each
  file's documents, in file order, is held out as dev. Consecutive pieces come from the same
  pages, so a contiguous tail keeps a page's neighbours out of train, which a hashed pick
  would not. The held-out ``doc_id`` values are written to the corpus manifest.

Pure functions over plain dicts; ``training/make_corpus_ml.py`` wires files to them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..evaluation.documents import CorpusLineError, describe_validation_error
from .corpus import cut_into_pieces, fold_doc
from .name_swaps import swapped_copy
from .script_copies import CYRILLIC_SUFFIX, cyrillic_copy

EUROPEANA_HELD_OUT_FRACTION = 0.2
# Training documents are cut near this length, at a sentence end no span crosses: a UNER
# document of 30,000 characters would be one batch alone under spaCy's word batcher.
TRAIN_PIECE_CHARS = 1500


@dataclass(frozen=True)
class MlSource:
    """One corpus file: its set name, language and what part of it is dev.

    ``role`` is ``"train"`` (all of it trains), ``"dev"`` (all of it is dev) or
    ``"tail"`` (the last fifth is dev, the rest trains). With ``cyrillic_copy``, each
    document is also given in Serbian Cyrillic (:mod:`.script_copies`): training documents
    beside their originals, dev documents as a dev set of their own, ``<name>_cyrl``.
    With ``russian_names`` too, each Cyrillic training copy that holds a name is given once
    more with Russian names in place of its own (:mod:`.name_swaps`).
    """

    name: str
    lang: str
    family: str
    file: str
    role: str
    cyrillic_copy: bool = False
    russian_names: bool = False

    def __post_init__(self) -> None:
        if self.russian_names and not self.cyrillic_copy:
            raise ValueError("russian_names swaps names in the Cyrillic copies: set cyrillic_copy")


ML_SOURCES: tuple[MlSource, ...] = (
    MlSource("uner_da", "da", "uner", "uner_da_ddt_train.jsonl", "train"),
    MlSource("uner_da", "da", "uner", "uner_da_ddt_dev.jsonl", "dev"),
    MlSource(
        "uner_hr",
        "hr",
        "uner",
        "uner_hr_set_train.jsonl",
        "train",
        cyrillic_copy=True,
        russian_names=True,
    ),
    MlSource("uner_hr", "hr", "uner", "uner_hr_set_dev.jsonl", "dev"),
    MlSource("uner_pt", "pt", "uner", "uner_pt_bosque_train.jsonl", "train"),
    MlSource("uner_pt", "pt", "uner", "uner_pt_bosque_dev.jsonl", "dev"),
    MlSource("uner_sk", "sk", "uner", "uner_sk_snk_train.jsonl", "train"),
    MlSource("uner_sk", "sk", "uner", "uner_sk_snk_dev.jsonl", "dev"),
    MlSource(
        "uner_sr",
        "sr",
        "uner",
        "uner_sr_set_train.jsonl",
        "train",
        cyrillic_copy=True,
        russian_names=True,
    ),
    MlSource("uner_sr", "sr", "uner", "uner_sr_set_dev.jsonl", "dev", cyrillic_copy=True),
    MlSource("uner_sv", "sv", "uner", "uner_sv_talbanken_train.jsonl", "train"),
    MlSource("uner_sv", "sv", "uner", "uner_sv_talbanken_dev.jsonl", "dev"),
    MlSource("germeval_de", "de", "germeval", "germeval2014_de_dev.jsonl", "train"),
    MlSource("germeval_de", "de", "germeval", "germeval2014_de_test.jsonl", "train"),
    MlSource("europeana_de_lft", "de", "europeana", "europeana_de_lft_all.jsonl", "tail"),
    MlSource("europeana_de_sbb", "de", "europeana", "europeana_de_sbb_all.jsonl", "tail"),
    MlSource("europeana_fr", "fr", "europeana", "europeana_fr_train.jsonl", "tail"),
    MlSource("europeana_nl", "nl", "europeana", "europeana_nl_train.jsonl", "tail"),
    MlSource("meddocan_es", "es", "meddocan", "meddocan_es_train.jsonl", "train"),
    MlSource("meddocan_es", "es", "meddocan", "meddocan_es_dev.jsonl", "dev"),
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", hide_input_in_errors=True)


class RowSpan(_Frozen):
    start: int = Field(ge=0)
    end: int = Field(gt=0)
    label: str = Field(min_length=1)


class RowMeta(_Frozen):
    doc_id: str = Field(min_length=1)
    lang: str = Field(min_length=2)


class CorpusRow(_Frozen):
    """One row of a shared corpus file, checked: spans inside the text, sorted, disjoint."""

    text: str
    spans: tuple[RowSpan, ...]
    meta: RowMeta

    @model_validator(mode="after")
    def _spans_fit(self) -> CorpusRow:
        previous_end = 0
        for index, span in enumerate(self.spans):
            if not span.start < span.end <= len(self.text):
                raise ValueError(f"span {index} ({span.start}:{span.end}) is outside the text")
            if span.start < previous_end:
                raise ValueError(f"span {index} overlaps the span before it or is unsorted")
            previous_end = span.end
        return self


def parse_row(line: str, number: int) -> CorpusRow:
    """Validate one JSONL line of a shared corpus file.

    Raises:
        CorpusLineError: not JSON, or a row of the wrong shape; names the line only.
    """
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise CorpusLineError(number, f"not valid JSON (column {err.colno})") from None
    try:
        return CorpusRow.model_validate(record)
    except ValidationError as err:
        raise CorpusLineError(number, f"bad row ({describe_validation_error(err)})") from None


def read_rows(path: str | Path) -> list[CorpusRow]:
    """Every row of a corpus file, validated; blank lines are skipped."""
    with Path(path).open(encoding="utf-8") as handle:
        return [parse_row(line, n) for n, line in enumerate(handle, start=1) if line.strip()]


def fold_row(row: CorpusRow, fold: Callable[[str], str | None], source: MlSource) -> dict:
    """A row as a corpus document with public types (``fold`` drops or raises)."""
    meta = {"doc_id": row.meta.doc_id, "lang": source.lang, "set": source.name}
    doc = {"text": row.text, "spans": [span.model_dump() for span in row.spans], "meta": meta}
    folded = fold_doc(doc, fold)
    folded["meta"] = {**meta, "source": f"ml/{source.name}"}
    return folded


def held_out_tail(count: int, fraction: float = EUROPEANA_HELD_OUT_FRACTION) -> int:
    """The index of the first held-out document of a file of ``count`` documents."""
    return count - math.ceil(count * fraction)


def _cut_points(text: str, spans: list[dict], limit: int) -> list[int]:
    """Offsets after a sentence end (". " or a line break) about ``limit`` apart, outside spans."""
    inside = bytearray(len(text) + 1)
    for span in spans:
        inside[span["start"] + 1 : span["end"]] = b"\x01" * (span["end"] - span["start"] - 1)
    cuts, last = [], 0
    for k in range(1, len(text)):
        if k - last < limit or inside[k]:
            continue
        if text[k - 1] == "\n" or (text[k - 1] == " " and text[k - 2 : k - 1] in (".", "!", "?")):
            cuts.append(k)
            last = k
    return cuts


def split_for_training(doc: dict, limit: int = TRAIN_PIECE_CHARS) -> list[dict]:
    """Cut a long training document into pieces; no span is cut, offsets are rebased."""
    if len(doc["text"]) <= limit:
        return [doc]
    return cut_into_pieces(doc, _cut_points(doc["text"], doc["spans"], limit))


@dataclass
class MlCorpus:
    """The folded corpus: training documents, dev documents by set, and the held-out ids."""

    train: list[dict]
    dev: dict[str, list[dict]]
    held_out_ids: dict[str, list[str]]


def build_ml_corpus(
    corpora_dir: Path, fold: Callable[[str], str | None], sources: Iterable[MlSource] = ML_SOURCES
) -> MlCorpus:
    """Read, validate and fold every source; split it as the module docstring says."""
    corpus = MlCorpus(train=[], dev={}, held_out_ids={})
    for source in sources:
        rows = read_rows(Path(corpora_dir) / source.file)
        docs = [fold_row(row, fold, source) for row in rows]
        if source.role == "train":
            train, dev = docs, []
        elif source.role == "dev":
            train, dev = [], docs
        elif source.role == "tail":
            first = held_out_tail(len(docs))
            train, dev = docs[:first], docs[first:]
            corpus.held_out_ids[source.file] = [d["meta"]["doc_id"] for d in dev]
        else:
            raise ValueError(f"unknown role {source.role!r} for {source.file}")
        pieces = [piece for d in train for piece in split_for_training(d)]
        corpus.train.extend(pieces)
        if dev:
            corpus.dev.setdefault(source.name, []).extend(dev)
        copies = [cyrillic_copy(piece) for piece in pieces] if source.cyrillic_copy else []
        corpus.train.extend(copies)
        if source.russian_names:
            swapped = (swapped_copy(copy) for copy in copies)
            corpus.train.extend(copy for copy in swapped if copy is not None)
        if source.cyrillic_copy and dev:
            corpus.dev.setdefault(source.name + CYRILLIC_SUFFIX, []).extend(
                cyrillic_copy(d) for d in dev
            )
    return corpus
