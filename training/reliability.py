"""Reliability diagram and expected calibration error (ECE) of a pipeline's pii_ner scores.

    python training/reliability.py spacy_pii/models/en_pii_default \
        --gold corpus/built/test.jsonl --gold corpus/external/wnut17_dev.jsonl \
        --output metrics/reliability.json --plot metrics/reliability.png

Runs the pipeline over each gold JSONL file and takes every span of
``doc.spans["pii_ner"]`` with its probability (``attrs["scores"]``). A span is correct when
a gold span has its exact offsets and the same type, gold labels folded through the
taxonomy. The bins and the ECE are :func:`spacy_pii.evaluation.calibration.reliability`'s, on
the candidates of :func:`spacy_pii.evaluation.calibration.labels_from_predictions`, per type
and overall.

Only what the model proposes can be binned: ``pii_ner`` keeps a span from its threshold up
(0.5 in the shipped pipeline), so the bins below it stay empty. ``--threshold`` lowers the
component's threshold for this run to see below it. Spans are chosen greedily by
probability, so lowering it adds spans and never removes one kept above it.

A gold set annotates only some types (WNUT-17 has person and corporation, no usernames,
addresses or birth dates): a prediction of a type the set never annotates counts as wrong
there. ``overall_on_gold_types`` leaves those types out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from spacy_pii.assembly.release import predict_documents
from spacy_pii.evaluation.calibration import (
    DEFAULT_RELIABILITY_BINS,
    ScoredSpan,
    labels_from_predictions,
    reliability,
)
from spacy_pii.evaluation.documents import Document, read_documents

REPO = Path(__file__).resolve().parents[1]
# The held-out test split: the training run's copy when there is one, else the built corpus.
DEFAULT_GOLD = (
    REPO / "training" / "output" / "test.jsonl",
    REPO / "corpus" / "built" / "test.jsonl",
)


def default_gold() -> Path:
    """The first of :data:`DEFAULT_GOLD` that exists (the last one when none does)."""
    return next((path for path in DEFAULT_GOLD if path.is_file()), DEFAULT_GOLD[-1])


def _summary(spans: Sequence[ScoredSpan], n_bins: int) -> dict[str, Any]:
    result = reliability(spans, n_bins).to_dict()
    scored = [s for s in spans if s.proposed and s.score is not None]
    # The share of proposals that are right, beside the ECE: a set can be well calibrated
    # and still wrong often, when the scores say so.
    result["correct"] = sum(s.is_pii for s in scored)
    result["precision"] = result["correct"] / len(scored) if scored else None
    result["mean_score"] = sum(s.score for s in scored) / len(scored) if scored else None
    return result


def reliability_report(
    gold: Sequence[Document],
    predicted: Sequence[Document],
    labels: Sequence[str],
    *,
    n_bins: int = DEFAULT_RELIABILITY_BINS,
) -> dict[str, Any]:
    """Reliability per label, overall, and overall on the types the gold set annotates."""
    candidates = labels_from_predictions(gold, predicted)
    proposed = [s for s in candidates if s.proposed]
    gold_types = sorted({span.label for doc in gold for span in doc.spans})
    per_label = {
        label: _summary([s for s in proposed if s.label == label], n_bins) for label in labels
    }
    return {
        "documents": len(gold),
        "gold_types": gold_types,
        "overall": _summary(proposed, n_bins),
        "overall_on_gold_types": _summary([s for s in proposed if s.label in gold_types], n_bins),
        "per_label": per_label,
    }


def write_plot(report: dict[str, Any], path: Path) -> None:
    """One reliability diagram per gold set, each type a line, overall in black."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = report["sets"]
    fig, axes = plt.subplots(
        2, len(sets), figsize=(5.5 * len(sets), 7.5), squeeze=False, height_ratios=[3, 1]
    )
    for column, (name, result) in enumerate(sets.items()):
        top, bottom = axes[0][column], axes[1][column]
        top.plot([0, 1], [0, 1], linestyle="--", color="grey", linewidth=1)
        curves = [*result["per_label"].items(), ("overall", result["overall"])]
        for label, summary in curves:
            filled = [b for b in summary["bins"] if b["count"]]
            if not filled:
                continue
            overall = label == "overall"
            top.plot(
                [b["mean_score"] for b in filled],
                [b["positive_rate"] for b in filled],
                marker="o",
                markersize=4 if not overall else 5,
                linewidth=2.5 if overall else 1,
                color="black" if overall else None,
                label=f"{label} (n={summary['count']}, ECE {summary['ece']:.3f})",
            )
        top.axvline(report["threshold"], color="red", linewidth=0.8, linestyle=":")
        top.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="mean score in bin", ylabel="share correct")
        top.set_title(f"{name}: pii_ner, threshold {report['threshold']}", fontsize=10)
        top.legend(fontsize=7, loc="upper left")
        bins = result["overall"]["bins"]
        bottom.bar(
            [(b["lower"] + b["upper"]) / 2 for b in bins],
            [b["count"] for b in bins],
            width=1 / len(bins) * 0.9,
            color="grey",
        )
        bottom.set(xlim=(0, 1), xlabel="score bin", ylabel="spans")
        bottom.set_yscale("symlog")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


