"""Convert JSONL corpora to one ``.spacy`` file of gold docs.

    python training/convert.py corpus/built/train.jsonl --output corpus/train.spacy \
        --ner-keys pii_ner,pii_candidates

Gold goes to the model's keys (``pii_ner``, and ``pii_candidates`` for the span finder) and
to ``doc.spans["pii"]`` (what the whole pipeline should output). The logic is
:func:`spacy_pii.learning.gold_docs.documents_to_docbin`. Spans that still misalign
after token splitting are counted and printed per type (never dropped in silence), and a
share above ``--max-misaligned`` fails the conversion. A report of the counts,
``<output stem>.conversion.json``, is written beside the output.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from spacy_pii.evaluation.documents import read_documents
from spacy_pii.learning.gold_docs import ConversionReport, documents_to_docbin


def _names(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", type=Path, nargs="+")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--ner-types", help="model types, comma-separated (default: taxonomy)")
    parser.add_argument("--pii-types", help="pipeline types, comma-separated (default: taxonomy)")
    parser.add_argument("--ner-keys", default="pii_ner", help="span keys of the model's gold")
    parser.add_argument("--limit", type=int, default=0, help="first N docs per source (0: all)")
    parser.add_argument("--max-misaligned", type=float, default=0.01, help="fail above this share")
    args = parser.parse_args(argv)

    total = ConversionReport()
    merged = None
    for source in args.sources:
        documents = read_documents(source)
        if args.limit:
            documents = documents[: args.limit]
        docbin, report = documents_to_docbin(
            documents,
            ner_types=_names(args.ner_types),
            pii_types=_names(args.pii_types),
            ner_keys=tuple(_names(args.ner_keys) or ()),
        )
        merged = docbin if merged is None else merged
        if docbin is not merged:
            merged.merge(docbin)
        total.add(report)
        print(f"{source}: {report.documents} docs, misaligned {dict(report.misaligned)}")
    assert merged is not None
    args.output.parent.mkdir(parents=True, exist_ok=True)
    merged.to_disk(args.output)
    summary = total.to_dict()
    report_path = args.output.with_name(f"{args.output.stem}.conversion.json")
    report_path.write_text(json.dumps(summary, indent=2) + "\n")
    print(f"{args.output}: {json.dumps(summary)}")
    if total.considered and total.misaligned_total / total.considered > args.max_misaligned:
        print(f"too many misaligned spans: {total.misaligned_total} of {total.considered}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
