"""Steps between a trained pipeline and a shipped one: vectors, fingerprint, policy, ship.

``training/*.py`` call these; they hold the logic so that it is tested here.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language
from spacy.strings import StringStore
from spacy.vectors import Vectors

from ..documents import Document
from ..errors import ConfigError

# The design budget for the pipeline shipped inside the wheel (the "under ~50 MB",
# which the en_core_web_md vectors, 41 MB on disk, nearly fill on their own).
MAX_SHIPPED_MB = 50.0

# Files whose bytes decide a pipeline's predictions. The meta (timestamps, scores) and the
# merge's own settings (which hold the policy being installed) are left out, so installing
# a policy does not change the fingerprint that the policy is bound to.
_FINGERPRINT_SKIP = ("meta.json", "README.md", "pii_merge")


def directory_mb(path: str | Path) -> float:
    """Size of the files under ``path`` in MB (10**6 bytes)."""
    total = sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())
    return total / 1e6


def model_fingerprint(path: str | Path) -> str:
    """SHA-256 (first 16 hex digits) over a pipeline folder's prediction-relevant files.

    Used as the calibration version: a threshold policy is bound to exactly the weights it
    was measured on (DESIGN, "Scores and thresholds"), so retraining invalidates it.
    """
    root = Path(path)
    if not (root / "config.cfg").is_file():
        raise ConfigError(f"{root} is not a spaCy pipeline folder (no config.cfg)")
    digest = hashlib.sha256()
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = file.relative_to(root)
        if relative.parts[0] in _FINGERPRINT_SKIP:
            continue
        digest.update(relative.as_posix().encode() + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def export_vectors(source: str | Path, output: str | Path, *, rows: int | None = None) -> dict:
    """Write a blank pipeline that holds only ``source``'s static vectors.

    Args:
        source: a pipeline folder or package name with vectors (en_core_web_md).
        output: the folder to write; ``[initialize] vectors`` points at it.
        rows: keep only this many vector rows (spaCy's ``Vocab.prune_vectors``: each
            dropped word is remapped to its nearest kept row, so no key loses its vector).

    Returns:
        counts for the report: rows, keys, width and size in MB.
    """
    donor = spacy.load(source, exclude=["*"])
    if rows is not None:
        if rows < 1:
            raise ConfigError("rows must be positive")
        if rows < donor.vocab.vectors.shape[0]:
            # Pruning names each remapped word, so it runs while the strings are there.
            donor.vocab.prune_vectors(rows)
    # Only the table moves, not the donor's 684,830 key strings: static vectors are looked
    # up by the hash of a token's text, so the strings (10 MB of en_core_web_md's 41 MB on
    # disk) serve only to print keys back, and a shipped pipeline need not carry them.
    table = donor.vocab.vectors
    vectors = Vectors(strings=StringStore(), data=table.data, attr=table.attr)
    for key, row in table.key2row.items():
        vectors.add(key, row=row)
    nlp = spacy.blank(donor.lang)
    nlp.vocab.vectors = vectors
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(output)
    vectors = nlp.vocab.vectors
    return {
        "rows": int(vectors.shape[0]),
        "width": int(vectors.shape[1]),
        "keys": int(vectors.n_keys),
        "mb": round(directory_mb(output), 1),
    }


def predict_documents(nlp: Language, texts: Iterable[str], *, key: str = "pii") -> list[Document]:
    """Run ``nlp`` and read ``doc.spans[key]`` with its scores as plain documents."""
    predicted = []
    for doc in nlp.pipe(texts, batch_size=64):
        group = doc.spans.get(key, [])
        scores = list(group.attrs.get("scores", [None] * len(group))) if len(group) else []
        spans = [
            {"start": s.start_char, "end": s.end_char, "label": s.label_, "score": score}
            for s, score in zip(group, scores, strict=True)
        ]
        predicted.append(Document.from_raw(doc.text, spans))
    return predicted


def install_policy(
    nlp: Language,
    policy: dict[str, Any],
    *,
    merge: str = "pii_merge",
    ner: str | None = "pii_ner",
    default_threshold: float = 0.5,
) -> None:
    """Bind ``pii_merge`` to a threshold policy, and let ``pii_ner`` propose what it needs.

    The merge applies the policy's per-label thresholds. The model's own threshold becomes
    the lowest of ``default_threshold`` (0.5: a span whose best label is at least as likely
    as all others together) and the policy's thresholds for the model's labels, so no
    calibrated threshold sits below what the model proposes. A model label without a
    policy entry is kept from that threshold up.
    """
    component = nlp.get_pipe(merge)
    version = policy.get("calibration_version")
    if not version:
        raise ConfigError("the policy names no calibration_version")
    component.model_version = str(version)
    component.set_policy(policy)
    if ner is not None and ner in nlp.pipe_names:
        model = nlp.get_pipe(ner)
        cuts = [
            float(entry["threshold"])
            for label, entry in policy.get("labels", {}).items()
            if label in model.labels
        ]
        model.cfg["threshold"] = min([default_threshold, *cuts])


def ship_pipeline(
    model: str | Path,
    destination: str | Path,
    *,
    extras: dict[str, str | Path] | None = None,
    max_mb: float = MAX_SHIPPED_MB,
) -> float:
    """Copy a pipeline folder to ``destination`` with extra files beside it; return its MB.

    Refuses (and copies nothing) when the pipeline is over ``max_mb``. ``extras`` maps a
    file name inside ``destination`` to a source file (metrics, the corpus manifest).
    """
    model, destination = Path(model), Path(destination)
    size = directory_mb(model)
    if size > max_mb:
        raise ConfigError(f"pipeline is {size:.1f} MB, over the {max_mb:.0f} MB budget")
    if destination.exists():
        shutil.rmtree(destination)
    shutil.copytree(model, destination)
    for name, source in (extras or {}).items():
        shutil.copyfile(source, destination / name)
    shipped = {"pipeline_mb": round(size, 1), "extras": sorted(extras or {})}
    (destination / "SHIPPED.json").write_text(json.dumps(shipped, indent=2) + "\n")
    return size
