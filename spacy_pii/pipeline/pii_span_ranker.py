"""``pii_span_ranker``: rescore name, organisation and place candidates with lexical evidence.

It runs after the detectors (``pii_ner``, ``pii_peer_spans``) and before ``pii_merge``. For
each candidate of a ranked type in the groups it reads, it computes the evidence of
:mod:`spacy_pii.core.name_evidence` (the detector's score, whether the other detector agrees,
word frequency, name tables, clinical shorthand, shape, document casing) and replaces the
score with the calibrated probability of :class:`spacy_pii.core.span_ranker.RankerModel`.
The groups are rebuilt with their attrs positional (``scores``, ``detectors``, ``kinds``),
so the merge's per-type thresholds act on the ranked probabilities. Spans of other types
keep their scores.

Settings come from the config. The data (the fitted model and the lexical tables) arrives
through :meth:`PiiSpanRanker.initialize` (``training/fit_ranker.py`` fits it) and is saved by
``to_disk``. Without a model the component changes nothing, so a pipeline can carry it
before its ranker is fitted.
"""

from __future__ import annotations

import bisect
import gzip
import json
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example
from spacy.util import SimpleFrozenList, from_disk, to_disk

from ..adapters.token_batches import token_batches
from ..core.name_evidence import (
    Candidate,
    DocumentCasing,
    NameTables,
    candidate_features,
    shipped_tables,
)
from ..core.span_ranker import RankerModel
from ..errors import ConfigError, validated_settings

DEFAULT_SPAN_RANKER_CONFIG: dict[str, Any] = {
    "candidate_keys": ["pii_ner", "pii_peer"],
    "peer_keys": ["pii_peer"],
    "compare_with": {"pii_ner": "pii_peer_entities", "pii_peer": "pii_ner"},
    "types": ["PERSON", "ORG", "LOCATION"],
    "language": None,
}
# Longer than any candidate: the span finder proposes at most 25 tokens, and the
# guarded tokenizer caps a token's run; a longer span is simply compared less widely.
MAX_SPAN_CHARS = 400
# The language code of data (a model, tables) fitted across languages.
MULTILINGUAL = "xx"
# Candidates whose features are computed and scored together (see PiiSpanRanker._chunks).
CHUNK_CANDIDATES = 4096


