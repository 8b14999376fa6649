"""``pii_ner``: the trainable lane for names, addresses, organisations, usernames, birth dates.

A thin adapter over spaCy's :class:`~spacy.pipeline.SpanCategorizer` in its single-label
form: a softmax over the labels plus a negative label, scored on candidate spans from a
suggester. It is a span categorizer rather than the transition-based ``ner`` because the
merge and the calibration need a probability per span (docs/how-it-works.md: Scores), which
``ner`` gives only through a beam; see ``configs/README.md`` for the measurements.

What it adds to spaCy's component:

* our defaults: ``spans_key`` ``pii_ner``, the ``pii.spans_scorer.v1`` scorer on that key;
* the output group carries ``attrs["scores"]`` as plain floats and ``attrs["detectors"]``,
  positional with the spans, as ``pii_merge`` reads them;
* a span is kept when its best *positive* label reaches ``threshold``, even where the
  negative label wins the softmax, so calibration can sweep below 0.5 for recall floors;
  kept spans are then chosen greedily by probability without overlap, because the merge
  prefers the longer of two overlapping spans and would otherwise keep a long,
  improbable span over the short, probable one inside it;
* PERSON spans lose leading honorifics (:mod:`spacy_pii.core.conventions`);
* at prediction time on CPU, spaCy's mean-max span head is computed with its first product
  factored by token (:mod:`spacy_pii.adapters.factored_span_head`): the same spans, scores
  equal to float32 rounding, in less time;
* an optional :class:`~spacy_pii.evaluation.calibration.ScoreMap` (fit on dev by
  ``training/calibrate.py``) turns each kept span's probability into a calibrated one
  before it is written to ``attrs["scores"]``. The threshold and the greedy choice still
  read the raw probability: the proposal threshold and the span finder were tuned on raw
  probabilities, and calibration changes what a score means, not which spans are found.
  The map is saved as ``score_map.json`` in the component's folder; a pipeline without
  that file loads with no map (raw scores), as the pipelines shipped before it.

The module is longer than 400 lines because it adapts one spaCy class in one place, as
spaCy's own ``spancat.py`` does: the factory and its settings, span selection, training on
gold spans, the serialization that keeps settings out of the folder, and the suggester
that the configs name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy
import srsly
from pydantic import BaseModel, ConfigDict, Field
from spacy.language import Language
from spacy.pipeline.spancat import SpanCategorizer, Suggester
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example, validate_examples
from spacy.util import SimpleFrozenList, from_bytes, from_disk, to_bytes, to_disk
from thinc.api import Config, Model, NumpyOps, Optimizer, set_dropout_rate
from thinc.types import Floats2d, Ints2d, Ragged

from ..adapters.factored_span_head import FactoredSpanHead, factored_head
from ..adapters.listened_windows import has_vectors
from ..adapters.token_batches import TokenBoundedPipe
from ..core.conventions import edge_punctuation, leading_honorifics, name_list_parts
from ..errors import ConfigError, validated_settings
from ..evaluation.score_map import ScoreMap
from .ngram_suggester import NgramPresetSuggester

# Candidates of one document scored per model call (see PiiNer.predict): about 25 MB of
# span features at the shipped width, small enough to stay in a CPU's caches.
SPANS_PER_PREDICT = 8192

# The standalone default: spaCy's single-label span categorizer model with its own small
# tok2vec (spaCy's spancat_singlelabel default). The configs in configs/ replace the
# tok2vec with a listener to a shared tok2vec or transformer.
DEFAULT_PII_NER_MODEL = Config().from_str(
    """
[model]
@architectures = "spacy.SpanCategorizer.v1"

[model.scorer]
@layers = "Softmax.v2"

[model.reducer]
@layers = "spacy.mean_max_reducer.v1"
hidden_size = 128

[model.tok2vec]
@architectures = "spacy.Tok2Vec.v2"

