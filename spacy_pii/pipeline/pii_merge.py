"""``pii_merge``: fold every candidate through the taxonomy, threshold, and resolve overlaps.

It reads the candidate span groups (``pii_rules``, ``pii_ner``, or any group a user adds),
runs :func:`spacy_pii.core.resolve.resolve`, and writes the final, non-overlapping spans to
``doc.spans[spans_key]`` with the same ``scores``, ``detectors`` and ``kinds`` attrs.
Optionally it also writes ``doc.ents``.

With ``propagate`` on, the other whole-word occurrences of a confident name, username or id
are marked too (:mod:`spacy_pii.core.propagate`). They are looked for after the first resolution,
among the gaps its spans leave, so a propagated span never displaces an original one; a
second resolution settles the propagated candidates among themselves. A propagated match
that does not sit on token boundaries is skipped: the tokens cannot be split this late
without shifting the token offsets of every span group written before the merge.

With ``join_nicknames`` on, the parts of a name written around a quoted nickname
(``Harold "Junior" Theriault``) become one PERSON span, the nickname inside
(:mod:`spacy_pii.core.nickname_join`). With ``join_venues`` on, a name that names a shop,
restaurant or firm (``Rosa's Kitchen``, ``Chez Pierre``, ``Novak & Sons``) becomes one ORG
span, by the pipeline language's rule data (:mod:`spacy_pii.core.venue_join`); it is joined
before propagation, so a venue's name is not marked as a person elsewhere, and the venue span
then passes the types, thresholds and allow-list as any ORG span does.

A name span (PERSON, ORG or LOCATION) written as no name is, is dropped before the
resolution (:func:`spacy_pii.core.conventions.cannot_be_name`): one that holds a mark of code
or markup (``=``, ``<``, ``"``, a control character, a rule of hyphens), a person or place
without a letter, or a person with a digit between the letters of a word (a key); so is a
person written only with forms of address ("Judge", "LORD JUSTICE": :func:`spacy_pii.core.
conventions.names_nobody`), and one letter alone ("Annex B", "N"), a person kept only after
an English honorific or a title of any language's rule data ("Mrs F.", "de heer K.":
:func:`spacy_pii.core.conventions.lone_letter`). With
``drop_eponyms`` on, so is a name that names a sign, test, disease or device (``Tinel's
sign``, ``Lyme disease``, ``signo de Trousseau``: :mod:`spacy_pii.core.eponyms`). With
``retype_institutions`` on, a person candidate that holds a word of a court's, an
authority's or a firm's name ("Oberster Gerichtshof", "Sąd Rejonowy", "Hafnia Forsikring")
is an organisation candidate (:mod:`spacy_pii.core.institutions`).

Settings come from the config only (:class:`PiiMergeSettings`). Data (the taxonomy, a frozen
threshold policy and an allow-list of values never reported) arrives through
:meth:`PiiMerge.initialize` and is saved by ``to_disk``, so a packaged pipeline needs no file
from this repository. Which kind of detector found a candidate (``rule`` or ``model``,
which the taxonomy's preference reads) comes from each group's ``attrs["kinds"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import SimpleFrozenList, filter_spans

from ..adapters.component_data import data_from_bytes, data_from_disk, data_to_bytes, data_to_disk
from ..adapters.span_groups import group_to_hits, hits_to_group
from ..core.conventions import cannot_be_name, lone_letter, names_nobody
from ..core.eponyms import EponymWords, eponym_words, is_eponym
from ..core.hits import Hit
from ..core.institutions import institution_words, retype_institutions
from ..core.languages import every_title
from ..core.nickname_join import join_nicknames
from ..core.propagate import PropagationSettings, propagate_mentions
from ..core.resolve import resolve
from ..core.taxonomy import Taxonomy, load_taxonomy
from ..core.venue_join import DETECTOR as VENUE_DETECTOR
from ..core.venue_join import VenueWords, join_venues, venue_words
from ..errors import ConfigError, PolicyMismatch, validated_settings

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
    "join_nicknames": True,
    "join_venues": True,
    "drop_eponyms": True,
    "retype_institutions": True,
    "scorer": {"@scorers": "pii.spans_scorer.v1", "spans_key": "pii"},
}
# The data records and their files in the component's folder (names are exclude keys).
DATA_FILES = {"taxonomy": ".yaml", "policy": ".json", "allow_list": ".json"}
POLICY_FILE = "policy.json"
# An allow-list is matched on whole spans, case-folded; this caps its size (it is a set,
# so the cost per span does not grow with it, but it is saved in the pipeline).
MAX_ALLOW_ENTRIES = 100_000


class PiiMergeSettings(BaseModel):
    """``pii_merge``'s settings, validated; built from the factory's arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    spans_key: str = "pii"
    candidate_keys: tuple[str, ...] = ("pii_rules", "pii_ner")
    types: tuple[str, ...] | None = None
    thresholds: dict[str, float] = {}
    drop_unscored: bool = False
    write_ents: bool = False
    model_version: str | None = None
    # The factory's default, so that a merge built without a config propagates as
    # ``add_pipe("pii_merge")`` does (the dataclass alone defaults to off).
    propagate: PropagationSettings = PropagationSettings.from_config(
        DEFAULT_MERGE_CONFIG["propagate"]
    )
    join_nicknames: bool = True
    join_venues: bool = True
    drop_eponyms: bool = True
    retype_institutions: bool = True

    @field_validator("propagate", mode="before")
    @classmethod
    def _propagation(cls, value: Any) -> PropagationSettings:
        if isinstance(value, PropagationSettings):
            return value
        try:
            return PropagationSettings.from_config(value)
        except ConfigError as err:
            raise ValueError(str(err)) from None

    @field_validator("thresholds")
    @classmethod
    def _unit_interval(cls, value: dict[str, float]) -> dict[str, float]:
        for type_name, threshold in value.items():
            if not 0.0 <= float(threshold) <= 1.0:
                raise ValueError(f"the threshold for {type_name} must lie in [0, 1]")
        return value


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
    join_nicknames: bool,
    join_venues: bool,
    drop_eponyms: bool,
    retype_institutions: bool,
    scorer: Callable | None,
) -> PiiMerge:
    """Resolve candidate spans into ``doc.spans[spans_key]``.

    Args:
        spans_key: the ``doc.spans`` key to write the final spans to.
        candidate_keys: the span groups to read; a group absent from a doc is skipped.
        types: the public types to keep; ``None`` means the taxonomy's default-on types.
        thresholds: a minimum score per public type, over the policy's. Unscored spans
            survive them.
        drop_unscored: also drop spans that have no score.
        write_ents: also set ``doc.ents`` from the final spans.
        model_version: the calibration version of the model this merge serves; a threshold
            policy for another version is refused.
        propagate: mention propagation (:class:`spacy_pii.core.propagate.PropagationSettings`):
            ``types`` whose confident hits have their other occurrences marked (``[]``
            turns it off), ``min_score`` a source needs (unscored hits never qualify),
            ``name_parts`` (also the capitalised parts of a PERSON), ``min_part_chars``,
            and ``case_insensitive`` (exact strings in any case; parts stay capitalised).
        join_nicknames: join the parts of a name written around a quoted nickname
            (``Harold "Junior" Theriault``) into one PERSON span
            (:mod:`spacy_pii.core.nickname_join`).
        join_venues: make a name that names a venue (``Rosa's Kitchen``, ``Chez Pierre``)
            one ORG span, by the rule data of the pipeline's language (``nlp.lang``;
            :mod:`spacy_pii.core.venue_join`); a language without data joins nothing. The
            venue span is kept only where ORG is among ``types`` and passes its threshold
            and the allow-list.
        drop_eponyms: drop a name that names a sign, test, disease or device ("Tinel's
            sign", "Lyme disease", "signo de Trousseau") before the resolution, by the rule
            data of the pipeline's language (:mod:`spacy_pii.core.eponyms`); a common given
            name, or a name after a form of address, is kept, and propagation may still mark
            the word where the document names that person elsewhere.
        retype_institutions: make a PERSON candidate that holds a word of an institution's
            or a firm's name ("Oberster Gerichtshof", "Cour de cassation", "Hafnia
            Forsikring", "Vrije Universiteit") an ORG candidate with the same score, before
            the resolution, by every language's rule data
            (:mod:`spacy_pii.core.institutions`).
        scorer: the scoring function for ``nlp.evaluate``.
    """
    settings = validated_settings(PiiMergeSettings, "pii_merge", locals())
    return PiiMerge(nlp.vocab, name=name, settings=settings, scorer=scorer)


