"""Name-free clinical text: real notes that hold no person name.

Every span a model writes as PERSON there is a false name, so the file measures how often
the clinical shorthand, eponyms and drug names of real notes ("Foley", "X-ray", "CTA
BILAT") become names. They are negatives for person names only: they can hold dates, ages
and places.

``training/make_name_free.py`` writes the file from the shared lexicons. A fixed share of
its documents (by a salted hash of the id) is held out: the span ranker's report and
``training/evaluate_real.py --precision`` score it. The rest was tried as training negatives
for ``pii_ner`` on 4 December 2026 and is not in the corpus recipe (``configs/README.md``);
the fixed split keeps the held-out figures comparable with that run. Pure functions over
JSONL-shaped dicts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .corpus import read_jsonl

NAME_FREE_FILE = "clinical_name_free.jsonl"
HELD_OUT_SALT = "spacy-pii/name-free/v1"
HELD_OUT_FRACTION = 0.3
SOURCE_PREFIX = "name_free/"


def is_held_out(doc_id: str) -> bool:
    """Whether a document is in the fixed held-out share, by a salted hash of its id."""
    key = f"{HELD_OUT_SALT}\x1f{doc_id}"
    rank = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64
    return rank < HELD_OUT_FRACTION


def load_name_free_held_out(external_dir: Path) -> list[dict]:
    """The held-out documents of ``external_dir``'s name-free file, whole.

    Raises:
        FileNotFoundError: the file is not in ``external_dir``.
        ValueError: a document holds spans, so it is not name-free.
    """
    docs = []
    for doc in read_jsonl(Path(external_dir) / NAME_FREE_FILE):
        if doc["spans"]:
            raise ValueError(f"{NAME_FREE_FILE}: a name-free document holds spans")
        if is_held_out(doc["meta"]["doc_id"]):
            docs.append(doc)
    return docs