class PiiSpanRankerSettings(BaseModel):
    """``pii_span_ranker``'s settings, validated; built from the factory's arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate_keys: tuple[str, ...] = ("pii_ner", "pii_peer")
    peer_keys: tuple[str, ...] = ("pii_peer",)
    compare_with: dict[str, str] = Field(
        default_factory=lambda: dict(DEFAULT_SPAN_RANKER_CONFIG["compare_with"])
    )
    types: tuple[str, ...] = ("PERSON", "ORG", "LOCATION")
    language: str | None = Field(default=None, min_length=2)


@Language.factory(
    "pii_span_ranker",
    assigns=["doc.spans"],
    requires=["doc.spans"],
    default_config=DEFAULT_SPAN_RANKER_CONFIG,
)
def make_pii_span_ranker(
    nlp: Language,
    name: str,
    candidate_keys: list[str],
    peer_keys: list[str],
    compare_with: dict[str, str],
    types: list[str],
    language: str | None,
) -> PiiSpanRanker:
    """Replace the scores of ranked candidates with the ranker's probabilities.

    Args:
        candidate_keys: the span groups to rescore; a group absent from a doc is skipped.
        peer_keys: which of them hold a peer's spans (one score per type, so the ranker
            reads the source instead).
        compare_with: per candidate group, the group of the other detector whose
            overlapping spans say whether it agrees (and with which type).
        types: the public types to rescore; other spans keep their scores.
        language: the language of the word frequencies and name tables; ``null`` is the
            pipeline's.
    """
    settings = validated_settings(PiiSpanRankerSettings, "pii_span_ranker", locals())
    return PiiSpanRanker(name, settings, language=settings.language or str(nlp.lang))


class PiiSpanRanker(Pipe):
    """The ``pii_span_ranker`` component: see the module docstring."""

    def __init__(self, name: str, settings: PiiSpanRankerSettings, *, language: str) -> None:
        self.name = name
        self.settings = settings
        self.language = language
        self.model: RankerModel | None = None
        self.tables: NameTables = NameTables(language=language)

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]] | None = None,
        *,
        nlp: Language | None = None,
        model: dict[str, Any] | None = None,
        tables: dict[str, Any] | None = None,
    ) -> None:
        """Load the fitted model and the lexical tables; both optional.

        Args:
            model: a :class:`~spacy_pii.core.span_ranker.RankerModel` as a mapping
                (``srsly.read_json.v1``); none leaves the scores as they are.
            tables: :class:`~spacy_pii.core.name_evidence.NameTables` as a mapping; the
                tables shipped for the language if absent.

        Raises:
            ConfigError: a malformed model, or model and tables for another language (data
                for ``xx`` serves every language).
        """
        self.tables = NameTables.from_dict(tables) if tables else shipped_tables(self.language)
        self.model = RankerModel.from_dict(model) if model is not None else None
        for data_language in {self.tables.language, getattr(self.model, "language", None)}:
            # Data for ``xx`` (the multilingual pipeline's) serves every language.
            if data_language not in (None, MULTILINGUAL, self.language):
                raise ConfigError(
                    f"pii_span_ranker: data for {data_language!r}, pipeline language "
                    f"{self.language!r}"
                )

    def candidate_rows(self, doc: Doc) -> list[tuple[str, int, Candidate, list[float]]]:
        """Per ranked candidate: its group key, its index there, the candidate, its features.

        ``training/fit_ranker.py`` reads the same rows to fit the model it then loads.
        """
        return [
            (key, index, candidate, features)
            for key, indices, candidates, rows in self._chunks(doc)
            for index, candidate, features in zip(indices, candidates, rows, strict=True)
        ]

    def _chunks(
        self, doc: Doc
    ) -> Iterator[tuple[str, list[int], list[Candidate], list[list[float]]]]:
        # Features are computed CHUNK_CANDIDATES at a time, so that a long document holds
        # the features of one chunk, not of all its candidates, while it is scored.
        wanted = set(self.settings.types)
        # doc.text joins every token, so it is read once, and only for a doc with candidates.
        text: str | None = None
        casing: DocumentCasing | None = None
        for key in self.settings.candidate_keys:
            group = doc.spans.get(key)
            if group is None or not len(group):
                continue
            indices = [i for i, span in enumerate(group) if span.label_ in wanted]
            if not indices:
                continue
            text = doc.text if text is None else text
            casing = casing or DocumentCasing.of(text, self.tables)
            other = doc.spans.get(self.settings.compare_with.get(key, ""), ())
            others = sorted((s.start_char, s.end_char, s.label_) for s in other)
            other_starts = [s for s, _, _ in others]
            scores = group.attrs.get("scores") or [None] * len(group)
            from_peer = key in self.settings.peer_keys
            for begin in range(0, len(indices), CHUNK_CANDIDATES):
                chunk = indices[begin : begin + CHUNK_CANDIDATES]
                candidates = [
                    _candidate(group[i], scores[i], from_peer, others, other_starts) for i in chunk
                ]
                rows = [
                    candidate_features(text, candidate, casing, self.tables, self.language)
                    for candidate in candidates
                ]
                yield key, chunk, candidates, rows

    def __call__(self, doc: Doc) -> Doc:
        return self._ranked([doc])[0]

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Rescore ``stream`` in batches: one model pass for a batch's candidates.

        The output is what ``__call__`` gives, doc by doc. Measured on the benchmark's short
        texts, one pass per batch instead of one per doc cut the model's time from 0.20 to
        0.03 CPU seconds for 3,000 texts. A batch that fails is redone doc by doc, so that
        the error handler sees the doc that failed, as in spaCy's ``Pipe.pipe``.
        """
        error_handler = self.get_error_handler()
        for batch in token_batches(stream, batch_size):
            try:
                ranked = self._ranked(batch)
            except Exception:
                ranked = []
                for doc in batch:
                    try:
                        ranked.extend(self._ranked([doc]))
                    except Exception as err:
                        error_handler(self.name, self, [doc], err)
            yield from ranked

    def _ranked(self, docs: list[Doc]) -> list[Doc]:
        """``docs`` with their candidates rescored; nothing is written until all are scored,
        so a failure leaves every doc as it was (a second pass would rescore ranked scores)."""
        if self.model is None:
            return docs
        model = self.model
        # Per doc and group, the new score of each rescored span.
        rescored: list[dict[str, dict[int, float]]] = [{} for _ in docs]
        pending: list[tuple[int, str, list[int], list[Candidate], list[list[float]]]] = []

        def score_pending() -> None:
            labels = [c.label for *_, candidates, _ in pending for c in candidates]
            rows = [row for *_, rows in pending for row in rows]
            probabilities = iter(model.probabilities(labels, rows))
            for at, key, indices, _, _ in pending:
                mine = islice(probabilities, len(indices))
                for index, probability in zip(indices, mine, strict=True):
                    if probability is not None:
                        rescored[at].setdefault(key, {})[index] = probability
            pending.clear()

        in_pending = 0
        for at, doc in enumerate(docs):
            for key, indices, candidates, rows in self._chunks(doc):
                pending.append((at, key, indices, candidates, rows))
                in_pending += len(indices)
                # Bounded as one doc's chunks are, however many docs share the batch.
                if in_pending >= CHUNK_CANDIDATES:
                    score_pending()
                    in_pending = 0
        if pending:
            score_pending()
        for doc, by_key in zip(docs, rescored, strict=True):
            for key, new in by_key.items():
                group = doc.spans[key]
                scores = list(group.attrs.get("scores") or [None] * len(group))
                for index, probability in new.items():
                    scores[index] = probability
                doc.spans[key] = _rescored(doc, group, scores)
        return docs

    # -- serialization: data only; the settings live in config.cfg ----------------

    def _write(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        model_file = path / "model.json"
        if self.model is None:
            model_file.unlink(missing_ok=True)
        else:
            model_file.write_text(json.dumps(self.model.to_dict(), indent=1) + "\n", "utf-8")
        payload = json.dumps(self.tables.to_dict(), ensure_ascii=False, sort_keys=True)
        (path / "tables.json.gz").write_bytes(gzip.compress(payload.encode("utf-8"), mtime=0))

    def _read(self, path: Path) -> None:
        model_file, tables_file = path / "model.json", path / "tables.json.gz"
        model = json.loads(model_file.read_text("utf-8")) if model_file.exists() else None
        tables = (
            json.loads(gzip.decompress(tables_file.read_bytes())) if tables_file.exists() else None
        )
        self.initialize(model=model, tables=tables)

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()) -> None:
        to_disk(path, {"data": self._write}, exclude)

    def from_disk(
        self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiSpanRanker:
        from_disk(path, {"data": self._read}, exclude)
        return self

    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        import srsly

        data = {"model": self.model.to_dict() if self.model else None}
        data["tables"] = self.tables.to_dict()
        return srsly.msgpack_dumps(data)

    def from_bytes(
        self, bytes_data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiSpanRanker:
        import srsly

        data = srsly.msgpack_loads(bytes_data)
        self.initialize(model=data.get("model"), tables=data.get("tables"))
        return self


def _candidate(
    span: Span,
    score: float | None,
    from_peer: bool,
    others: list[tuple[int, int, str]],
    other_starts: list[int],
) -> Candidate:
    start, end = span.start_char, span.end_char
    # The other group is sorted by start; an overlapping span starts before this one ends
    # and no more than MAX_SPAN_CHARS before it starts, so the scan per span is bounded.
    other_types = set()
    index = bisect.bisect_left(other_starts, end) - 1
    while index >= 0 and others[index][0] > start - MAX_SPAN_CHARS:
        if others[index][1] > start:
            other_types.add(others[index][2])
        index -= 1
    return Candidate(
        start=start,
        end=end,
        label=span.label_,
        score=None if score is None else float(score),
        from_peer=from_peer,
        other_types=frozenset(other_types),
    )


def _rescored(doc: Doc, group: SpanGroup, scores: list[float | None]) -> SpanGroup:
    rebuilt = SpanGroup(doc, name=group.name, spans=list(group))
    rebuilt.attrs.update(group.attrs)
    rebuilt.attrs["scores"] = scores
    return rebuilt
