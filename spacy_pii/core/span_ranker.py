"""A second-stage ranker: a calibrated probability for each name, organisation or place span.

The first-stage detectors (``pii_ner``'s span categorizer, the peer tagger) propose; this
weighs each proposal with its lexical evidence (:mod:`spacy_pii.core.name_evidence`) through
one logistic regression per type, fitted offline (:mod:`spacy_pii.evaluation.ranker_fit`)
and applied here with its stored coefficients, so the run time needs numpy only.

A :class:`RankerModel` is plain data: the feature names it was fitted on (a model whose
names differ from this code's is refused, since its weights would read the wrong columns),
and per type the standardisation and the weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy

from ..errors import ConfigError
from .name_evidence import FEATURE_NAMES

RANKER_FORMAT = "pii-span-ranker/v1"


@dataclass(frozen=True)
class TypeModel:
    """One type's logistic regression on standardised features."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float

    def probability(self, features: Sequence[float]) -> float:
        z = self.intercept
        for x, m, s, w in zip(features, self.mean, self.scale, self.weights, strict=True):
            z += w * (x - m) / s
        # A clipped logit keeps exp() finite on any input.
        z = max(-40.0, min(40.0, z))
        return 1.0 / (1.0 + math.exp(-z))


@dataclass(frozen=True)
class RankerModel:
    """Per-type models over :data:`~spacy_pii.core.name_evidence.FEATURE_NAMES`."""

    language: str
    feature_names: tuple[str, ...]
    types: Mapping[str, TypeModel]
    provenance: Mapping[str, Any]

    def probability(self, label: str, features: Sequence[float]) -> float | None:
        """The probability that the span is right, or ``None`` for a type without a model."""
        model = self.types.get(label)
        return None if model is None else model.probability(features)

    def probabilities(
        self, labels: Sequence[str], rows: Sequence[Sequence[float]]
    ) -> list[float | None]:
        """:meth:`probability` for many spans at once: one matrix product per type."""
        out: list[float | None] = [None] * len(labels)
        for label, model in self.types.items():
            at = [i for i, other in enumerate(labels) if other == label]
            if not at:
                continue
            matrix = numpy.asarray([rows[i] for i in at], dtype="float64")
            z = model.intercept + ((matrix - model.mean) / model.scale) @ numpy.asarray(
                model.weights
            )
            # A clipped logit keeps exp() finite on any input, as in TypeModel.probability.
            values = 1.0 / (1.0 + numpy.exp(-numpy.clip(z, -40.0, 40.0)))
            for i, value in zip(at, values.tolist(), strict=True):
                out[i] = value
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": RANKER_FORMAT,
            "language": self.language,
            "feature_names": list(self.feature_names),
            "types": {
                label: {
                    "mean": list(m.mean),
                    "scale": list(m.scale),
                    "weights": list(m.weights),
                    "intercept": m.intercept,
                }
                for label, m in sorted(self.types.items())
            },
            "provenance": dict(self.provenance),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RankerModel:
        """Read a stored model; refuse another format or another feature list.

        Raises:
            ConfigError: a malformed model, or one fitted on other features.
        """
        if not isinstance(data, Mapping) or data.get("format") != RANKER_FORMAT:
            raise ConfigError(f"span ranker: the model is not in the {RANKER_FORMAT} format")
        names = tuple(data.get("feature_names", ()))
        if names != FEATURE_NAMES:
            missing = [name for name in FEATURE_NAMES if name not in names]
            extra = [name for name in names if name not in FEATURE_NAMES]
            raise ConfigError(
                "span ranker: the model was fitted on other features than this version computes"
                f" (missing: {', '.join(missing) or 'none'}; unknown: {', '.join(extra) or 'none'}"
                f"{'' if missing or extra else '; same names in another order'}); refit it with"
                " training/fit_ranker.py or training/fit_ranker_ml.py"
            )
        types: dict[str, TypeModel] = {}
        try:
            for label, entry in data["types"].items():
                model = TypeModel(
                    mean=tuple(float(v) for v in entry["mean"]),
                    scale=tuple(float(v) for v in entry["scale"]),
                    weights=tuple(float(v) for v in entry["weights"]),
                    intercept=float(entry["intercept"]),
                )
                lengths = {len(model.mean), len(model.scale), len(model.weights)}
                if lengths != {len(names)} or any(s <= 0 for s in model.scale):
                    raise ValueError("shape")
                types[str(label)] = model
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ConfigError(f"span ranker: malformed type model ({type(err).__name__})") from None
        return cls(
            language=str(data.get("language", "en")),
            feature_names=names,
            types=types,
            provenance=dict(data.get("provenance", {})),
        )
