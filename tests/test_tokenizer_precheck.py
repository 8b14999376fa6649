"""The guarded tokenizer's cheap test lets through every text that holds a hostile run."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_pii.assembly.build import rules_pipeline

TOKENIZER = rules_pipeline(tokenizer="language").tokenizer
PIECES = ["(", ")", "[", "{", "a", "1", " ", "\n", ":", "-", ".", "é", "x" * 20, "(" * 9]


@settings(max_examples=400, deadline=None)
@given(
    text=st.one_of(
        st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
        st.text(alphabet="()[]{}:;.,-_ a1\n", max_size=150),
    )
)
def test_precheck_lets_through_every_hostile_text(text):
    if TOKENIZER._hostile.search(text) is not None:
        assert TOKENIZER.may_be_hostile(text)


def test_precheck_turns_away_prose_and_catches_the_two_kinds():
    assert not TOKENIZER.may_be_hostile("Mail ada@example.com or call (212) 555-0123, thanks!")
    assert TOKENIZER.may_be_hostile("x" * 101)
    assert TOKENIZER.may_be_hostile("word " + "(" * 17 + "a")
    assert TOKENIZER("(" * 40 + " ok").text == "(" * 40 + " ok"