[model.tok2vec.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 96
rows = [5000, 1000, 2500, 1000]
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
include_static_vectors = false

[model.tok2vec.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 96
window_size = 1
maxout_pieces = 3
depth = 4
"""
)["model"]

DEFAULT_PII_NER_CONFIG: dict[str, Any] = {
    "model": DEFAULT_PII_NER_MODEL,
    # 1 to 4 tokens hold 99% of PERSON and ORG spans in presidio synth and WNUT-17 train
    # (after pii_rules' token splitting); long addresses need a span finder, see configs/.
    "suggester": {"@misc": "spacy.ngram_range_suggester.v1", "min_size": 1, "max_size": 4},
    "spans_key": "pii_ner",
    "threshold": 0.5,
    "negative_weight": 1.0,
    "trim_honorifics": True,
    "trim_punctuation": True,
    "split_name_lists": True,
    "train_on_gold_spans": True,
    "scorer": {"@scorers": "pii.spans_scorer.v1", "spans_key": "pii_ner"},
}

# The score map's file inside the component's folder, and its key in to_bytes/exclude.
SCORE_MAP_FILE = "score_map.json"
SCORE_MAP_KEY = "score_map"


class PiiNerSettings(BaseModel):
    """``pii_ner``'s settings (all but the model and suggester), validated."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spans_key: str = "pii_ner"
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    negative_weight: float = Field(default=1.0, gt=0.0)
    trim_honorifics: bool = True
    trim_punctuation: bool = True
    split_name_lists: bool = True
    train_on_gold_spans: bool = True


@Language.factory(
    "pii_ner",
    assigns=["doc.spans"],
    default_config=DEFAULT_PII_NER_CONFIG,
    default_score_weights={
        "spans_pii_ner_f": 1.0,
        "spans_pii_ner_p": 0.0,
        "spans_pii_ner_r": 0.0,
        "spans_pii_ner_per_type": None,
    },
)
def make_pii_ner(
    nlp: Language,
    name: str,
    model: Model[tuple[list[Doc], Ragged], Floats2d],
    suggester: Suggester,
    spans_key: str,
    threshold: float,
    negative_weight: float,
    trim_honorifics: bool,
    trim_punctuation: bool,
    split_name_lists: bool,
    train_on_gold_spans: bool,
    scorer: Callable | None,
) -> PiiNer:
    """Label candidate spans with PII types and a probability each.

    Args:
        model: a span categorizer model whose output is a softmax over the labels plus one
            negative label (``spacy.SpanCategorizer.v1`` with ``Softmax.v2``).
        suggester: proposes candidate spans (an n-gram range, or a span finder's key).
        spans_key: the ``doc.spans`` key to write, and to read gold from in training.
        threshold: the least probability of a span's best label for the span to be kept.
        negative_weight: a multiplier on the loss of negative candidates.
        trim_honorifics: drop leading honorifics from PERSON spans.
        trim_punctuation: drop punctuation-only tokens at either edge of PERSON spans
            (:func:`spacy_pii.core.conventions.edge_punctuation`).
        split_name_lists: split a PERSON span that lists several full names at its commas
            (:func:`spacy_pii.core.conventions.name_list_parts`).
        train_on_gold_spans: in training, add the gold spans to the suggestions, so the
            model learns every gold span even where the suggester missed it (a span
            finder early in training finds almost no long address).
        scorer: the scoring function for ``nlp.evaluate``.
    """
    settings = validated_settings(PiiNerSettings, "pii_ner", locals())
    return PiiNer(
        nlp.vocab, model=model, suggester=suggester, name=name, settings=settings, scorer=scorer
    )


class PiiNer(TokenBoundedPipe, SpanCategorizer):
    """The model lane. See :func:`make_pii_ner` for the settings."""

    def __init__(
        self,
        vocab,
        model: Model,
        suggester: Suggester,
        name: str = "pii_ner",
        *,
        settings: PiiNerSettings | None = None,
        scorer: Callable | None = None,
    ) -> None:
        settings = settings if settings is not None else PiiNerSettings()
        super().__init__(
            vocab,
            model=model,
            suggester=suggester,
            name=name,
            add_negative_label=True,
            spans_key=settings.spans_key,
            negative_weight=settings.negative_weight,
            allow_overlap=False,
            max_positive=1,
            threshold=settings.threshold,
            scorer=scorer,
        )
        self.settings = settings
        self.score_map: ScoreMap | None = None

    def predict(self, docs: Iterable[Doc]) -> tuple[Ragged, Floats2d]:
        """The candidates whose best positive label reaches ``threshold``, with their scores.

        spaCy's ``SpanCategorizer.predict`` returns every candidate; only those that reach
        the threshold can be kept (:func:`select_spans`), so only those are returned, and
        the annotations are the same. With a listened encoder the candidates are listed
        and scored a bounded number at a time (:meth:`_predict_in_chunks`), so that
        neither the candidates of a long document nor their span features are ever held
        all at once.
        """
        docs = list(docs)
        head = self._span_head()
        if head is not None and all(has_vectors(doc) for doc in docs if len(doc)):
            return self._predict_in_chunks(docs, head)
        indices = self.suggester(docs, ops=self.model.ops)
        if int(indices.lengths.sum()) == 0:
            return indices, self.model.ops.alloc2f(0, len(self.labels) + 1)
        return self._reaching_threshold(indices, self.model.predict((docs, indices)))

    def _span_head(self) -> tuple[Model, Model, Model] | None:
        """``extract_spans``, the reducer and the scorer of a ``spacy.SpanCategorizer.v1``
        model whose encoder is a listener; ``None`` for any other model."""
        layers = self.model.layers
        if len(layers) != 4 or layers[1].name != "extract_spans" or not self._listens():
            return None
        return layers[1], layers[2], layers[3]

    def _reaching_threshold(self, indices: Ragged, scores: Floats2d) -> tuple[Ragged, Floats2d]:
        ops = self.model.ops
        table = ops.to_numpy(scores)
        keep = table[:, : len(self.labels)].max(axis=1) >= self.settings.threshold
        per_doc = ops.to_numpy(indices.lengths)
        owners = numpy.repeat(numpy.arange(len(per_doc)), per_doc)
        lengths = numpy.bincount(owners[keep], minlength=len(per_doc)).astype("i")
        data = ops.to_numpy(indices.dataXd).reshape((-1, 2))[keep]
        # thinc's Ops accept numpy arrays at run time; its stubs name only its own array types.
        return (
            Ragged(ops.asarray2i(data), ops.asarray1i(lengths)),  # type: ignore[arg-type]
            ops.asarray2f(table[keep]),  # type: ignore[arg-type]
        )

    def _predict_in_chunks(
        self, docs: list[Doc], head: tuple[Model, Model, Model]
    ) -> tuple[Ragged, Floats2d]:
        """Score candidates :data:`SPANS_PER_PREDICT` at a time on slices of ``doc.tensor``.

        The span head's arrays grow with the candidates of a call, and on a long document
        they outgrow the CPU's caches (2 to 3 times the cost per candidate on 100,000
        characters, measured); a listener's vectors are the whole document's, so each call
        takes only the rows its candidates cover. Short documents share a call.
        """
        ops = self.model.ops
        # Built from the current weights at each call, so a training step is never missed.
        factored = factored_head(head[1], head[2]) if isinstance(ops, NumpyOps) else None
        kept: list[list[tuple[numpy.ndarray, numpy.ndarray]]] = [[] for _ in docs]
        call: list[tuple[int, numpy.ndarray]] = []
        in_call = 0
        for index, doc in enumerate(docs):
            if not len(doc):
                continue
            for candidates in self._candidate_chunks(doc):
                if call and in_call + len(candidates) > SPANS_PER_PREDICT:
                    self._score_call(docs, call, head, factored, kept)
                    call, in_call = [], 0
                call.append((index, candidates))
                in_call += len(candidates)
        if call:
            self._score_call(docs, call, head, factored, kept)
        lengths = [sum(len(rows) for rows, _ in parts) for parts in kept]
        rows = [rows for parts in kept for rows, _ in parts]
        scores = [table for parts in kept for _, table in parts]
        width = len(self.labels) + 1
        data = numpy.concatenate(rows) if rows else numpy.zeros((0, 2), dtype="i")
        table = numpy.concatenate(scores) if scores else numpy.zeros((0, width), dtype="f")
        # thinc's Ops accept numpy arrays at run time; its stubs name only its own array types.
        return (
            Ragged(ops.asarray2i(data), ops.asarray1i(numpy.asarray(lengths, dtype="i"))),  # type: ignore[arg-type]
            ops.asarray2f(table),  # type: ignore[arg-type]
        )

    def _candidate_chunks(self, doc: Doc) -> Iterator[numpy.ndarray]:
        """The doc's candidates by start, in arrays of about :data:`SPANS_PER_PREDICT`."""
        if isinstance(self.suggester, NgramPresetSuggester):
            yield from self.suggester.chunks(doc, SPANS_PER_PREDICT)
            return
        found = self.suggester([doc], ops=self.model.ops)
        rows = self.model.ops.to_numpy(found.dataXd).reshape((-1, 2))
        rows = rows[numpy.lexsort((rows[:, 1], rows[:, 0]))]
        for first in range(0, len(rows), SPANS_PER_PREDICT):
            yield rows[first : first + SPANS_PER_PREDICT]

    def _score_call(
        self,
        docs: list[Doc],
        call: list[tuple[int, numpy.ndarray]],
        head: tuple[Model, Model, Model],
        factored: FactoredSpanHead | None,
        kept: list[list[tuple[numpy.ndarray, numpy.ndarray]]],
    ) -> None:
        """Score one call's candidates and keep, per doc, those reaching the threshold."""
        ops = self.model.ops
        vectors = []
        spans = []
        rows_per_slice = []
        for index, candidates in call:
            first, last = int(candidates[0, 0]), int(candidates[:, 1].max())
            vectors.append(docs[index].tensor[first:last])
            spans.append(candidates - first)
            rows_per_slice.append(last - first)
        if factored is not None:
            # Row bounds in the concatenated slices.
            offsets = numpy.cumsum([0, *rows_per_slice[:-1]])
            bounds = numpy.concatenate(
                [rows.astype("int64") + offset for rows, offset in zip(spans, offsets, strict=True)]
            )
            table = factored.scores(
                numpy.ascontiguousarray(numpy.concatenate(vectors), dtype="float32"),
                bounds[:, 0],
                bounds[:, 1],
            )
        else:
            tokens = Ragged(ops.xp.concatenate(vectors), ops.asarray1i(rows_per_slice))
            candidates_in = Ragged(
                ops.asarray2i(numpy.concatenate(spans)),  # type: ignore[arg-type]
                ops.asarray1i([len(rows) for _, rows in call]),
            )
            extract, reducer, scorer = head
            table = ops.to_numpy(
                scorer.predict(reducer.predict(extract.predict((tokens, candidates_in))))
            )
        offset = 0
        for index, candidates in call:
            scores = table[offset : offset + len(candidates)]
            offset += len(candidates)
            keep = scores[:, : len(self.labels)].max(axis=1) >= self.settings.threshold
            if keep.any():
                kept[index].append((candidates[keep], scores[keep]))

    def _listens(self) -> bool:
        return any(node.name == "tok2vec-listener" for node in self.model.walk())

    def _set_score_map(self, score_map: ScoreMap | None) -> None:
        self.score_map = None if score_map is None or score_map.is_identity else score_map

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Language | None = None,
        labels: list[str] | None = None,
        score_map: dict[str, Any] | None = None,
    ) -> None:
        """spaCy's ``SpanCategorizer.initialize``, plus an optional score map.

        Args:
            score_map: a :class:`~spacy_pii.evaluation.calibration.ScoreMap` mapping
                (``srsly.read_json.v1`` of the file ``training/calibrate.py`` writes); the
                written scores pass through it. ``None`` writes raw probabilities.
        """
        super().initialize(get_examples, nlp=nlp, labels=labels)
        self._set_score_map(None if score_map is None else ScoreMap.from_dict(score_map))

    def calibrated(self, label: str, probability: float) -> float:
        """The score written for a kept span: ``probability`` through the score map."""
        return probability if self.score_map is None else self.score_map.apply(label, probability)

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optimizer | None = None,
        losses: dict[str, float] | None = None,
    ) -> dict[str, float]:
        """spaCy's ``SpanCategorizer.update``, with the gold spans added to the suggestions.

        A span categorizer learns only on the spans its suggester proposes. With a span
        finder as suggester, gold spans it misses (most long addresses, early on) would
        never be shown as positives; here they always are (``train_on_gold_spans``).
        """
        losses = {} if losses is None else losses
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "PiiNer.update")
        docs = [eg.predicted for eg in examples]
        if not any(len(doc) for doc in docs):
            return losses
        spans = self.suggester(docs, ops=self.model.ops)
        if self.settings.train_on_gold_spans:
            spans = self._add_gold_spans(examples, spans)
        if spans.lengths.sum() == 0:
            return losses
        set_dropout_rate(self.model, drop)
        scores, backprop_scores = self.model.begin_update((docs, spans))
        loss, d_scores = self.get_loss(examples, (spans, scores))
        backprop_scores(d_scores)  # type: ignore[arg-type]  # SpanCategorizer.get_loss's own annotation
        if sgd is not None:
            self.finish_update(sgd)
        losses[self.name] += loss
        return losses

    def _add_gold_spans(self, examples: list[Example], suggested: Ragged) -> Ragged:
        ops = self.model.ops
        data = ops.to_numpy(suggested.dataXd).reshape((-1, 2))
        lengths = ops.to_numpy(suggested.lengths)
        rows: list[tuple[int, int]] = []
        counts: list[int] = []
        offset = 0
        for eg, count in zip(examples, lengths, strict=True):
            found = {(int(a), int(b)) for a, b in data[offset : offset + int(count)]}
            offset += int(count)
            found.update((span.start, span.end) for span in self._get_aligned_spans(eg))
            counts.append(len(found))
            rows.extend(sorted(found))
        array = numpy.asarray(rows, dtype="i").reshape((-1, 2))
        # thinc's Ops accept numpy arrays at run time; its stubs name only its own array types.
        return Ragged(ops.asarray2i(array), ops.asarray1i(numpy.asarray(counts, dtype="i")))  # type: ignore[arg-type]

    def score(self, examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        """Score ``doc.spans[spans_key]`` with the configured scorer.

        spaCy's ``SpanCategorizer.score`` passes its whole ``cfg`` (``spans_key``,
        ``allow_overlap``, ...) to the scorer; ``pii.spans_scorer.v1`` is bound to its key and
        fixes those itself, so only the caller's keyword arguments go through.
        """
        return self.scorer(examples, **kwargs) if self.scorer is not None else {}

    def set_annotations(self, docs: Iterable[Doc], indices_scores: tuple[Ragged, Floats2d]) -> None:
        """Write the kept spans with ``scores`` and ``detectors`` attrs."""
        indices, scores = indices_scores
        ops = self.model.ops
        lengths = ops.to_numpy(indices.lengths)
        all_scores = ops.to_numpy(scores)
        offset = 0
        for i, doc in enumerate(docs):
            count = int(lengths[i])
            doc.spans[self.key] = self._span_group(
                doc, ops.to_numpy(indices[i].dataXd), all_scores[offset : offset + count]
            )
            offset += count

    def _span_group(self, doc: Doc, indices: Ints2d, scores: Floats2d) -> SpanGroup:
        chosen = select_spans(
            indices, scores, threshold=self.settings.threshold, n_labels=len(self.labels)
        )
        spans: list[Span] = []
        probabilities: list[float] = []
        for start, end, label_index, probability in chosen:
            label = self.labels[label_index]
            bounds = self._person_bounds(doc, start, end) if label == "PERSON" else [(start, end)]
            for start, end in bounds:
                spans.append(Span(doc, start, end, label=label))
                probabilities.append(self.calibrated(label, probability))
        group = SpanGroup(doc, name=self.key, spans=spans)
        group.attrs["scores"] = probabilities
        group.attrs["detectors"] = [self.name] * len(spans)
        group.attrs["kinds"] = ["model"] * len(spans)
        return group

    def _person_bounds(self, doc: Doc, start: int, end: int) -> list[tuple[int, int]]:
        """The token bounds of the names in one PERSON span, after the span conventions
        (:mod:`spacy_pii.core.conventions`); empty when nothing of it is a name."""
        # The span's words are read once: on name-dense text this runs for most tokens.
        words = [token.text for token in doc[start:end]]
        parts = [(0, len(words))]
        if self.settings.split_name_lists:
            parts = name_list_parts(words)
        bounds = []
        for first, last in parts:
            first, last = self._trimmed(words, first, last)
            if first < last:
                bounds.append((start + first, start + last))
        return bounds

    def _trimmed(self, words: list[str], first: int, last: int) -> tuple[int, int]:
        """A name's bounds in ``words`` after trimming punctuation and honorifics."""
        if self.settings.trim_punctuation:
            first, last = _without_edge_punctuation(words, first, last)
        if first < last and self.settings.trim_honorifics:
            first += leading_honorifics(words[first:last])
            if self.settings.trim_punctuation:
                # What followed the title is an edge now: a line break ("Miss\nBartlett").
                first, last = _without_edge_punctuation(words, first, last)
        return first, last

    # -- serialization: labels, weights and score map; the settings live in config.cfg --
    #
    # spaCy's own TrainablePipe saves its whole ``cfg`` (threshold, spans_key, ...) and lets
    # the saved copy win over the config on load, so an override at spacy.load would be
    # ignored. Here ``cfg`` is saved with the labels only, and on load only the labels are
    # read from it: a folder saved by spaCy's layout (all settings in cfg) loads the same.

    def _labels_cfg(self) -> dict[str, Any]:
        return {"labels": list(self.labels)}

    def _read_labels(self, cfg: dict[str, Any]) -> None:
        self.cfg["labels"] = list(cfg.get("labels", self.cfg["labels"]))

    def _load_model_bytes(self, data: bytes) -> None:
        try:
            self.model.from_bytes(data)
        except AttributeError:
            raise ConfigError("pii_ner's model could not be restored from its bytes") from None

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()) -> None:
        self._validate_serialization_attrs()
        serializers: dict[str, Callable[[Path], Any]] = {
            "cfg": lambda p: srsly.write_json(p, self._labels_cfg()),
            "vocab": lambda p: self.vocab.to_disk(p, exclude=exclude),
            "model": lambda p: self.model.to_disk(p),
        }
        if self.score_map is not None:
            serializers[SCORE_MAP_KEY] = lambda p: self.score_map.save(p.with_suffix(".json"))  # type: ignore[union-attr]
        to_disk(path, serializers, exclude)
        stale = Path(path) / SCORE_MAP_FILE
        if self.score_map is None and SCORE_MAP_KEY not in exclude and stale.exists():
            # Saving over a folder that held a map: the stale map would come back on load.
            stale.unlink()

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()) -> PiiNer:
        self._validate_serialization_attrs()
        score_map: list[ScoreMap | None] = [None]

        def read_score_map(p: Path) -> None:
            if p.with_suffix(".json").exists():
                score_map[0] = ScoreMap.load(p.with_suffix(".json"))

        def read_model(p: Path) -> None:
            self._load_model_bytes(Path(p).read_bytes())

        deserializers: dict[str, Callable[[Path], Any]] = {
            "cfg": lambda p: self._read_labels(srsly.read_json(p)),
            "vocab": lambda p: self.vocab.from_disk(p, exclude=exclude),
            "model": read_model,
            SCORE_MAP_KEY: read_score_map,
        }
        from_disk(path, deserializers, exclude)
        if SCORE_MAP_KEY not in exclude:
            self._set_score_map(score_map[0])
        return self

    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        self._validate_serialization_attrs()
        score_map = self.score_map
        serializers: dict[str, Callable[[], Any]] = {
            "cfg": lambda: srsly.json_dumps(self._labels_cfg()),
            "vocab": lambda: self.vocab.to_bytes(exclude=exclude),
            "model": self.model.to_bytes,
            SCORE_MAP_KEY: lambda: srsly.json_dumps(
                None if score_map is None else score_map.to_dict()
            ),
        }
        return to_bytes(serializers, exclude)

    def from_bytes(
        self, bytes_data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiNer:
        self._validate_serialization_attrs()
        score_map: list[dict[str, Any] | None] = [None]
        deserializers: dict[str, Callable[[bytes], Any]] = {
            "cfg": lambda b: self._read_labels(srsly.json_loads(b)),
            "vocab": lambda b: self.vocab.from_bytes(b, exclude=exclude),
            "model": self._load_model_bytes,
            SCORE_MAP_KEY: lambda b: score_map.__setitem__(0, srsly.json_loads(b)),
        }
        from_bytes(bytes_data, deserializers, exclude)
        if SCORE_MAP_KEY not in exclude:
            loaded = score_map[0]
            self._set_score_map(None if loaded is None else ScoreMap.from_dict(loaded))
        return self


def _without_edge_punctuation(words: list[str], first: int, last: int) -> tuple[int, int]:
    leading, trailing = edge_punctuation(words[first:last])
    return first + leading, last - trailing


def select_spans(
    indices: Ints2d, scores: Floats2d, *, threshold: float, n_labels: int
) -> list[tuple[int, int, int, float]]:
    """Keep candidates whose best positive label reaches ``threshold``, without overlap.

    ``scores`` has one column per label and a last, negative column. Candidates are taken
    by probability, highest first (ties: earlier start, then longer span, so the result does
    not depend on the suggester's order); one that overlaps a taken span is skipped.
    Returns ``(start, end, label_index, probability)`` sorted by start.
    """
    if scores.size == 0 or n_labels == 0:
        return []
    positive = numpy.asarray(scores)[:, :n_labels]
    best = positive.argmax(axis=1)
    best_scores = positive[numpy.arange(len(best)), best]
    starts = numpy.asarray(indices)[:, 0]
    ends = numpy.asarray(indices)[:, 1]
    keep = numpy.flatnonzero(best_scores >= threshold)
    order = sorted(keep, key=lambda i: (-best_scores[i], starts[i], starts[i] - ends[i]))
    taken = numpy.zeros(int(ends.max()) if len(ends) else 0, dtype=bool)
    chosen = []
    for i in order:
        start, end = int(starts[i]), int(ends[i])
        if taken[start:end].any():
            continue
        taken[start:end] = True
        chosen.append((start, end, int(best[i]), float(best_scores[i])))
    chosen.sort()
    return chosen
