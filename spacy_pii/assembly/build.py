"""Build or load whole PII pipelines: the rules-only pipeline and the shipped default."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language

from ..errors import ConfigError

# The trained default pipeline ships inside the package, built by `spacy project run all`.
SHIPPED_PIPELINE = "models/en_pii_default"
GUARDED_TOKENIZER = {"@tokenizers": "pii.guarded_tokenizer.v1"}
WHITESPACE_TOKENIZER = {"@tokenizers": "pii.whitespace_tokenizer.v1"}
RULES_TOKENIZERS = {"whitespace": WHITESPACE_TOKENIZER, "language": GUARDED_TOKENIZER}


def rules_pipeline(
    lang: str = "en", *, tokenizer: str = "whitespace", **rules_config: Any
) -> Language:
    """Blank ``lang`` with ``pii_rules`` and ``pii_merge``: structured PII, no model.

    Args:
        tokenizer: ``"whitespace"`` (``pii.whitespace_tokenizer.v1``): tokens split at white
            space and at every hit, the same spans for a third of the language tokenizer's
            cost; ``"language"`` (``pii.guarded_tokenizer.v1``): the language's own tokens,
            linear on hostile runs, for a pipeline that will add a model.
        rules_config: ``pii_rules`` settings.
    """
    if tokenizer not in RULES_TOKENIZERS:
        raise ConfigError(f"tokenizer must be one of {sorted(RULES_TOKENIZERS)}")
    nlp = spacy.blank(lang, config={"nlp": {"tokenizer": RULES_TOKENIZERS[tokenizer]}})
    nlp.add_pipe("pii_rules", config=rules_config)
    nlp.add_pipe("pii_merge")
    return nlp


def shipped_pipeline_path() -> Path | None:
    """The folder of the embedded trained pipeline, or ``None`` if this build has none."""
    candidate = resources.files("spacy_pii") / SHIPPED_PIPELINE
    path = Path(str(candidate))
    return path if (path / "config.cfg").is_file() else None


def load_pipeline(name: str = "default", **kwargs: Any) -> Language:
    if name == "rules":
        return rules_pipeline(**kwargs)
    if name == "default":
        path = shipped_pipeline_path()
        return spacy.load(path, **kwargs) if path is not None else rules_pipeline()
    if not (spacy.util.is_package(name) or Path(name).exists()):
        # spaCy's own OSError (E050) comes with a traceback; a typed error is one line.
        raise ConfigError(
            f"no pipeline {name!r}: not 'rules' or 'default', an installed package or a folder"
        )
    return spacy.load(name, **kwargs)
