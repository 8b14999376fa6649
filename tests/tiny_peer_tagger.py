"""A pii_peer_tagger's training data, and one trained in a second, for the tests that need it."""

from __future__ import annotations

import spacy
from spacy.language import Language
from spacy.tokens import Span
from spacy.training import Example
from tiny_ner import fit

from spacy_pii.core.entity_tags import entity_tags

KEY = "pii_peer_entities"
TRAIN = [
    ("Anna Lee met Bob in Paris .", [(0, 2, "PERSON"), (3, 4, "PERSON"), (5, 6, "LOCATION")]),
    ("The Acme Corp office in Leeds is open .", [(1, 3, "ORG"), (5, 6, "LOCATION")]),
    ("Call Maria about the invoice .", [(1, 2, "PERSON")]),
    ("Nothing to see here .", []),
]


def examples(nlp: Language) -> list[Example]:
    """TRAIN as examples whose reference carries the IOB tags and the entity group."""
    found = []
    for text, entities in TRAIN:
        reference = nlp.make_doc(text)
        for token, tag in zip(reference, entity_tags(len(reference), entities), strict=True):
            token.tag_ = tag
        reference.spans[KEY] = [Span(reference, s, e, label=t) for s, e, t in entities]
        found.append(Example(nlp.make_doc(text), reference))
    return found


def trained_pipeline(passes: int = 40, **tagger_config: object) -> Language:
    """Blank English with a pii_peer_tagger trained on TRAIN."""
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_peer_tagger", config=tagger_config)
    return fit(nlp, examples(nlp), passes)
