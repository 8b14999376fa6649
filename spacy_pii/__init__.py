"""spacy-pii: find personal data as typed, exact character spans inside any spaCy pipeline.

``import spacy_pii`` is cheap: it imports neither torch nor transformers, and the spaCy
components register through entry points, so ``nlp.add_pipe("pii_rules")`` works without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.hits import Hit
from .core.quasi import QuasiFinding, find_combinations
from .core.taxonomy import Taxonomy, load_taxonomy
from .errors import (
    ConfigError,
    InputTooLarge,
    InvalidInput,
    OverlapError,
    PiiError,
    PolicyMismatch,
    SpanOffsetError,
    TaxonomyError,
    UnknownLabel,
    UnknownType,
)
from .redaction import (
    MaskHit,
    MaskResult,
    MissingExtra,
    Operator,
    RestoreMappingResult,
    RestoreResult,
    UnknownSpan,
    mask_mapping,
    parse_operators,
    redact,
    restore,
    restore_mapping,
)
from .version import __version__

if TYPE_CHECKING:
    from spacy.language import Language

# Names resolved on first use, so that importing the package stays cheap.
_LAZY = {
    "find_rule_hits": ("spacy_pii.detectors", "find_rule_hits"),
    "RuleSettings": ("spacy_pii.detectors", "RuleSettings"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        module_name, attribute = _LAZY[name]
        value = getattr(import_module(module_name), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'spacy_pii' has no attribute {name!r}")


def load(name: str = "default", **kwargs: Any) -> Language:
    """Load a PII pipeline.

    ``"rules"`` builds blank English with ``pii_rules`` and ``pii_merge``, tokenized at white
    space (``tokenizer="language"`` keeps English's tokens; other ``kwargs`` are ``pii_rules``
    settings, see :func:`~spacy_pii.assembly.build.rules_pipeline`). ``"default"`` is the
    trained pipeline shipped inside the package when present, else the rules pipeline.
    ``"wide"`` is the default plus en_core_web_md's NER as a peer for names, organisations and
    places (:func:`~spacy_pii.assembly.build.wide_pipeline`; ``kwargs``: ``peer``,
    ``peer_component``, ``base``, ``scores``). A language code (``"de"``, ``"fr"``, ...,
    ``"xx"`` for mixed text; docs/languages.md) builds that language's tokenizer, rules and
    the multilingual name model (:func:`~spacy_pii.assembly.build.language_pipeline`);
    ``"en"`` is ``"default"``; an unknown code raises ``UnknownLanguage``. Any other name
    or path goes to
    :func:`spacy.load`, with ``kwargs`` passed through.
    """
    from .assembly.build import load_pipeline

    return load_pipeline(name, **kwargs)


__all__ = [
    "ConfigError",
    "Hit",
    "InputTooLarge",
    "InvalidInput",
    "MaskHit",
    "MaskResult",
    "MissingExtra",
    "Operator",
    "OverlapError",
    "PiiError",
    "PolicyMismatch",
    "QuasiFinding",
    "RestoreMappingResult",
    "RestoreResult",
    "RuleSettings",
    "SpanOffsetError",
    "Taxonomy",
    "TaxonomyError",
    "UnknownLabel",
    "UnknownSpan",
    "UnknownType",
    "__version__",
    "find_combinations",
    "find_rule_hits",
    "load",
    "load_taxonomy",
    "mask_mapping",
    "parse_operators",
    "redact",
    "restore",
    "restore_mapping",
]
