"""Rule detectors: pure Python, ``str`` in, :class:`~spacy_pii.core.hits.Hit` out.

Each module owns the forms that one standard or one well-kept library decides, and names
that source in its docstring. :func:`build_detectors` turns :class:`RuleSettings` into
detector objects; :func:`find_hits` folds look-alike characters, runs the detectors and
maps every hit back to an exact slice of the original text.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, field_validator

from ..core.hits import Hit
from ..core.languages import known_regions
from .anchors import forget, prescan
from .base import Detector, check_text
from .fold import fold_confusables

# Public type -> the detectors that emit it. Imported lazily so that importing the
# package stays cheap and a type the caller disabled costs nothing.
RULE_TYPES: tuple[str, ...] = ("SECRET", "GOV_ID", "PAYMENT", "EMAIL", "PHONE", "IP_ADDRESS")

# Context cues (:mod:`.cues`, :mod:`.hashtag_names`): not a standard's grammar, so they have
# their own setting.
CUE_KINDS: tuple[str, ...] = ("titles", "columns", "hashtags")

# libphonenumber's region codes for the phone rule when the caller names none. "US" and
# "GB" cover the national formats most common in English text; international numbers
# with "+" parse in every region regardless.
DEFAULT_PHONE_REGIONS: tuple[str, ...] = ("US", "GB")

# python-stdnum validators available to the opt-in national-id rule, by country code.
GOV_ID_COUNTRIES: tuple[str, ...] = ("GB", "DE", "FR", "ES", "IT", "NL", "SE", "IN", "CA", "BR")


class RuleSettings(BaseModel):
    """What the rule lane looks for: validated, frozen, built by ``pii_rules`` from its config."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    types: tuple[str, ...] = RULE_TYPES
    phone_regions: tuple[str, ...] = DEFAULT_PHONE_REGIONS
    gov_id_countries: tuple[str, ...] = ()
    context_cues: tuple[str, ...] = CUE_KINDS
    fold_confusables: bool = True
    # A language code of the rule data (spacy_pii.core.languages): its own cue words,
    # titles and date forms run besides the English ones (detectors.language_cues).
    language: str | None = None

    @field_validator("language")
    @classmethod
    def _known_language(cls, value: str | None) -> str | None:
        if value is not None:
            from ..core.languages import language_rules

            language_rules(value)
        return value

    @field_validator("types")
    @classmethod
    def _known_types(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - set(RULE_TYPES))
        if unknown:
            raise ValueError(f"no rule detects {unknown}; rule types are {list(RULE_TYPES)}")
        return value

    @field_validator("context_cues")
    @classmethod
    def _known_cues(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - set(CUE_KINDS))
        if unknown:
            raise ValueError(f"unknown context cues {unknown}; known: {list(CUE_KINDS)}")
        return value

    @field_validator("phone_regions")
    @classmethod
    def _known_regions(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return known_regions(value, "phone regions")

    @field_validator("gov_id_countries")
    @classmethod
    def _known_countries(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(value) - set(GOV_ID_COUNTRIES))
        if unknown:
            raise ValueError(
                f"no national-id rule for {unknown}; available: {list(GOV_ID_COUNTRIES)}"
            )
        return value


def build_detectors(settings: RuleSettings) -> list[Detector]:
    """Instantiate the detectors that ``settings`` enables, in a fixed order."""
    wanted = set(settings.types)
    detectors: list[Detector] = []
    if "SECRET" in wanted:
        from .secret import SecretDetector

        detectors.append(SecretDetector())
    if "GOV_ID" in wanted:
        from .gov_id import CuedIdDetector, NationalIdDetector, SsnDetector

        detectors.append(SsnDetector())
        if settings.gov_id_countries:
            detectors.append(NationalIdDetector(settings.gov_id_countries))
        # Any listed country's id after a cue phrase; it leaves the slices the two rules
        # above report to them (see gov_id's docstring).
        detectors.append(CuedIdDetector(settings.gov_id_countries))
    if "PAYMENT" in wanted:
        from .payment import CardDetector, IbanDetector

        detectors.extend([CardDetector(), IbanDetector()])
    if "EMAIL" in wanted:
        from .email import EmailDetector
        from .email_obfuscated import ObfuscatedEmailDetector

        detectors.extend([EmailDetector(), ObfuscatedEmailDetector()])
    if "PHONE" in wanted:
        from .phone import PhoneDetector
        from .phone_obfuscated import ObfuscatedPhoneDetector

        detectors.append(PhoneDetector(settings.phone_regions))
        detectors.append(ObfuscatedPhoneDetector(settings.phone_regions))
    if "IP_ADDRESS" in wanted:
        from .network import IpAddressDetector

        detectors.append(IpAddressDetector())
    if "titles" in settings.context_cues:
        from .cues import TitleCueDetector

        place_words: frozenset[str] = frozenset()
        if settings.language is not None:
            from ..core.languages import language_rules

            place_words = frozenset(
                w.lower() for w in language_rules(settings.language).place_words
            )
        detectors.append(TitleCueDetector(place_words))
    if "columns" in settings.context_cues:
        from .cues import ColumnCueDetector

        detectors.append(ColumnCueDetector())
    if "hashtags" in settings.context_cues:
        from .hashtag_names import HashtagNameDetector

        detectors.append(HashtagNameDetector())
    if settings.language is not None:
        from ..core.languages import language_rules
        from .language_cues import LanguageCueDetector
        from .street_address import StreetAddressDetector

        rules = language_rules(settings.language)
        detectors.append(LanguageCueDetector(rules))
        detectors.append(StreetAddressDetector(rules))
    return detectors


def find_hits(
    text: str, detectors: Sequence[Detector], *, fold: bool = True, max_length: int | None = None
) -> list[Hit]:
    """Run ``detectors`` over ``text`` and return hits whose offsets index ``text`` itself.

    Hits are sorted by ``(start, end, label, detector)`` so the output does not depend on
    detector order. One pre-scan of the text (:mod:`.anchors`) is shared by every
    detector; a detector with a ``may_occur(anchors)`` gate runs only where it says yes.
    """
    check_text(text, max_length)
    if not text:
        return []
    folded = fold_confusables(text) if fold else None
    scan = folded.text if folded is not None else text
    anchors = prescan(scan)
    hits: set[Hit] = set()
    try:
        for detector in detectors:
            gate = getattr(detector, "may_occur", None)
            if gate is not None and not gate(anchors):
                continue
            for hit in detector.find(scan):
                if folded is not None and folded.origin is not None:
                    start, end = folded.to_original(hit.start, hit.end)
                    hit = Hit(start, end, hit.label, hit.score, hit.detector, hit.kind)
                trimmed = _without_edge_space(text, hit)
                if trimmed is not None:
                    hits.add(trimmed)
    finally:
        forget()
    if len(hits) < 2:
        return list(hits)
    return sorted(hits, key=lambda h: (h.start, h.end, h.label, h.detector))


def _without_edge_space(text: str, hit: Hit) -> Hit | None:
    """The hit without whitespace at its edges, ``None`` when it is all whitespace: a value
    is never its spaces, and a span that starts or ends in whitespace cannot sit on
    spaCy's tokens."""
    start, end = hit.start, hit.end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if (start, end) == (hit.start, hit.end):
        return hit
    if start == end:
        return None
    return Hit(start, end, hit.label, hit.score, hit.detector, hit.kind)


def find_rule_hits(text: str, settings: RuleSettings | None = None) -> list[Hit]:
    """One-call convenience: build the detectors for ``settings`` and run them on ``text``."""
    settings = settings or RuleSettings()
    return find_hits(text, build_detectors(settings), fold=settings.fold_confusables)


__all__ = [
    "CUE_KINDS",
    "DEFAULT_PHONE_REGIONS",
    "GOV_ID_COUNTRIES",
    "RULE_TYPES",
    "Detector",
    "RuleSettings",
    "build_detectors",
    "check_text",
    "find_hits",
    "find_rule_hits",
]
