"""The factored span head gives thinc's span-categorizer scores, and only for its own head."""

from __future__ import annotations

import numpy
import pytest
from spacy.ml.models.spancat import build_mean_max_reducer
from thinc.api import Linear, Softmax, chain, reduce_mean
from thinc.types import Ragged

from spacy_pii.adapters.factored_span_head import factored_head

WIDTH = 24


def _head(seed: int):
    reducer = build_mean_max_reducer(hidden_size=16)
    scorer = Softmax(nO=5)
    rng = numpy.random.default_rng(seed)
    sample = Ragged(rng.normal(size=(6, WIDTH)).astype("f"), numpy.asarray([3, 3], dtype="i"))
    reducer.initialize(X=sample)
    scorer.initialize(X=reducer.predict(sample))
    # thinc starts the softmax (and the biases) at zero, which would score every span alike:
    # random values, so that every weight and its order in the factored form are checked.
    for node in [*reducer.walk(), scorer]:
        if node.name in ("maxout", "layernorm", "softmax"):
            for name in node.param_names:
                shape = node.get_param(name).shape
                node.set_param(name, rng.normal(size=shape).astype("f"))
    return reducer, scorer


def _spans(rng, tokens: int, count: int, longest: int) -> numpy.ndarray:
    starts = rng.integers(0, tokens, size=count)
    lengths = rng.integers(1, longest + 1, size=count)
    ends = numpy.minimum(starts + lengths, tokens)
    return numpy.stack([starts, ends], axis=1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scores_equal_thinc_for_short_and_long_spans(seed: int) -> None:
    reducer, scorer = _head(seed)
    factored = factored_head(reducer, scorer)
    assert factored is not None
    rng = numpy.random.default_rng(100 + seed)
    vectors = rng.normal(size=(300, WIDTH)).astype("f")
    # n-grams of one to four tokens, and spans up to 25 as the span finder proposes them
    spans = numpy.concatenate([_spans(rng, 300, 400, 4), _spans(rng, 300, 60, 25)])
    lengths = spans[:, 1] - spans[:, 0]
    rows = numpy.concatenate([vectors[s:e] for s, e in spans])
    expected = scorer.predict(reducer.predict(Ragged(rows, lengths.astype("i"))))
    found = factored.scores(vectors, spans[:, 0], spans[:, 1])
    assert found.shape == expected.shape
    assert expected.std(axis=0).min() > 0.01  # the spans are told apart
    assert numpy.allclose(found, expected, atol=1e-5)


def test_other_heads_are_left_to_thinc() -> None:
    reducer, scorer = _head(0)
    assert factored_head(chain(reduce_mean(), Linear(nO=16)), scorer) is None
    assert factored_head(reducer.layers[1], scorer) is None


def test_the_shipped_pipeline_finds_the_same_spans_as_with_thincs_head(monkeypatch) -> None:
    import spacy_pii
    import spacy_pii.pipeline.pii_ner as ner_module

    nlp = spacy_pii.load()
    texts = [
        "Mr. Smith met Ada Lovelace and Dr. Grace Hopper in London on 3 May.",
        "Send it to ada@example.com, attn. Maria Jenkins, 12 Baker Street, Leeds LS1 4AB.",
        "@kyle28walker lol that was me and jordan at the Acme Corp party",
    ] * 3
    factored_docs = list(nlp.pipe(texts))  # a span group lives as long as its doc
    monkeypatch.setattr(ner_module, "factored_head", lambda reducer, scorer: None)
    thinc_docs = list(nlp.pipe(texts))
    factored = [doc.spans["pii_ner"] for doc in factored_docs]
    thinc = [doc.spans["pii_ner"] for doc in thinc_docs]
    assert sum(map(len, thinc)) > 5
    for a, b in zip(factored, thinc, strict=True):
        assert [(s.start, s.end, s.label_) for s in a] == [(s.start, s.end, s.label_) for s in b]
        assert a.attrs["scores"] == pytest.approx(b.attrs["scores"], abs=1e-5)


def test_a_span_of_thousands_of_tokens_scores_as_in_thinc() -> None:
    # A span finder without max_length may propose one; it is reduced over its own rows.
    reducer, scorer = _head(3)
    factored = factored_head(reducer, scorer)
    assert factored is not None
    rng = numpy.random.default_rng(7)
    vectors = rng.normal(size=(3000, WIDTH)).astype("f")
    spans = numpy.asarray([[0, 3000], [10, 2510], [5, 6], [100, 104]])
    lengths = spans[:, 1] - spans[:, 0]
    rows = numpy.concatenate([vectors[s:e] for s, e in spans])
    expected = scorer.predict(reducer.predict(Ragged(rows, lengths.astype("i"))))
    assert numpy.allclose(factored.scores(vectors, spans[:, 0], spans[:, 1]), expected, atol=1e-5)
