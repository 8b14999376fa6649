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
import srsly
from spacy.language import Language
from spacy.strings import StringStore
from spacy.vectors import Vectors

from ..errors import ConfigError
from ..evaluation.documents import Document
from ..version import __version__

# The shipped pipeline's meta name: `spacy package` prefixes the language, so its wheel and
# importable package are en_pii_default, the folder's name.
SHIPPED_NAME = "pii_default"

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
    was measured on (docs/how-it-works.md: Scores), so retraining invalidates it.
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
    nlp = spacy.blank(str(donor.lang))
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


def _config_components(model: str | Path) -> dict[str, Any]:
    from thinc.api import Config

    return Config().from_disk(Path(model) / "config.cfg", interpolate=False)["components"]


def _name_models(components: dict[str, Any]) -> list[str]:
    return [name for name, block in components.items() if block.get("factory") == "pii_ner"]


def name_model_components(model: str | Path) -> list[str]:
    """The names of the ``pii_ner`` components in the pipeline folder ``model``, in config
    order: one, or two in a pair of name models (:mod:`spacy_pii.assembly.name_model_pair`)."""
    return _name_models(_config_components(model))


def span_finder_edge_settings(model: str | Path, edge_threshold: float) -> dict[str, dict]:
    """The settings under which each span finder feeding a ``pii_ner`` records its edges at
    ``edge_threshold``, for :func:`assemble_pipeline` (``{name: {"edge_threshold": ...}}``).

    Each ``pii_ner``'s suggester must be ``pii.ngram_preset_suggester.v1`` reading a span
    finder's key, and the bar must lie between 0 and that span finder's threshold; a
    ``ConfigError`` says which does not hold.
    """
    components = _config_components(model)
    ners = _name_models(components)
    if not ners:
        raise ConfigError("an edge threshold needs a pii_ner component")
    settings: dict[str, dict] = {}
    for ner in ners:
        suggester = components[ner].get("suggester", {})
        if suggester.get("@misc") != "pii.ngram_preset_suggester.v1":
            raise ConfigError("an edge threshold needs pii_ner's pii.ngram_preset_suggester.v1")
        finders = [
            (name, block)
            for name, block in components.items()
            if block.get("factory") == "pii_span_finder"
            and block.get("spans_key") == suggester.get("spans_key")
        ]
        if not finders:
            raise ConfigError("an edge threshold needs a pii_span_finder whose spans pii_ner reads")
        name, block = finders[0]
        if not 0.0 <= edge_threshold <= float(block.get("threshold", 0.5)):
            raise ConfigError("an edge threshold must lie between 0 and the span finder's")
        settings[name] = {"edge_threshold": edge_threshold}
    return settings


def assemble_pipeline(
    model: str | Path,
    output: str | Path,
    *,
    settings: dict[str, dict[str, Any]] | None = None,
    score_map: str | Path | None = None,
    policy: str | Path | None = None,
    meta: dict[str, Any] | None = None,
) -> Path:
    """Write a copy of the pipeline folder ``model`` with new settings and calibration data.

    The copy is assembled from files, never by patching a loaded component: settings go
    into its ``config.cfg`` (the one place settings live), the score map and the threshold
    policy into the files ``pii_ner`` and ``pii_merge`` load their data from, and ``meta``
    is merged into ``meta.json``. The copy is then loaded once, so a policy whose
    calibration version does not match ``pii_merge``'s ``model_version`` is refused here.

    Args:
        model: a pipeline folder with ``pii_ner`` and ``pii_merge``.
        output: the folder to write; replaced if it exists.
        settings: per-component config overrides, e.g.
            ``{"pii_ner": {"threshold": 0.3}, "pii_merge": {"model_version": "abc"}}``.
        score_map: a score-map JSON file for ``pii_ner``; ``None`` leaves raw scores.
        policy: a threshold-policy JSON file for ``pii_merge``; ``None`` leaves none.
        meta: keys to set in ``meta.json``.

    Returns:
        ``output``.
    """
    from thinc.api import Config

    from ..pipeline.pii_merge import POLICY_FILE
    from ..pipeline.pii_ner import SCORE_MAP_FILE

    model, output = Path(model), Path(output)
    if not (model / "config.cfg").is_file():
        raise ConfigError(f"{model} is not a spaCy pipeline folder (no config.cfg)")
    if output.exists():
        shutil.rmtree(output)
    shutil.copytree(model, output)
    config = Config().from_disk(output / "config.cfg", interpolate=False)
    for component, values in (settings or {}).items():
        if component not in config["components"]:
            raise ConfigError(f"the pipeline has no component {component!r}")
        config["components"][component].update(values)
    config.to_disk(output / "config.cfg")
    for source, target in ((score_map, output / "pii_ner" / SCORE_MAP_FILE),
                           (policy, output / "pii_merge" / POLICY_FILE)):  # fmt: skip
        target.unlink(missing_ok=True)
        if source is not None:
            shutil.copyfile(source, target)
    if meta:
        meta_path = output / "meta.json"
        meta_path.write_text(
            json.dumps({**json.loads(meta_path.read_text(encoding="utf-8")), **meta}, indent=2),
            encoding="utf-8",
        )
    spacy.load(output)  # refuses a policy for another model version
    return output


def ship_pipeline(
    model: str | Path,
    destination: str | Path,
    *,
    extras: dict[str, str | Path] | None = None,
    max_mb: float = MAX_SHIPPED_MB,
) -> float:
    """Copy a pipeline folder to ``destination`` with extra files beside it; return its MB.

    The copy's meta names it :data:`SHIPPED_NAME` at the package's version.

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
    # The shipped pipeline is packaged as en_pii_default at the package's own version, so
    # `spacy package` names the wheel after it and its requirement on spacy-pii matches.
    meta = srsly.read_json(destination / "meta.json")
    meta.update(name=SHIPPED_NAME, version=__version__)
    srsly.write_json(destination / "meta.json", meta)
    for name, source in (extras or {}).items():
        shutil.copyfile(source, destination / name)
    shipped = {"pipeline_mb": round(size, 1), "extras": sorted(extras or {})}
    (destination / "SHIPPED.json").write_text(json.dumps(shipped, indent=2) + "\n")
    return size
