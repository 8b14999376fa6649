"""``pii_rules``: the rule lane as a spaCy component.

It runs the pure detectors (:mod:`spacy_pii.detectors`) on ``doc.text``, splits any token that
a hit boundary falls inside (DESIGN contract 5), and writes the hits to
``doc.spans[spans_key]`` with ``attrs["scores"]`` and ``attrs["detectors"]``. Candidates may
overlap; ``pii_merge`` resolves them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path

from ..detectors import CUE_KINDS, RuleSettings, build_detectors, find_hits
from ..errors import ConfigError
from .spans import hits_to_group, split_tokens_at

DEFAULT_RULES_CONFIG: dict[str, Any] = {
    "spans_key": "pii_rules",
    "types": None,
    "phone_regions": None,
    "gov_id_countries": [],
    "context_cues": list(CUE_KINDS),
    "fold_confusables": True,
    "split_tokens": True,
    "scorer": {"@scorers": "pii.spans_scorer.v1", "spans_key": "pii_rules"},
}


@Language.factory(
    "pii_rules",
    assigns=["doc.spans"],
    default_config=DEFAULT_RULES_CONFIG,
    default_score_weights={"spans_pii_rules_f": None},
)
def make_pii_rules(
    nlp: Language,
    name: str,
    spans_key: str | None,
    types: list[str] | None,
    phone_regions: list[str] | None,
    gov_id_countries: list[str],
    context_cues: list[str],
    fold_confusables: bool,
    split_tokens: bool,
    scorer: Callable | None,
) -> PiiRules:
    """Find structured PII (email, phone, card, IBAN, IP, ids, secrets) and cued names.

    Args:
        spans_key: the ``doc.spans`` key to write; ``None`` means "don't write".
        types: the rule types to look for; ``None`` means all of them.
        phone_regions: libphonenumber region codes for national-format numbers;
            ``None`` means the package default (US, GB).
        gov_id_countries: country codes whose check-digit national ids are enabled.
        context_cues: unscored PERSON and USERNAME candidates from their context
            (:mod:`spacy_pii.detectors.cues`): ``"titles"`` (the name after "Mrs." or "Lord
            Justice") and ``"columns"`` (cells under a first_name or username header).
        fold_confusables: fold look-alike and zero-width characters before matching.
        split_tokens: split tokens at hit boundaries so that no hit is lost or shifted.
        scorer: the scoring function for ``nlp.evaluate``.
    """
    return PiiRules(
        nlp.vocab,
        name=name,
        spans_key=spans_key,
        types=types,
        phone_regions=phone_regions,
        gov_id_countries=gov_id_countries,
        context_cues=context_cues,
        fold_confusables=fold_confusables,
        split_tokens=split_tokens,
        scorer=scorer,
    )


def _settings(**values: Any) -> RuleSettings:
    given = {key: tuple(value) for key, value in values.items() if value is not None}
    try:
        return RuleSettings(**given)
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        raise ConfigError(f"invalid pii_rules settings: {problems}") from None


class PiiRules(Pipe):
    """The rule lane. See :func:`make_pii_rules` for the settings."""

    def __init__(
        self,
        vocab,
        name: str = "pii_rules",
        *,
        spans_key: str | None = "pii_rules",
        types: Iterable[str] | None = None,
        phone_regions: Iterable[str] | None = None,
        gov_id_countries: Iterable[str] = (),
        context_cues: Iterable[str] | None = None,
        fold_confusables: bool = True,
        split_tokens: bool = True,
        scorer: Callable | None = None,
    ) -> None:
        self.vocab = vocab
        self.name = name
        self.spans_key = spans_key
        self.split_tokens = split_tokens
        self.scorer = scorer
        self.settings = _settings(
            types=types,
            phone_regions=phone_regions,
            gov_id_countries=gov_id_countries,
            context_cues=context_cues,
        ).model_copy(update={"fold_confusables": fold_confusables})
        self._detectors = build_detectors(self.settings)

    def __call__(self, doc: Doc) -> Doc:
        error_handler = self.get_error_handler()
        try:
            hits = find_hits(doc.text, self._detectors, fold=self.settings.fold_confusables)
            if hits and self.split_tokens:
                split_tokens_at(doc, (offset for hit in hits for offset in (hit.start, hit.end)))
            if self.spans_key is not None:
                doc.spans[self.spans_key] = hits_to_group(doc, self.spans_key, hits)
            return doc
        except Exception as err:  # spaCy's convention: the handler decides
            error_handler(self.name, self, [doc], err)
            return doc

    def initialize(
        self, get_examples: Callable[[], Iterable[Example]] | None = None, *, nlp=None
    ) -> None:
        """Nothing to learn: the rules come from standards. Present for ``nlp.initialize``."""

    def score(self, examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        return self.scorer(examples, **kwargs) if self.scorer else {}

    # -- serialization --------------------------------------------------------------

    def _to_dict(self) -> dict[str, Any]:
        return {
            "spans_key": self.spans_key,
            "split_tokens": self.split_tokens,
            "settings": self.settings.model_dump(mode="json"),
        }

    def _from_dict(self, data: dict[str, Any]) -> None:
        self.spans_key = data["spans_key"]
        self.split_tokens = data["split_tokens"]
        try:
            self.settings = RuleSettings(**data["settings"])
        except ValidationError as err:
            message = f"invalid saved pii_rules settings: {err.error_count()} errors"
            raise ConfigError(message) from None
        self._detectors = build_detectors(self.settings)

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return json.dumps(self._to_dict()).encode("utf-8")

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = ()) -> PiiRules:
        self._from_dict(json.loads(bytes_data))
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / "settings.json").write_text(json.dumps(self._to_dict(), indent=2), encoding="utf-8")

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> PiiRules:
        self._from_dict(
            json.loads((ensure_path(path) / "settings.json").read_text(encoding="utf-8"))
        )
        return self
