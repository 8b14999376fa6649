"""The ``spacy-pii`` command line. Each command parses options and calls the package.

Exit codes: 0 success; 1 a control failed (the gate, calibration failing closed, or a
benchmark target under ``--check``);
2 bad input (a malformed file, an unknown label, a bad option). Errors name files, line
numbers, labels and counts, never source text.

Why this module is over 400 lines: one module holds typer's ``app`` and every command; each
command is a thin wrapper over the package, and most of the length is their options and
help.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from pydantic import ValidationError

from ..benchmark import DEFAULT_CORPORA, SYSTEM_NAMES
from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import PiiError
from ..evaluation.documents import Document, describe_validation_error, read_documents
from ..evaluation.scoring import EvaluationResult

if TYPE_CHECKING:
    from spacy.language import Language

app = typer.Typer(
    name="spacy-pii",
    help="Find, score, gate, calibrate and redact PII spans.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

METRICS_KIND = "spacy-pii.metrics"
F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _typed_errors(func: F) -> F:
    """Turn the package's typed errors into a one-line message and exit code 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PiiError as err:
            raise _fail(f"{type(err).__name__}: {err}", 2) from None
        except ValidationError as err:
            raise _fail(describe_validation_error(err), 2) from None

    return wrapper  # type: ignore[return-value]


# -- shared helpers (thin; the logic is in scoring, gate, calibration and report) --------------

Gold = Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Gold JSONL.")]
ModelOpt = Annotated[
    str | None, typer.Option("--model", help="'rules', 'wide', an installed pipeline or a path.")
]
PredOpt = Annotated[
    Path | None,
    typer.Option("--pred", exists=True, dir_okay=False, help="Predictions JSONL, gold order."),
]
FloorOpt = Annotated[list[str] | None, typer.Option("--floor", help="LABEL=VALUE; repeatable.")]
SupportOpt = Annotated[
    int | None,
    typer.Option("--min-support", min=1, help="Gold spans each gated label needs."),
]


def _progress(items: Iterator[Any], total: int, desc: str) -> Iterator[Any]:
    from tqdm import tqdm

    # stderr, and silent when stderr is not a terminal, so logs stay clean.
    yield from tqdm(items, total=total, desc=desc, unit="doc", file=sys.stderr, disable=None)


def predict_with_model(
    name: str | Language, gold_docs: list[Document], taxonomy: Taxonomy, batch_size: int = 64
) -> list[Document]:
    """Run a pipeline (a name for :func:`spacy_pii.load`, or one already built) over the
    gold texts and read ``doc.spans["pii"]`` and its scores."""
    from ..assembly.build import load_pipeline

    nlp = load_pipeline(name) if isinstance(name, str) else name
    texts = (d.text for d in gold_docs)
    predicted = []
    for doc in _progress(nlp.pipe(texts, batch_size=batch_size), len(gold_docs), "predict"):
        group = doc.spans.get("pii", [])
        scores = list(group.attrs.get("scores", [])) if len(group) else []
        spans = [
            {
                "start": span.start_char,
                "end": span.end_char,
                "label": span.label_,
                "score": scores[i] if i < len(scores) else None,
            }
            for i, span in enumerate(group)
        ]
        predicted.append(Document.from_raw(doc.text, spans, taxonomy=taxonomy))
    return predicted


def _predictions(
    gold_docs: list[Document], model: str | None, pred: Path | None, taxonomy: Taxonomy
) -> list[Document]:
    if (model is None) == (pred is None):
        raise _fail("give exactly one of --model or --pred", 2)
    if model is not None:
        return predict_with_model(model, gold_docs, taxonomy)
    assert pred is not None
    pred_docs = read_documents(pred, taxonomy=taxonomy)
    if len(pred_docs) != len(gold_docs):
        raise _fail(f"{pred.name} has {len(pred_docs)} lines, the gold file {len(gold_docs)}", 2)
    for number, (g, p) in enumerate(zip(gold_docs, pred_docs, strict=True), start=1):
        if g.text != p.text:
            raise _fail(f"{pred.name} line {number}: text differs from gold line {number}", 2)
    return pred_docs


