"""Fit the span ranker for a pipeline, leaving one set out, and write the ranked pipeline.

    python training/fit_ranker.py --model training/output/cpu/model-peer \
        --out training/output/cpu/model-ranked --report training/output/cpu/ranker

The pipeline runs once over every set (the real-text dev suite and the precision sets'
parts) up to the merge; each candidate of ``pii_span_ranker``'s types gets its features and
a label (it touches a gold span of its type; an ORG or LOCATION candidate also counts when
it masks a gold name). Then, for each set S:

1. fit the ranker on every other real set and on every precision set's ``tune`` part (a
   held-out precision set keeps its own ``tune`` part; its ``held_out`` part is scored): per
   type a logistic regression and, unless ``--no-trees``, gradient-boosted trees beside it;
2. choose the PERSON and ORG/LOCATION thresholds that maximise the worst margin over those
   sets (precision over Presidio's, overlap F1 over Presidio's + 0.03, three quarters of
   Presidio's leak over ours; on a precision set, its false-name limit);
3. score S (a precision set on its ``held_out`` part) with that fold's ranker and thresholds,
   through ``pii_merge``'s own ``final_spans`` (the token boundaries read from the cache).

Those are the leave-one-set-out (LOSO) figures it prints beside Presidio's, with the ECE of
the held-out probabilities. The shipped ranker is fitted on all sets, and its thresholds
are the median of the folds' choices, so no set chose them while being scored. ``--out``
receives the pipeline with ``pii_span_ranker`` before ``pii_merge`` and the thresholds in
``[components.pii_merge.thresholds]``.

The held-out part of the name-free clinical notes (``corpus/external/
clinical_name_free.jsonl``) and of the web precision set, and the written notes, judgments and
social posts (``corpus/written/``), are scored last, by the shipped ranker and thresholds: no
fold fits or chooses on them, so their figures are measured on text nothing was tuned on. (The
web set's ``tune`` part is not fitted on either: fitting on it raised the social sets' leak,
``configs/README.md``.)
"""

from __future__ import annotations

import json
import pickle
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import spacy
import typer
from name_sets import (
    gold_tuples,
    load_name_free_sets,
    load_precision_sets,
    load_real_sets,
    load_written_sets,
    presidio_raw,
    presidio_tuples,
)
from spacy.language import Language

from spacy_pii.adapters.span_groups import group_to_hits
from spacy_pii.core.hits import Hit
from spacy_pii.core.name_evidence import Candidate, document_features
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.evaluation.name_precision import NameFigures, name_figures
from spacy_pii.evaluation.ranker_fit import (
    Boosting,
    Row,
    best_threshold,
    expected_calibration_error,
    fit_ranker,
    least_violation,
    median_threshold,
)

