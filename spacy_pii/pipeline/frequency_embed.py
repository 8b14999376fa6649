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

``frequencies_as`` maps a language the model never trained on to the trained language whose
word list it should be read with. ``wordfreq`` ships a small list (words of Zipf 3 or more)
for Serbo-Croatian and Slovak and a large one (down to Zipf 1) for Polish and Russian, so a
model that learned Slavic names from the small lists, where most names are unseen, met
Polish names as common words of Zipf 3 to 4 and proposed none ("Wisława Szymborska").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
    has_word_frequencies,
    token_frequency_features,
)

# The hash tables' seeds start where spaCy's MultiHashEmbed starts them.
_FIRST_SEED = 8


def doc_language(doc: Doc) -> str:
    """The language whose word frequencies a doc is read with."""
    return str(doc.user_data.get(LANGUAGE_KEY) or doc.lang_)


def word_frequencies(
    frequencies_as: Mapping[str, str] | None = None,
) -> Model[list[Doc], Ragged]:
    """The frequency columns of every token, as one ragged array per batch; a doc in a
    language of ``frequencies_as`` is read with the list of the language it maps to.

    The mapping is held by the forward function, not in ``model.attrs``: thinc saves attrs
    with the weights, and a saved mapping would then override the config's on load.
    """
    read_as = dict(frequencies_as or {})
    width = len(TOKEN_FREQUENCY_FEATURES)

    def forward(model: Model, docs: list[Doc], is_train: bool):
        rows = [
            token_frequency_features(token.text, read_with)
            for doc in docs
            for language in (doc_language(doc),)
            for read_with in (read_as.get(language, language),)
            for token in doc
        ]
        data = model.ops.asarray2f(rows) if rows else model.ops.alloc2f(0, width)
        lengths = model.ops.asarray1i([len(doc) for doc in docs])

        def backprop(d_ragged: Ragged) -> list[Doc]:
            return []

        return Ragged(data, lengths), backprop

    return Model("pii_word_frequencies", forward, dims={"nO": width})


@registry.architectures("pii.frequency_hash_embed.v1")
def build_frequency_hash_embed(
    width: int,
    attrs: Sequence[str | int],
    rows: Sequence[int],
    frequencies_as: Mapping[str, str] | None = None,
) -> Model[list[Doc], list[Floats2d]]:
    """Hash embeddings of ``attrs`` (``rows`` rows each, ``width`` wide) and the word
    frequency columns, mixed by one maxout layer to ``width``.

    Args:
        width: the output width, and the width of every hash table.
        attrs: the token attributes to embed, as spaCy's ``MultiHashEmbed`` takes them.
        rows: the rows of each attribute's table.
        frequencies_as: a language the model was not trained on, mapped to the trained
            language whose word list its text is read with (``{"pl": "sk"}``).

    Raises:
        ValueError: ``rows`` and ``attrs`` differ in length, or ``frequencies_as`` maps to
            a language without word frequencies.
    """
    if len(rows) != len(attrs):
        raise ValueError(f"{len(attrs)} attrs but {len(rows)} row counts")
    unlisted = sorted(v for v in (frequencies_as or {}).values() if not has_word_frequencies(v))
    if unlisted:
        raise ValueError(f"frequencies_as: no word frequencies for {', '.join(unlisted)}")
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
        concatenate(hashed, word_frequencies(frequencies_as)),
        with_array(Maxout(width, mixed_width, nP=3, dropout=0.0, normalize=True)),
        ragged2list(),
    )
