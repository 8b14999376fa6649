"""pii_rules' batched ``pipe`` gives what ``__call__`` gives, and fails per doc as spaCy's does."""

from __future__ import annotations

import pytest

from spacy_pii.assembly.build import rules_pipeline

TEXTS = [
    "Mail ada@example.com or call (212) 555-0123,",
    "nothing here",
    "card:4242424242424242 and IP 192.168.0.7.",
    "",
    "Mrs. Beatrice Eriksen, first_name,last_name",
] * 7


def _spans(doc):
    return [(s.start_char, s.end_char, s.label_) for s in doc.spans["pii_rules"]], [
        t.text for t in doc
    ]


@pytest.mark.parametrize("batch_size", [1, 4, 1000])
def test_pipe_equals_one_call_per_doc(batch_size):
    nlp = rules_pipeline()
    one_by_one = [_spans(nlp(text)) for text in TEXTS]
    piped = [_spans(doc) for doc in nlp.pipe(TEXTS, batch_size=batch_size)]
    assert piped == one_by_one
    assert sum(len(spans) for spans, _ in piped) > 20


def test_a_doc_that_fails_goes_to_the_error_handler_and_the_others_come_out(monkeypatch):
    nlp = rules_pipeline()
    rules = nlp.get_pipe("pii_rules")
    failed: list[str] = []
    real = rules._annotate

    def annotate(doc, hits):
        if doc.text == "nothing here":
            raise RuntimeError("boom")
        return real(doc, hits)

    monkeypatch.setattr(rules, "_annotate", annotate)
    rules.set_error_handler(lambda name, proc, docs, err: failed.extend(d.text for d in docs))
    docs = list(rules.pipe(nlp.make_doc(t) for t in TEXTS[:5]))
    assert failed == ["nothing here"]
    assert [doc.text for doc in docs] == [t for t in TEXTS[:5] if t != "nothing here"]
