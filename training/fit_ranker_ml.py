"""Fit the span ranker for the multilingual pipeline, leaving one set out, and write it.

    python training/fit_ranker_ml.py --model training/output/ml/model-pair \
        --tables training/output/name_evidence_xx.json.gz --out training/output/ml/model-ranked

``--model`` is a trained multilingual pipeline: one run of the recipe, or two side by side
(``pair_name_models.py``), whose candidates are the group the merge reads (``pii_ner``'s,
or the pair's mean); every ``pii_ner`` in it proposes from ``--ner-threshold``.

The multilingual dev suite (``corpus/built_ml/dev``: UNER dev, the held-out tails of the
Europeana files, MEDDOCAN dev) runs once through ``spacy_pii.load(LANG)`` for each set's
language, with ``pii_ner`` proposing from ``--ner-threshold``, up to the merge. Each PERSON
candidate gets the features of :mod:`spacy_pii.core.name_evidence` (word frequencies in the
set's language, the multilingual name and place tables of ``build_name_tables.py --language
xx``) and a label (it touches a gold name). Then, for each set S:

1. fit the ranker (a logistic regression and gradient-boosted trees, their mean) on every
   other set;
2. choose the PERSON threshold that maximises the other sets' mean overlap F1, each set
   scored by a ranker fitted without it as well (nested: out-of-fold probabilities);
3. score S with that fold's ranker and threshold, through the merge's resolution and
   propagation.

A set copied into another script (``uner_sr_cyrl``, UNER Serbian in Cyrillic) is scored, never
fitted on: it is scored by the fold that leaves its original out, so no fold sees the same
documents in either script.

Those are the leave-one-set-out (LOSO) figures it prints, beside the first stage alone:
``pii_ner``'s scores (a pair's mean) from the threshold in ``--model``'s config, no ranker
(for a model not yet ranked, that is the pipeline as it was). The written ranker is fitted
on all sets, with the median of the folds' thresholds. The ECE of the held-out scores is
reported per set and per language family (``family`` in the languages table). ``--out``
receives the pipeline with ``pii_span_ranker`` before ``pii_merge``, each ``pii_ner``'s
threshold and ``[components.pii_merge.thresholds]``.
"""

from __future__ import annotations

import gzip
import json
import pickle
import statistics
import time
from pathlib import Path
from typing import Annotated

import spacy
import typer
from evaluate_ml import SET_LANGUAGES
from fit_ranker import RANKER, ROOT, CachedDoc, Opt, _cache, _figures, _probabilities

from spacy_pii.assembly.build import language_pipeline
from spacy_pii.assembly.release import name_model_components, span_finder_edge_settings
from spacy_pii.core.languages import language_families
from spacy_pii.core.name_evidence import NameTables, document_features
from spacy_pii.core.span_ranker import RankerModel
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.errors import ConfigError
from spacy_pii.evaluation.name_precision import NameFigures
from spacy_pii.evaluation.ranker_fit import (
    Boosting,
    Row,
    best_threshold,
    expected_calibration_error,
    fit_ranker,
    median_threshold,
)
from spacy_pii.generator.script_copies import original_set

GRID = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)
TYPE_GROUPS = {"PERSON": ("PERSON",)}
# A possessive "'s" after a candidate: ten dev candidates have one and nine are no name
# ("TEBA's"), so its standardised weight ranked "Anna" in "Anna's fiets" at 0.22. Held at weight
# 0 it costs the mean F1 0.001 leaving one set out (configs/README.md).
UNWEIGHTED = ("possessive_after",)
FAMILY_OF = {code: family for family, codes in language_families().items() for code in codes}


def _ranker_settings(model: Path) -> dict:
    """The ranker reads the name model's group that the merge reads: ``pii_ner``'s, or a
    pair's mean (:mod:`spacy_pii.assembly.name_model_pair`)."""
    components = spacy.util.load_config(model / "config.cfg")["components"]
    rules_key = components["pii_rules"]["spans_key"]
    keys = [key for key in components["pii_merge"]["candidate_keys"] if key != rules_key]
    return {"candidate_keys": keys, "peer_keys": [], "compare_with": {}, "types": ["PERSON"]}


def _fit(
    cached: dict[str, list[CachedDoc]], names: list[str], provenance: dict | None = None
) -> RankerModel:
    return fit_ranker(
        _rows(cached, names),
        language="xx",
        type_groups=TYPE_GROUPS,
        provenance=provenance or {},
        unweighted=UNWEIGHTED,
        boosting=Boosting(),
    )


def _read_tables(path: Path) -> NameTables:
    return NameTables.from_dict(json.loads(gzip.decompress(path.read_bytes())))


