"""Typed errors. No message carries source text: only type names, labels, offsets and counts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

SettingsModel = TypeVar("SettingsModel", bound=BaseModel)


class PiiError(Exception):
    """Base class of every error this package raises on purpose."""


class TaxonomyError(PiiError, ValueError):
    """The taxonomy file is malformed: a duplicate type, a dangling map entry, no version."""


class UnknownLabel(PiiError, KeyError):
    """A label is neither a public type nor in the label map nor an explicit drop."""

    def __init__(self, label: str, taxonomy_version: str) -> None:
        self.label = label
        self.taxonomy_version = taxonomy_version
        super().__init__(f"label {label!r} is not in taxonomy {taxonomy_version}")

    def __str__(self) -> str:  # KeyError would wrap the message in quotes
        return self.args[0]


class UnknownType(UnknownLabel):
    """A caller asked for a public type that the taxonomy does not define."""


class InvalidInput(PiiError, TypeError):
    """The input is not text: None, bytes, or another type. The message names the type only."""

    def __init__(self, received: object, expected: str = "str") -> None:
        super().__init__(f"expected {expected}, got {type(received).__name__}")


class InputTooLarge(PiiError, ValueError):
    """The text is longer than the configured limit. The message gives lengths only."""

    def __init__(self, length: int, limit: int) -> None:
        super().__init__(f"text has {length} characters; the limit is {limit}")


class OverlapError(PiiError, ValueError):
    """Two spans overlap where the caller promised they would not. Offsets only."""

    def __init__(self, first: tuple[int, int], second: tuple[int, int]) -> None:
        super().__init__(f"spans {first[0]}:{first[1]} and {second[0]}:{second[1]} overlap")


class SpanOffsetError(PiiError, ValueError):
    """A span's offsets fall outside the text or are empty. Offsets only."""


class PolicyMismatch(PiiError, ValueError):
    """A threshold policy was calibrated for another model than the one it is asked to serve."""


class ConfigError(PiiError, ValueError):
    """A component setting is invalid. The message names the setting, never text."""


def settings_error(component: str, problems: Sequence[Mapping[str, Any]]) -> ConfigError:
    """A :class:`ConfigError` that names each invalid setting and why, never its value.

    ``problems`` is pydantic's ``ValidationError.errors()``: the ``loc`` and ``msg`` of each
    entry name the setting and the rule; its ``input`` (the value, which may be text) is
    left out.
    """
    described = "; ".join(
        f"{'.'.join(map(str, problem['loc'])) or 'settings'}: {problem['msg']}"
        for problem in problems
    )
    return ConfigError(f"invalid {component} settings: {described}")


def validated_settings(
    model: type[SettingsModel], component: str, arguments: Mapping[str, Any]
) -> SettingsModel:
    """Build a component's settings ``model`` from its factory's ``arguments``.

    The arguments that are not settings (``nlp``, ``name``, a model or a scorer) are left
    out; a setting that fails validation raises :func:`settings_error`.
    """
    try:
        return model(**{key: arguments[key] for key in model.model_fields if key in arguments})
    except ValidationError as err:
        raise settings_error(component, err.errors()) from None


class TableError(PiiError, ValueError):
    """A table cannot be read or written as asked: a ragged row under ``strict``, bytes that
    are not the declared encoding, a cell over the size limit, a full pass over more rows
    than allowed. The message names the file, the line or row and the column, never a cell.
    """