# -- commands -----------------------------------------------------------------------------------


@app.command()
@_typed_errors
def evaluate(
    gold: Gold,
    model: ModelOpt = None,
    pred: PredOpt = None,
    output: Annotated[Path | None, typer.Option("--output", help="Metrics JSON.")] = None,
    report: Annotated[Path | None, typer.Option("--report", help="HTML report.")] = None,
    markdown: Annotated[Path | None, typer.Option("--markdown", help="Markdown report.")] = None,
    show_values: Annotated[
        bool, typer.Option("--show-values", help="Put raw PII values in outputs.")
    ] = False,
    min_support: SupportOpt = None,
    floor: FloorOpt = None,
    context: Annotated[int, typer.Option(min=0, help="Context characters per side.")] = 40,
) -> None:
    """Score predictions against gold spans; print scores and the gate's verdict."""
    from ..evaluation import gate as gate_mod
    from ..evaluation import report as report_mod
    from ..evaluation.calibration import labels_from_predictions, sweep_by_label
    from ..evaluation.scoring import evaluate as score

    taxonomy = load_taxonomy()
    gold_docs = read_documents(gold, taxonomy=taxonomy)
    pred_docs = _predictions(gold_docs, model, pred, taxonomy)
    result = score(
        gold_docs, pred_docs, taxonomy=taxonomy, context_chars=context, show_values=show_values
    )
    floors = gate_mod.parse_floors(floor or [], taxonomy)
    verdict = gate_mod.run_gate(result, floors=floors, min_support=min_support, taxonomy=taxonomy)
    typer.echo(report_mod.format_table(result, verdict))
    if output is not None:
        metrics = {
            "kind": METRICS_KIND,
            "inputs": {"gold": gold.name, "model": model, "pred": pred.name if pred else None},
            "evaluation": result.to_dict(),
            "gate": verdict.to_dict(),
        }
        output.write_text(json.dumps(metrics, indent=2, ensure_ascii=False) + "\n", "utf-8")
    if report is not None or markdown is not None:
        curves = sweep_by_label(labels_from_predictions(gold_docs, pred_docs))
        if report is not None:
            views = report_mod.error_views(
                gold_docs, pred_docs, context_chars=context, show_values=show_values
            )
            report_mod.write_html(
                report, result, verdict, curves=curves, views=views, show_values=show_values
            )
        if markdown is not None:
            report_mod.write_markdown(
                markdown, result, verdict, curves=curves, show_values=show_values
            )


def load_metrics(path: Path) -> EvaluationResult:
    """The evaluation inside a metrics JSON written by ``evaluate``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise _fail(f"{path.name} is not valid JSON (line {err.lineno})", 2) from None
    if not isinstance(data, dict) or data.get("kind") != METRICS_KIND:
        raise _fail(f"{path.name} is not a spacy-pii metrics file", 2)
    return EvaluationResult.model_validate(data.get("evaluation"))


@app.command()
@_typed_errors
def gate(
    metrics: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Metrics JSON.")],
    floor: FloorOpt = None,
    min_support: SupportOpt = None,
) -> None:
    """Exit 1 when a gated label's recall is below its floor or its support too small."""
    from ..evaluation import gate as gate_mod
    from ..evaluation.report import format_table

    taxonomy = load_taxonomy()
    result = load_metrics(metrics)
    floors = gate_mod.parse_floors(floor or [], taxonomy)
    verdict = gate_mod.run_gate(result, floors=floors, min_support=min_support, taxonomy=taxonomy)
    typer.echo(format_table(result, verdict))
    for failure in verdict.failures:
        typer.echo(f"FAIL {failure.label}: {failure.reason}", err=True)
    if not verdict.passed:
        raise typer.Exit(1)


