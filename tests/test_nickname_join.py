"""Nickname joins: the pure function, and pii_merge's setting that runs it."""

from __future__ import annotations

import pytest
import spacy
from join_helpers import best_cpu_seconds, hit_on, names_with_tails, values

from spacy_pii.adapters.span_groups import hits_to_group
from spacy_pii.core.hits import Hit
from spacy_pii.core.nickname_join import DETECTOR, join_nicknames


@pytest.mark.parametrize(
    ("text", "parts", "expected"),
    [
        (
            'Assembly member Harold "Junior" Theriault spoke.',
            ["Harold", "Theriault"],
            'Harold "Junior" Theriault',
        ),
        ("Earvin 'Magic' Johnson scored.", ["Earvin", "Johnson"], "Earvin 'Magic' Johnson"),
        ("Dwayne “The Rock” Johnson", ["Dwayne", "Johnson"], "Dwayne “The Rock” Johnson"),
        ("Robert (Bob) Smith called", ["Robert", "Smith"], "Robert (Bob) Smith"),
        ("Heinrich „Heini“ Müller", ["Heinrich", "Müller"], "Heinrich „Heini“ Müller"),
        # The nickname is a PERSON hit of its own.
        ('Earvin "Magic" Johnson', ["Earvin", "Magic", "Johnson"], 'Earvin "Magic" Johnson'),
    ],
)
def test_a_name_around_a_nickname_becomes_one_span(text, parts, expected):
    joined = join_nicknames(text, [hit_on(text, part) for part in parts])
    assert values(text, joined) == [(expected, "PERSON")]
    assert joined[0].detector == DETECTOR


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ('He told Anna "no" Ben said.', ["Anna", "Ben"]),  # lower-case quoted word
        ('Anna said "Ben" and Carl left.', ["Anna", "Carl"]),  # not only the nickname between
        ('Anna "Ben\nCarl" Dora', ["Anna", "Dora"]),  # a line break inside
        ('Anna "Bob) Carl', ["Anna", "Carl"]),  # quotes that do not pair
        ("Anna, Ben", ["Anna", "Ben"]),  # two people
        ('Anna "' + "A" * 31 + '" Ben', ["Anna", "Ben"]),  # too long for a nickname
    ],
)
def test_other_gaps_leave_the_parts_apart(text, parts):
    hits = [hit_on(text, part) for part in parts]
    assert join_nicknames(text, hits) == tuple(hits)


def test_only_person_hits_join_and_other_types_pass_through():
    text = 'Acme "Big" Corp hired Earvin "Magic" Johnson'
    hits = [hit_on(text, "Acme", "ORG"), hit_on(text, "Corp", "ORG")]
    hits += [hit_on(text, "Earvin"), hit_on(text, "Johnson")]
    assert values(text, join_nicknames(text, hits)) == [
        ("Acme", "ORG"),
        ("Corp", "ORG"),
        ('Earvin "Magic" Johnson', "PERSON"),
    ]


@pytest.mark.parametrize(("first", "second", "expected"), [(0.9, 0.4, 0.4), (0.9, None, None)])
def test_the_joined_span_keeps_the_lowest_score(first, second, expected):
    text = 'Harold "Junior" Theriault'
    joined = join_nicknames(
        text, [hit_on(text, "Harold", score=first), hit_on(text, "Theriault", score=second)]
    )
    assert joined[0].score == expected


def test_time_grows_linearly_with_the_hits():
    # Worst case for the gap patterns: every gap is nearly a nickname gap and fails late.
    def seconds(n: int) -> float:
        text, hits = names_with_tails(n, lambda i: f' "Bo{i} ')
        return best_cpu_seconds(lambda: join_nicknames(text, hits))

    assert seconds(100_000) < 20 * seconds(10_000)


def _merge(text: str, hits: list[Hit], config: dict | None = None) -> list[str]:
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config=config or {})
    doc = nlp.make_doc(text)
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", hits)
    return [span.text for span in merge(doc).spans["pii"]]


def test_the_merge_joins_by_default_and_the_setting_turns_it_off():
    text = 'Then Harold "Junior" Theriault spoke.'
    hits = [hit_on(text, "Harold"), hit_on(text, "Theriault")]
    assert _merge(text, hits) == ['Harold "Junior" Theriault']
    assert _merge(text, hits, {"join_nicknames": False}) == ["Harold", "Theriault"]
