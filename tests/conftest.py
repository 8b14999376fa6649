"""Shared fixtures. Paths point inside the repository so CI never reads ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXTERNAL = REPO / "corpus" / "external"


@pytest.fixture(scope="session")
def taxonomy():
    from spacy_pii.core.taxonomy import load_taxonomy

    return load_taxonomy()


@pytest.fixture(scope="session")
def rules_nlp():
    import spacy_pii

    return spacy_pii.load("rules")


@pytest.fixture
def saved_rules(tmp_path) -> Path:
    """The rules pipeline (pii_rules, pii_merge) saved with its defaults, in a fresh folder."""
    import spacy_pii

    path = tmp_path / "rules"
    spacy_pii.load("rules").to_disk(path)
    return path