@app.command()
@_typed_errors
def calibrate(
    dev: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Held-out dev JSONL.")],
    calibration_version: Annotated[
        str, typer.Option("--calibration-version", help="Hash of the model calibrated.")
    ],
    eval_set_version: Annotated[
        str, typer.Option("--eval-set-version", help="Version of the dev set.")
    ],
    model: ModelOpt = None,
    pred: PredOpt = None,
    floor: FloorOpt = None,
    min_support: SupportOpt = None,
    output: Annotated[Path | None, typer.Option("--output", help="Policy JSON.")] = None,
) -> None:
    """Pick per-label thresholds that keep recall above its floor; fail closed (exit 1)."""
    from ..evaluation.calibration import CalibrationError, labels_from_predictions, reliability
    from ..evaluation.calibration import calibrate as run_calibration
    from ..evaluation.gate import parse_floors

    taxonomy = load_taxonomy()
    gold_docs = read_documents(dev, taxonomy=taxonomy)
    pred_docs = _predictions(gold_docs, model, pred, taxonomy)
    try:
        policy = run_calibration(
            gold_docs,
            pred_docs,
            eval_set_version=eval_set_version,
            calibration_version=calibration_version,
            floors=parse_floors(floor or [], taxonomy),
            min_support=min_support,
            taxonomy=taxonomy,
        )
    except CalibrationError as err:
        raise _fail(str(err), 1) from None
    spans = labels_from_predictions(gold_docs, pred_docs)
    for label, entry in policy.labels.items():
        ece = reliability(s for s in spans if s.label == label).ece
        typer.echo(
            f"{label}: threshold {entry.threshold:.4f}  P {entry.measured_precision:.3f}  "
            f"R {entry.measured_recall:.3f} (floor {entry.recall_floor:.2f}, n={entry.support})"
            f"  ECE {ece:.3f}"
        )
    if output is not None:
        policy.save(output)


# -- redact: the logic is in spacy_pii.io.stream --------------------------------------------------


def _read_operators(value: str | None) -> dict[str, Any] | None:
    """``--operators``: inline JSON (starts with ``{``) or the path of a JSON file."""
    if value is None:
        return None
    try:
        text = value if value.lstrip().startswith("{") else Path(value).read_text("utf-8")
    except OSError:
        raise _fail(f"--operators: cannot read {Path(value).name}", 2) from None
    try:
        operators = json.loads(text)
    except json.JSONDecodeError as err:
        raise _fail(f"--operators is not valid JSON (line {err.lineno})", 2) from None
    if not isinstance(operators, dict):
        raise _fail("--operators must be a JSON object: {TYPE: operator}", 2)
    return operators


def _input_format(source: str, fmt: str | None) -> str:
    if fmt is not None:
        return fmt
    suffix = Path(source).suffix.lower() if source != "-" else ".jsonl"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix == ".txt":
        return "text"
    raise _fail(f"cannot tell the format of {Path(source).name}; pass --format jsonl|text", 2)


