"""The frequency-aware embedding reads each word's frequency in the doc's own language."""

from __future__ import annotations

import numpy
import pytest
import spacy
from spacy.tokens import DocBin
from thinc.api import Config

from spacy_pii.core.name_evidence import (
    LANGUAGE_KEY,
    TOKEN_FREQUENCY_FEATURES,
    token_frequency_features,
)
from spacy_pii.learning.language_corpus import LanguageCorpus
from spacy_pii.pipeline.frequency_embed import (
    build_frequency_hash_embed,
    doc_language,
    word_frequencies,
)

TOK2VEC = """
[model]
@architectures = "spacy.Tok2Vec.v2"

[model.embed]
@architectures = "pii.frequency_hash_embed.v1"
width = 32
attrs = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]
rows = [500, 100, 100, 50]

[model.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 32
depth = 2
window_size = 1
maxout_pieces = 3
"""


def _column(name: str) -> int:
    return TOKEN_FREQUENCY_FEATURES.index(name)


def test_a_common_word_reads_higher_than_an_unseen_one_in_its_own_language():
    common = token_frequency_features("Bahnhof", "de")
    unseen = token_frequency_features("Qzxvbrugnon", "de")
    assert common[_column("zipf_own")] > 0.3
    assert unseen[_column("zipf_own")] == 0.0
    assert unseen[_column("unseen_own")] == 1.0 and common[_column("unseen_own")] == 0.0


def test_the_own_language_decides_which_list_is_read():
    # "Station" is a German and an English word; "Bahnhof" is German only.
    assert (
        token_frequency_features("Bahnhof", "de")[_column("zipf_own")]
        > (token_frequency_features("Bahnhof", "fr")[_column("zipf_own")])
    )
    english = token_frequency_features("station", "en")
    assert english[_column("zipf_own")] == 0.0 and english[_column("zipf_english")] > 0.5


def test_tokens_without_letters_and_unlisted_languages_are_documented_values():
    assert token_frequency_features("12.03.1961", "de") == (0.0,) * len(TOKEN_FREQUENCY_FEATURES)
    mixed = token_frequency_features("Bahnhof", "xx")
    assert mixed[_column("zipf_own")] == 0.0 and mixed[_column("unseen_own")] == 0.0
    assert mixed[_column("is_word")] == 1.0


def test_a_token_longer_than_any_listed_word_reads_as_unseen_without_a_lookup():
    long_token = "Bahnhof" * 10_000
    features = token_frequency_features(long_token, "de")
    assert features[_column("unseen_own")] == 1.0 and features[_column("unseen_english")] == 1.0
    assert features[_column("zipf_own")] == 0.0 and features[_column("is_word")] == 1.0


def test_the_layer_reads_the_doc_language_and_the_corpus_tag_over_it():
    nlp = spacy.blank("fr")
    doc = nlp("Bahnhof Maison")
    assert doc_language(doc) == "fr"
    layer = word_frequencies()
    as_french = layer.predict([doc]).dataXd.copy()
    doc.user_data[LANGUAGE_KEY] = "de"
    as_german = layer.predict([doc]).dataXd
    assert as_french.shape == (2, len(TOKEN_FREQUENCY_FEATURES))
    assert as_german[0, _column("zipf_own")] > as_french[0, _column("zipf_own")]
    assert as_german[1, _column("zipf_own")] < as_french[1, _column("zipf_own")]


def test_the_tok2vec_trains_serialises_and_reloads_to_the_same_vectors():
    model = spacy.util.registry.resolve(Config().from_str(TOK2VEC))["model"]
    nlp = spacy.blank("de")
    docs = [nlp("Der Agent Cattet kam zur Station."), nlp(""), nlp("Hallo")]
    model.initialize(X=docs)
    vectors, backprop = model.begin_update(docs)
    assert [v.shape for v in vectors] == [(7, 32), (0, 32), (1, 32)]
    backprop([numpy.ones_like(v) for v in vectors])
    again = spacy.util.registry.resolve(Config().from_str(TOK2VEC))["model"]
    again.initialize(X=docs)
    again.from_bytes(model.to_bytes())
    for first, second in zip(model.predict(docs), again.predict(docs), strict=True):
        numpy.testing.assert_allclose(first, second, rtol=1e-6)


def test_mismatched_rows_are_refused():
    with pytest.raises(ValueError, match="row counts"):
        build_frequency_hash_embed(32, ["NORM", "SHAPE"], [100])


def test_the_reader_passes_each_document_language_to_the_predicted_doc(tmp_path):
    docbin = DocBin(store_user_data=True)
    for lang, text in (("de", "Frau Schneider kam."), ("fr", "Mme Dupont vint.")):
        doc = spacy.blank(lang)(text)
        doc.user_data[LANGUAGE_KEY] = lang
        docbin.add(doc)
    docbin.add(spacy.blank("en")("No tag here."))
    path = tmp_path / "train.spacy"
    docbin.to_disk(path)
    examples = list(LanguageCorpus(path, gold_preproc=True)(spacy.blank("xx")))
    assert [doc_language(eg.predicted) for eg in examples] == ["de", "fr", "xx"]


def test_a_language_can_be_read_with_another_languages_word_list():
    nlp = spacy.blank("pl")
    doc = nlp("Wisława Szymborska")
    own = word_frequencies().predict([doc]).data
    read_as_slovak = word_frequencies({"pl": "sk"}).predict([doc]).data
    # Polish's large list knows both words; Slovak's small one knows neither.
    assert own[0][0] > 0 and own[1][0] > 0
    assert read_as_slovak[0][0] == 0 and read_as_slovak[1][0] == 0
    assert read_as_slovak[0][2] == 1.0  # unseen in the list it is read with


def test_a_mapping_to_a_language_without_word_frequencies_is_refused():
    with pytest.raises(ValueError, match="no word frequencies for xx"):
        build_frequency_hash_embed(8, ["NORM"], [10], frequencies_as={"pl": "xx"})
