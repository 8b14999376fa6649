"""Timing: throughput, latency and cost growth of one system, the speeds of several side by
side, and the rule lane's stages."""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from .summary import FIT_RANGE, fit_exponent, percentile
from .systems import RawSpan, System
from .texts import build_text

# spaCy's own default batch size for nlp.pipe (Language.batch_size); Presidio's batch
# engine forwards the same number to spaCy's pipe inside its NLP engine.
BATCH_SIZE = 1000

# Repetition, after the timeit documentation: keep the fastest of several passes, since
# other processes on the machine only ever add time. At least two passes for every row,
# more (up to five) while a row has used less than three seconds.
MIN_PASSES, MAX_PASSES, MIN_SECONDS = 2, 5, 3.0


# -- timing ---------------------------------------------------------------------------------


def _best_of(run: Callable[[], Any], *, min_passes: int = MIN_PASSES) -> tuple[float, int, Any]:
    """(fastest seconds, passes, first pass's result)."""
    first: Any = None
    best = float("inf")
    spent = 0.0
    passes = 0
    while passes < MAX_PASSES and (passes < min_passes or spent < MIN_SECONDS):
        started = time.perf_counter()
        result = run()
        elapsed = time.perf_counter() - started
        if passes == 0:
            first = result
        best = min(best, elapsed)
        spent += elapsed
        passes += 1
    return best, passes, first


def time_throughput(
    system: System, texts: Sequence[str], *, batch_size: int, n_process: int
) -> tuple[dict[str, Any], list[list[RawSpan]]]:
    """Chars/s and docs/s of ``system.predict`` over ``texts``; also the predictions.

    With one process, the CPU seconds of this process are kept too (the fastest pass by
    CPU time): on a shared machine, another process's work lands in the wall time of
    whichever row is running, but not in its CPU time. Worker processes' CPU time is not
    this process's, so ``n_process`` above 1 has wall time only.
    """
    cpu: list[float] = []

    def run() -> list[list[RawSpan]]:
        started = time.process_time()
        found = system.predict(texts, batch_size=batch_size, n_process=n_process)
        cpu.append(time.process_time() - started)
        return found

    seconds, passes, predictions = _best_of(run)
    chars = sum(len(t) for t in texts)
    entry: dict[str, Any] = {
        "seconds": seconds,
        "passes": passes,
        "chars_per_s": chars / seconds,
        "docs_per_s": len(texts) / seconds,
    }
    if n_process == 1 and min(cpu) > 0:
        entry["cpu_seconds"] = min(cpu)
        entry["cpu_chars_per_s"] = chars / min(cpu)
    return entry, predictions


def time_interleaved(
    systems: Mapping[str, System], texts: Sequence[str], *, batch_size: int, rounds: int
) -> dict[str, float]:
    """Chars per CPU second of each system, its passes interleaved with the others'.

    Each round runs one pass of every system in turn, and each keeps its fastest pass. The
    rows of the benchmark run minutes apart, and on a shared or throttled machine its speed
    drifts between them (Presidio full read 25,822 to 29,222 chars per CPU second in three
    runs within the hour of 7 December, 03:33 to 04:55 UTC); passes side by side see the
    same machine, so a ratio of their speeds does not carry that drift. The passes still
    vary from run to run, by about a tenth on the 2-core machine of ``docs/performance.md``.
    """
    chars = sum(len(t) for t in texts)
    best = dict.fromkeys(systems, float("inf"))
    for _ in range(rounds):
        for name, system in systems.items():
            started = time.process_time()
            system.predict(texts, batch_size=batch_size)
            best[name] = min(best[name], time.process_time() - started)
    return {name: chars / seconds for name, seconds in best.items() if 0 < seconds < math.inf}


def time_latency(system: System, texts: Sequence[str]) -> dict[str, Any]:
    """p50 and p95 of one call per document, in milliseconds."""
    if not texts:
        return {}
    timings = []
    for text in texts:
        started = time.perf_counter()
        system.predict_one(text)
        timings.append((time.perf_counter() - started) * 1000)
    return {
        "n": len(timings),
        "max_chars": max(len(t) for t in texts),
        "p50": percentile(timings, 50),
        "p95": percentile(timings, 95),
    }


def predicted_seconds(measured: Sequence[tuple[int, float]], size: int) -> float | None:
    """Extrapolate the time for ``size`` from the sizes measured so far, or ``None``.

    The growth seen between the last two sizes is carried forward (at least linear), so a
    quadratic row is predicted as quadratic; with one point, linear growth is assumed.
    """
    if not measured:
        return None
    last_size, last_time = measured[-1]
    exponent = 1.0
    if len(measured) >= 2:
        before_size, before_time = measured[-2]
        if before_time > 0 and last_time > 0 and last_size > before_size:
            exponent = max(
                1.0, math.log(last_time / before_time) / math.log(last_size / before_size)
            )
    return last_time * (size / last_size) ** exponent


