"""Calibrate scores and per-label thresholds on dev and write a calibrated copy of the pipeline.

    python training/calibrate.py training/output/cpu/model-best corpus/built/dev.jsonl \\
        --manifest corpus/built/manifest.json --output training/output/cpu/model-calibrated

Two steps, both on dev:

1. Scores. ``pii_ner`` proposes spans from ``--proposal-threshold`` with raw scores; an
   isotonic :class:`~spacy_pii.evaluation.calibration.ScoreMap` is fit on them (one pooled curve by
   default, per label with ``--per-label``; correct: a gold span with the same offsets
   and folded type) and written to ``score_map.json`` beside the output (or to
   ``--score-map``). ``--no-score-map`` keeps the raw scores. The ECE on dev is printed
   raw, calibrated (in sample) and cross-fitted (two folds by document).
2. Thresholds. The pipeline runs over dev again, now with calibrated scores, and each
   label's threshold is swept on them (:func:`spacy_pii.evaluation.calibration.calibrate`).

The policy is bound to the model's fingerprint and the corpus version, records the score
map's examples per label, and is written to ``policy.json`` beside the output (or to
``--policy``). The output pipeline is then assembled from the trained one and these two
files (:func:`spacy_pii.assembly.release.assemble_pipeline`): the thresholds go into its
``config.cfg``, the files into the components' data; no loaded component is patched.
When a gated label cannot reach its recall floor, or has too little dev
support to measure it, the script fails closed: no policy, the output pipeline keeps the
score map and proposes from ``--fallback-threshold`` (pii_ner's trained threshold if not
given), and the exit status is 1, which stops ``spacy project run all`` before packaging.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import spacy
from thinc.api import Config

from spacy_pii.assembly.release import (
    assemble_pipeline,
    model_fingerprint,
    predict_documents,
    span_finder_edge_settings,
)
from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.errors import ConfigError
from spacy_pii.evaluation.calibration import (
    CalibrationError,
    ScoredSpan,
    calibrate,
    labels_from_predictions,
    reliability,
)
from spacy_pii.evaluation.documents import read_documents
from spacy_pii.evaluation.score_map import (
    DEFAULT_MIN_EXAMPLES,
    ScoreMap,
    cross_fitted,
    fit_score_map,
    proposal_threshold,
    score_pairs,
)


def _ece_line(name: str, spans: Sequence[ScoredSpan], labels: Sequence[str]) -> str:
    per_label = " ".join(
        f"{label} {reliability(s for s in spans if s.label == label).ece:.3f}" for label in labels
    )
    return f"  {name:<22} all {reliability(spans).ece:.3f}  {per_label}"


def report_dev_ece(
    groups: Sequence[Sequence[tuple[str, float, bool]]], score_map: ScoreMap
) -> dict[str, dict[str, float]]:
    """Print and return the dev ECE of pii_ner's scores: raw, calibrated, cross-fitted."""
    pairs = [p for group in groups for p in group]
    labels = sorted({label for label, _, _ in pairs})
    variants = {
        "raw": [ScoredSpan(label=lb, score=s, is_pii=c) for lb, s, c in pairs],
        "calibrated_in_sample": [
            ScoredSpan(label=lb, score=score_map.apply(lb, s), is_pii=c) for lb, s, c in pairs
        ],
        "calibrated_cross_fit": cross_fitted(
            groups, min_examples=score_map.min_examples, per_label=bool(score_map.labels)
        ),
    }
    print(f"pii_ner ECE on dev ({len(pairs)} proposals):")
    result = {}
    for name, spans in variants.items():
        print(_ece_line(name, spans, labels))
        result[name] = {
            "all": reliability(spans).ece,
            **{lb: reliability(s for s in spans if s.label == lb).ece for lb in labels},
        }
    return result


def _suggester_settings(
    model: Path, sizes: str | None, word_edges: bool = False, finder_edges: bool = False
) -> dict:
    """pii_ner's suggester block with other n-gram ``sizes`` ("1,2,3,4") and, with
    ``word_edges``, only n-grams with a word at both edges, and with ``finder_edges``, only
    those between the span finder's recorded edges; nothing when none changes.

    The model is trained on the n-grams of its config; scoring fewer at inference is a
    speed choice measured on the dev suite (configs/README.md).
    """
    if sizes is None and not word_edges and not finder_edges:
        return {}
    config = Config().from_disk(model / "config.cfg", interpolate=False)
    block = dict(config["components"]["pii_ner"]["suggester"])
    if "sizes" not in block:
        flag = (
            "--ngram-sizes"
            if sizes is not None
            else ("--ngram-word-edges" if word_edges else "--finder-edge-threshold")
        )
        raise SystemExit(f"{flag} needs a suggester with sizes, not {block.get('@misc')}")
    if sizes is not None:
        try:
            wanted = sorted({int(size) for size in sizes.split(",")})
        except ValueError:
            raise SystemExit("--ngram-sizes must be whole numbers separated by commas") from None
        if not wanted or wanted[0] < 1:
            raise SystemExit("--ngram-sizes must be positive")
        block["sizes"] = wanted
    if word_edges:
        block["word_edges"] = True
    if finder_edges:
        block["finder_edges"] = True
    return {"suggester": block}


