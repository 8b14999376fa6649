"""``pii_latin_forms``: the encoder reads a Cyrillic word of a two-alphabet language by its
Latin form.

For each word with a Cyrillic letter, the component writes the Latin form's NORM, PREFIX and
SUFFIX into that word's lexeme in the vocabulary
(:func:`spacy_pii.core.latin_forms.latin_form`). Those are three of the four attributes the
name model's hash embeddings read (the fourth, SHAPE, is the same in both alphabets). The
text, the tokens and every span stay as written; the rules and the span ranker read the text
itself.

``spacy_pii.load("sr")`` puts it first. In a pipeline of your own, put it before the
multilingual name model only where no other component reads NORM, PREFIX or SUFFIX as
trained in Cyrillic: the lexemes are shared by every component of the pipeline.
Settings come from the config; the component holds no data.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator
from spacy.attrs import NORM, PREFIX, SUFFIX
from spacy.language import Language
from spacy.tokens import Doc

from ..core.latin_forms import checked_scheme, latin_form
from ..errors import validated_settings

DEFAULT_LATIN_FORMS_CONFIG: dict[str, Any] = {"scheme": "sr"}


class PiiLatinFormsSettings(BaseModel):
    """``pii_latin_forms``'s settings, validated; built from the factory's arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scheme: str = "sr"

    @field_validator("scheme")
    @classmethod
    def _known_scheme(cls, value: str) -> str:
        return checked_scheme(value)


@Language.factory(
    "pii_latin_forms",
    assigns=["token.norm", "token.prefix", "token.suffix"],
    default_config=DEFAULT_LATIN_FORMS_CONFIG,
)
def make_pii_latin_forms(nlp: Language, name: str, scheme: str) -> PiiLatinForms:
    """Give the Cyrillic words of the vocabulary their Latin forms' NORM, PREFIX and SUFFIX.

    Args:
        scheme: the language whose Latin alphabet is written (``cyrtranslit``'s code:
            ``sr`` for Serbian).
    """
    settings = validated_settings(PiiLatinFormsSettings, "pii_latin_forms", locals())
    return PiiLatinForms(nlp, name, settings)


class PiiLatinForms:
    """The ``pii_latin_forms`` component: see the module docstring."""

    def __init__(self, nlp: Language, name: str, settings: PiiLatinFormsSettings) -> None:
        self.name = name
        self.settings = settings
        # spaCy's type stubs omit the vocabulary's getters.
        getters = nlp.vocab.lex_attr_getters  # type: ignore[attr-defined]
        # The language's own rules for the three attributes, so that a Latin form's PREFIX
        # and SUFFIX are those a Latin word gets (spaCy: one letter, three letters).
        self._norm = getters.get(NORM, str.lower)
        self._prefix = getters[PREFIX]
        self._suffix = getters[SUFFIX]
        # A word's attributes are computed once; they are written on every call, so that a
        # vocabulary loaded again (from_disk) gets them too.
        self._latin_attributes = lru_cache(maxsize=65536)(self._attributes)

    def _attributes(self, word: str) -> tuple[str, str, str] | None:
        latin = latin_form(word, self.settings.scheme)
        if latin is None:
            return None
        return self._norm(latin), self._prefix(latin), self._suffix(latin)

    def __call__(self, doc: Doc) -> Doc:
        for token in doc:
            attributes = self._latin_attributes(token.text)
            if attributes is None:
                continue
            lexeme = doc.vocab[token.orth]
            lexeme.norm_, lexeme.prefix_, lexeme.suffix_ = attributes
        return doc
