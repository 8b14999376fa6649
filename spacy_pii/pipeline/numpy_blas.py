"""``pii.numpy_blas_ops.v1``: the CPU model's matrix products through numpy's BLAS.

thinc's :class:`~thinc.api.NumpyOps` multiplies matrices with blis. The numpy wheels bundle
OpenBLAS, which does the same float32 products, on one thread, in about a third of blis's CPU
time on this project's machine, for the shapes of ``tok2vec`` and the span head
(docs/performance.md has the measurement). The products are the same sums in another
order, so scores agree with blis's to float32 rounding. OpenBLAS chooses its blocking by a
product's shape, so a text's scores may also differ in the sixth decimal between batches of
other sizes (blis's did not): a span can change only where its score lies that close to a
threshold. On the benchmark's 2,509 texts and the real-text dev sets the kept spans were the
same as blis's.

OpenBLAS would spread each product over every core. On small products that costs more CPU
than it saves wall time, and beside ``--n-process`` workers it oversubscribes the cores, so
each product runs under a thread limit (``threads``, 1 by default), restored afterwards.

The callback is the ``[nlp] after_pipeline_creation`` of the CPU configs and the shipped
pipeline. It swaps the ops of every model node that uses plain ``NumpyOps``; GPU ops and
other ops are left as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from functools import cache
from typing import Any

from spacy.language import Language
from spacy.util import registry
from thinc.api import Model, NumpyOps
from threadpoolctl import ThreadpoolController


@cache
def _blas_pools() -> Any:
    # Inspecting the loaded libraries takes milliseconds; limiting a found pool, microseconds.
    return ThreadpoolController().select(user_api="blas")


def blas_thread_limit(threads: int | None) -> AbstractContextManager[Any]:
    """A context in which numpy's BLAS uses at most ``threads`` threads (``None``: its own)."""
    if threads is None:
        return nullcontext()
    return _blas_pools().limit(limits=threads)


class NumpyBlasOps(NumpyOps):
    """``NumpyOps`` whose ``gemm`` is numpy's ``dot`` (OpenBLAS) under a thread limit.

    Args:
        threads: BLAS threads per product; ``None`` leaves numpy's own setting.
    """

    name = "numpy_blas"

    def __init__(self, threads: int | None = 1, **kwargs: Any) -> None:
        super().__init__(use_blis=False, **kwargs)
        self.threads = threads

    def gemm(self, x, y, *, out=None, trans1: bool = False, trans2: bool = False):  # type: ignore[override]
        with blas_thread_limit(self.threads):
            return super().gemm(x, y, out=out, trans1=trans1, trans2=trans2)


def use_numpy_blas(nlp: Language, threads: int | None = 1) -> int:
    """Give every model node of ``nlp`` that uses plain ``NumpyOps`` a :class:`NumpyBlasOps`.

    Returns:
        How many nodes were changed.
    """
    ops = NumpyBlasOps(threads=threads)
    changed = 0
    for _name, component in nlp.components:
        model = getattr(component, "model", None)
        if not isinstance(model, Model):
            continue
        for node in model.walk():
            if type(node.ops) is NumpyOps:
                node.ops = ops
                changed += 1
    return changed


@registry.callbacks("pii.numpy_blas_ops.v1")
def make_numpy_blas_ops(threads: int | None = 1) -> Callable[[Language], Language]:
    """An ``[nlp] after_pipeline_creation`` callback: :func:`use_numpy_blas` on the pipeline."""

    def after_pipeline_creation(nlp: Language) -> Language:
        use_numpy_blas(nlp, threads=threads)
        return nlp

    return after_pipeline_creation
