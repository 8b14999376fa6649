"""Steady speed and memory of a pipeline over 10,000 short texts, with and without a memory zone.

    python training/steady_state.py spacy_pii/models/en_pii_default \
        --output metrics/steady_state.json

A service runs one pipeline for days, so what matters is whether docs/s and resident memory
stay flat once it is warm, not the figure of one pass. The texts are the short lines (at most
200 characters) of presidio-research synth v2 and WNUT-17 dev, taken in turn from each file,
cycling, so every run sees the same 10,000 texts in the same order.

Each mode runs in a fresh Python process, so that the memory one mode leaves behind does not
count against the other:

* ``plain``: one ``nlp.pipe`` call per window of 500 texts;
* ``memory_zone``: the same calls, each inside ``with nlp.memory_zone():``, which frees at its
  end the strings and lexemes its docs added to the vocab (spaCy 3.8). A zone must close
  between whole ``nlp.pipe`` calls (a doc made in it is invalid after it), which is why
  both modes call ``nlp.pipe`` once per window: the zone is then the only difference.

After every window the process records the window's docs/s (on wall-clock and on its own
CPU time, which other load on shared cores does not stretch) and its resident set size.
By default the process hides the entry points of spacy-transformers and Presidio, as a
plain install of spacy-pii would not have them (see ``--as-installed``).
:func:`summarize` turns those windows into the report and the verdict; it is plain arithmetic
and imports nothing from spaCy, so ``tests/test_steady_state.py`` checks it without a model.
"""

from __future__ import annotations

import json
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SOURCES = (
    REPO / "corpus" / "external" / "presidio_research_synth_v2.jsonl",
    REPO / "corpus" / "external" / "wnut17_dev.jsonl",
)
MODES = ("plain", "memory_zone")

# What "steady" means here, the target the run is held to: over the second half of the run
# RSS grows by less than 5%, and the last window's docs/s lies within 20% of the median
# window's.
RSS_GROWTH_LIMIT = 0.05
SPEED_TOLERANCE = 0.20
# Bytes per MB, as in spacy_pii.assembly.release.directory_mb (10**6, not 2**20).
MB = 1e6


@dataclass(frozen=True, slots=True)
class Window:
    """One measured window.

    Attributes:
        docs: documents processed from the start of the run to the end of this window.
        seconds: wall-clock time of this window alone.
        rss_mb: resident set size right after this window, in MB.
        cpu_seconds: CPU time this process spent in the window (all its threads), or
            ``None``. On shared cores other processes stretch the wall time, not this.
    """

    docs: int
    seconds: float
    rss_mb: float
    cpu_seconds: float | None = None


def rss_at(windows: Sequence[Window], docs: float) -> float | None:
    """RSS after the first window that reaches ``docs`` documents; ``None`` if none does."""
    for window in windows:
        if window.docs >= docs:
            return window.rss_mb
    return None


