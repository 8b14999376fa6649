"""``pii_merge``: fold every candidate through the taxonomy, threshold, and resolve overlaps.

It reads the candidate span groups (``pii_rules``, ``pii_ner``, or any group a user adds),
runs :func:`spacy_pii.resolve.resolve`, and writes the final, non-overlapping spans to
``doc.spans[spans_key]`` with the same ``scores`` and ``detectors`` attrs (DESIGN contracts
2 and 4). Optionally it also writes ``doc.ents``.

With ``propagate`` on, the other whole-word occurrences of a confident name, username or id
are marked too (:mod:`spacy_pii.propagate`). They are looked for after the first resolution,
among the gaps its spans leave, so a propagated span never displaces an original one; a
second resolution settles the propagated candidates among themselves. A propagated match
that does not sit on token boundaries is skipped: the tokens cannot be split this late
without shifting the token offsets of every span group written before the merge.

Data (the taxonomy and a frozen threshold policy) arrives through :meth:`initialize` and is
saved by ``to_disk``, so a packaged pipeline needs no file from this repository.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path, filter_spans

from ..errors import ConfigError, PolicyMismatch
from ..hits import Hit
from ..propagate import PropagationSettings, propagate_mentions
from ..resolve import resolve
from ..taxonomy import Taxonomy, load_taxonomy
from .spans import group_to_hits, hits_to_group

DEFAULT_MERGE_CONFIG: dict[str, Any] = {
    "spans_key": "pii",
    "candidate_keys": ["pii_rules", "pii_ner"],
    "types": None,
    "thresholds": {},
    "drop_unscored": False,
    "write_ents": False,
    "model_version": None,
    "propagate": {
        "types": ["PERSON", "USERNAME", "GOV_ID"],
        "min_score": 0.5,
        "name_parts": True,
        "min_part_chars": 3,
        "case_insensitive": False,
    },
    "scorer": {"@scorers": "pii.spans_scorer.v1", "spans_key": "pii"},
}


@Language.factory(
    "pii_merge",
    assigns=["doc.spans", "doc.ents"],
    requires=["doc.spans"],
    default_config=DEFAULT_MERGE_CONFIG,
    default_score_weights={"spans_pii_f": 1.0, "spans_pii_p": 0.0, "spans_pii_r": 0.0},
)
def make_pii_merge(
    nlp: Language,
    name: str,
    spans_key: str,
    candidate_keys: list[str],
    types: list[str] | None,
    thresholds: dict[str, float],
    drop_unscored: bool,
    write_ents: bool,
    model_version: str | None,
    propagate: dict[str, Any],
    scorer: Callable | None,
) -> PiiMerge:
    """Resolve candidate spans into ``doc.spans[spans_key]``.

    Args:
        spans_key: the ``doc.spans`` key to write the final spans to.
        candidate_keys: the span groups to read; a group absent from a doc is skipped.
        types: the public types to keep; ``None`` means the taxonomy's default-on types.
        thresholds: a minimum score per public type. Unscored spans survive them.
        drop_unscored: also drop spans that have no score.
        write_ents: also set ``doc.ents`` from the final spans.
        model_version: the calibration version of the model this merge serves; a threshold
            policy for another version is refused.
        propagate: mention propagation (:class:`spacy_pii.propagate.PropagationSettings`):
            ``types`` whose confident hits have their other occurrences marked (``[]``
            turns it off), ``min_score`` a source needs (unscored hits never qualify),
            ``name_parts`` (also the capitalised parts of a PERSON), ``min_part_chars``,
            and ``case_insensitive`` (exact strings in any case; parts stay capitalised).
        scorer: the scoring function for ``nlp.evaluate``.
    """
    return PiiMerge(
        nlp.vocab,
        name=name,
        spans_key=spans_key,
        candidate_keys=candidate_keys,
        types=types,
        thresholds=thresholds,
        drop_unscored=drop_unscored,
        write_ents=write_ents,
        model_version=model_version,
        propagate=PropagationSettings.from_config(propagate),
        scorer=scorer,
    )


class PiiMerge(Pipe):
    """The merge. See :func:`make_pii_merge` for the settings."""

    def __init__(
        self,
        vocab,
        name: str = "pii_merge",
        *,
        spans_key: str = "pii",
        candidate_keys: Iterable[str] = ("pii_rules", "pii_ner"),
        types: Iterable[str] | None = None,
        thresholds: dict[str, float] | None = None,
        drop_unscored: bool = False,
        write_ents: bool = False,
        model_version: str | None = None,
        propagate: PropagationSettings | None = None,
        taxonomy: Taxonomy | None = None,
        scorer: Callable | None = None,
    ) -> None:
        self.vocab = vocab
        self.name = name
        self.spans_key = spans_key
        self.candidate_keys = tuple(candidate_keys)
        self.drop_unscored = drop_unscored
        self.write_ents = write_ents
        self.model_version = model_version
        self.scorer = scorer
        self.policy: dict[str, Any] | None = None
        self._types = tuple(types) if types is not None else None
        self._thresholds = dict(thresholds or {})
        self.propagation = propagate if propagate is not None else PropagationSettings()
        self._set_taxonomy(taxonomy or load_taxonomy())

    # -- settings ------------------------------------------------------------------

    def _set_taxonomy(self, taxonomy: Taxonomy) -> None:
        self.taxonomy = taxonomy
        self.types = taxonomy.check_types(self._types)
        for type_name, value in self._thresholds.items():
            taxonomy.get(type_name)
            if not 0.0 <= float(value) <= 1.0:
                raise ConfigError(f"threshold for {type_name} must lie in [0, 1]")
        taxonomy.check_types(self.propagation.types)

    @property
    def thresholds(self) -> dict[str, float]:
        """Explicit thresholds, overlaid on the policy's per-type thresholds."""
        merged: dict[str, float] = {}
        if self.policy is not None:
            merged.update(
                {label: entry["threshold"] for label, entry in self.policy["labels"].items()}
            )
        merged.update(self._thresholds)
        return merged

    @property
    def labels(self) -> tuple[str, ...]:
        return self.types

    def set_policy(self, policy: dict[str, Any] | None) -> None:
        """Load a frozen threshold policy; refuse one calibrated for another model version."""
        if policy is None:
            self.policy = None
            return
        from ..calibration import ThresholdPolicy

        validated = ThresholdPolicy.model_validate(policy)
        if self.model_version is not None:
            validated.check_model(self.model_version)
        elif validated.calibration_version:
            raise PolicyMismatch(
                "the policy names a calibration version but pii_merge has no model_version"
            )
        for label in validated.labels:
            self.taxonomy.get(label)
        self.policy = validated.model_dump(mode="json")

    # -- the work ------------------------------------------------------------------

    def __call__(self, doc: Doc) -> Doc:
        error_handler = self.get_error_handler()
        try:
            candidates = []
            for key in self.candidate_keys:
                if key in doc.spans:
                    kind = "rule" if key == "pii_rules" else "model"
                    candidates.extend(group_to_hits(doc.spans[key], kind))
            if not candidates:
                # Most documents hold no candidate (2,271 of the benchmark's 2,509 in the
                # rule lane); resolving and propagating nothing cost 13x writing the empty
                # group, and the output is the same.
                doc.spans[self.spans_key] = hits_to_group(doc, self.spans_key, ())
                if self.write_ents:
                    doc.ents = []
                return doc
            resolution = resolve(
                candidates,
                self.taxonomy,
                types=self.types,
                thresholds=self.thresholds,
                drop_unscored=self.drop_unscored,
            )
            spans = resolution.spans
            if self.propagation.enabled:
                spans = self._propagate(doc, spans)
            group = hits_to_group(doc, self.spans_key, spans)
            doc.spans[self.spans_key] = group
            if self.write_ents:
                doc.ents = filter_spans(list(group))
            return doc
        except Exception as err:
            error_handler(self.name, self, [doc], err)
            return doc

    def _propagate(self, doc: Doc, spans: tuple[Hit, ...]) -> tuple[Hit, ...]:
        found = [
            hit
            for hit in propagate_mentions(doc.text, spans, self.propagation)
            if doc.char_span(hit.start, hit.end) is not None
        ]
        if not found:
            return spans
        # The kept spans cannot collide with what was found in their gaps, so this second
        # pass only chooses among propagated candidates, by the same total order.
        return resolve(
            [*spans, *found],
            self.taxonomy,
            types=self.types,
            thresholds=self.thresholds,
            drop_unscored=self.drop_unscored,
        ).spans

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]] | None = None,
        *,
        nlp: Language | None = None,
        taxonomy: dict[str, Any] | None = None,
        policy: dict[str, Any] | None = None,
    ) -> None:
        """Load data: a taxonomy mapping (``srsly.read_yaml.v1``) and a threshold policy
        (``srsly.read_json.v1``), both optional, from the ``[initialize.components]`` block."""
        if taxonomy is not None:
            self._set_taxonomy(load_taxonomy(taxonomy))
        self.set_policy(policy)

    def score(self, examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        return self.scorer(examples, **kwargs) if self.scorer else {}

    # -- serialization -------------------------------------------------------------

    def _to_dict(self) -> dict[str, Any]:
        return {
            "cfg": {
                "spans_key": self.spans_key,
                "candidate_keys": list(self.candidate_keys),
                "types": list(self._types) if self._types is not None else None,
                "thresholds": self._thresholds,
                "drop_unscored": self.drop_unscored,
                "write_ents": self.write_ents,
                "model_version": self.model_version,
                "propagate": self.propagation.to_config(),
            },
            "taxonomy": self.taxonomy.to_dict(),
            "policy": self.policy,
        }

    def _from_dict(self, data: dict[str, Any]) -> None:
        cfg = data["cfg"]
        self.spans_key = cfg["spans_key"]
        self.candidate_keys = tuple(cfg["candidate_keys"])
        self._types = tuple(cfg["types"]) if cfg["types"] is not None else None
        self._thresholds = dict(cfg["thresholds"])
        self.drop_unscored = cfg["drop_unscored"]
        self.write_ents = cfg["write_ents"]
        self.model_version = cfg["model_version"]
        # A pipeline saved before propagation existed has no entry: keep the factory's.
        if "propagate" in cfg:
            self.propagation = PropagationSettings.from_config(cfg["propagate"])
        self._set_taxonomy(load_taxonomy(data["taxonomy"]))
        self.set_policy(data["policy"])

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return json.dumps(self._to_dict()).encode("utf-8")

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = ()) -> PiiMerge:
        self._from_dict(json.loads(bytes_data))
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        data = self._to_dict()
        (path / "cfg.json").write_text(json.dumps(data["cfg"], indent=2), encoding="utf-8")
        srsly.write_yaml(path / "taxonomy.yaml", data["taxonomy"])
        if data["policy"] is not None:
            (path / "policy.json").write_text(
                json.dumps(data["policy"], indent=2), encoding="utf-8"
            )

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> PiiMerge:
        path = ensure_path(path)
        policy_path = path / "policy.json"
        self._from_dict(
            {
                "cfg": json.loads((path / "cfg.json").read_text(encoding="utf-8")),
                "taxonomy": srsly.read_yaml(path / "taxonomy.yaml"),
                "policy": (
                    json.loads(policy_path.read_text(encoding="utf-8"))
                    if policy_path.exists()
                    else None
                ),
            }
        )
        return self
