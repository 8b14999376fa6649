"""``pii_latin_forms`` and its logic: Serbian Cyrillic words read by the encoder in Latin."""

from __future__ import annotations

import pytest
import spacy

from spacy_pii.core.latin_forms import latin_form, transliteration_schemes
from spacy_pii.errors import ConfigError


def test_a_cyrillic_word_gets_its_serbian_latin_form_with_the_digraphs():
    assert latin_form("Миловановић", "sr") == "Milovanović"
    assert latin_form("Љубица", "sr") == "Ljubica"
    assert latin_form("Џон", "sr") == "Džon"


def test_a_word_without_a_cyrillic_letter_has_no_latin_form():
    assert latin_form("Milovanović", "sr") is None
    assert latin_form("42", "sr") is None


def test_an_unknown_scheme_is_refused():
    assert "sr" in transliteration_schemes()
    with pytest.raises(ValueError, match="no Latin transliteration"):
        latin_form("Миловановић", "xx")


def _attributes(token) -> tuple[str, str, str]:
    return token.norm_, token.prefix_, token.suffix_


def test_the_component_gives_cyrillic_words_their_latin_forms_attributes():
    nlp = spacy.blank("sr")
    nlp.add_pipe("pii_latin_forms")
    cyrillic = nlp("Драгослав Миловановић је у Крагујевцу.")
    latin = spacy.blank("sr")("Dragoslav Milovanović je u Kragujevcu.")
    assert [t.text for t in cyrillic][:2] == ["Драгослав", "Миловановић"]
    assert [_attributes(t) for t in cyrillic] == [_attributes(t) for t in latin]


def test_latin_words_and_the_text_are_left_as_written():
    nlp = spacy.blank("sr")
    nlp.add_pipe("pii_latin_forms")
    doc = nlp("Vesna Радуловић, e-mail vesna@example.rs")
    assert doc.text == "Vesna Радуловић, e-mail vesna@example.rs"
    assert _attributes(doc[0]) == ("vesna", "V", "sna")
    assert _attributes(doc[1]) == ("radulović", "R", "vić")


def test_a_saved_pipeline_loads_the_component_and_reads_cyrillic_again(tmp_path):
    nlp = spacy.blank("sr")
    nlp.add_pipe("pii_latin_forms")
    nlp("Миловановић")
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.pipe_names == ["pii_latin_forms"]
    assert loaded("Миловановић")[0].norm_ == "milovanović"


def test_a_bad_scheme_is_a_config_error():
    nlp = spacy.blank("sr")
    with pytest.raises(ConfigError, match="scheme"):
        nlp.add_pipe("pii_latin_forms", config={"scheme": "klingon"})