ROOT = Path(__file__).resolve().parents[1]
Opt = typer.Option
RANKER = "pii_span_ranker"
TYPE_GROUPS = {"PERSON": ("PERSON",), "ORG": ("ORG", "LOCATION")}
GRID = (0.0, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
# The margins (issue 23, "Done when").
F1_MARGIN, LEAK_RATIO = 0.03, 0.75
# The precision sets' limits per 1,000 words, and the name recall the clinical set keeps.
FALSE_LIMITS = {"clinical": ("PERSON",), "legal": ("PERSON",), "developer": ("PERSON", "ORG")}
FALSE_LIMIT_PER_1000 = {"clinical": 2.0, "legal": 2.0, "developer": 1.0}
MIN_PRECISION_SET_RECALL = 0.90
# Precision sets that are scored, never fitted on (configs/README.md says why).
SCORED_PRECISION_SETS = ("web",)
# A false-name excess of one limit weighs as much as 0.01 of F1 in the margins.
FALSE_LIMIT_WEIGHT = 0.01


@dataclass
class CachedDoc:
    text: str
    gold: list[tuple[int, int, str]]
    fixed: list[Hit]
    ranked: list[Hit]
    candidates: list[Candidate]
    features: list[list[float]]
    correct: list[bool]
    token_starts: frozenset[int]
    token_ends: frozenset[int]


def _correct(hit: Hit, gold: list[tuple[int, int, str]]) -> bool:
    allowed = {hit.label} | ({"PERSON"} if hit.label in ("ORG", "LOCATION") else set())
    return any(s < hit.end and hit.start < e and label in allowed for s, e, label in gold)


def _cache(nlp: Language, docs: list[dict], taxonomy) -> list[CachedDoc]:
    ranker = nlp.get_pipe(RANKER)
    merge = nlp.get_pipe("pii_merge")
    cached = []
    with nlp.select_pipes(disable=[RANKER, "pii_merge"]):
        for raw, doc in zip(docs, nlp.pipe([d["text"] for d in docs], batch_size=64), strict=True):
            gold = gold_tuples(raw, taxonomy)
            rows = ranker.candidate_rows(doc)
            ranked_at = {(key, index) for key, index, _, _ in rows}
            fixed: list[Hit] = []
            ranked: list[Hit] = []
            for key in merge.settings.candidate_keys:
                if key not in doc.spans:
                    continue
                for index, hit in enumerate(group_to_hits(doc.spans[key])):
                    if (key, index) not in ranked_at:
                        fixed.append(hit)
            by_position = {
                (key, index): hit
                for key in {r[0] for r in rows}
                for index, hit in enumerate(group_to_hits(doc.spans[key]))
            }
            for key, index, _, _ in rows:
                ranked.append(by_position[(key, index)])
            cached.append(
                CachedDoc(
                    text=doc.text,
                    gold=gold,
                    fixed=fixed,
                    ranked=ranked,
                    candidates=[r[2] for r in rows],
                    features=[list(r[3]) for r in rows],
                    correct=[_correct(hit, gold) for hit in ranked],
                    token_starts=frozenset(t.idx for t in doc),
                    token_ends=frozenset(t.idx + len(t.text) for t in doc),
                )
            )
    return cached


def _merged(doc: CachedDoc, scores: list[float], thresholds: dict, merge) -> list[tuple]:
    hits = [*doc.fixed, *(replace(h, score=p) for h, p in zip(doc.ranked, scores, strict=True))]
    spans = merge.final_spans(
        doc.text,
        hits,
        lambda start, end: start in doc.token_starts and end in doc.token_ends,
        thresholds,
    )
    return [(h.start, h.end, h.label) for h in spans]


def _figures(docs, probabilities, thresholds, merge) -> NameFigures:
    predicted = [_merged(d, p, thresholds, merge) for d, p in zip(docs, probabilities, strict=True)]
    return name_figures([d.text for d in docs], [d.gold for d in docs], predicted)


def _margin(name: str, ours: NameFigures, presidio: NameFigures) -> float:
    if name in FALSE_LIMITS:
        limit = FALSE_LIMIT_PER_1000[name]
        false = sum(ours.false_per_1000[t] for t in FALSE_LIMITS[name])
        recall = ours.overlap_r - MIN_PRECISION_SET_RECALL if ours.gold else 1.0
        return min(FALSE_LIMIT_WEIGHT * (limit - false) / limit, recall)
    return min(
        ours.overlap_p - presidio.overlap_p,
        ours.overlap_f1 - presidio.overlap_f1 - F1_MARGIN,
        LEAK_RATIO * presidio.leak - ours.leak,
    )


def _probabilities(model, docs: list[CachedDoc]) -> list[list[float | None]]:
    # One pass over every candidate of the docs: the trees cost a pass, not a candidate.
    ranked = model.probabilities(
        [h.label for d in docs for h in d.ranked], [f for d in docs for f in d.features]
    )
    out, at = [], 0
    for d in docs:
        scores = ranked[at : at + len(d.ranked)]
        out.append([h.score if p is None else p for h, p in zip(d.ranked, scores, strict=True)])
        at += len(d.ranked)
    return out


def _person_pairs(docs: list[CachedDoc], probabilities) -> list[tuple[float, bool]]:
    """Each PERSON candidate's probability and whether it is a gold name, for the ECE."""
    return [
        (p, c)
        for d, ps in zip(docs, probabilities, strict=True)
        for h, p, c in zip(d.ranked, ps, d.correct, strict=True)
        if h.label == "PERSON"
    ]


def _choose(sets, probabilities, presidio, merge, base_thresholds) -> tuple[dict, tuple]:
    """Coordinate ascent over the PERSON and ORG/LOCATION thresholds: the least total
    shortfall on the real sets first (the issue's margins), then on the precision sets, then
    the worst real-set margin."""
    chosen = {"PERSON": 0.5, "ORG": 0.5}
    memo: dict[tuple[float, float], tuple[float, float, float]] = {}

    def objective(person: float, org: float) -> tuple[float, float, float]:
        if (person, org) not in memo:
            thresholds = {**base_thresholds, "PERSON": person, "ORG": org, "LOCATION": org}
            margins = {
                name: _margin(
                    name, _figures(docs, probabilities[name], thresholds, merge), presidio[name]
                )
                for name, docs in sets.items()
            }
            memo[(person, org)] = least_violation(
                [m for name, m in margins.items() if name not in FALSE_LIMITS],
                [m for name, m in margins.items() if name in FALSE_LIMITS],
            )
        return memo[(person, org)]

    chosen["PERSON"], value = best_threshold(GRID, lambda t: objective(t, chosen["ORG"]))
    chosen["ORG"], value = best_threshold(GRID, lambda t: objective(chosen["PERSON"], t))
    chosen["PERSON"], value = best_threshold(GRID, lambda t: objective(t, chosen["ORG"]))
    return chosen, value


def _thresholds(base: dict, chosen: dict) -> dict:
    return {**base, "PERSON": chosen["PERSON"], "ORG": chosen["ORG"], "LOCATION": chosen["ORG"]}


def main(
    model: Annotated[Path, Opt(help="the trained pipeline (with pii_peer_spans)")],
    out: Annotated[Path | None, Opt(help="where to write the ranked pipeline")] = None,
    report: Annotated[Path, Opt(help="folder for ranker_loso.json/.md and presidio.json")] = (
        ROOT / "metrics" / "ranker"
    ),
    external: Annotated[Path, Opt(help="folder with the corpora")] = ROOT / "corpus" / "external",
    ner_threshold: Annotated[
        float | None, Opt(help="pii_ner's proposal threshold in the ranked pipeline")
    ] = None,
    override: Annotated[
        list[str] | None,
        Opt(help="another numeric setting of the ranked pipeline, as section.key=value"),
    ] = None,
    reuse_candidates: Annotated[
        bool, Opt(help="read the candidates cached by the last run on this model (same code)")
    ] = False,
    trees: Annotated[
        bool, Opt(help="fit gradient-boosted trees beside each type's regression")
    ] = True,
) -> None:
    started = time.time()
    boosting = Boosting() if trees else None
    taxonomy = load_taxonomy()
    overrides: dict[str, float] = {}
    if ner_threshold is not None:
        overrides["components.pii_ner.threshold"] = ner_threshold
    for item in override or ():
        key, _, value = item.partition("=")
        overrides[key] = float(value)
    # The ranker is fitted afresh, so a stored one (perhaps fitted on other features than
    # this code computes) is not read; its settings are kept.
    stored = spacy.util.load_config(model / "config.cfg")["components"].get(RANKER, {})
    nlp = spacy.load(model, config=overrides, exclude=[RANKER])
    settings = {k: v for k, v in stored.items() if k != "factory"}
    nlp.add_pipe(RANKER, before="pii_merge", config=settings)
    nlp.get_pipe(RANKER).initialize()
    merge = nlp.get_pipe("pii_merge")
    base_thresholds = {
        k: v for k, v in merge.thresholds.items() if k not in ("PERSON", "ORG", "LOCATION")
    }
    precision = load_precision_sets()
    sets = {
        **load_real_sets(taxonomy, external),
        **{k: v for k, v in precision.items() if k not in SCORED_PRECISION_SETS},
    }
    # Scored once, by the shipped ranker and thresholds: no fold fits or chooses on them.
    scored_only = {
        **load_name_free_sets(external),
        **{k: v["score"] for k, v in precision.items() if k in SCORED_PRECISION_SETS},
        **load_written_sets(),
    }
    cache_file = report / "candidates.pickle"
    if reuse_candidates and cache_file.exists():
        fit_docs, score_docs, only_docs = pickle.loads(cache_file.read_bytes())
        # The features are computed again, so a change to them needs no new pipeline run.
        tables = nlp.get_pipe(RANKER).tables
        groups = (*fit_docs.values(), *score_docs.values(), *only_docs.values())
        for cached in [d for group in groups for d in group]:
            cached.features = document_features(cached.text, cached.candidates, tables)
        # A scored-only set added since the cache was written runs through the pipeline now.
        missing = {k: v for k, v in scored_only.items() if k not in only_docs}
        if missing:
            only_docs.update({k: _cache(nlp, docs, taxonomy) for k, docs in missing.items()})
            cache_file.write_bytes(pickle.dumps((fit_docs, score_docs, only_docs)))
    else:
        fit_docs = {name: _cache(nlp, parts["fit"], taxonomy) for name, parts in sets.items()}
        score_docs = {
            name: fit_docs[name]
            if parts["score"] is parts["fit"]
            else _cache(nlp, parts["score"], taxonomy)
            for name, parts in sets.items()
        }
        only_docs = {name: _cache(nlp, docs, taxonomy) for name, docs in scored_only.items()}
        report.mkdir(parents=True, exist_ok=True)
        cache_file.write_bytes(pickle.dumps((fit_docs, score_docs, only_docs)))
    print(f"cached {sum(map(len, fit_docs.values()))} documents in {time.time() - started:.0f} s")

    def rows(names) -> list[Row]:
        return [
            Row(name, h.label, tuple(f), c)
            for name in names
            for d in fit_docs[name]
            for h, f, c in zip(d.ranked, d.features, d.correct, strict=True)
        ]

    def presidio_of(docs: list[CachedDoc]) -> NameFigures:
        raw = presidio_raw([d.text for d in docs], report / "presidio.json")
        return name_figures(
            [d.text for d in docs],
            [d.gold for d in docs],
            [presidio_tuples(r, taxonomy) for r in raw],
        )

    presidio_fit = {name: presidio_of(docs) for name, docs in fit_docs.items()}
    presidio_score = {name: presidio_of(docs) for name, docs in score_docs.items()}
    provenance = {"pipeline": str(model), "sets": sorted(sets)}
    loso: dict[str, dict] = {}
    choices: list[dict] = []
    for held in sets:
        # A real set is left out whole; a precision set keeps its tune part in the fit and is
        # scored on its held-out part, which nothing is fitted or chosen on.
        others = [name for name in sets if name != held or name in FALSE_LIMITS]
        fold = fit_ranker(
            rows(others),
            language=nlp.lang,
            type_groups=TYPE_GROUPS,
            provenance={**provenance, "held_out": held},
            boosting=boosting,
        )
        probabilities = {name: _probabilities(fold, fit_docs[name]) for name in others}
        chosen, margin = _choose(
            {n: fit_docs[n] for n in others}, probabilities, presidio_fit, merge, base_thresholds
        )
        choices.append(chosen)
        held_probabilities = _probabilities(fold, score_docs[held])
        ours = _figures(
            score_docs[held], held_probabilities, _thresholds(base_thresholds, chosen), merge
        )
        pairs = _person_pairs(score_docs[held], held_probabilities)
        loso[held] = {
            "thresholds": chosen,
            "fit_margin": margin,
            "ours": ours.as_dict(),
            "presidio": presidio_score[held].as_dict(),
            "person_ece": expected_calibration_error(pairs),
            "candidates": len(pairs),
        }
        print(
            f"{held}: thresholds {chosen}, fitting shortfall {margin[0]:+.3f} real, "
            f"{margin[1]:+.3f} precision, worst real {margin[2]:+.3f}, "
            f"P {ours.overlap_p:.3f} F1 {ours.overlap_f1:.3f} leak {ours.leak:.3f}"
        )
    final = {t: median_threshold([c[t] for c in choices]) for t in ("PERSON", "ORG")}
    shipped = fit_ranker(
        rows(list(sets)),
        language=nlp.lang,
        type_groups=TYPE_GROUPS,
        boosting=boosting,
        provenance={
            **provenance,
            "thresholds": final,
            "fitted_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
    for name, docs in only_docs.items():
        probabilities = _probabilities(shipped, docs)
        pairs = _person_pairs(docs, probabilities)
        ours = _figures(docs, probabilities, _thresholds(base_thresholds, final), merge)
        loso[f"{name} (shipped)"] = {
            "thresholds": final,
            "ours": ours.as_dict(),
            "presidio": presidio_of(docs).as_dict(),
            "person_ece": expected_calibration_error(pairs),
            "candidates": len(pairs),
        }
    if out is not None:
        _write_pipeline(nlp, shipped, _thresholds(merge.settings.thresholds, final), out)
    _write_report(report, loso, final, model)
    print(f"shipped thresholds {final}; {time.time() - started:.0f} s in all")


def _write_pipeline(nlp: Language, ranker_model, thresholds: dict, out: Path) -> None:
    nlp.get_pipe(RANKER).initialize(model=ranker_model.to_dict())
    nlp.to_disk(out)
    config = spacy.util.load_config(out / "config.cfg")
    config["components"]["pii_merge"]["thresholds"] = {k: float(v) for k, v in thresholds.items()}
    config.to_disk(out / "config.cfg")
    spacy.load(out)  # refuse to leave a pipeline that does not load


def _write_report(report: Path, loso: dict, final: dict, model: Path) -> None:
    report.mkdir(parents=True, exist_ok=True)
    (report / "ranker_loso.json").write_text(
        json.dumps({"model": str(model), "shipped_thresholds": final, "sets": loso}, indent=2)
        + "\n",
        encoding="utf-8",
    )
    lines = [
        f"PERSON leaving one set out: `{model}` with the span ranker, against Presidio 2.2.366",
        "",
        "| set | names | P / R / F1 (LOSO) | Presidio | exact F1 | Presidio | leak | Presidio |"
        " leak ratio | false names /1k words | Presidio | false ORG /1k | ECE | thresholds |",
        "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, row in loso.items():
        o, p = row["ours"], row["presidio"]
        if o["gold"]:
            ratio = f"{o['leak'] / p['leak']:.2f}" if p["leak"] else "—"
            scores = (
                f"{o['overlap_p']:.3f} / {o['overlap_r']:.3f} / **{o['overlap_f1']:.3f}** | "
                f"{p['overlap_p']:.3f} / {p['overlap_r']:.3f} / {p['overlap_f1']:.3f} | "
                f"{o['exact_f1']:.3f} | {p['exact_f1']:.3f} | {o['leak']:.3f} | "
                f"{p['leak']:.3f} | {ratio}"
            )
        else:
            # A set without names has only false names to count.
            scores = " | ".join(["—"] * 7)
        lines.append(
            f"| {name} | {o['gold']} | {scores} | "
            f"{o['false_per_1000']['PERSON']:.1f} | {p['false_per_1000']['PERSON']:.1f} | "
            f"{o['false_per_1000']['ORG']:.1f} | {row['person_ece']:.3f} | "
            f"{row['thresholds']['PERSON']:.2f} / {row['thresholds']['ORG']:.2f} |"
        )
    lines.append("")
    lines.append(
        f"Shipped thresholds (median of the folds): PERSON {final['PERSON']:.2f}, "
        f"ORG and LOCATION {final['ORG']:.2f}"
    )
    table = "\n".join(lines)
    (report / "ranker_loso.md").write_text(table + "\n", encoding="utf-8")
    print(table)


if __name__ == "__main__":
    typer.run(main)
