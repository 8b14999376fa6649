"""Load time and peak memory of one system, measured in a fresh process.

A process that has already loaded four pipelines cannot say what one of them costs on its
own, so :func:`measure_load` starts ``python -m spacy_pii.benchmark probe NAME ...``, which
loads the system, runs it over a fixed set of texts and prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .systems import SYSTEM_NAMES, SpacySystem, load_system


def peak_rss_mb() -> float:
    """This process's peak resident set size in MB.

    Linux: ``VmHWM`` from ``/proc/self/status``, the high-water mark of this process's own
    address space. ``ru_maxrss`` is not used there because Linux carries it across
    ``execve`` (getrusage(2)), so a child spawned by a large parent reports the parent's
    peak. Elsewhere ``ru_maxrss`` (bytes on macOS, kilobytes on other systems).
    """
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


# What a plain install of each row would hold. spaCy imports every package's
# ``spacy_factories`` entry points when it builds any pipeline, so in a shared environment
# Presidio's Hugging Face pipe and spacy-transformers' factory pull in torch and
# transformers (measured here: about 25 s and 450 MB) for a pipeline that uses neither.
# Neither is a dependency of spacy-pii, nor of presidio-analyzer (an extra there), so the
# isolated probe hides those entry points and blocks those imports.
_FOREIGN = {
    "rules": ({"presidio-analyzer", "spacy-transformers"}, ("torch", "transformers")),
    "default": ({"presidio-analyzer", "spacy-transformers"}, ("torch", "transformers")),
    "wide": ({"presidio-analyzer", "spacy-transformers"}, ("torch", "transformers")),
    "trf": ({"presidio-analyzer"}, ()),
    "presidio_full": ({"spacy-pii", "spacy-transformers"}, ("torch", "transformers")),
    "presidio_patterns": ({"spacy-pii", "spacy-transformers"}, ("torch", "transformers")),
    # scrubadub imports scikit-learn, whose scipy asks sys.modules for torch: a blocked
    # import breaks it, and nothing imports torch for it, so nothing is blocked.
    "scrubadub": ({"spacy-pii", "presidio-analyzer", "spacy-transformers"}, ()),
}


def _normalise(distribution: str) -> str:
    return distribution.lower().replace("_", "-")


def isolate(name: str) -> None:
    """Hide the spaCy entry points and modules that ``name`` would not have installed.

    Must run before spaCy builds a pipeline (it reads entry points on the first one).
    """
    from importlib.metadata import EntryPoints, entry_points

    import catalogue

    hidden, blocked = _FOREIGN[name]
    found = entry_points()
    kept = [
        point
        for group in found.groups
        for point in found.select(group=group)
        if point.dist is None or _normalise(point.dist.name) not in hidden
    ]
    catalogue.AVAILABLE_ENTRY_POINTS = EntryPoints(kept)
    for module in blocked:
        sys.modules[module] = None  # type: ignore[assignment]  # import now raises ImportError


def probe(
    name: str,
    texts_path: Path,
    spawned_at: float,
    *,
    default_path: str | None = None,
    trf_path: str | None = None,
    batch_size: int | None = None,
    isolated: bool = True,
    through_nlp: bool = False,
) -> dict[str, Any]:
    """Load one system, then run it over the texts in ``texts_path``; runs in the child.

    ``batch_size`` ``None`` means the system's own (``nlp.batch_size`` from its config):
    peak memory grows with the batch, and that is the batch a user gets by default.
    ``through_nlp`` runs our pipelines' long texts through ``nlp`` itself rather than
    through :mod:`spacy_pii.io.windowed` (the CLI's ``--window-chars``).
    """
    if isolated:
        isolate(name)
    system = load_system(name, default_path=default_path, trf_path=trf_path)
    if through_nlp and isinstance(system, SpacySystem):
        system.through_nlp = True
    loaded = time.time() - spawned_at
    rss_loaded = peak_rss_mb()
    texts = json.loads(texts_path.read_text(encoding="utf-8"))
    for text in texts:
        system.allow_length(len(text))
    batch = batch_size or system.default_batch_size
    started = time.perf_counter()
    system.predict(texts, batch_size=batch)
    return {
        "batch_size": batch,
        "seconds": loaded,
        "predict_seconds": time.perf_counter() - started,
        "rss_after_load_mb": rss_loaded,
        "peak_rss_mb": peak_rss_mb(),
        "isolated": isolated,
        "through_nlp": through_nlp,
        "torch_imported": "torch" in sys.modules and sys.modules["torch"] is not None,
    }


def measure_load(
    name: str,
    texts: Sequence[str],
    *,
    default_path: str | None,
    trf_path: str | None,
    batch_size: int | None = None,
    isolated: bool = True,
    through_nlp: bool = False,
    timeout: float = 1800.0,
) -> dict[str, Any]:
    """Load time and peak RSS of ``name`` in a fresh subprocess (see :func:`probe`)."""
    options = ["--batch-size", str(batch_size)] if batch_size else []
    if not isolated:
        options.append("--as-installed")
    if through_nlp:
        options.append("--through-nlp")
    return _child_json(
        ["probe", name], texts, [repr(time.time())], options, default_path, trf_path, timeout
    )


def _child_json(
    head: list[str],
    texts: Sequence[str],
    arguments: list[str],
    options: list[str],
    default_path: str | None,
    trf_path: str | None,
    timeout: float,
) -> dict[str, Any]:
    """Run ``python -m spacy_pii.benchmark HEAD TEXTS ARGUMENTS...`` and read its JSON line.

    The texts travel in a temporary file; an exit other than 0, or no JSON line, is reported
    as an ``error`` entry rather than raised, so one row's failure does not stop the run.
    """
    with tempfile.TemporaryDirectory() as folder:
        texts_path = Path(folder) / "texts.json"
        texts_path.write_text(json.dumps(list(texts)), encoding="utf-8")
        command = [sys.executable, "-m", "spacy_pii.benchmark", *head, str(texts_path)]
        command += [*arguments, *options]
        if default_path:
            command += ["--default", str(default_path)]
        if trf_path:
            command += ["--trf", str(trf_path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": f"{head[0]} child exited with {done.returncode}"}
    return json.loads(lines[-1])


def probe_main(argv: Sequence[str]) -> int:
    """``python -m spacy_pii.benchmark probe NAME TEXTS SPAWNED_AT [...]``: one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m spacy_pii.benchmark probe")
    parser.add_argument("name", choices=SYSTEM_NAMES)
    parser.add_argument("texts", type=Path)
    parser.add_argument("spawned_at", type=float)
    parser.add_argument("--default")
    parser.add_argument("--trf")
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--as-installed", action="store_true")
    parser.add_argument("--through-nlp", action="store_true")
    args = parser.parse_args(argv)
    measured = probe(
        args.name,
        args.texts,
        args.spawned_at,
        default_path=args.default,
        trf_path=args.trf,
        batch_size=args.batch_size,
        isolated=not args.as_installed,
        through_nlp=args.through_nlp,
    )
    print(json.dumps(measured))
    return 0


def measure_growth(
    name: str,
    texts: Sequence[str],
    sizes: Sequence[int],
    cap_seconds: float,
    *,
    default_path: str | None,
    trf_path: str | None,
    timeout: float = 3600.0,
) -> dict[str, Any]:
    """Cost growth of ``name`` (:func:`~.timing.time_growth`) in a fresh subprocess.

    A row that holds a million-character document holds its memory too: run in the
    benchmark's own process, Presidio's spaCy model took it to 3.8 GB, so each row's
    growth runs in a child and reports that child's peak RSS beside the seconds.
    """
    arguments = [",".join(str(size) for size in sizes), repr(cap_seconds)]
    return _child_json(["growth", name], texts, arguments, [], default_path, trf_path, timeout)


def growth_main(argv: Sequence[str]) -> int:
    """``python -m spacy_pii.benchmark growth NAME TEXTS SIZES CAP [...]``: one JSON line."""
    from .timing import time_growth

    parser = argparse.ArgumentParser(prog="python -m spacy_pii.benchmark growth")
    parser.add_argument("name", choices=SYSTEM_NAMES)
    parser.add_argument("texts", type=Path)
    parser.add_argument("sizes")
    parser.add_argument("cap", type=float)
    parser.add_argument("--default")
    parser.add_argument("--trf")
    args = parser.parse_args(argv)
    system = load_system(args.name, default_path=args.default, trf_path=args.trf)
    texts = json.loads(args.texts.read_text(encoding="utf-8"))
    system.predict(texts[:200], batch_size=system.default_batch_size)  # warm, as in-process
    sizes = [int(size) for size in args.sizes.split(",") if size]
    growth = time_growth(system, texts, sizes, args.cap)
    growth["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(growth))
    return 0