def time_growth(
    system: System,
    texts: Sequence[str],
    sizes: Sequence[int],
    cap_seconds: float,
) -> dict[str, Any]:
    """Seconds for one document of each size, and the fitted exponent.

    A size is skipped, with the larger ones, when :func:`predicted_seconds` says it would
    take more than ``cap_seconds``: a slow row must not hold the run for an hour.
    """
    seconds: list[float | None] = []
    skipped: dict[str, str] = {}
    measured: list[tuple[int, float]] = []
    for size in sizes:
        guess = predicted_seconds(measured, size)
        if skipped or (guess is not None and guess > cap_seconds):
            seconds.append(None)
            skipped[str(size)] = f"predicted over {cap_seconds:g} s"
            continue
        text = build_text(texts, size)
        system.allow_length(size)
        best, _, _ = _best_of(partial(system.predict_one, text), min_passes=1)
        seconds.append(best)
        measured.append((size, best))
        del text
        gc.collect()
    return {
        "sizes": list(sizes),
        "seconds": seconds,
        "skipped": skipped,
        "exponent": fit_exponent(sizes, seconds),
        "fit_range": list(FIT_RANGE),
    }


def _per_doc_us(run: Callable[[], Any], documents: int) -> float:
    """Microseconds per document of ``run``, the fastest of :data:`MAX_PASSES` passes.

    Process CPU time, not wall time: on a shared machine another process's work would
    otherwise land in whichever part was running (the parts are too short to repeat
    until the noise averages out).
    """
    best = float("inf")
    for _ in range(MAX_PASSES):
        started = time.process_time()
        run()
        best = min(best, time.process_time() - started)
    return best / max(1, documents) * 1e6


def _run_each(component: Callable[[Any], Any], docs: list[Any]) -> list[Any]:
    return [component(doc) for doc in docs]


def _find_each(find: Callable[..., Any], texts: Sequence[str], detectors: list[Any]) -> list[Any]:
    return [find(text, detectors) for text in texts]


def rule_breakdown(texts: Sequence[str]) -> dict[str, Any]:
    """Where a short document's time goes in the rule lane, in microseconds per document.

    ``pipeline``: the tokenizer and each component run by hand, in order, and the whole
    ``nlp.pipe`` (the difference is spaCy's batching). ``pii_rules``: the text join
    (``doc.text``), :func:`find_hits`, and the rest (token splitting and the span group).
    ``find_hits``: the pre-scan with no detector, then what each detector adds in place,
    measured by leaving it out (its gate, its scan and its share of the caches).
    """
    from ..assembly.build import rules_pipeline
    from ..detectors import find_hits

    nlp = rules_pipeline()
    rules: Any = nlp.get_pipe("pii_rules")  # spaCy types pipes as plain callables
    detectors = list(rules._detectors)
    n = len(texts)
    for text in texts:  # warm the vocabulary: the timed rows are measured warm too
        nlp.make_doc(text)
    pipeline: dict[str, float] = {}
    pipeline["tokenizer"] = _per_doc_us(lambda: [nlp.make_doc(t) for t in texts], n)

    def rules_pass() -> None:
        # A doc split once stays split: each pass runs on fresh docs, tokenizer subtracted.
        for text in texts:
            rules(nlp.make_doc(text))

    pipeline["pii_rules"] = max(0.0, _per_doc_us(rules_pass, n) - pipeline["tokenizer"])
    docs = [rules(nlp.make_doc(t)) for t in texts]
    for name, component in nlp.pipeline:
        if name != "pii_rules":
            pipeline[name] = _per_doc_us(partial(_run_each, component, docs), n)
    pipeline["nlp.pipe in all"] = _per_doc_us(lambda: list(nlp.pipe(texts)), n)
    whole = [nlp.make_doc(t) for t in texts]
    in_rules: dict[str, float] = {}
    in_rules["doc.text"] = _per_doc_us(lambda: [doc.text for doc in whole], n)
    in_rules["find_hits"] = _per_doc_us(lambda: [find_hits(t, detectors) for t in texts], n)
    in_rules["token splits and span group"] = max(
        0.0, pipeline["pii_rules"] - in_rules["doc.text"] - in_rules["find_hits"]
    )
    inside: dict[str, float] = {}
    inside["fold, pre-scan, loop (no detector)"] = _per_doc_us(
        lambda: [find_hits(t, []) for t in texts], n
    )
    for index, detector in enumerate(detectors):
        rest = detectors[:index] + detectors[index + 1 :]
        without = _per_doc_us(partial(_find_each, find_hits, texts, rest), n)
        inside[detector.id] = max(0.0, in_rules["find_hits"] - without)
    return {"documents": n, "pipeline": pipeline, "pii_rules": in_rules, "find_hits": inside}