def _candidates(model: Path, dev: Path, tables: NameTables, ner_threshold: float) -> dict:
    taxonomy = load_taxonomy()
    config = {"components": {n: {"threshold": ner_threshold} for n in name_model_components(model)}}
    ranker_settings = _ranker_settings(model)
    cached: dict[str, list[CachedDoc]] = {}
    for name, lang in SET_LANGUAGES.items():
        docs = [json.loads(line) for line in (dev / f"{name}.jsonl").open(encoding="utf-8")]
        nlp = language_pipeline(lang, model=model, config=config, exclude=[RANKER])
        nlp.add_pipe(RANKER, before="pii_merge", config=ranker_settings)
        nlp.get_pipe(RANKER).initialize(tables=tables.to_dict())
        cached[name] = _cache(nlp, docs, taxonomy)
    return cached


def _rows(cached: dict[str, list[CachedDoc]], names: list[str]) -> list[Row]:
    return [
        Row(name, hit.label, tuple(features), correct)
        for name in names
        for doc in cached[name]
        for hit, features, correct in zip(doc.ranked, doc.features, doc.correct, strict=True)
    ]


def _family(name: str) -> str | None:
    return FAMILY_OF.get(SET_LANGUAGES[name])


def _pairs(docs: list[CachedDoc], probabilities: list) -> list[tuple[float, bool]]:
    return [
        (p, c)
        for doc, ps in zip(docs, probabilities, strict=True)
        for p, c in zip(ps, doc.correct, strict=True)
    ]


def _family_ece_lines(cached: dict[str, list[CachedDoc]], out_of_fold: dict[str, list]) -> list:
    """ECE per language family of the out-of-fold scores, spans pooled; a script copy is
    left out, since its spans are its original's again."""
    lines = [
        "PERSON calibration by language family (out-of-fold scores, 15 bins, spans pooled):",
        "",
        "| family | sets | spans | ECE |",
        "|---|---|---:|---:|",
    ]
    for family in sorted({_family(name) for name in cached} - {None}):
        sets = [name for name in cached if _family(name) == family and original_set(name) == name]
        pooled = [pair for name in sets for pair in _pairs(cached[name], out_of_fold[name])]
        lines.append(
            f"| {family} | {', '.join(sets)} | {len(pooled)} | "
            f"{expected_calibration_error(pooled):.3f} |"
        )
    return lines


def _cell(f: NameFigures) -> str:
    return f"{f.overlap_p:.3f} / {f.overlap_r:.3f} / **{f.overlap_f1:.3f}** | {f.leak:.3f}"


