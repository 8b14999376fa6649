"""Venue joins: the pure function, the language data it reads, and pii_merge's setting."""

from __future__ import annotations

import pytest
import spacy
from join_helpers import best_cpu_seconds, hit_on, names_with_tails, values
from spacy.language import Language

from spacy_pii.adapters.span_groups import hits_to_group
from spacy_pii.core.hits import Hit
from spacy_pii.core.languages import language_rules
from spacy_pii.core.venue_join import DETECTOR, VenueWords, join_venues, venue_words

ENGLISH = venue_words("en")


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("We had brunch at Rosa's Kitchen downtown.", "Rosa", "Rosa's Kitchen"),
        ("Meet at Colin’s Deli at 7?", "Colin", "Colin’s Deli"),
        ("Try Joe's Crab Shack on the pier.", "Joe", "Joe's Crab Shack"),
        ("Dinner at Stolze's Bar & Grill.", "Stolze", "Stolze's Bar & Grill"),
        ("We had dinner at Chez Melinda last night.", "Melinda", "Chez Melinda"),
        ("The queue at Casa Julia was long.", "Julia", "Casa Julia"),
        ("Sold by Novak & Sons.", "Novak", "Novak & Sons"),
        ("Bought at Novak & Sons Hardware today.", "Novak", "Novak & Sons Hardware"),
        ("Lunch at Linke's Trattoria, then home.", "Linke", "Linke's Trattoria"),
    ],
)
def test_a_name_that_names_a_venue_becomes_one_org_span(text, name, expected):
    joined = join_venues(text, [hit_on(text, name)], ENGLISH)
    assert values(text, joined) == [(expected, "ORG")]
    assert joined[0].detector == DETECTOR
    assert joined[0].score == 0.9


def test_a_name_tagged_as_one_span_with_its_prefix_becomes_org():
    text = "We had dinner at Chez Melinda last night."
    assert values(text, join_venues(text, [hit_on(text, "Chez Melinda")], ENGLISH)) == [
        ("Chez Melinda", "ORG")
    ]


@pytest.mark.parametrize(
    ("text", "value", "label"),
    [
        ("We drove through Casa Grande at noon.", "Casa Grande", "LOCATION"),  # a place
        ("Lunch at casa Julia today.", "casa Julia", "PERSON"),  # not capitalised
        ("They said Chez was closed.", "Chez", "PERSON"),  # the prefix alone
    ],
)
def test_a_prefix_inside_a_hit_joins_only_a_capitalised_prefix_before_a_name(text, value, label):
    hits = [hit_on(text, value, label)]
    assert join_venues(text, hits, ENGLISH) == tuple(hits)


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        # A legal form after a name, or at the end of the name's own hit.
        ("Contract with Novak Ltd signed today.", "Novak", "Novak Ltd"),
        ("Instructed by Harcourt Vance LLP (ref: AK).", "Harcourt Vance LLP", "Harcourt Vance LLP"),
        ("Supplied by Mariani S.r.l. in 2019.", "Mariani S.r.l.", "Mariani S.r.l."),
    ],
)
def test_a_legal_form_makes_a_name_a_firm(text, value, expected):
    language = "it" if "S.r.l." in text else "en"
    joined = join_venues(text, [hit_on(text, value)], venue_words(language))
    assert values(text, joined) == [(expected, "ORG")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Signed: Anna Limitedsson", "Anna"),  # a suffix only as a whole word
        ("Ltd", "Ltd"),  # the suffix alone is no firm of a name
        ("Jo Smith ltd the way", "Jo Smith"),  # legal forms keep their case
        ("Herr Weber GmbH-Mitglied", "Weber"),  # a legal form only as a whole word
        ("Herr Weber GmbH-Mitglied", "Weber GmbH"),  # at the hit's end too
        ("Refs: Nilsson AB, Berg KG.", "Nilsson"),  # two capitals are initials too
    ],
)
def test_a_legal_form_only_as_a_whole_word_after_a_name(text, value):
    hits = [hit_on(text, value)]
    # "xx" reads every language's forms at once.
    assert join_venues(text, hits, venue_words("xx")) == tuple(hits)


