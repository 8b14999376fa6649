"""Look-alike folding: rules see ASCII, offsets stay on the original string."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_pii.detectors.fold import fold_confusables


@pytest.mark.parametrize(
    ("original", "folded"),
    [
        ("ａｄａ＠example.com", "ada@example.com"),  # fullwidth forms (NFKC width folding)
        ("аdа@example.com", "ada@example.com"),  # Cyrillic a (UTS #39 confusable)
        ("ΑΒΕ", "ABE"),  # Greek capitals
        ("4242\u200b4242", "42424242"),  # zero-width space (category Cf) removed
        ("٤٢٤٢", "4242"),  # Arabic-Indic digits (category Nd)
        ("4242\u00a04242\u202f4242", "4242 4242 4242"),  # no-break and narrow no-break spaces
        ("plain ascii", "plain ascii"),
    ],
)
def test_folds_to_ascii(original, folded):
    assert fold_confusables(original).text == folded


def test_ascii_text_is_returned_without_a_map():
    result = fold_confusables("nothing to fold")
    assert result.origin is None
    assert result.to_original(2, 5) == (2, 5)


def test_offsets_map_back_over_removed_characters():
    original = "card 4242\u200b4242\u200b4242\u200b4242 ok"
    result = fold_confusables(original)
    start = result.text.index("4242")
    start_o, end_o = result.to_original(start, start + 16)
    assert original[start_o:end_o] == "4242\u200b4242\u200b4242\u200b4242"


@given(st.text(max_size=60))
def test_every_folded_character_maps_to_an_original_index(text):
    result = fold_confusables(text)
    if result.origin is None:
        assert result.text == text
        return
    assert len(result.origin) == len(result.text)
    assert list(result.origin) == sorted(set(result.origin))
    for index, char in enumerate(result.text):
        source = text[result.origin[index]]
        assert source == char or len(source) == 1


def test_card_grouped_with_no_break_spaces_is_found_on_the_original():
    from spacy_pii.detectors import RuleSettings, find_rule_hits

    text = "card 4242\u00a04242\u00a04242\u00a04242 ok"
    (hit,) = find_rule_hits(text, RuleSettings(types=("PAYMENT",)))
    assert text[hit.start : hit.end] == "4242\u00a04242\u00a04242\u00a04242"


@pytest.mark.parametrize(
    "word",
    ["телефон", "ул.", "Ленина", "Αθήνα", "улица Кнеза Милоша", "Παπαδόπουλος", "г-н"],
)
def test_words_in_their_own_script_keep_their_letters(word):
    # Each holds a Cyrillic or Greek letter with no Latin twin ("л", "θ"): the twins in
    # it are that script's own letters, which the language's cue words are written in.
    assert fold_confusables(word).text == word


def test_a_word_of_twins_and_latin_letters_still_folds():
    assert fold_confusables("аdа@ехаmрlе.соm").text == "ada@example.com"
    assert fold_confusables("раураl.соm and телефон").text == "paypal.com and телефон"


def test_russian_cues_are_read_in_their_own_letters():
    from spacy_pii.detectors import RuleSettings, find_rule_hits

    text = "телефон: 8 (495) 123-45-67, ИНН 500100732259"
    hits = find_rule_hits(text, RuleSettings(language="ru"))
    found = {(h.label, text[h.start : h.end]) for h in hits}
    assert ("PHONE", "8 (495) 123-45-67") in found
    assert ("GOV_ID", "500100732259") in found


def test_ordinal_indicators_stay_as_written():
    # The Romance languages' "Nº", "D.ª" and "3.º" are read by their cue words.
    assert fold_confusables("NºCol: 41, D.ª Ruiz, 3.º B").text == "NºCol: 41, D.ª Ruiz, 3.º B"
