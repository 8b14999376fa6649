"""Write corpus/built/{train,dev,test}.jsonl and manifest.json.

Thin wrapper: the build lives in spacy_pii.generator.build, its pieces in .corpus.

    python training/make_corpus.py --seed 0 --n-generated 6000 [--case-augment 0.1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.generator.build import build_corpus
from spacy_pii.generator.corpus import PRESIDIO_FILE, SPLITS, write_jsonl
from spacy_pii.generator.real_text import load_real_text, real_text_files

ROOT = Path(__file__).resolve().parents[1]


def _ensure_sources(external: Path, fallback: Path) -> None:
    external.mkdir(parents=True, exist_ok=True)
    for name in (PRESIDIO_FILE, *real_text_files()):
        target = external / name
        if target.exists():
            continue
        source = fallback / name
        if not source.exists():
            sys.exit(f"missing {name}: not in {external} nor in {fallback}")
        shutil.copyfile(source, target)
        print(f"copied {name} from {fallback}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-generated", type=int, default=6000)
    parser.add_argument(
        "--case-augment",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="add a lower- or upper-case copy of this share of train docs",
    )
    parser.add_argument(
        "--real-text-repeat",
        type=int,
        default=1,
        metavar="N",
        help="put the real-text train parts (WNUT-17, BTC, GUM, LitBank, WikiGold) N times in",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "corpus" / "built")
    parser.add_argument("--external", type=Path, default=ROOT / "corpus" / "external")
    parser.add_argument(
        "--fallback",
        type=Path,
        default=ROOT.parent / "shared" / "corpora",
        help="where to copy external corpora from when --external lacks them",
    )
    args = parser.parse_args(argv)

    _ensure_sources(args.external, args.fallback)
    started = time.perf_counter()
    splits, manifest = build_corpus(
        args.external,
        seed=args.seed,
        n_generated=args.n_generated,
        case_augment_fraction=args.case_augment,
        real_text_repeat=args.real_text_repeat,
    )
    elapsed = time.perf_counter() - started

    args.out.mkdir(parents=True, exist_ok=True)
    for split in SPLITS:
        write_jsonl(args.out / f"{split}.jsonl", splits[split])
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    # The real-text dev suite, one file a set, and the calibration mix: the score map is fit
    # on generated dev and real dev together, so it learns how sure the model should be on
    # text people wrote, not only on templates.
    real_dev = load_real_text(args.external, load_taxonomy().fold, split="dev")
    (args.out / "real_dev").mkdir(exist_ok=True)
    for name, docs in real_dev.items():
        write_jsonl(args.out / "real_dev" / f"{name}.jsonl", docs)
    mix = [*splits["dev"], *(doc for docs in real_dev.values() for doc in docs)]
    write_jsonl(args.out / "calibration.jsonl", mix)

    print(f"corpus {manifest['corpus_version']} built in {elapsed:.1f}s -> {args.out}")
    labels = sorted({lab for s in SPLITS for lab in manifest["splits"][s]["labels"]})
    print(f"{'label':<15}" + "".join(f"{s:>8}" for s in SPLITS))
    for label in labels:
        row = "".join(f"{manifest['splits'][s]['labels'].get(label, 0):>8}" for s in SPLITS)
        print(f"{label:<15}{row}")
    print(f"{'docs':<15}" + "".join(f"{manifest['splits'][s]['docs']:>8}" for s in SPLITS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