def test_the_longest_firm_suffix_wins():
    text = "Sold by Novak & Co. today."
    assert values(text, join_venues(text, [hit_on(text, "Novak")], ENGLISH)) == [
        ("Novak & Co.", "ORG")
    ]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I sat in Todd's kitchen all night.", "Todd"),  # a person's kitchen, lower case
        ("Joe's famous Grill burned.", "Joe"),  # a lower-case word before the head
        ("Anna's Brother Ben came.", "Anna"),  # capitalised, but no venue head
        ("Ben & Sonsy waved.", "Ben"),  # a firm suffix only as a whole word
        ("Ben &  Sons", "Ben"),  # a suffix after one space only
        ("Ben[Sons", "Ben"),  # after a space, a tab or a non-breaking space only
        ("We ate chez Pierre.", "Pierre"),  # a prefix only capitalised
        ("Casa Julia was full.", "Julia"),  # a prefix that opens a sentence says nothing
        ("Fine. Chez Pierre then.", "Pierre"),
        ("3Chez Pierre", "Pierre"),  # a prefix only as a whole word
        ("Chez" + " " * 44 + "Pierre", "Pierre"),  # a prefix a few spaces before at most
        ("We met Rosa's" + " " * 10 + "Kitchen staff", "Rosa"),
    ],
)
def test_other_contexts_leave_the_name_alone(text, name):
    hits = [hit_on(text, name)]
    assert join_venues(text, hits, ENGLISH) == tuple(hits)


def test_the_venue_absorbs_name_hits_inside_it_and_never_cuts_another_hit():
    text = "Rosa's Kitchen and Rosa's Kitchen"
    first, second = text.index("Rosa"), text.rindex("Rosa")
    kitchen = text.rindex("Kitchen")
    hits = [
        Hit(first, first + 4, "PERSON", 0.8, "ner", "model"),
        Hit(first + 7, first + 14, "ORG", 0.3, "ner", "model"),
        Hit(second, second + 4, "PERSON", 0.8, "ner", "model"),
        # A rule hit inside the second venue: the join would cover it, so none is made.
        Hit(kitchen + 2, kitchen + 5, "GOV_ID", 1.0, "rules.id", "rule"),
    ]
    assert values(text, join_venues(text, hits, ENGLISH)) == [
        ("Rosa's Kitchen", "ORG"),
        ("Rosa", "PERSON"),
        ("tch", "GOV_ID"),
    ]


def test_a_prefix_already_inside_another_hit_is_not_joined():
    text = "Ch Chez Pierre"
    hits = [Hit(0, 5, "EMAIL", 1.0, "rules.email", "rule"), hit_on(text, "Pierre")]
    assert join_venues(text, hits, ENGLISH) == tuple(hits)


def test_an_org_or_location_hit_names_the_venue_too_and_other_types_pass_through():
    text = "Mail bob@example.com about Rosa's Kitchen."
    hits = [hit_on(text, "bob@example.com", "EMAIL", 1.0), hit_on(text, "Rosa", "LOCATION", 0.4)]
    assert values(text, join_venues(text, hits, ENGLISH)) == [
        ("bob@example.com", "EMAIL"),
        ("Rosa's Kitchen", "ORG"),
    ]


def test_a_join_off_the_token_boundaries_is_not_made():
    text = "Rosa's Kitchen"
    hits = [hit_on(text, "Rosa")]
    asked = []

    def aligned_at(end: int):
        def aligned(start: int, stop: int) -> bool:
            asked.append((start, stop))
            return stop == end

        return aligned

    assert join_venues(text, hits, ENGLISH, aligned_at(6)) == tuple(hits)
    assert values(text, join_venues(text, hits, ENGLISH, aligned_at(14))) == [
        ("Rosa's Kitchen", "ORG")
    ]
    assert asked == [(0, 14), (0, 14)]


def test_no_vocabulary_joins_nothing():
    text = "Rosa's Kitchen"
    hits = [hit_on(text, "Rosa")]
    assert join_venues(text, hits, VenueWords()) == tuple(hits)
    assert not venue_words("ru")  # a language without venue data
    assert not venue_words("tr")  # a language the data does not know
    assert not venue_words(None)


def test_the_language_data_is_read_and_xx_holds_every_language():
    french = venue_words("fr")
    assert "chez" in french.prefixes and "& Fils" in french.firm_suffixes
    mixed = language_rules("xx")
    assert {"Chez", "Casa"} <= set(mixed.venue_prefixes)
    assert {"& Sons", "& Zonen", "& Söhne"} <= set(mixed.firm_suffixes)


