"""The versioned taxonomy: public types, their classes and ranks, and the label map.

The taxonomy is data (``data/taxonomy-<version>.yaml``), validated here with pydantic.
Everything that orders, gates or masks spans reads it from here: the merge (rank and
preferred detector kind), the gate (severity and recall floor), redaction (mask
behaviour) and scoring (label folding). This module imports no spaCy.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import TaxonomyError, UnknownLabel, UnknownType

DEFAULT_VERSION = "2026.12"

DetectorKind = Literal["rule", "model"]
MaskBehaviour = Literal["reversible", "irreversible"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Severity(_Frozen):
    recall_floor: float | None = Field(default=None, ge=0.0, le=1.0)
    gated: bool


class TypeClass(_Frozen):
    rank: int


class PiiType(_Frozen):
    name: str = ""
    class_: str = Field(alias="class")
    prefer: DetectorKind
    default: bool
    severity: str
    mask: MaskBehaviour
    color: str
    description: str
    # False for a type that only a peer detector writes (LOCATION, from pii_peer_spans): no
    # corpus and no template labels it, so our model is not trained on it.
    trained: bool = True
    rank: int = 0
    recall_floor: float | None = None
    gated: bool = False


class Taxonomy(_Frozen):
    """A validated taxonomy. Build it with :func:`load_taxonomy`, not by hand."""

    version: str = Field(min_length=1)
    severities: dict[str, Severity]
    classes: dict[str, TypeClass]
    types: dict[str, PiiType]
    label_map: dict[str, str] = Field(default_factory=dict)
    credential_labels: tuple[str, ...] = ()
    dropped: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _resolve_and_check(self) -> Taxonomy:
        resolved: dict[str, PiiType] = {}
        for name, spec in self.types.items():
            if name != name.upper():
                raise ValueError(f"type {name!r} must be upper case")
            if spec.class_ not in self.classes:
                raise ValueError(f"type {name} names unknown class {spec.class_!r}")
            if spec.severity not in self.severities:
                raise ValueError(f"type {name} names unknown severity {spec.severity!r}")
            severity = self.severities[spec.severity]
            resolved[name] = spec.model_copy(
                update={
                    "name": name,
                    "rank": self.classes[spec.class_].rank,
                    "recall_floor": severity.recall_floor,
                    "gated": severity.gated,
                }
            )
        object.__setattr__(self, "types", resolved)
        for label, target in self.label_map.items():
            if target not in self.types:
                raise ValueError(f"label_map entry {label!r} points to missing type {target!r}")
        if "SECRET" not in self.types and self.credential_labels:
            raise ValueError("credential_labels need a SECRET type")
        mapped = set(self.label_map) | set(self.credential_labels)
        both = sorted(mapped & set(self.dropped))
        if both:
            raise ValueError(f"labels both mapped and dropped: {both}")
        return self

    # -- lookups -------------------------------------------------------------------

    @property
    def default_types(self) -> tuple[str, ...]:
        return tuple(name for name, spec in self.types.items() if spec.default)

    def get(self, type_name: str) -> PiiType:
        """The public type called ``type_name``; raise :class:`UnknownType` otherwise."""
        try:
            return self.types[type_name]
        except KeyError:
            raise UnknownType(type_name, self.version) from None

    def check_types(self, names: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
        """Validate a caller's type list; ``None`` means the default-on types."""
        if names is None:
            return self.default_types
        for name in names:
            self.get(name)
        return tuple(names)

    def fold(self, label: str) -> str | None:
        """Fold an external label to a public type, or ``None`` for an explicit drop.

        Raises :class:`UnknownLabel` for a label the taxonomy does not mention, so a
        rename can never masquerade as a recall drop.
        """
        for candidate in (label, label.upper()):
            if candidate in self.types:
                return candidate
            if candidate in self.label_map:
                return self.label_map[candidate]
            if candidate in self._credential_set:
                return "SECRET"
            if candidate in self.dropped:
                return None
        raise UnknownLabel(label, self.version)

    @property
    def _credential_set(self) -> frozenset[str]:
        return frozenset(self.credential_labels)

    def to_dict(self) -> dict:
        data = self.model_dump(by_alias=True, exclude_none=False)
        for spec in data["types"].values():
            for derived in ("name", "rank", "recall_floor", "gated"):
                spec.pop(derived, None)
        data["credential_labels"] = list(self.credential_labels)
        return data


def _taxonomy_from_mapping(data: object) -> Taxonomy:
    if not isinstance(data, dict):
        raise TaxonomyError("taxonomy must be a mapping")
    if not data.get("version"):
        raise TaxonomyError("taxonomy has no version")
    try:
        return Taxonomy.model_validate(data)
    except ValidationError as err:
        raise TaxonomyError(str(err)) from None


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that rejects a key given twice, such as a duplicate type."""

    def construct_mapping(self, node, deep=False):  # type: ignore[override]
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise TaxonomyError(f"duplicate key {key!r} in taxonomy")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def parse_taxonomy(text: str) -> Taxonomy:
    """Parse and validate taxonomy YAML text."""
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as err:
        raise TaxonomyError(f"taxonomy is not valid YAML: {type(err).__name__}") from None
    return _taxonomy_from_mapping(data)


@lru_cache(maxsize=8)
def _load_shipped(version: str) -> Taxonomy:
    name = f"taxonomy-{version}.yaml"
    resource = resources.files("spacy_pii") / "data" / name
    if not resource.is_file():
        raise TaxonomyError(f"no shipped taxonomy for version {version!r}")
    return parse_taxonomy(resource.read_text(encoding="utf-8"))


def load_taxonomy(source: str | Path | Taxonomy | dict | None = None) -> Taxonomy:
    """Load a taxonomy: a shipped version string, a YAML path, a mapping, or one already built."""
    if source is None:
        return _load_shipped(DEFAULT_VERSION)
    if isinstance(source, Taxonomy):
        return source
    if isinstance(source, dict):
        return _taxonomy_from_mapping(source)
    path = Path(source)
    if path.suffix in {".yaml", ".yml"}:
        if not path.is_file():
            raise TaxonomyError(f"no taxonomy file at {path}")
        return parse_taxonomy(path.read_text(encoding="utf-8"))
    return _load_shipped(str(source))