Opt = typer.Option


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or spacy_pii.load name.")] = "default",
    gold: Annotated[
        list[Path] | None,
        Opt(exists=True, dir_okay=False, help="Gold JSONL; repeatable. Default: the test split."),
    ] = None,
    output: Annotated[Path, Opt(help="JSON report.")] = Path("metrics/reliability.json"),
    plot: Annotated[Path, Opt(help="PNG reliability diagram.")] = Path("metrics/reliability.png"),
    no_plot: Annotated[bool, Opt("--no-plot", help="Write no diagram.")] = False,
    threshold: Annotated[
        float | None, Opt(min=0.0, max=1.0, help="Override pii_ner's threshold for this run.")
    ] = None,
    n_bins: Annotated[int, Opt(min=1)] = DEFAULT_RELIABILITY_BINS,
    key: Annotated[str, Opt(help="The pii_ner component's name and spans key.")] = "pii_ner",
) -> None:
    """Write the reliability report (and diagram) of the pipeline's pii_ner scores."""
    import spacy_pii

    # An override goes into the config, where pii_ner reads its settings.
    overrides = {}
    if threshold is not None:
        overrides["config"] = {"components": {key: {"threshold": threshold}}}
    nlp = spacy_pii.load(model, **overrides)
    if key not in nlp.pipe_names:
        raise typer.BadParameter(f"the pipeline has no {key!r} component")
    ner = nlp.get_pipe(key)
    effective = float(ner.settings.threshold)
    sets = {}
    for path in gold or [default_gold()]:
        documents = read_documents(path)
        predicted = predict_documents(nlp, (d.text for d in documents), key=key)
        result = reliability_report(documents, predicted, list(ner.labels), n_bins=n_bins)
        sets[path.name] = result
        per_label = ", ".join(
            f"{label} {s['ece']:.3f} (n={s['count']})"
            for label, s in result["per_label"].items()
            if s["count"]
        )
        typer.echo(
            f"{path.name}: ECE {result['overall']['ece']:.4f} over {result['overall']['count']} "
            f"spans (on gold types {result['overall_on_gold_types']['ece']:.4f}); {per_label}"
        )
    report = {
        "kind": "spacy-pii.reliability",
        "model": model,
        "component": key,
        "threshold": effective,
        "threshold_overridden": threshold is not None,
        "n_bins": n_bins,
        "note": (
            f"pii_ner proposes spans from probability {effective} up; bins below it are "
            "empty, so this measures the reliability above the threshold only."
        ),
        "sets": sets,
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    typer.echo(f"report: {output}")
    if not no_plot:
        write_plot(report, plot)
        typer.echo(f"plot: {plot}")


if __name__ == "__main__":
    typer.run(main)
