"""Calibrate per-label thresholds on dev and write a calibrated copy of the pipeline.

    python training/calibrate.py training/output/cpu/model-best corpus/built/dev.jsonl \
        --manifest corpus/built/manifest.json --output training/output/cpu/model-calibrated

The policy is bound to the model's fingerprint and the corpus version, and written to
``policy.json`` beside the output. When a gated label cannot reach its recall floor the
script exits 1 and writes no calibrated pipeline (fail closed). The logic is
:func:`spacy_pii.calibration.calibrate` and :mod:`spacy_pii.pipeline.release`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import spacy

import spacy_pii.pipeline.ner  # noqa: F401  (registers pii_ner)
from spacy_pii.calibration import CalibrationError, calibrate, labels_from_predictions, reliability
from spacy_pii.documents import read_documents
from spacy_pii.pipeline.release import install_policy, model_fingerprint, predict_documents
from spacy_pii.taxonomy import load_taxonomy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("--output", type=Path, required=True, help="calibrated pipeline folder")
    parser.add_argument("--manifest", type=Path, help="corpus manifest: names the dev set")
    parser.add_argument("--proposal-threshold", type=float, default=0.1)
    parser.add_argument("--min-support", type=int)
    args = parser.parse_args(argv)
    model, dev, output = args.model, args.dev, args.output
    taxonomy = load_taxonomy()
    eval_set = dev.name
    if args.manifest is not None:
        eval_set = f"{json.loads(args.manifest.read_text())['corpus_version']}:{dev.name}"
    version = model_fingerprint(model)
    nlp = spacy.load(model)
    ner = nlp.get_pipe("pii_ner")
    ner.cfg["threshold"] = args.proposal_threshold
    # Model types with a taxonomy floor are calibrated too, not only the gated ones, so
    # that each gets a threshold of its own (USERNAME: medium, 0.80). Only the types the
    # merge outputs can be measured on its spans.
    output_types = set(nlp.get_pipe("pii_merge").labels)
    floors = {
        label: taxonomy.types[label].recall_floor
        for label in ner.labels
        if label in output_types and taxonomy.types[label].recall_floor is not None
    }
    gold = read_documents(dev, taxonomy=taxonomy)
    predicted = predict_documents(nlp, (d.text for d in gold))
    try:
        policy = calibrate(
            gold,
            predicted,
            eval_set_version=eval_set,
            calibration_version=version,
            floors=floors,
            min_support=args.min_support,
            taxonomy=taxonomy,
        )
    except CalibrationError as err:
        print(str(err), file=sys.stderr)
        return 1
    spans = labels_from_predictions(gold, predicted)
    for label, entry in policy.labels.items():
        ece = reliability(s for s in spans if s.label == label).ece
        print(
            f"{label}: threshold {entry.threshold:.4f} P {entry.measured_precision:.3f} "
            f"R {entry.measured_recall:.3f} (floor {entry.recall_floor:.2f}, "
            f"n={entry.support}) ECE {ece:.3f}"
        )
    install_policy(nlp, policy.to_dict())
    nlp.to_disk(output)
    policy.save(output.parent / "policy.json")
    print(f"{output}: calibration version {version}, eval set {eval_set}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
