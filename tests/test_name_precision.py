"""The fast PERSON figures agree with the scorer's own definitions."""

from __future__ import annotations

import pytest

from spacy_pii.evaluation.documents import Document
from spacy_pii.evaluation.name_precision import name_figures
from spacy_pii.evaluation.scoring import evaluate, leaked_share

TEXTS = ["Ada Lovelace met Charles Babbage in London.", "Nothing here but Foley and NPO."]
GOLD = [[(0, 12, "PERSON"), (17, 32, "PERSON")], []]
PRED = [[(0, 3, "PERSON"), (36, 42, "LOCATION"), (17, 32, "PERSON")], [(17, 22, "PERSON")]]


def test_figures_match_the_scorer():
    gold = [
        Document.from_raw(t, [{"start": s, "end": e, "label": lab} for s, e, lab in g])
        for t, g in zip(TEXTS, GOLD, strict=True)
    ]
    pred = [
        Document.from_raw(t, [{"start": s, "end": e, "label": lab} for s, e, lab in p])
        for t, p in zip(TEXTS, PRED, strict=True)
    ]
    reference = evaluate(gold, pred, context_chars=0)
    overlap, exact = reference.overlap.per_label["PERSON"], reference.per_label["PERSON"]
    figures = name_figures(TEXTS, GOLD, PRED)
    assert figures.overlap_p == pytest.approx(overlap.precision)
    assert figures.overlap_r == pytest.approx(overlap.recall)
    assert figures.exact_f1 == pytest.approx(exact.f1)
    cover = [[(s, e) for s, e, _ in p] for p in PRED]
    assert figures.leak == pytest.approx(leaked_share(gold, cover, "PERSON"))


def test_false_spans_per_thousand_words():
    figures = name_figures(TEXTS, GOLD, PRED)
    words = sum(len(t.split()) for t in TEXTS)
    assert figures.words == words
    assert figures.false_per_1000["PERSON"] == pytest.approx(1000 / words)
    assert figures.false_per_1000["LOCATION"] == pytest.approx(1000 / words)
    assert figures.false_per_1000["ORG"] == 0.0