def main(
    model: Annotated[Path, Opt(help="the multilingual pipeline")] = (
        ROOT / "spacy_pii" / "models" / "xx_pii_default"
    ),
    tables: Annotated[Path, Opt(help="build_name_tables.py --language xx's output")] = (
        ROOT / "training" / "output" / "name_evidence_xx.json.gz"
    ),
    dev: Annotated[Path, Opt(help="the dev sets of make_corpus_ml.py")] = (
        ROOT / "corpus" / "built_ml" / "dev"
    ),
    out: Annotated[Path | None, Opt(help="where to write the ranked pipeline")] = None,
    report: Annotated[Path, Opt(help="folder for ranker_ml.md and the candidate cache")] = (
        ROOT / "metrics" / "ranker_ml"
    ),
    ner_threshold: Annotated[float, Opt(help="pii_ner's proposal threshold")] = 0.05,
    finder_edge_threshold: Annotated[
        float | None,
        Opt(
            help="in the written pipeline, pii_ner scores only n-grams between tokens its span "
            "finder scores at least this as a start and an end (default: every n-gram)"
        ),
    ] = None,
    reuse_candidates: Annotated[
        bool, Opt(help="read the candidates cached by the last run (same model and threshold)")
    ] = False,
) -> None:
    started = time.time()
    # Checked before the fit, so that a bad value costs no run.
    finder = {} if finder_edge_threshold is None else _finder_settings(model, finder_edge_threshold)
    name_tables = _read_tables(tables)
    cache_file = report / "candidates.pickle"
    if reuse_candidates and cache_file.exists():
        cached = pickle.loads(cache_file.read_bytes())
    else:
        cached = _candidates(model, dev, name_tables, ner_threshold)
        report.mkdir(parents=True, exist_ok=True)
        cache_file.write_bytes(pickle.dumps(cached))
    # The features are computed again, so a change to them needs no new pipeline run.
    for name, docs in cached.items():
        for doc in docs:
            doc.features = document_features(
                doc.text, doc.candidates, name_tables, SET_LANGUAGES[name]
            )
    merge = language_pipeline("xx", model=model, exclude=[RANKER]).get_pipe("pii_merge")
    print(f"cached {sum(map(len, cached.values()))} documents in {time.time() - started:.0f} s")

    def figures(name: str, probabilities: list, threshold: float) -> NameFigures:
        return _figures(cached[name], probabilities, {"PERSON": threshold}, merge)

    lines = [
        f"PERSON leaving one set out: `{model}` with the span ranker (pii_ner from "
        f"{ner_threshold}), beside pii_ner alone from the model's own threshold",
        "",
        "| set | lang | names | P / R / F1 (LOSO) | leak | pii_ner alone: P / R / F1 | leak | "
        "ECE | threshold |",
        "|---|---|---:|---|---:|---|---:|---:|---:|",
    ]
    shipped_settings = spacy.util.load_config(model / "config.cfg")["components"]
    shipped_ner = float(shipped_settings["pii_ner"]["threshold"])
    choices = []
    held_scores: dict[str, list] = {}
    fitted = [name for name in cached if original_set(name) == name]
    for held in cached:
        others = [name for name in fitted if name != original_set(held)]
        fold = _fit(cached, others)
        # The threshold is chosen on each fitting set's out-of-fold probabilities (a ranker
        # fitted without that set as well): on its own fitting sets the ranker is
        # overconfident, its trees most, and a threshold chosen there came out too high.
        probabilities = {
            name: _probabilities(_fit(cached, [n for n in others if n != name]), cached[name])
            for name in others
        }

        def mean_f1(t: float, others=others, probabilities=probabilities) -> tuple[float]:
            return (statistics.fmean(figures(n, probabilities[n], t).overlap_f1 for n in others),)

        threshold, _ = best_threshold(GRID, mean_f1)
        if held in fitted:
            choices.append(threshold)
        held_scores[held] = _probabilities(fold, cached[held])
        ours = figures(held, held_scores[held], threshold)
        # pii_ner alone: its scores from the model's own proposal threshold, not ranked.
        first_stage = [
            [h.score if (h.score or 0.0) >= shipped_ner else 0.0 for h in doc.ranked]
            for doc in cached[held]
        ]
        before = _figures(cached[held], first_stage, {"PERSON": shipped_ner}, merge)
        ece = expected_calibration_error(_pairs(cached[held], held_scores[held]))
        lines.append(
            f"| {held} | {SET_LANGUAGES[held]} | {ours.gold} | {_cell(ours)} | {_cell(before)} | "
            f"{ece:.3f} | {threshold:.2f} |"
        )
        print(lines[-1], flush=True)
    final = median_threshold(choices)
    lines += ["", f"Shipped threshold (median of the folds): PERSON {final:.2f}", ""]
    lines += _family_ece_lines(cached, held_scores)
    table = "\n".join(lines)
    report.mkdir(parents=True, exist_ok=True)
    (report / "ranker_ml.md").write_text(table + "\n", encoding="utf-8")
    print(table)
    if out is not None:
        shipped = _fit(
            cached,
            fitted,
            {
                "pipeline": str(model),
                "sets": sorted(fitted),
                "thresholds": {"PERSON": final},
                "fitted_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
        )
        _write_pipeline(model, name_tables, shipped.to_dict(), ner_threshold, final, out, finder)
    print(f"{time.time() - started:.0f} s in all")


def _write_pipeline(
    model: Path,
    tables: NameTables,
    ranker: dict,
    ner: float,
    person: float,
    out: Path,
    finder: dict[str, dict],
) -> None:
    nlp = spacy.load(model, exclude=[RANKER])
    nlp.add_pipe(RANKER, before="pii_merge", config=_ranker_settings(model))
    nlp.get_pipe(RANKER).initialize(model=ranker, tables=tables.to_dict())
    nlp.to_disk(out)
    config = spacy.util.load_config(out / "config.cfg")
    for name in name_model_components(model):
        config["components"][name]["threshold"] = ner
        if finder:
            # A speed setting: the candidates pii_ner keeps lie between these edges (the
            # suggester's module docstring).
            config["components"][name]["suggester"]["finder_edges"] = True
    for name, values in finder.items():
        config["components"][name].update(values)
    thresholds = dict(config["components"]["pii_merge"].get("thresholds") or {})
    config["components"]["pii_merge"]["thresholds"] = {**thresholds, "PERSON": person}
    config.to_disk(out / "config.cfg")
    spacy.load(out)  # refuse to leave a pipeline that does not load


def _finder_settings(model: Path, edge_threshold: float) -> dict[str, dict]:
    try:
        return span_finder_edge_settings(model, edge_threshold)
    except ConfigError as err:
        raise typer.BadParameter(str(err), param_hint="--finder-edge-threshold") from None


if __name__ == "__main__":
    typer.run(main)
