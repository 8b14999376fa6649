"""Copy a trained pipeline into the package (``spacy_pii/models/en_pii_default``).

    python training/ship.py training/output/cpu/model-calibrated spacy_pii/models/en_pii_default \
        --metrics training/output/cpu/metrics.json --manifest corpus/built/manifest.json \
        [--peer-manifest corpus/built/manifest.json]

``--peer-manifest`` records the corpus ``pii_peer_tagger`` learned from, where it is not the
one the rest of the pipeline was trained on.

Refused over the size budget. The logic is :func:`spacy_pii.assembly.release.ship_pipeline`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from spacy_pii.assembly.release import MAX_SHIPPED_MB, ship_pipeline


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("destination", type=Path)
    parser.add_argument("--metrics", type=Path)
    parser.add_argument("--manifest", type=Path)
    parser.add_argument("--peer-manifest", type=Path)
    parser.add_argument("--max-mb", type=float, default=MAX_SHIPPED_MB)
    args = parser.parse_args(argv)
    extras = {}
    if args.metrics is not None:
        extras["metrics.json"] = args.metrics
    if args.manifest is not None:
        extras["corpus_manifest.json"] = args.manifest
    if args.peer_manifest is not None:
        extras["peer_corpus_manifest.json"] = args.peer_manifest
    size = ship_pipeline(args.model, args.destination, extras=extras, max_mb=args.max_mb)
    print(f"{args.destination}: {size:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