def _finder_settings(model: Path, edge_threshold: float | None) -> dict:
    """The span finder's settings recording its edges at ``edge_threshold``; nothing for
    ``None``."""
    if edge_threshold is None:
        return {}
    try:
        return span_finder_edge_settings(model, edge_threshold)
    except ConfigError as err:
        raise SystemExit(f"--finder-edge-threshold: {err}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("--output", type=Path, required=True, help="calibrated pipeline folder")
    parser.add_argument("--manifest", type=Path, help="corpus manifest: names the dev set")
    parser.add_argument("--policy", type=Path, help="policy file (default: beside --output)")
    parser.add_argument("--score-map", type=Path, help="score map file (default: beside --output)")
    parser.add_argument("--proposal-threshold", type=float, default=0.1)
    parser.add_argument(
        "--ngram-sizes",
        help="n-gram sizes pii_ner proposes at inference in the output, e.g. 1,2,3,4 "
        "(default: the trained ones)",
    )
    parser.add_argument(
        "--ngram-word-edges",
        action="store_true",
        help="pii_ner proposes only n-grams with a word at both edges in the output",
    )
    parser.add_argument(
        "--finder-edge-threshold",
        type=float,
        help="pii_ner scores only n-grams between tokens its span finder scores at least this "
        "as a start and an end, in the output (default: every n-gram)",
    )
    parser.add_argument(
        "--fallback-threshold",
        type=float,
        help="pii_ner's threshold in the output when no policy can be fit (default: trained)",
    )
    parser.add_argument("--min-support", type=int)
    parser.add_argument("--min-examples", type=int, default=DEFAULT_MIN_EXAMPLES)
    # Pooled curve by default: split by template, as dev and test are, the pooled curve alone
    # scored ECE 0.082 against 0.089 with per-label curves (spacy_pii/evaluation/score_map.py),
    # and dev's
    # per-label precision does not carry to unseen templates (USERNAME: 93% of the shipped
    # model's dev proposals correct, 35% on test).
    parser.add_argument(
        "--per-label",
        action="store_true",
        help="a curve per label with at least --min-examples dev examples (default: pooled)",
    )
    parser.add_argument("--no-score-map", action="store_true", help="keep raw pii_ner scores")
    args = parser.parse_args(argv)
    model, dev, output = args.model, args.dev, args.output
    taxonomy = load_taxonomy()
    eval_set = dev.name
    if args.manifest is not None:
        eval_set = f"{json.loads(args.manifest.read_text())['corpus_version']}:{dev.name}"
    version = model_fingerprint(model)
    policy_path = args.policy or output.parent / "policy.json"
    score_map_path = args.score_map or output.parent / "score_map.json"
    with tempfile.TemporaryDirectory() as work:
        return _calibrate(args, model, dev, output, Path(work), version, eval_set, taxonomy,
                          policy_path, score_map_path)  # fmt: skip


def _calibrate(
    args: argparse.Namespace,
    model: Path,
    dev: Path,
    output: Path,
    work: Path,
    version: str,
    eval_set: str,
    taxonomy,
    policy_path: Path,
    score_map_path: Path,
) -> int:
    finder = _finder_settings(model, args.finder_edge_threshold)
    suggester = _suggester_settings(
        model, args.ngram_sizes, args.ngram_word_edges, args.finder_edge_threshold is not None
    )
    # What pii_ner proposes from if no policy can be fit.
    fallback_threshold = args.fallback_threshold
    if fallback_threshold is None:
        fallback_threshold = float(spacy.load(model).get_pipe("pii_ner").settings.threshold)
    elif not 0.0 <= fallback_threshold <= 1.0:
        raise SystemExit("--fallback-threshold must lie in [0, 1]")
    # Measure from scratch: proposals from --proposal-threshold, raw scores, and no earlier
    # policy's cuts (made on another scale) between the proposals and the sweep.
    proposing = {
        "pii_ner": {"threshold": args.proposal_threshold},
        "pii_merge": {"model_version": None},
    }
    nlp = spacy.load(assemble_pipeline(model, work / "raw", settings=proposing))
    ner = nlp.get_pipe("pii_ner")
    merge = nlp.get_pipe("pii_merge")
    # Model types with a taxonomy floor are calibrated too, not only the gated ones, so
    # that each gets a threshold of its own (USERNAME: medium, 0.80). Only the types the
    # merge outputs can be measured on its spans.
    output_types = set(merge.labels)
    floors = {
        label: taxonomy.types[label].recall_floor
        for label in ner.labels
        if label in output_types and taxonomy.types[label].recall_floor is not None
    }
    labels = list(ner.labels)
    gold = read_documents(dev, taxonomy=taxonomy)
    texts = [d.text for d in gold]

    score_map = ScoreMap(min_examples=args.min_examples)
    dev_ece = None
    map_file: Path | None = None
    if not args.no_score_map:
        raw = predict_documents(nlp, texts, key=ner.key)
        groups = score_pairs(gold, raw)
        score_map = fit_score_map(
            (p for group in groups for p in group),
            min_examples=args.min_examples,
            per_label=args.per_label,
        )
        print(
            f"score map: {sum(score_map.examples.values())} dev proposals, per label "
            f"{score_map.examples}; own curve from {score_map.min_examples}: "
            f"{sorted(score_map.labels) or 'none'}"
        )
        dev_ece = report_dev_ece(groups, score_map)
        if not score_map.is_identity:
            score_map_path.parent.mkdir(parents=True, exist_ok=True)
            score_map.save(score_map_path)
            map_file = score_map_path
            mapped = assemble_pipeline(
                model, work / "mapped", settings=proposing, score_map=map_file
            )
            nlp = spacy.load(mapped)

    predicted = predict_documents(nlp, texts)
    try:
        policy = calibrate(
            gold,
            predicted,
            eval_set_version=eval_set,
            calibration_version=version,
            floors=floors,
            min_support=args.min_support,
            taxonomy=taxonomy,
            score_map_examples=None if score_map.is_identity else score_map.examples,
        )
    except CalibrationError as err:
        # Fail closed: no threshold policy, so pii_merge keeps its conservative defaults and
        # the release stops here. The score map is still saved, so the pipeline can be
        # evaluated and reviewed with calibrated scores.
        print(f"no threshold policy (failed closed): {err}", file=sys.stderr)
        calibration_meta = {
            "calibration_version": version,
            "eval_set_version": eval_set,
            "policy": None,
            "failed_closed": str(err),
            "score_map_examples": None if score_map.is_identity else score_map.examples,
            "dev_ece": dev_ece,
        }
        assemble_pipeline(
            model,
            output,
            settings={"pii_ner": {"threshold": fallback_threshold, **suggester}, **finder},
            score_map=map_file,
            meta={"pii_calibration": calibration_meta},
        )
        print(f"{output}: score map only, pii_ner proposes from {fallback_threshold} (raw)")
        return 1
    spans = labels_from_predictions(gold, predicted)
    for label, entry in policy.labels.items():
        ece = reliability(s for s in spans if s.label == label).ece
        print(
            f"{label}: threshold {entry.threshold:.4f} P {entry.measured_precision:.3f} "
            f"R {entry.measured_recall:.3f} (floor {entry.recall_floor:.2f}, "
            f"n={entry.support}) ECE {ece:.3f}"
        )
    # The policy's cuts are on calibrated scores; pii_ner selects on raw scores, so its
    # proposal threshold is the cuts mapped back.
    threshold = proposal_threshold(policy, labels, score_map, floor=args.proposal_threshold)
    policy_path.parent.mkdir(parents=True, exist_ok=True)
    policy.save(policy_path)
    calibration_meta = {
        "calibration_version": version,
        "eval_set_version": eval_set,
        "proposal_threshold": threshold,
        "score_map_examples": policy.score_map_examples,
        "score_map_min_examples": None if score_map.is_identity else score_map.min_examples,
        "dev_ece": dev_ece,
    }
    assemble_pipeline(
        model,
        output,
        settings={
            "pii_ner": {"threshold": threshold, **suggester},
            "pii_merge": {"model_version": version},
            **finder,
        },
        score_map=map_file,
        policy=policy_path,
        meta={"pii_calibration": calibration_meta},
    )
    print(
        f"{output}: calibration version {version}, eval set {eval_set}, "
        f"pii_ner proposes from {threshold:.4f} (raw)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
