"""Every entity label Presidio's default recognizers can emit folds through the taxonomy.

The taxonomy contract (docs/how-it-works.md: Taxonomy): one label map from every external
label to a public type or to an explicit drop with its reason. Presidio's labels come from
the installed package itself
(``presidio-analyzer``, the ``bench`` extra): each recognizer that its
``conf/default_recognizers.yaml`` lists (the ones it ships disabled too, since a user can
switch them on), its NER recognizers, and the entity names in its shipped configurations
(the NER model mappings, the LLM recognizers' entity lists and mappings).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from spacy_pii.errors import UnknownLabel

presidio_analyzer = pytest.importorskip(
    "presidio_analyzer", reason="Presidio is the optional 'bench' extra"
)

# Recognizers that need a model download or an optional package to be built; their
# labels are read from their configuration instead (the class's default label mapping,
# or the LangExtract configurations in conf/).
BUILT_FROM_CONFIGURATION = {"HuggingFaceNerRecognizer", "BasicLangExtractRecognizer"}
LABEL_KEYS = ("model_to_presidio_entity_mapping", "entity_mappings", "supported_entities")


def _configured_labels(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in LABEL_KEYS:
                yield from value.values() if isinstance(value, dict) else value
            else:
                yield from _configured_labels(value)
    elif isinstance(node, list):
        for item in node:
            yield from _configured_labels(item)


def _presidio_labels() -> dict[str, str]:
    """Label -> where it comes from (a recognizer class or a configuration file)."""
    import presidio_analyzer.predefined_recognizers as predefined
    from presidio_analyzer.nlp_engine import NerModelConfiguration

    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    conf = Path(presidio_analyzer.__file__).parent / "conf"
    found: dict[str, str] = {}
    listed = yaml.safe_load((conf / "default_recognizers.yaml").read_text(encoding="utf-8"))
    names = {entry["name"] for entry in listed["recognizers"]}
    names |= {"SpacyRecognizer", "StanzaRecognizer", "TransformersRecognizer"}
    for name in sorted(names - BUILT_FROM_CONFIGURATION):
        for label in getattr(predefined, name)().supported_entities:
            found.setdefault(label, name)
    mappings = [
        NerModelConfiguration().model_to_presidio_entity_mapping,
        predefined.HuggingFaceNerRecognizer.DEFAULT_LABEL_MAPPING,
    ]
    for mapping in mappings:
        for label in mapping.values():
            found.setdefault(label, "a default NER mapping")
    for path in sorted(conf.glob("*.yaml")):
        for label in _configured_labels(yaml.safe_load(path.read_text(encoding="utf-8"))):
            found.setdefault(label, path.name)
    return found


def test_every_presidio_default_label_is_mapped_or_dropped(taxonomy):
    labels = _presidio_labels()
    assert {"PERSON", "US_SSN", "ID", "NRP", "LOCATION", "DATE_TIME", "MEDICAL_LICENSE"} <= set(
        labels
    )
    unmapped = []
    for label, source in sorted(labels.items()):
        try:
            taxonomy.fold(label)
        except UnknownLabel:
            unmapped.append(f"{label} ({source})")
    assert unmapped == []
