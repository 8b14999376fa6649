"""The whole corpus build: the generator, Presidio synth v2 and the real-text train parts.

It sits above the generator's package, :mod:`.corpus` and :mod:`.real_text`, which import
nothing from here; the corpus build script (training/make_corpus.py) only wires files to it.
"""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ..core.taxonomy import load_taxonomy
from . import GENERATOR_VERSION, generate, templates
from .corpus import (
    EVAL_ONLY_FILES,
    PRESIDIO_FILE,
    SPLITS,
    case_augment,
    check_spans,
    corpus_version,
    file_sha256,
    fold_doc,
    label_counts,
    read_jsonl,
    relabel_birth_dates,
    shuffled,
    split_by_template,
    split_sizes,
)
from .real_text import load_real_text, real_text_files


def build_corpus(
    external_dir: Path,
    *,
    seed: int,
    n_generated: int,
    case_augment_fraction: float = 0.0,
    real_text_repeat: int = 1,
    fold: Callable[[str], str | None] | None = None,
) -> tuple[dict[str, list[dict]], dict[str, Any]]:
    """Assemble train/dev/test from the generator and the external corpora.

    - Generated documents: each split draws only from its own templates.
    - Presidio synth v2: birth dates relabelled, folded, then split by its
      ``meta.template_id`` (70/15/15).
    - Real text (:mod:`.real_text`: WNUT-17, the Broad Twitter Corpus, GUM, LitBank,
      WikiGold): folded, train parts only, ``real_text_repeat`` times over. Their dev parts
      are never put in a split here: they are the held-out real-text evaluation sets.

    Returns:
        The splits (shuffled with ``seed``) and a manifest with label counts and the
        corpus version: a hash of the generator version, Faker version, taxonomy version,
        seed, sizes and the SHA-256 of every source file.
    """
    taxonomy = load_taxonomy()
    fold = fold or taxonomy.fold
    external_dir = Path(external_dir)
    splits: dict[str, list[dict]] = {s: [] for s in SPLITS}
    for split, n in split_sizes(n_generated).items():
        for doc in generate(n, seed=seed, split=split):
            doc["meta"]["source"] = "spacy_pii.generator"
            splits[split].append(doc)

    presidio = [
        fold_doc(relabel_birth_dates(d), fold) for d in read_jsonl(external_dir / PRESIDIO_FILE)
    ]
    for split, docs in split_by_template(presidio, "presidio").items():
        splits[split].extend(docs)
    if isinstance(real_text_repeat, bool) or not isinstance(real_text_repeat, int):
        raise TypeError("real_text_repeat must be an int")
    if real_text_repeat < 1:
        raise ValueError("real_text_repeat must be at least 1")
    real = load_real_text(external_dir, fold, split="train")
    for _ in range(real_text_repeat):
        for docs in real.values():
            splits["train"].extend(copy.deepcopy(doc) for doc in docs)

    augmented = case_augment(splits["train"], case_augment_fraction, seed)
    splits["train"].extend(augmented)
    for split in SPLITS:
        for doc in splits[split]:
            check_spans(doc)
        splits[split] = shuffled(splits[split], derive_split_seed(seed, split))

    source_files = (PRESIDIO_FILE, *real_text_files())
    sources = {name: file_sha256(external_dir / name) for name in source_files}
    version_parts = {
        "generator_version": GENERATOR_VERSION,
        # The templates and factories themselves, so an edit without a version bump still
        # changes the corpus version.
        "generator_source_sha256": generator_source_sha256(),
        "faker_version": version("faker"),
        "taxonomy_version": taxonomy.version,
        "seed": seed,
        "n_generated": n_generated,
        "case_augment": case_augment_fraction,
        "real_text_repeat": real_text_repeat,
        "sources": sources,
    }
    manifest = {
        "corpus_version": corpus_version(version_parts),
        **version_parts,
        "templates": {s: len(templates(split=s)) for s in SPLITS},
        "eval_only_not_included": list(EVAL_ONLY_FILES),
        "splits": {
            s: {
                "docs": len(docs),
                "labels": label_counts(docs),
                "by_source": dict(Counter(d["meta"].get("source", "?") for d in docs)),
            }
            for s, docs in splits.items()
        },
    }
    return splits, manifest


def generator_source_sha256() -> str:
    """SHA-256 over the generator package's Python sources, in name order."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\x00" + path.read_bytes())
    return digest.hexdigest()


def derive_split_seed(seed: int, split: str) -> int:
    return int.from_bytes(
        hashlib.sha256(f"shuffle\x1f{seed}\x1f{split}".encode()).digest()[:8], "big"
    )
