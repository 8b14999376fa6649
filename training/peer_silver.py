"""What ``pii_peer_tagger`` learns from: en_core_web_md's entities on our corpus, as gold docs.

    python training/peer_silver.py corpus/built/train.jsonl --output corpus/peer_train.spacy \
        [--model training/output/cpu/model-calibrated]

Runs the wide pipeline (:func:`spacy_pii.assembly.build.wide_pipeline` on ``--model``, the
shipped default unless given), whose peer is en_core_web_md's ``ner`` on our own tokens
(after ``pii_rules`` splits them, as the tagger will see them), and maps its labels to public
types as ``pii_peer_spans`` does (PERSON, ORG; GPE, LOC and FAC as LOCATION). Per document
the lesson is :func:`spacy_pii.core.entity_tags.taught_entities`: on a real-text document
(``meta.source`` "real/...") the peer's entities; on a generated one, whose gold labels every
name and organisation, the gold PERSON and ORG spans and the peer's places that touch no gold
span. Each reference doc carries the lesson as IOB tags (``token.tag_``) and as
``doc.spans["pii_peer_entities"]`` for the scorer. A gold span that matches no token range is
counted in the report (``<output stem>.silver.json``), never dropped in silence.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from spacy.tokens import Doc, DocBin, Span

from spacy_pii.assembly.build import wide_pipeline
from spacy_pii.core.entity_tags import entity_tags, taught_entities
from spacy_pii.core.peer_entities import DEFAULT_PEER_LABELS
from spacy_pii.pipeline.pii_peer_tagger import ENTITIES_KEY

Opt = typer.Option
GOLD_TYPES = frozenset({"PERSON", "ORG"})
REAL_TEXT_SOURCE = "real/"


def main(
    source: Annotated[Path, typer.Argument(help="corpus JSONL (text, spans, meta)", exists=True)],
    output: Annotated[Path, Opt(help="the .spacy file to write")],
    model: Annotated[
        Path | None, Opt(help="trained pipeline; the shipped default if absent")
    ] = None,
    batch_size: Annotated[int, Opt(help="documents per nlp.pipe batch")] = 64,
) -> None:
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line]
    nlp = wide_pipeline(base=model)
    docbin = DocBin(attrs=["ORTH", "TAG"], store_user_data=False)
    counts: Counter[str] = Counter()
    for row, doc in zip(
        rows, nlp.pipe((r["text"] for r in rows), batch_size=batch_size), strict=True
    ):
        teacher = [
            (ent.start, ent.end, DEFAULT_PEER_LABELS[ent.label_])
            for ent in doc.ents
            if ent.label_ in DEFAULT_PEER_LABELS
        ]
        gold = []
        for span in row.get("spans", []):
            aligned = doc.char_span(span["start"], span["end"], alignment_mode="expand")
            if aligned is None:
                counts["gold spans misaligned"] += 1
                continue
            gold.append((aligned.start, aligned.end, span["label"]))
        real = str((row.get("meta") or {}).get("source", "")).startswith(REAL_TEXT_SOURCE)
        lesson = taught_entities(teacher, gold, gold_types=GOLD_TYPES, gold_is_complete=not real)
        reference = Doc(
            nlp.vocab,
            words=[token.text for token in doc],
            spaces=[bool(token.whitespace_) for token in doc],
            tags=entity_tags(len(doc), lesson),
        )
        reference.spans[ENTITIES_KEY] = [Span(reference, s, e, label=t) for s, e, t in lesson]
        docbin.add(reference)
        counts["documents"] += 1
        counts["real-text documents"] += real
        for _, _, entity_type in lesson:
            counts[f"entities {entity_type}"] += 1
    output.parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(output)
    report = output.with_suffix(".silver.json")
    report.write_text(json.dumps(dict(sorted(counts.items())), indent=2) + "\n", encoding="utf-8")
    print(f"{counts['documents']} documents → {output}; report {report}")
    for key, value in sorted(counts.items()):
        print(f"  {key}: {value}")


if __name__ == "__main__":
    typer.run(main)
