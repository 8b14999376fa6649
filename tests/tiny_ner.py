"""A pii_ner trained in a few seconds on six sentences, shared by the tests that need one."""

from __future__ import annotations

import random

import spacy
from spacy.language import Language
from spacy.training import Example

TRAIN = [
    ("My name is Ada Lovelace and I code.", [(11, 23, "PERSON")]),
    ("Please call Grace Hopper tomorrow.", [(12, 24, "PERSON")]),
    ("Alan Turing lives at 12 Baker Street, London.", [(0, 11, "PERSON"), (21, 44, "ADDRESS")]),
    ("The meeting is at noon.", []),
    ("Send it to 4 Elm Road, Leeds please.", [(11, 28, "ADDRESS")]),
    ("Ask Dr. Linus Pauling about it.", [(8, 21, "PERSON")]),
]
# An n-gram range to 6 tokens covers the longest gold span ("12 Baker Street , London" is
# 5 tokens).
SUGGESTER = {"@misc": "spacy.ngram_range_suggester.v1", "min_size": 1, "max_size": 6}


def examples(nlp: Language) -> list[Example]:
    """TRAIN as examples whose reference holds ``doc.spans["pii_ner"]``."""
    found = []
    for text, spans in TRAIN:
        reference = nlp.make_doc(text)
        reference.spans["pii_ner"] = [
            reference.char_span(start, end, label=label) for start, end, label in spans
        ]
        found.append(Example(nlp.make_doc(text), reference))
    return found


def trained_pipeline(passes: int = 40, **ner_config: object) -> Language:
    """Blank English with a pii_ner trained on TRAIN (40 passes take about two seconds)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_ner", config={"suggester": SUGGESTER, **ner_config})
    return fit(nlp, examples(nlp), passes)


def fit(nlp: Language, train: list[Example], passes: int) -> Language:
    """``nlp`` initialized on ``train`` and updated ``passes`` times, shuffled with seed 0."""
    random.seed(0)
    optimizer = nlp.initialize(lambda: train)
    for _ in range(passes):
        random.shuffle(train)
        nlp.update(train, sgd=optimizer)
    return nlp