@app.command()
@_typed_errors
def redact(
    source: Annotated[str, typer.Argument(help="JSONL or text file; '-' reads stdin.")],
    output: Annotated[str, typer.Option("-o", "--output", help="JSONL out; '-' = stdout.")] = "-",
    text_field: Annotated[str, typer.Option("--text-field", help="JSONL text field.")] = "text",
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="jsonl | text (one doc per line). Default: .txt or .jsonl; stdin: jsonl.",
        ),
    ] = None,
    model: Annotated[str, typer.Option("--model", help="rules, default, a name or path.")] = (
        "default"
    ),
    n_process: Annotated[int, typer.Option("--n-process", min=1)] = 1,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Docs per batch.")] = 256,
    operators: Annotated[
        str | None, typer.Option("--operators", help="JSON object or JSON file: TYPE -> op.")
    ] = None,
    key_env: Annotated[
        str, typer.Option("--key-env", help="Env variable holding the hash/fake key.")
    ] = "SPACY_PII_KEY",
    vault: Annotated[
        Path | None, typer.Option("--vault", dir_okay=False, help="Write the vault here.")
    ] = None,
    include_values: Annotated[
        bool, typer.Option("--include-values", help="Put span values (not secrets) in output.")
    ] = False,
    keep: Annotated[
        list[str] | None, typer.Option("--keep", help="JSONL field to copy as-is; repeatable.")
    ] = None,
    on_error: Annotated[str, typer.Option("--on-error", help="skip | fail")] = "skip",
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue after the last complete output line.")
    ] = False,
    risk: Annotated[bool, typer.Option("--risk", help="Add quasi-identifier findings.")] = False,
    window_chars: Annotated[
        int | None,
        typer.Option(
            "--window-chars",
            min=1,
            help="Deprecated: the pipeline's components now bound their own memory on "
            "long texts (docs/long-documents.md), so windows are no longer needed for "
            "memory. Still works: runs texts longer than N characters with the model in "
            "windows of N (rules and merge on the whole text), and takes texts up to ten "
            "times the pipeline's max_length instead of refusing them; --max-length does "
            "the latter alone.",
        ),
    ] = None,
    max_length: Annotated[
        int | None,
        typer.Option(
            "--max-length",
            min=1,
            help="Longest text in characters; a longer line becomes a too_long record. "
            "Default: the pipeline's nlp.max_length.",
        ),
    ] = None,
) -> None:
    """Redact a JSONL or text file: one output record per input line, in order.

    A line that cannot be processed becomes {"line": N, "error": KIND}; see spacy_pii.io.stream.
    """
    from .stream import StreamFailed, StreamOptions, load_redaction_pipeline, redact_file

    opts = StreamOptions(
        fmt=_input_format(source, fmt),
        text_field=text_field,
        keep_fields=tuple(keep or ()),
        include_values=include_values,
        risk=risk,
        on_error=on_error,
        batch_size=batch_size,
        n_process=n_process,
        window_chars=window_chars,
    )
    if source != "-" and not Path(source).is_file():
        raise _fail(f"no input file {Path(source).name}", 2)
    nlp = load_redaction_pipeline(
        model, operators=_read_operators(operators), key_env=key_env, risk=risk
    )
    if max_length is not None:
        # The cost bound per line: every component is linear, so time is bounded too.
        nlp.max_length = max_length
    try:
        stats = redact_file(nlp, source, output, opts, vault=vault, resume=resume)
    except StreamFailed as err:
        raise _fail(f"{Path(source).name} {err}", 2) from None
    except BrokenPipeError:
        # The reader went away (`| head`): stop quietly, as Unix filters do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(1) from None
    for line in stats.summary():
        typer.echo(line, err=True)


