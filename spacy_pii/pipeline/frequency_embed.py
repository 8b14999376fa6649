"""``pii.frequency_hash_embed.v1``: spaCy's hash embeddings, with how common each word is.

A scratch encoder without static vectors has never met most words of a language, so a
capitalised word it does not know looks like a name wherever a name would fit: "Station",
"Maison", "Luna". This embedding is spaCy's ``MultiHashEmbed`` (one hash table per token
attribute) with five more columns per token, :data:`TOKEN_FREQUENCY_FEATURES`: the word's
Zipf frequency from ``wordfreq`` in the text's own language and in English, and whether
either list has never seen it. One maxout layer mixes them, as ``MultiHashEmbed`` mixes its
tables, so the encoder reads them in context ("l'agent Cattet": a common word, then an
unseen one).

The language is the doc's ``user_data["pii_lang"]`` when the training corpus set it (its
documents come from many languages into one ``xx`` vocabulary), else ``doc.lang_``: the
pipeline's language, as ``spacy_pii.load(LANG)`` builds it. The columns are constants, not
weights, so they add nothing to the model's size and receive no gradient.
"""

from __future__ import annotations

from collections.abc import Sequence

from spacy.ml.featureextractor import FeatureExtractor
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import (
    HashEmbed,
    Maxout,
    Model,
    chain,
    concatenate,
    list2ragged,
    ragged2list,
    with_array,
)
from thinc.types import Floats2d, Ragged

from ..core.name_evidence import (
    LANGUAGE_KEY,
    TOKEN_FREQUENCY_FEATURES,
    token_frequency_features,
)

# The hash tables' seeds start where spaCy's MultiHashEmbed starts them.
_FIRST_SEED = 8


def doc_language(doc: Doc) -> str:
    """The language whose word frequencies a doc is read with."""
    return str(doc.user_data.get(LANGUAGE_KEY) or doc.lang_)


def _frequency_forward(model: Model, docs: list[Doc], is_train: bool):
    rows = [
        token_frequency_features(token.text, language)
        for doc in docs
        for language in (doc_language(doc),)
        for token in doc
    ]
    width = len(TOKEN_FREQUENCY_FEATURES)
    data = model.ops.asarray2f(rows) if rows else model.ops.alloc2f(0, width)
    lengths = model.ops.asarray1i([len(doc) for doc in docs])

    def backprop(d_ragged: Ragged) -> list[Doc]:
        return []

    return Ragged(data, lengths), backprop


def word_frequencies() -> Model[list[Doc], Ragged]:
    """The frequency columns of every token, as one ragged array per batch."""
    return Model(
        "pii_word_frequencies",
        _frequency_forward,
        dims={"nO": len(TOKEN_FREQUENCY_FEATURES)},
    )


@registry.architectures("pii.frequency_hash_embed.v1")
def build_frequency_hash_embed(
    width: int, attrs: Sequence[str | int], rows: Sequence[int]
) -> Model[list[Doc], list[Floats2d]]:
    """Hash embeddings of ``attrs`` (``rows`` rows each, ``width`` wide) and the word
    frequency columns, mixed by one maxout layer to ``width``.

    Args:
        width: the output width, and the width of every hash table.
        attrs: the token attributes to embed, as spaCy's ``MultiHashEmbed`` takes them.
        rows: the rows of each attribute's table.

    Raises:
        ValueError: ``rows`` and ``attrs`` differ in length.
    """
    if len(rows) != len(attrs):
        raise ValueError(f"{len(attrs)} attrs but {len(rows)} row counts")
    tables: list[Model] = [
        HashEmbed(width, count, column=column, seed=_FIRST_SEED + column, dropout=0.0)
        for column, count in enumerate(rows)
    ]
    hashed: Model[list[Doc], Ragged] = chain(
        FeatureExtractor(list(attrs)),
        list2ragged(),
        with_array(concatenate(*tables)),
    )
    mixed_width = width * len(tables) + len(TOKEN_FREQUENCY_FEATURES)
    return chain(
        concatenate(hashed, word_frequencies()),
        with_array(Maxout(width, mixed_width, nP=3, dropout=0.0, normalize=True)),
        ragged2list(),
    )