def test_time_grows_linearly_with_the_hits():
    # Every name is followed by a possessive and capitalised words that are not heads, so
    # each window is read to its end and fails.
    def seconds(n: int) -> float:
        text, hits = names_with_tails(n, lambda _: "'s Big Red Houses & Sonsx Chez ")
        return best_cpu_seconds(lambda: join_venues(text, hits, ENGLISH))

    assert seconds(100_000) < 20 * seconds(10_000)


def test_time_grows_linearly_with_hits_inside_one_run_of_letters():
    # Ten-letter hits side by side in one word of 100,000 and of 1,000,000 letters: each hit
    # reads its own letters, not the rest of the word.
    def seconds(chars: int) -> float:
        text = "A" * chars
        hits = [Hit(i, i + 10, "PERSON", 0.9, "ner", "model") for i in range(0, chars, 10)]
        return best_cpu_seconds(lambda: join_venues(text, hits, ENGLISH))

    assert seconds(1_000_000) < 20 * seconds(100_000)


# ORG is off by default in the taxonomy; the shipped pipelines turn it on.
WITH_ORG = {"types": ["PERSON", "ORG", "LOCATION"]}


def _merge(text: str, hits: list[Hit], config: dict | None = None, lang: str = "en") -> list:
    nlp = spacy.blank(lang)
    merge = nlp.add_pipe("pii_merge", config=WITH_ORG if config is None else config)
    doc = nlp.make_doc(text)
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", hits)
    return [(span.text, span.label_) for span in merge(doc).spans["pii"]]


def test_the_merge_joins_by_default_and_the_setting_turns_it_off():
    text = "Brunch at Rosa's Kitchen."
    hits = [hit_on(text, "Rosa")]
    assert _merge(text, hits) == [("Rosa's Kitchen", "ORG")]
    assert _merge(text, hits, {**WITH_ORG, "join_venues": False}) == [("Rosa", "PERSON")]


def test_a_venue_span_passes_the_merge_types_thresholds_and_allow_list():
    text = "Brunch at Rosa's Kitchen."
    hits = [hit_on(text, "Rosa", score=0.6)]
    assert _merge(text, hits, {"types": ["PERSON"]}) == []
    assert _merge(text, hits, {"types": ["PERSON", "ORG"], "thresholds": {"ORG": 0.9}}) == []
    assert _merge(text, hits, {"types": ["PERSON", "ORG"]}) == [("Rosa's Kitchen", "ORG")]
    nlp = spacy.blank("en")
    merge = nlp.add_pipe("pii_merge", config=WITH_ORG)
    merge.initialize(allow_list=["rosa's kitchen"])
    doc = nlp.make_doc(text)
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", hits)
    assert list(merge(doc).spans["pii"]) == []


def test_the_merge_joins_before_propagation_so_the_venue_name_is_not_a_person():
    text = "Brunch at Rosa's Kitchen. Rosa was closed on Monday."
    hits = [hit_on(text, "Rosa")]
    assert _merge(text, hits) == [("Rosa's Kitchen", "ORG")]


def test_the_merge_reads_its_pipeline_language():
    text = "Dîner chez Paul puis Chez Pierre."
    hits = [hit_on(text, "Pierre")]
    assert _merge(text, hits, lang="fr") == [("Chez Pierre", "ORG")]
    assert _merge(text, hits, lang="ru") == [("Pierre", "PERSON")]
    # At the start of a sentence "Chez" is the preposition: at Marie's home.
    text = "Chez Marie, on a dîné tard."
    assert _merge(text, [hit_on(text, "Marie")], lang="fr") == [("Marie", "PERSON")]


@Language.component("test_venue_join_rosa")
def _rosa_is_a_person(doc):
    """A stand-in name model: "Rosa" is a PERSON."""
    start = doc.text.index("Rosa")
    hits = [Hit(start, start + 4, "PERSON", 0.9, "ner", "model")]
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", hits)
    return doc


def test_a_request_that_rebuilds_the_merge_keeps_its_language():
    from spacy_pii.serve.pipelines import detect_doc

    nlp = spacy.blank("en")
    nlp.add_pipe("test_venue_join_rosa")
    nlp.add_pipe("pii_merge", config=WITH_ORG)
    doc = detect_doc(
        nlp, "Brunch at Rosa's Kitchen.", types=None, min_score=0.5, drop_unscored=False
    )
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [("Rosa's Kitchen", "ORG")]
