"""``pii.language_corpus.v1``: spaCy's corpus reader, keeping each document's language.

The multilingual corpus (``training/make_corpus_ml.py``) holds documents of eleven
languages in one ``DocBin``, each tokenised by its own language and tagged with it in
``user_data["pii_lang"]``. spaCy's reader builds the predicted doc afresh from the gold
tokens, without user data; this reader copies the tag across, so that an encoder that reads
word frequencies (``pii.frequency_hash_embed.v1``) sees in training the language that
``spacy_pii.load(LANG)`` gives it at run time.
"""

from __future__ import annotations

from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Corpus, Example
from spacy.util import registry

from ..core.name_evidence import LANGUAGE_KEY
from ..errors import ConfigError


class LanguageCorpus(Corpus):
    """:class:`spacy.training.Corpus` whose predicted docs keep the gold doc's language."""

    def _make_example(self, nlp: Language, reference: Doc, gold_preproc: bool) -> Example:
        example = super()._make_example(nlp, reference, gold_preproc)
        if LANGUAGE_KEY in reference.user_data:
            example.predicted.user_data[LANGUAGE_KEY] = reference.user_data[LANGUAGE_KEY]
        return example


@registry.readers("pii.language_corpus.v1")
def create_language_corpus_reader(
    path: Path | None,
    gold_preproc: bool,
    max_length: int = 0,
    limit: int = 0,
    augmenter=None,
) -> LanguageCorpus:
    """The reader of ``spacy.Corpus.v1``, with each document's language kept.

    Raises:
        ConfigError: no ``path`` (a config whose ``[paths]`` were not filled in).
    """
    if path is None:
        raise ConfigError("pii.language_corpus.v1 needs a path to a .spacy file or folder")
    return LanguageCorpus(
        path, gold_preproc=gold_preproc, max_length=max_length, limit=limit, augmenter=augmenter
    )
