"""The CPU model's products through numpy's BLAS: same results, one thread, only NumpyOps."""

from __future__ import annotations

import numpy
import pytest
import spacy
from thinc.api import Linear, Model, NumpyOps, chain
from threadpoolctl import threadpool_info, threadpool_limits

import spacy_pii
from spacy_pii.pipeline.numpy_blas import (
    NumpyBlasOps,
    blas_thread_limit,
    make_numpy_blas_ops,
    use_numpy_blas,
)


def _blas_threads() -> set[int]:
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


@pytest.mark.parametrize("trans1", [False, True])
@pytest.mark.parametrize("trans2", [False, True])
def test_gemm_equals_blis_to_float32_rounding(trans1, trans2):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((37, 53) if not trans1 else (53, 37)).astype("float32")
    y = rng.standard_normal((53, 29) if not trans2 else (29, 53)).astype("float32")
    blis = NumpyOps().gemm(x, y, trans1=trans1, trans2=trans2)
    ours = NumpyBlasOps().gemm(x, y, trans1=trans1, trans2=trans2)
    assert ours.shape == blis.shape == (37, 29)
    numpy.testing.assert_allclose(ours, blis, rtol=1e-4, atol=1e-4)


def test_gemm_writes_into_out():
    x = numpy.ones((4, 3), dtype="float32")
    y = numpy.full((3, 2), 2.0, dtype="float32")
    out = numpy.zeros((4, 2), dtype="float32")
    result = NumpyBlasOps().gemm(x, y, out=out)
    assert result is out
    assert out.tolist() == [[6.0, 6.0]] * 4


def test_thread_limit_holds_inside_and_is_restored_after():
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads() == {2}
        with blas_thread_limit(1):
            assert _blas_threads() == {1}
        assert _blas_threads() == {2}
        with blas_thread_limit(None):
            assert _blas_threads() == {2}


def test_only_plain_numpy_ops_are_replaced():
    class OtherOps(NumpyOps):
        name = "other"

    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec")
    nlp.initialize()
    other = OtherOps()
    first = next(iter(nlp.get_pipe("tok2vec").model.walk()))
    first.ops = other
    changed = use_numpy_blas(nlp)
    nodes = list(nlp.get_pipe("tok2vec").model.walk())
    assert changed == len(nodes) - 1
    assert first.ops is other
    assert all(isinstance(node.ops, NumpyBlasOps) for node in nodes[1:])


def test_a_model_predicts_the_same_with_either_ops():
    model = chain(Linear(8, 5), Linear(3, 8))
    model.initialize(X=numpy.zeros((2, 5), dtype="float32"))
    X = numpy.random.default_rng(1).standard_normal((10, 5)).astype("float32")
    before = model.predict(X)
    for node in model.walk():
        node.ops = NumpyBlasOps()
    numpy.testing.assert_allclose(model.predict(X), before, rtol=1e-5, atol=1e-6)


def test_shipped_pipeline_uses_it_and_keeps_its_spans():
    nlp = spacy_pii.load()
    if "pii_ner" not in nlp.pipe_names:
        pytest.skip("this build ships no trained pipeline")
    assert nlp.config["nlp"]["after_pipeline_creation"]["@callbacks"] == "pii.numpy_blas_ops.v1"
    # Only thinc models have ops; pii_span_ranker's model is stored coefficients.
    models = [c.model for _, c in nlp.components if isinstance(getattr(c, "model", None), Model)]
    assert all(isinstance(n.ops, NumpyBlasOps) for m in models for n in m.walk())
    texts = [
        "Call Ada Lovelace on 020 7946 0958 or write to ada@example.com.",
        "then maria said she met Dr. Grace Hopper in Boston last week",
        "Ticket 4411 closed by jsmith; the applicant, Anna Berg, was told.",
    ]
    fast = [[(s.start_char, s.end_char, s.label_) for s in d.spans["pii"]] for d in nlp.pipe(texts)]
    fast_scores = [d.spans["pii_ner"].attrs["scores"] for d in nlp.pipe(texts)]
    for model in models:
        for node in model.walk():
            node.ops = NumpyOps()
    blis = [[(s.start_char, s.end_char, s.label_) for s in d.spans["pii"]] for d in nlp.pipe(texts)]
    blis_scores = [d.spans["pii_ner"].attrs["scores"] for d in nlp.pipe(texts)]
    assert any(fast)
    assert fast == blis
    for ours, theirs in zip(fast_scores, blis_scores, strict=True):
        assert list(ours) == pytest.approx(list(theirs), abs=1e-4)


def test_callback_is_registered_and_returns_the_pipeline():
    callback = spacy.registry.callbacks.get("pii.numpy_blas_ops.v1")
    assert callback is make_numpy_blas_ops
    nlp = spacy.blank("en")
    assert callback(threads=1)(nlp) is nlp