def _process_counts(value: str) -> list[int]:
    try:
        counts = [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise _fail("--n-process takes comma-separated whole numbers, e.g. 1,2", 2) from None
    if not counts or min(counts) < 1:
        raise _fail("--n-process needs at least one count, each 1 or more", 2)
    return counts


@app.command()
@_typed_errors
def benchmark(
    out_dir: Annotated[Path, typer.Option("--out-dir", help="Where the reports go.")] = Path(
        "metrics/benchmark"
    ),
    corpus: Annotated[
        list[Path] | None,
        typer.Option(
            "--corpus",
            exists=True,
            dir_okay=False,
            help="Gold JSONL; repeatable. Default: presidio synth v2 and WNUT-17 dev.",
        ),
    ] = None,
    systems: Annotated[
        str, typer.Option("--systems", help=f"Comma-separated rows: {', '.join(SYSTEM_NAMES)}.")
    ] = ",".join(SYSTEM_NAMES),
    default: Annotated[
        Path | None, typer.Option("--default", help="Trained pipeline for the default row.")
    ] = None,
    trf: Annotated[
        Path | None, typer.Option("--trf", help="Transformer pipeline for the trf row.")
    ] = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="At most N documents per corpus file.")
    ] = None,
    quick: Annotated[
        bool, typer.Option("--quick", help="Smoke run: fewer documents, smaller sizes.")
    ] = False,
    n_process: Annotated[
        str, typer.Option("--n-process", help="Process counts for throughput, comma-separated.")
    ] = "1,2",
    no_probe: Annotated[
        bool, typer.Option("--no-probe", help="Skip the fresh-process load/RSS probes.")
    ] = False,
    profile: Annotated[
        bool, typer.Option("--profile", help="Write a cProfile of each row into --out-dir.")
    ] = False,
    check: Annotated[
        bool,
        typer.Option("--check", "--strict", help="Exit 1 when a target check FAILs."),
    ] = False,
) -> None:
    """Benchmark spacy-pii against Presidio and scrubadub on the same texts, in one process.

    Writes benchmark.json, .md and .png into --out-dir and prints each target with its
    verdict: rules chars/s at least 50x Presidio full, 5x Presidio's pattern recognizers
    and 1x scrubadub, with structured F1 no lower; default chars/s at least 3x Presidio
    full, with a higher micro F1; a cost exponent of at most 1.1 from 10k to 1M characters
    for every spacy-pii row; the default pipeline's peak RSS at most 600 MB on short texts
    and 1 GB on one 1M-character document. With --check, a FAIL exits 1.
    A row that cannot run here (no pipeline, no Presidio) is skipped with a reason.
    """
    from ..benchmark import format_checks, run_benchmark, write_outputs

    rows = [name.strip() for name in systems.split(",") if name.strip()]
    unknown = [name for name in rows if name not in SYSTEM_NAMES]
    if unknown or not rows:
        raise _fail(f"--systems: unknown rows {unknown}; choose from {list(SYSTEM_NAMES)}", 2)
    counts = _process_counts(n_process)
    corpora = list(corpus) if corpus else [Path(p) for p in DEFAULT_CORPORA]
    missing = [path for path in corpora if not path.is_file()]
    if missing:
        raise _fail(f"no corpus file {missing[0]}; run from the repository or pass --corpus", 2)
    results = run_benchmark(
        corpora=corpora,
        systems=rows,
        default_path=default,
        trf_path=trf,
        limit=limit,
        quick=quick,
        n_process=counts,
        probe_load=not no_probe,
        profile_to=out_dir if profile else None,
        log=lambda line: typer.echo(line, err=True),
    )
    written = write_outputs(results, out_dir)
    typer.echo(format_checks(results["checks"]))
    for kind, path in written.items():
        typer.echo(f"{kind}: {path}")
    if check and any(item["verdict"] == "FAIL" for item in results["checks"]):
        raise typer.Exit(1)


# -- serve: the logic is in spacy_pii.serve ----------------------------------------------------

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind; keep it on localhost.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=1, max=65535)] = 8000,
    model: Annotated[
        list[str] | None,
        typer.Option("--model", help="Another pipeline: PATH, package or NAME=PATH; repeatable."),
    ] = None,
    max_chars: Annotated[
        int, typer.Option("--max-chars", min=1, help="The longest text a request may carry.")
    ] = 20_000,
) -> None:
    """Serve the demo page and its JSON API (needs the demo extra: FastAPI, uvicorn).

    It binds to localhost, is meant for fake or local data, and stores nothing.
    """
    try:
        import uvicorn

        from ..serve.app import create_app
    except ImportError:
        raise _fail("serve needs the demo extra: pip install 'spacy-pii[demo]'", 2) from None
    if host in LOOPBACK_HOSTS:
        allowed = [*LOOPBACK_HOSTS, "[::1]"]
    else:
        typer.echo(
            f"warning: binding to {host}: anyone who can reach it can use the service", err=True
        )
        allowed = None
    web_app = create_app(models=tuple(model or ()), max_chars=max_chars, allowed_hosts=allowed)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"spacy-pii demo on http://{shown}:{port}/ (Ctrl+C stops it)", err=True)
    # The app logs each request by path and status; uvicorn's access log would add the
    # query string, where a text could sit.
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(name)s: %(message)s")
    uvicorn.run(web_app, host=host, port=port, log_level="info", access_log=False)


# Table commands (scan, redact-table, restore-table) live with the tables package.
from ..tables.cli import register as _register_table_commands  # noqa: E402

_register_table_commands(app, _typed_errors)


if __name__ == "__main__":
    app()
