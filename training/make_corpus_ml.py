"""Build the multilingual corpus: folded JSONL, gold DocBins, and a manifest of the splits.

    python training/make_corpus_ml.py --corpora ../shared/corpora_ml \
        --external corpus/external --out corpus/built_ml

Writes ``train.jsonl`` (the multilingual train parts and the English real-text train parts),
``dev/<set>.jsonl`` (one file per dev set: UNER dev, the Europeana held-out tails, MEDDOCAN
dev), ``manifest.json`` (counts, and every held-out Europeana ``doc_id``), and
``train.spacy`` / ``dev.spacy`` beside them: each document tokenised by its own language's
tokenizer. ``checkpoint.spacy`` holds the first ``--checkpoint-docs`` documents of each dev
set: what ``spacy train`` scores to pick its checkpoint (the whole dev suite is 326,000
tokens, minutes a pass on a shared CPU). ``--only-checkpoint`` rebuilds just that file from
``dev/``. ``--ner-types`` sets the types that ``pii_ner`` learns (PERSON alone in the shipped
recipe; ``PERSON ORG`` was measured, configs/README.md). The splitting and folding live in
:mod:`spacy_pii.generator.multilingual`.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from importlib.metadata import version
from pathlib import Path

import spacy
from spacy.tokens import DocBin

from spacy_pii.core.name_evidence import LANGUAGE_KEY
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.evaluation.documents import Document
from spacy_pii.generator.corpus import read_jsonl, write_jsonl
from spacy_pii.generator.multilingual import EUROPEANA_HELD_OUT_FRACTION, build_ml_corpus
from spacy_pii.generator.real_text import load_real_text
from spacy_pii.learning.gold_docs import ConversionReport, documents_to_docbin

NER_TYPES = ("PERSON",)
NER_KEYS = ("pii_ner", "pii_candidates")


def _docbin(
    docs: list[dict], ner_types: tuple[str, ...] = NER_TYPES
) -> tuple[DocBin, ConversionReport]:
    """Gold docs, each language's documents tokenised by that language's tokenizer."""
    by_lang: dict[str, list[Document]] = {}
    for doc in docs:
        lang = doc["meta"].get("lang", "en")
        by_lang.setdefault(lang, []).append(Document.from_raw(doc["text"], doc["spans"]))
    # Each document keeps its language (the reader pii.language_corpus.v1 passes it on),
    # because one xx vocabulary reads them all.
    merged, total = DocBin(store_user_data=True), ConversionReport()
    for lang, documents in sorted(by_lang.items()):
        docbin, report = documents_to_docbin(
            documents, lang=lang, ner_types=ner_types, ner_keys=NER_KEYS
        )
        vocab = spacy.blank(lang).vocab
        for doc in docbin.get_docs(vocab):
            doc.user_data[LANGUAGE_KEY] = lang
            merged.add(doc)
        total.add(report)
    return merged, total


def checkpoint_docbin(
    dev_dir: Path, per_set: int, ner_types: tuple[str, ...] = NER_TYPES
) -> DocBin:
    """The first ``per_set`` documents of every dev set in ``dev_dir``, as gold docs."""
    docs = [
        doc for path in sorted(dev_dir.glob("*.jsonl")) for doc in list(read_jsonl(path))[:per_set]
    ]
    docbin, _ = _docbin(docs, ner_types)
    return docbin


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, required=True, help="the multilingual corpora")
    parser.add_argument("--external", type=Path, required=True, help="English real text")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--no-english", action="store_true", help="leave English out")
    parser.add_argument("--checkpoint-docs", type=int, default=12, help="per dev set")
    parser.add_argument("--only-checkpoint", action="store_true")
    parser.add_argument(
        "--ner-types",
        nargs="+",
        default=list(NER_TYPES),
        help="the types pii_ner learns (the gold DocBins' pii_ner spans)",
    )
    args = parser.parse_args(argv)
    ner_types = tuple(args.ner_types)
    if args.only_checkpoint:
        checkpoint_docbin(args.out / "dev", args.checkpoint_docs, ner_types).to_disk(
            args.out / "checkpoint.spacy"
        )
        return 0

    fold = load_taxonomy().fold
    corpus = build_ml_corpus(args.corpora, fold)
    train = list(corpus.train)
    if not args.no_english:
        for source, docs in load_real_text(args.external, fold, split="train").items():
            train.extend(
                {**d, "meta": {**d.get("meta", {}), "lang": "en", "set": source}} for d in docs
            )
    out = args.out
    (out / "dev").mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "train.jsonl", train)
    dev_all: list[dict] = []
    for name, docs in sorted(corpus.dev.items()):
        write_jsonl(out / "dev" / f"{name}.jsonl", docs)
        dev_all.extend(docs)
    train_bin, train_report = _docbin(train, ner_types)
    dev_bin, dev_report = _docbin(dev_all, ner_types)
    train_bin.to_disk(out / "train.spacy")
    dev_bin.to_disk(out / "dev.spacy")
    checkpoint_docbin(out / "dev", args.checkpoint_docs, ner_types).to_disk(
        out / "checkpoint.spacy"
    )
    manifest = {
        "train_documents": Counter(d["meta"]["set"] for d in train),
        "dev_documents": {name: len(docs) for name, docs in sorted(corpus.dev.items())},
        "europeana_held_out": {
            "rule": f"the last {EUROPEANA_HELD_OUT_FRACTION:.0%} of each file's documents",
            "doc_ids": corpus.held_out_ids,
        },
        "train_conversion": train_report.to_dict(),
        "dev_conversion": dev_report.to_dict(),
        # The Cyrillic copies and the Russian names come from these libraries' tables.
        "generator_versions": {name: version(name) for name in ("cyrtranslit", "faker")},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(json.dumps({k: manifest[k] for k in ("train_documents", "dev_documents")}, indent=1))
    print("train", json.dumps(train_report.to_dict()))
    print("dev", json.dumps(dev_report.to_dict()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
