"""A second-stage ranker: a calibrated probability for each name, organisation or place span.

The first-stage detectors (``pii_ner``'s span categorizer, the peer tagger) propose; this
weighs each proposal with its lexical evidence (:mod:`spacy_pii.core.name_evidence`) through
one logistic regression per type, fitted offline (:mod:`spacy_pii.evaluation.ranker_fit`)
and applied here with its stored coefficients, so the run time needs numpy only. A type may
also hold gradient-boosted trees over the same inputs (:class:`BoostedTrees`); its
probability is then the mean of the regression's and the trees'. The trees see combinations
of inputs that one linear score cannot (a capitalised word in a document of code), and the
regression keeps the probability smooth where the trees saw few spans.

A :class:`RankerModel` is plain data: the feature names it was fitted on (a model whose
names differ from this code's is refused, since its weights would read the wrong columns),
and per type the standardisation, the weights and the trees, if any.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy

from ..errors import ConfigError
from .name_evidence import FEATURE_NAMES

RANKER_FORMAT = "pii-span-ranker/v2"
# Version 1 held the regressions only; it reads as a version 2 model without trees.
READABLE_FORMATS = ("pii-span-ranker/v1", RANKER_FORMAT)


def _sigmoid(z: numpy.ndarray) -> numpy.ndarray:
    # A clipped logit keeps exp() finite on any input.
    return 1.0 / (1.0 + numpy.exp(-numpy.clip(z, -40.0, 40.0)))


@dataclass(frozen=True)
class BoostedTrees:
    """Binary trees whose leaf values add up to a logit, all trees' nodes in flat arrays.

    Node ``i`` is a leaf when ``feature[i]`` is -1; otherwise a row goes to ``left[i]``
    when its input ``feature[i]`` is at most ``threshold[i]``, else to ``right[i]``. The
    inputs are raw feature values, not standardised ones.
    """

    baseline: float
    roots: tuple[int, ...]
    feature: tuple[int, ...]
    threshold: tuple[float, ...]
    left: tuple[int, ...]
    right: tuple[int, ...]
    value: tuple[float, ...]

    @cached_property
    def _arrays(self) -> tuple[numpy.ndarray, ...]:
        leaf = numpy.asarray(self.feature) < 0
        return (
            numpy.asarray(self.roots),
            numpy.asarray(self.feature),
            numpy.asarray(self.threshold),
            numpy.asarray(self.left),
            numpy.asarray(self.right),
            numpy.asarray(self.value),
            leaf,
        )

    def logits(self, matrix: numpy.ndarray) -> numpy.ndarray:
        """The logit of each row of ``matrix`` (rows × features)."""
        roots, feature, threshold, left, right, value, leaf = self._arrays
        n_rows, n_trees = matrix.shape[0], len(roots)
        # One walk per row and tree, all at once; a walk leaves the set at its leaf, so a step
        # costs the walks still going, not every walk (most trees end in a few steps, a few
        # go deep). Children come after their parent, so every walk ends.
        row_of = numpy.repeat(numpy.arange(n_rows), n_trees)
        nodes = numpy.tile(roots, n_rows)
        walking = numpy.flatnonzero(~leaf[nodes])
        while walking.size:
            at = nodes[walking]
            goes_left = matrix[row_of[walking], feature[at]] <= threshold[at]
            nodes[walking] = numpy.where(goes_left, left[at], right[at])
            walking = walking[~leaf[nodes[walking]]]
        return self.baseline + value[nodes].reshape(n_rows, n_trees).sum(axis=1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "roots": list(self.roots),
            "feature": list(self.feature),
            "threshold": list(self.threshold),
            "left": list(self.left),
            "right": list(self.right),
            "value": list(self.value),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], n_features: int) -> BoostedTrees:
        """Read stored trees; every index must point inside the arrays.

        Raises:
            ValueError: a malformed tree.
        """
        trees = cls(
            baseline=float(data["baseline"]),
            roots=tuple(int(v) for v in data["roots"]),
            feature=tuple(int(v) for v in data["feature"]),
            threshold=tuple(float(v) for v in data["threshold"]),
            left=tuple(int(v) for v in data["left"]),
            right=tuple(int(v) for v in data["right"]),
            value=tuple(float(v) for v in data["value"]),
        )
        n = len(trees.feature)
        if {len(trees.threshold), len(trees.left), len(trees.right), len(trees.value)} != {n}:
            raise ValueError("shape")
        inner = [i for i, f in enumerate(trees.feature) if f >= 0]
        if any(not 0 <= r < n for r in trees.roots) or any(
            trees.feature[i] >= n_features
            or not i < trees.left[i] < n
            or not i < trees.right[i] < n
            for i in inner
        ):
            # Children after their parent: a walk cannot loop.
            raise ValueError("index")
        return trees


@dataclass(frozen=True)
class TypeModel:
    """One type's logistic regression on standardised features, and its trees, if any."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    intercept: float
    trees: BoostedTrees | None = None

    def probability(self, features: Sequence[float]) -> float:
        return float(self.probabilities(numpy.asarray([features], dtype="float64"))[0])

    @cached_property
    def _arrays(self) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        # Made once per model, not once per chunk of candidates.
        return numpy.asarray(self.mean), numpy.asarray(self.scale), numpy.asarray(self.weights)

    def probabilities(self, matrix: numpy.ndarray) -> numpy.ndarray:
        """The probability of each row of ``matrix`` (rows × features)."""
        mean, scale, weights = self._arrays
        z = self.intercept + ((matrix - mean) / scale) @ weights
        regression = _sigmoid(z)
        if self.trees is None:
            return regression
        return (regression + _sigmoid(self.trees.logits(matrix))) / 2


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
        """:meth:`probability` for many spans at once: one pass per type."""
        out: list[float | None] = [None] * len(labels)
        for label, model in self.types.items():
            at = [i for i, other in enumerate(labels) if other == label]
            if not at:
                continue
            matrix = numpy.asarray([rows[i] for i in at], dtype="float64")
            values = model.probabilities(matrix)
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
                    **({"trees": m.trees.to_dict()} if m.trees is not None else {}),
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
        if not isinstance(data, Mapping) or data.get("format") not in READABLE_FORMATS:
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
                    trees=BoostedTrees.from_dict(entry["trees"], len(names))
                    if "trees" in entry
                    else None,
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