class PiiMerge(Pipe):
    """The merge. See :func:`make_pii_merge` for the settings."""

    def __init__(
        self,
        vocab,
        name: str = "pii_merge",
        *,
        settings: PiiMergeSettings | None = None,
        taxonomy: Taxonomy | None = None,
        scorer: Callable | None = None,
    ) -> None:
        self.vocab = vocab
        self.name = name
        self.settings = settings if settings is not None else PiiMergeSettings()
        self.scorer = scorer
        self.policy: dict[str, Any] | None = None
        self.allow_list: frozenset[str] = frozenset()
        self._set_taxonomy(taxonomy or load_taxonomy())
        # The pipeline's language, which a blank or loaded pipeline's vocab names.
        language = getattr(vocab, "lang", None)
        self.venue_words: VenueWords = venue_words(language if self.settings.join_venues else None)
        self.eponym_words: EponymWords = eponym_words(
            language if self.settings.drop_eponyms else None
        )
        self.institution_words: frozenset[str] = (
            institution_words() if self.settings.retype_institutions else frozenset()
        )
        self.address_forms: frozenset[str] = every_title()

    # -- settings and data ---------------------------------------------------------

    @property
    def spans_key(self) -> str:
        return self.settings.spans_key

    @property
    def model_version(self) -> str | None:
        return self.settings.model_version

    @property
    def propagation(self) -> PropagationSettings:
        return self.settings.propagate

    def _set_taxonomy(self, taxonomy: Taxonomy) -> None:
        self.types = taxonomy.check_types(self.settings.types)
        for type_name in self.settings.thresholds:
            taxonomy.get(type_name)
        taxonomy.check_types(self.propagation.types)
        self.taxonomy = taxonomy

    @property
    def thresholds(self) -> dict[str, float]:
        """Explicit thresholds, overlaid on the policy's per-type thresholds."""
        merged: dict[str, float] = {}
        if self.policy is not None:
            merged.update(
                {label: entry["threshold"] for label, entry in self.policy["labels"].items()}
            )
        merged.update(self.settings.thresholds)
        return merged

    @property
    def labels(self) -> tuple[str, ...]:
        return self.types

    def _set_policy(self, policy: dict[str, Any] | None) -> None:
        """Load a frozen threshold policy; refuse one calibrated for another model version."""
        if policy is None:
            self.policy = None
            return
        from ..evaluation.calibration import ThresholdPolicy

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

    def _set_allow_list(self, values: Iterable[object]) -> None:
        folded = set()
        for index, value in enumerate(values):
            if not isinstance(value, str) or not value:
                raise ConfigError(f"allow_list[{index}] must be a non-empty string")
            folded.add(value.casefold())
        if len(folded) > MAX_ALLOW_ENTRIES:
            raise ConfigError(
                f"the allow-list has {len(folded)} values; the limit is {MAX_ALLOW_ENTRIES}"
            )
        self.allow_list = frozenset(folded)

    # -- the work ------------------------------------------------------------------

    def __call__(self, doc: Doc) -> Doc:
        # Errors propagate to Language.__call__ and Pipe.pipe, whose handler decides.
        candidates: list[Hit] = []
        groups = doc.spans
        for key in self.settings.candidate_keys:
            # An empty group has nothing to read (most documents), so skip its attrs.
            if key in groups and len(group := groups[key]):
                candidates.extend(group_to_hits(group))
        if not candidates:
            # Most documents hold no candidate (2,271 of the benchmark's 2,509 in the rule
            # lane); resolving and propagating nothing cost 13x writing the empty group, and
            # the output is the same.
            return self._write(doc, ())

        def aligned(start: int, end: int) -> bool:
            return doc.char_span(start, end) is not None

        # doc.text joins every token on each access, so it is read once.
        return self._write(doc, self.final_spans(doc.text, candidates, aligned))

    def final_spans(
        self,
        text: str,
        candidates: Iterable[Hit],
        aligned: Callable[[int, int], bool],
        thresholds: Mapping[str, float] | None = None,
    ) -> tuple[Hit, ...]:
        """The merge's answer for ``text`` from its candidate hits, without a ``Doc``: the
        allow-list, spans no name could be and eponyms, institutions retyped, the resolution,
        venue joins, propagation and nickname joins, in that order. ``aligned(start, end)``
        says whether a span would sit on token boundaries (a span the merge makes is kept
        only where it does); ``thresholds`` replaces the merge's own
        (``training/fit_ranker.py`` tries others on cached hits).
        """
        cut = self.thresholds if thresholds is None else dict(thresholds)
        kept = [
            hit
            for hit in candidates
            if not cannot_be_name(text[hit.start : hit.end], hit.label)
            and not names_nobody(text, hit.start, hit.end, hit.label)
            and not lone_letter(text, hit.start, hit.end, hit.label, self.address_forms)
            and not is_eponym(text, hit.start, hit.end, hit.label, self.eponym_words)
            and not self._allow_listed(text, hit)
        ]
        if not kept:
            return ()
        spans = self._resolve(retype_institutions(text, kept, self.institution_words), cut)
        if self.venue_words:
            spans = self._join_venues(text, spans, aligned, cut)
        if self.propagation.enabled:
            spans = self._propagate(text, spans, aligned, cut)
        if self.settings.join_nicknames:
            spans = join_nicknames(text, spans)
        return spans

    def _allow_listed(self, text: str, hit: Hit) -> bool:
        """Whether the allow-list holds ``hit``'s text (case-folded only when a list is set)."""
        return bool(self.allow_list) and text[hit.start : hit.end].casefold() in self.allow_list

    def _write(self, doc: Doc, spans: Iterable[Hit]) -> Doc:
        group = hits_to_group(doc, self.spans_key, tuple(spans))
        doc.spans[self.spans_key] = group
        if self.settings.write_ents:
            doc.ents = filter_spans(list(group))
        return doc

    def _resolve(
        self, candidates: Iterable[Hit], thresholds: Mapping[str, float]
    ) -> tuple[Hit, ...]:
        return resolve(
            candidates,
            self.taxonomy,
            types=self.types,
            thresholds=thresholds,
            drop_unscored=self.settings.drop_unscored,
        ).spans

    def _join_venues(
        self,
        text: str,
        spans: tuple[Hit, ...],
        aligned: Callable[[int, int], bool],
        thresholds: Mapping[str, float],
    ) -> tuple[Hit, ...]:
        joined = join_venues(text, spans, self.venue_words, aligned)
        if not any(hit.detector == VENUE_DETECTOR for hit in joined):
            return joined
        # A venue span is an ORG span that the resolution has not seen: the types, the ORG
        # threshold and the allow-list decide it as they decide any other.
        return self._resolve(
            (
                hit
                for hit in joined
                if hit.detector != VENUE_DETECTOR or not self._allow_listed(text, hit)
            ),
            thresholds,
        )

    def _propagate(
        self,
        text: str,
        spans: tuple[Hit, ...],
        aligned: Callable[[int, int], bool],
        thresholds: Mapping[str, float],
    ) -> tuple[Hit, ...]:
        found = [
            hit
            for hit in propagate_mentions(text, spans, self.propagation)
            if aligned(hit.start, hit.end) and not self._allow_listed(text, hit)
        ]
        if not found:
            return spans
        # The kept spans cannot collide with what was found in their gaps, so this second
        # pass only chooses among propagated candidates, by the same total order.
        return self._resolve([*spans, *found], thresholds)

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]] | None = None,
        *,
        nlp: Language | None = None,
        taxonomy: dict[str, Any] | None = None,
        policy: dict[str, Any] | None = None,
        allow_list: Iterable[str] | None = None,
    ) -> None:
        """Load data from the ``[initialize.components.pii_merge]`` block; all optional.

        Args:
            taxonomy: a taxonomy mapping (``srsly.read_yaml.v1``); the shipped one if absent.
            policy: a frozen :class:`~spacy_pii.evaluation.calibration.ThresholdPolicy`
                (``srsly.read_json.v1``), refused unless its calibration version is this
                merge's ``model_version``.
            allow_list: values never reported (``srsly.read_json.v1``, a list of strings),
                compared with each candidate's whole text, case-folded.
        """
        self._set_taxonomy(load_taxonomy(taxonomy) if taxonomy is not None else self.taxonomy)
        self._set_policy(policy)
        self._set_allow_list(allow_list or ())

    def score(self, examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        return self.scorer(examples, **kwargs) if self.scorer else {}

    # -- serialization: data only; the settings live in config.cfg ----------------

    def _data(self) -> dict[str, Any]:
        return {
            "taxonomy": self.taxonomy.to_dict(),
            "policy": self.policy,
            "allow_list": sorted(self.allow_list),
        }

    def _load(self, data: dict[str, Any]) -> None:
        self.initialize(
            taxonomy=data.get("taxonomy"),
            policy=data.get("policy"),
            allow_list=data.get("allow_list"),
        )

    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        return data_to_bytes(self._data(), exclude)

    def from_bytes(
        self, bytes_data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiMerge:
        self._load(data_from_bytes(bytes_data, DATA_FILES, exclude))
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()) -> None:
        data_to_disk(path, self._data(), DATA_FILES, exclude)

    def from_disk(
        self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiMerge:
        # No file is no data: a merge without a policy saves none.
        self._load(data_from_disk(path, DATA_FILES, exclude))
        return self