def least_squares_slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Slope of the ordinary least-squares line through the points; ``None`` below two xs."""
    if len(xs) != len(ys):
        raise ValueError("xs and ys differ in length")
    if len(set(xs)) < 2:
        return None
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
    numerator = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    denominator = sum((x - mean_x) ** 2 for x in xs)
    return numerator / denominator


def rate_stats(rates: Sequence[float]) -> dict[str, Any]:
    """Docs/s of each window, of the first and last, the median, and last against median."""
    median = statistics.median(rates)
    return {
        "docs_per_s": [round(r, 1) for r in rates],
        "first": round(rates[0], 1),
        "last": round(rates[-1], 1),
        "median": round(median, 1),
        "last_vs_median": round(rates[-1] / median - 1.0, 4),
    }


def summarize(
    windows: Sequence[Window],
    *,
    rss_growth_limit: float = RSS_GROWTH_LIMIT,
    speed_tolerance: float = SPEED_TOLERANCE,
    speed_basis: str = "wall",
) -> dict[str, Any]:
    """Window statistics, the RSS slope over the second half, and the verdict.

    The second half starts at the first window that reaches half the documents; its RSS
    is the baseline for the growth, and the slope is fitted over that window and every
    later one, in MB per 1,000 documents. The run is ``steady`` when that growth is below
    ``rss_growth_limit`` and the last window's docs/s is within ``speed_tolerance`` of the
    median window's; otherwise ``not steady``, with the reasons. ``speed_basis`` ``wall``
    divides by wall-clock seconds (the issue's docs/s), ``cpu`` by the process's CPU
    seconds, which other load on shared cores does not stretch. The verdict on each basis
    is in ``verdict_by_basis`` (``cpu`` only when every window has CPU time).

    Raises:
        ValueError: no windows, documents that do not increase, a window without time,
            or a ``cpu`` basis without CPU times.
    """
    if not windows:
        raise ValueError("no windows to summarize")
    if speed_basis not in ("wall", "cpu"):
        raise ValueError("speed_basis must be 'wall' or 'cpu'")
    wall: list[float] = []
    cpu: list[float] | None = []
    previous = 0
    for window in windows:
        if window.docs <= previous:
            raise ValueError("window document counts must increase")
        if window.seconds <= 0:
            raise ValueError("a window must take some time")
        wall.append((window.docs - previous) / window.seconds)
        if cpu is not None and window.cpu_seconds is not None and window.cpu_seconds > 0:
            cpu.append((window.docs - previous) / window.cpu_seconds)
        else:
            cpu = None
        previous = window.docs
    if speed_basis == "cpu" and cpu is None:
        raise ValueError("a cpu speed basis needs the CPU time of every window")
    total = windows[-1].docs
    half = next(i for i, w in enumerate(windows) if w.docs >= total / 2)
    second_half = windows[half:]
    rss_half, rss_end = second_half[0].rss_mb, windows[-1].rss_mb
    growth = (rss_end - rss_half) / rss_half
    slope = least_squares_slope([w.docs for w in second_half], [w.rss_mb for w in second_half])
    memory_reasons = []
    if growth >= rss_growth_limit:
        memory_reasons.append(
            f"RSS grew {growth:.1%} over the second half (limit {rss_growth_limit:.0%})"
        )
    speed = {"wall": rate_stats(wall), "cpu": None if cpu is None else rate_stats(cpu)}
    by_basis = {}
    for basis, stats in speed.items():
        if stats is None:
            continue
        reasons = list(memory_reasons)
        if abs(stats["last_vs_median"]) > speed_tolerance:
            reasons.append(
                f"last window {stats['last_vs_median']:+.1%} from the median docs/s "
                f"({basis} time; tolerance {speed_tolerance:.0%})"
            )
        by_basis[basis] = {"verdict": "not steady" if reasons else "steady", "reasons": reasons}
    return {
        "docs": total,
        "windows": len(windows),
        "docs_per_s": speed["wall"]["docs_per_s"],
        "first_docs_per_s": speed["wall"]["first"],
        "last_docs_per_s": speed["wall"]["last"],
        "median_docs_per_s": speed["wall"]["median"],
        "last_vs_median": speed["wall"]["last_vs_median"],
        "cpu_speed": speed["cpu"],
        "rss_mb_at_1k": _round(rss_at(windows, 1000)),
        "rss_mb_at_half": _round(rss_half),
        "rss_mb_at_end": _round(rss_end),
        "rss_growth_second_half": round(growth, 4),
        "rss_slope_mb_per_1k_docs_second_half": None if slope is None else round(slope * 1000, 3),
        "speed_basis": speed_basis,
        "verdict": by_basis[speed_basis]["verdict"],
        "reasons": by_basis[speed_basis]["reasons"],
        "verdict_by_basis": by_basis,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


# -- measuring (spaCy is imported only here) --------------------------------------------------


def current_rss_mb() -> tuple[float, str]:
    """This process's resident set size in MB, and where the figure came from.

    Linux: ``VmRSS`` from ``/proc/self/status`` (kB), the current resident size, which can
    fall as well as rise. Elsewhere the fallback is ``resource.getrusage``'s ``ru_maxrss``
    (bytes on macOS, kB on other systems): the *peak* RSS, which never falls, so a run there
    can show growth but not recovery.
    """
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / MB, "VmRSS"
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (peak if sys.platform == "darwin" else peak * 1024) / MB, "ru_maxrss (peak)"


def read_texts(path: Path, max_chars: int) -> list[str]:
    """The non-empty texts of at most ``max_chars`` characters in a JSONL file, in file order."""
    texts = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                text = json.loads(line).get("text")
                if isinstance(text, str) and 0 < len(text) <= max_chars:
                    texts.append(text)
    return texts


def cycle_texts(pools: Sequence[Sequence[str]], n: int) -> list[str]:
    """``n`` texts taken from each pool in turn, each pool cycling when it runs out."""
    pools = [pool for pool in pools if pool]
    if not pools:
        raise ValueError("no texts to draw from")
    texts = []
    for i in range(n):
        pool = pools[i % len(pools)]
        texts.append(pool[(i // len(pools)) % len(pool)])
    return texts


def measure(
    model: str,
    texts: Sequence[str],
    *,
    mode: str,
    window: int,
    batch_size: int | None,
    isolated: bool,
) -> dict[str, Any]:
    """Load ``model`` in this process and time ``texts`` window by window."""
    if isolated:
        # A plain install of spacy-pii has neither spacy-transformers nor Presidio; in this
        # shared environment their entry points would import torch (about 450 MB, measured
        # by the benchmark) into a pipeline that never uses it.
        from spacy_pii.benchmark.probe import isolate

        isolate("default")
    import spacy

    import spacy_pii

    start = time.perf_counter()
    nlp = spacy_pii.load(model)
    load_s = time.perf_counter() - start
    batch = batch_size or nlp.batch_size
    rss_loaded, source = current_rss_mb()
    windows: list[Window] = []
    spans = 0
    for offset in range(0, len(texts), window):
        chunk = texts[offset : offset + window]
        start, cpu_start = time.perf_counter(), time.process_time()
        if mode == "memory_zone":
            with nlp.memory_zone():
                spans += _consume(nlp.pipe(chunk, batch_size=batch))
        else:
            spans += _consume(nlp.pipe(chunk, batch_size=batch))
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        rss = current_rss_mb()[0]
        windows.append(
            Window(offset + len(chunk), round(seconds, 4), round(rss, 3), round(cpu_seconds, 4))
        )
    return {
        "mode": mode,
        "spacy": spacy.__version__,
        "batch_size": batch,
        "load_s": round(load_s, 2),
        "rss_mb_after_load": rss_loaded,
        "rss_source": source,
        "torch_imported": "torch" in sys.modules and sys.modules["torch"] is not None,
        "pii_spans": spans,
        "windows": [asdict(w) for w in windows],
    }


def _consume(docs: Iterable[Any]) -> int:
    # Read the output as a caller would, so no lazily built part of a doc goes unmeasured.
    return sum(len(doc.spans["pii"]) for doc in docs)


def _run_worker(args: list[str]) -> dict[str, Any]:
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    if completed.returncode != 0:
        # The worker's stderr holds tracebacks and spaCy's messages, never corpus text.
        sys.stderr.write(completed.stderr[-4000:])
        raise typer.Exit(completed.returncode)
    return json.loads(completed.stdout.strip().splitlines()[-1])


Opt = typer.Option


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or spacy_pii.load name.")] = "default",
    output: Annotated[Path, Opt(help="JSON report.")] = Path("metrics/steady_state.json"),
    source: Annotated[
        list[Path] | None, Opt(exists=True, dir_okay=False, help="JSONL texts; repeatable.")
    ] = None,
    n_docs: Annotated[int, Opt(min=1)] = 10_000,
    window: Annotated[int, Opt(min=1, help="Documents per measured window.")] = 500,
    max_chars: Annotated[int, Opt(min=1, help="Longest text drawn.")] = 200,
    batch_size: Annotated[
        int | None, Opt(min=1, help="nlp.pipe batch size; default: the pipeline's own.")
    ] = None,
    modes: Annotated[str, Opt(help="Comma-separated: plain, memory_zone.")] = ",".join(MODES),
    isolated: Annotated[
        bool, Opt("--isolated/--as-installed", help="Hide torch and foreign entry points.")
    ] = True,
    speed_basis: Annotated[
        str, Opt(help="Verdict on docs per wall second (wall) or per CPU second (cpu).")
    ] = "wall",
    worker: Annotated[str | None, Opt(hidden=True)] = None,
) -> None:
    """Measure docs/s and RSS per window, per mode, and write the report."""
    sources = [Path(p) for p in (source or DEFAULT_SOURCES)]
    pools = [read_texts(path, max_chars) for path in sources]
    texts = cycle_texts(pools, n_docs)
    if worker is not None:
        result = measure(
            model, texts, mode=worker, window=window, batch_size=batch_size, isolated=isolated
        )
        typer.echo(json.dumps(result))
        return
    if speed_basis not in ("wall", "cpu"):
        raise typer.BadParameter("speed-basis must be 'wall' or 'cpu'")
    chosen = [m.strip() for m in modes.split(",") if m.strip()]
    unknown = sorted(set(chosen) - set(MODES))
    if unknown or not chosen:
        raise typer.BadParameter(f"modes must be among {list(MODES)}")
    shared = [model, "--n-docs", str(n_docs), "--window", str(window)]
    shared += ["--max-chars", str(max_chars), "--isolated" if isolated else "--as-installed"]
    shared += [arg for path in sources for arg in ("--source", str(path))]
    if batch_size is not None:
        shared += ["--batch-size", str(batch_size)]
    runs = {}
    for mode in chosen:
        typer.echo(f"{mode}: {n_docs} texts in a fresh process ...", err=True)
        run = _run_worker([*shared, "--worker", mode])
        run["summary"] = summarize([Window(**w) for w in run["windows"]], speed_basis=speed_basis)
        runs[mode] = run
        s = run["summary"]
        typer.echo(
            f"{mode}: docs/s first {s['first_docs_per_s']} last {s['last_docs_per_s']} "
            f"median {s['median_docs_per_s']}; RSS MB at 1k {s['rss_mb_at_1k']} "
            f"at {s['docs']} {s['rss_mb_at_end']}; slope "
            f"{s['rss_slope_mb_per_1k_docs_second_half']} MB/1k docs; {s['verdict']}"
        )
        if s["cpu_speed"] is not None:
            c = s["cpu_speed"]
            typer.echo(
                f"{mode}: per CPU second first {c['first']} last {c['last']} median "
                f"{c['median']}; {s['verdict_by_basis']['cpu']['verdict']} on CPU time"
            )
    report = {
        "kind": "spacy-pii.steady_state",
        "model": model,
        "texts": {
            "sources": [p.name for p in sources],
            "n": n_docs,
            "max_chars": max_chars,
            # After the distinct texts are used up, no text brings a new string to the vocab.
            "distinct": len(set(texts)),
            "chars": sum(len(t) for t in texts),
        },
        "window": window,
        "criteria": {"rss_growth_limit": RSS_GROWTH_LIMIT, "speed_tolerance": SPEED_TOLERANCE},
        "environment": {
            "python": platform.python_version(),
            "machine": platform.machine(),
            "isolated": isolated,
        },
        "runs": runs,
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    typer.echo(f"report: {output}")


if __name__ == "__main__":
    typer.run(main)
