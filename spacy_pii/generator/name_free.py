"""Name-free clinical text: real notes that hold no person name.

Every span a model writes as PERSON there is a false name, so the file measures how often
the clinical shorthand, eponyms and drug names of real notes ("Foley", "X-ray", "CTA
BILAT") become names. They are negatives for person names only: they can hold dates, ages
and places.

``training/make_name_free.py`` writes the file from the shared lexicons. A fixed share of
its documents (by a salted hash of the id) is ``held_out``: the span ranker's report and
``training/evaluate_real.py --precision`` score it. The ``train`` part, cut at line breaks,
was tried as training negatives for ``pii_ner`` on 4 December 2026 and is not in the corpus
recipe (``configs/README.md``). Pure functions over JSONL-shaped dicts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .corpus import read_jsonl
from .real_text import split_long

NAME_FREE_FILES: tuple[str, ...] = ("clinical_name_free.jsonl",)
HELD_OUT_SALT = "spacy-pii/name-free/v1"
HELD_OUT_FRACTION = 0.3
SOURCE_PREFIX = "name_free/"


def name_free_split(doc_id: str) -> str:
    """``held_out`` for a fixed share of the documents, ``train`` for the rest."""
    key = f"{HELD_OUT_SALT}\x1f{doc_id}"
    rank = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64
    return "held_out" if rank < HELD_OUT_FRACTION else "train"


def load_name_free(external_dir: Path, split: str) -> list[dict]:
    """The documents of ``split`` (``train``, cut at line breaks as the real text is, or
    ``held_out``, whole) from every name-free file present in ``external_dir``."""
    if split not in ("train", "held_out"):
        raise ValueError("split must be 'train' or 'held_out'")
    docs: list[dict] = []
    for name in NAME_FREE_FILES:
        path = Path(external_dir) / name
        if not path.exists():
            continue
        for doc in read_jsonl(path):
            if doc["spans"]:
                raise ValueError(f"{name}: a name-free document holds spans")
            if name_free_split(doc["meta"]["doc_id"]) != split:
                continue
            docs.extend(split_long(doc) if split == "train" else [doc])
    return docs
