"""displaCy colours per public type, read from the taxonomy (entry point spacy_displacy_colors)."""

from __future__ import annotations

from ..core.taxonomy import load_taxonomy

DISPLACY_COLORS: dict[str, str] = {name: spec.color for name, spec in load_taxonomy().types.items()}
