"""A redaction policy per column: from a scan, or from a YAML file, validated either way.

The YAML form::

    default: keep            # columns not named
    columns:
      email: {policy: mask, type: EMAIL}
      notes: spans           # the pipeline's spans inside each cell
      customer_id: keep      # joins survive
      phone: {policy: hash, type: PHONE}

``mask`` replaces the whole cell with a placeholder of ``type``; ``spans`` redacts the spans
the pipeline finds inside the cell (``types`` narrows them); ``hash`` writes a keyed HMAC
token and ``fake`` a keyed Faker value (both need a key, both one-way); ``keep`` leaves the
column alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from ..core.taxonomy import load_taxonomy
from ..errors import ConfigError, settings_error

PolicyName = Literal["mask", "spans", "hash", "fake", "keep"]
POLICIES: tuple[str, ...] = ("mask", "spans", "hash", "fake", "keep")


class ColumnPolicy(BaseModel):
    """What to do with one column."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: PolicyName = "keep"
    type: str | None = None
    types: tuple[str, ...] | None = None

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str | None) -> str | None:
        if value is not None and value not in load_taxonomy().types:
            raise ValueError(f"{value!r} is not a type of the taxonomy")
        return value

    @field_validator("types")
    @classmethod
    def _known_types(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is not None:
            unknown = sorted(set(value) - set(load_taxonomy().types))
            if unknown:
                raise ValueError(f"{unknown} are not types of the taxonomy")
        return value

    @model_validator(mode="after")
    def _type_where_needed(self) -> ColumnPolicy:
        if self.policy in ("mask", "hash", "fake") and self.type is None:
            raise ValueError(f"policy {self.policy!r} needs the column's type")
        return self


class TablePolicy(BaseModel):
    """Policies by column name, and the policy of every column not named."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    columns: dict[str, ColumnPolicy] = {}
    default: ColumnPolicy = ColumnPolicy()

    @field_validator("columns", mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: {"policy": v} if isinstance(v, str) else v for k, v in value.items()}
        return value

    @field_validator("default", mode="before")
    @classmethod
    def _short_default(cls, value: Any) -> Any:
        return {"policy": value} if isinstance(value, str) else value

    def for_column(self, name: str) -> ColumnPolicy:
        return self.columns.get(name, self.default)

    def check_columns(self, columns: list[str]) -> None:
        """Refuse a policy that names a column the table lacks (a typo would keep data)."""
        missing = sorted(set(self.columns) - set(columns))
        if missing:
            raise ConfigError(f"the policy names columns the table lacks: {missing}")

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


def parse_policy(data: object) -> TablePolicy:
    """Validate a policy given as plain data (a parsed YAML or JSON file, a dict)."""
    if isinstance(data, TablePolicy):
        return data
    try:
        return TablePolicy.model_validate(data)
    except ValidationError as err:
        raise settings_error("table policy", err.errors()) from None


def read_policy(path: str | Path) -> TablePolicy:
    """Read and validate a YAML (or JSON) policy file."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        raise ConfigError(f"{path.name}: cannot read the policy file") from None
    except yaml.YAMLError:
        raise ConfigError(f"{path.name}: the policy file is not valid YAML") from None
    return parse_policy(data)


def policy_from_scan(scan: Any) -> TablePolicy:
    """The policy a :class:`~spacy_pii.tables.scan.TableScan` suggests: ``mask`` for a
    structured PII column, ``spans`` for free text and ``maybe`` columns, ``keep`` else."""
    columns = {}
    for column in scan.columns:
        if column.policy == "mask" and column.pii_type is None:
            columns[column.name] = ColumnPolicy(policy="spans")
        else:
            columns[column.name] = ColumnPolicy(policy=column.policy, type=column.pii_type)
    return TablePolicy(columns=columns)
