"""Long documents inside the components: windows that change nothing but memory.

The shipped pipeline's encoder (``pii.windowed_tok2vec.v1``), the heads that listen to it
(``span_finder``, ``pii_peer_tagger``) and ``pii_ner``'s candidates run over bounded token
windows. These tests shrink every window so that a document of a few thousand characters
crosses dozens of window edges, put names, e-mails, cards and the other types the default
finds across every edge, and check that each span group is the one a whole-document run
writes: the same spans, once each, on the same characters, with the same scores.
"""

from __future__ import annotations

import itertools

import numpy
import pytest
import spacy
from spacy.util import registry

import spacy_pii
import spacy_pii.core.windows as windows_module
import spacy_pii.pipeline.pii_ner as ner_module
from spacy_pii.adapters.token_batches import token_batches
from spacy_pii.benchmark.hostile import FAMILIES
from spacy_pii.core.windows import plan_token_windows
from spacy_pii.pipeline.ngram_suggester import NgramPresetSuggester

# Small windows for the tests: 64 tokens (cores of 56 for the encoder, whose receptive
# field is 4 tokens a side; 62 for the tagger, whose window is 1), 200 candidates a call.
SMALL_WINDOW, SMALL_CALL = 64, 200
GROUPS = ("pii_rules", "pii_candidates", "pii_ner", "pii_peer_entities", "pii_peer", "pii")

SENTENCES = [
    "Please write to Ada Lovelace at ada.lovelace@example.com today.",
    "Card 4242 4242 4242 4242 was charged by Grace Hopper in London.",
    "Call Alan Turing on +1 415 555 0100 or at 10 Downing Street, London.",
    "Ticket from user @jsmith2 about server 192.168.10.24 and Acme Corporation.",
    "Katherine Johnson wrote: my SSN is 536-22-8847 and my e-mail kj@nasa.gov.",
    "Margaret Hamilton met Linus Torvalds at Microsoft in Seattle last May.",
    "The deploy token is ghp_16C7e42F292c6912E7710c838347Ae178B4a and the IBAN is "
    "GB82 WEST 1234 5698 7654 32.",
]
FILLER = [
    "the",
    "report",
    "was",
    "filed",
    "and",
    "then",
    "reviewed",
    "again",
    "by",
    "the",
    "team",
    "on",
    "call",
]


def _edge_text(sentences: int) -> str:
    """Sentences with PII, each after 0 to 12 filler words, so that the values fall at
    every offset relative to the window edges."""
    parts = []
    for index, sentence in zip(range(sentences), itertools.cycle(SENTENCES), strict=False):
        parts.append(" ".join(FILLER[: index * 5 % 13]))
        parts.append(sentence)
    return " ".join(part for part in parts if part)


def _groups(doc) -> dict[str, list[tuple[int, int, str]]]:
    return {key: [(s.start_char, s.end_char, s.label_) for s in doc.spans[key]] for key in GROUPS}


def _scores(doc, key: str) -> list[float | None]:
    return list(doc.spans[key].attrs.get("scores", [None] * len(doc.spans[key])))


@pytest.fixture(scope="module")
def default_nlp():
    return spacy_pii.load()


def _set_windows(nlp, monkeypatch, window: int, call: int) -> None:
    encoder = nlp.get_pipe("tok2vec").model
    monkeypatch.setitem(encoder.attrs, "window_tokens", window)
    monkeypatch.setattr(windows_module, "WINDOW_TOKENS", window)
    monkeypatch.setattr(ner_module, "SPANS_PER_PREDICT", call)


def test_spans_on_every_window_edge_are_those_of_the_whole_document(default_nlp, monkeypatch):
    text = _edge_text(120)
    whole = default_nlp(text)
    _set_windows(default_nlp, monkeypatch, SMALL_WINDOW, SMALL_CALL)
    windowed = default_nlp(text)
    assert len(windowed) > 10 * SMALL_WINDOW  # dozens of edges
    assert _groups(windowed) == _groups(whole)
    for key in GROUPS:
        got, expected = _scores(windowed, key), _scores(whole, key)
        assert [s is None for s in got] == [s is None for s in expected]
        assert [s for s in got if s is not None] == pytest.approx(
            [s for s in expected if s is not None], abs=1e-4
        )
    for span in windowed.spans["pii"]:
        assert text[span.start_char : span.end_char] == span.text
    # Values of each type the default finds here sit in the encoder's overlaps: within its
    # receptive field (4 tokens) of a window edge, where a window's context is cut.
    cores = plan_token_windows(len(windowed), SMALL_WINDOW, 4)
    edges = [window.core_start for window in cores[1:]]
    on_edge = {
        s.label_
        for s in windowed.spans["pii"]
        if any(s.start < edge + 4 and s.end > edge - 4 for edge in edges)
    }
    found = {s.label_ for s in windowed.spans["pii"]}
    assert on_edge == found
    assert found == {
        "PERSON",
        "EMAIL",
        "PAYMENT",
        "PHONE",
        "IP_ADDRESS",
        "GOV_ID",
        "SECRET",
        "USERNAME",
        "ADDRESS",
        "ORG",
        "LOCATION",
    }


def test_every_edge_offset_of_a_name_email_and_card(default_nlp, monkeypatch):
    # One value at each token offset around one encoder edge (core 56): from wholly before
    # it to wholly after it.
    values = ["Ada Lovelace", "ada.lovelace@example.com", "4242 4242 4242 4242"]
    _set_windows(default_nlp, monkeypatch, SMALL_WINDOW, SMALL_CALL)
    for value, shift in itertools.product(values, range(50, 60)):
        words = ["word"] * shift
        text = " ".join([*words, "contact", value, "now", *["word"] * 80])
        windowed = default_nlp(text)
        monkeypatch.setitem(default_nlp.get_pipe("tok2vec").model.attrs, "window_tokens", 10**6)
        monkeypatch.setattr(windows_module, "WINDOW_TOKENS", 10**6)
        whole = default_nlp(text)
        _set_windows(default_nlp, monkeypatch, SMALL_WINDOW, SMALL_CALL)
        assert _groups(windowed) == _groups(whole), (value, shift)
        start = text.index(value)
        assert (start, start + len(value)) in {
            (s.start_char, s.end_char) for s in windowed.spans["pii"]
        }, (value, shift)


def test_encoder_on_one_window_is_spacys_tok2vec_exactly(default_nlp):
    model = default_nlp.get_pipe("tok2vec").model
    spacys = registry.architectures.get("spacy.Tok2Vec.v2")(
        model.get_ref("embed"), model.get_ref("encode")
    )
    docs = [default_nlp.make_doc(t) for t in SENTENCES]
    for ours, theirs in zip(model.predict(docs), spacys.predict(docs), strict=True):
        numpy.testing.assert_array_equal(ours, theirs)


def test_encoder_windows_match_the_whole_document(default_nlp):
    model = default_nlp.get_pipe("tok2vec").model
    spacys = registry.architectures.get("spacy.Tok2Vec.v2")(
        model.get_ref("embed"), model.get_ref("encode")
    )
    doc = default_nlp.make_doc(_edge_text(40))
    window = model.attrs["window_tokens"]
    model.attrs["window_tokens"] = 40
    try:
        ours = model.predict([doc])[0]
    finally:
        model.attrs["window_tokens"] = window
    numpy.testing.assert_allclose(ours, spacys.predict([doc])[0], rtol=1e-4, atol=1e-5)


def test_weights_saved_by_spacys_tok2vec_load_into_the_windowed_one(default_nlp):
    model = default_nlp.get_pipe("tok2vec").model
    spacys = registry.architectures.get("spacy.Tok2Vec.v2")(
        model.get_ref("embed"), model.get_ref("encode")
    )
    config = default_nlp.config.interpolate()["components"]["tok2vec"]["model"]
    fresh = registry.resolve({"model": config})["model"]
    fresh.from_bytes(spacys.to_bytes())
    docs = [default_nlp.make_doc(t) for t in SENTENCES]
    # A model built outside the pipeline has thinc's default ops, not the pipeline's BLAS
    # settings (pii.numpy_blas_ops.v1): the same weights, sums in another order.
    for ours, theirs in zip(fresh.predict(docs), spacys.predict(docs), strict=True):
        numpy.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


def test_windowed_tok2vec_refuses_a_context_narrower_than_the_receptive_field():
    from spacy_pii.errors import ConfigError

    config = {
        "@architectures": "pii.windowed_tok2vec.v1",
        "window_tokens": 100,
        "context_tokens": 2,
        "embed": {
            "@architectures": "spacy.MultiHashEmbed.v2",
            "width": 32,
            "attrs": ["NORM"],
            "rows": [100],
            "include_static_vectors": False,
        },
        "encode": {
            "@architectures": "spacy.MaxoutWindowEncoder.v2",
            "width": 32,
            "depth": 4,
            "window_size": 1,
            "maxout_pieces": 2,
        },
    }
    with pytest.raises(ConfigError):
        registry.resolve({"model": config})
    config["context_tokens"] = None
    model = registry.resolve({"model": config})["model"]
    assert model.attrs["context_tokens"] == 4


def test_pii_tok2vec_without_static_vectors_trains_and_windows():
    # The multilingual pipeline's encoder has no static vectors; the windows do not need them.
    nlp = spacy.blank("xx")
    nlp.add_pipe("pii_tok2vec", name="tok2vec")
    nlp.initialize()
    encoder = nlp.get_pipe("tok2vec").model
    doc = nlp.make_doc(" ".join(f"w{i}" for i in range(300)))
    whole = encoder.predict([doc])[0]
    encoder.attrs["window_tokens"] = 50
    numpy.testing.assert_allclose(encoder.predict([doc])[0], whole, rtol=1e-4, atol=1e-5)
    losses = nlp.update([spacy.training.Example(doc, doc)], losses={})
    assert "tok2vec" in losses


@pytest.mark.parametrize(
    ("length", "window", "context"), [(0, 10, 2), (10, 10, 2), (11, 10, 2), (100, 9, 4), (57, 8, 0)]
)
def test_token_windows_partition_the_document(length, window, context):
    plan = plan_token_windows(length, window, context)
    assert plan[0].core_start == 0 and plan[-1].core_end == length
    for before, after in itertools.pairwise(plan):
        assert before.core_end == after.core_start
    for w in plan:
        assert w.end - w.start <= window
        assert w.start == max(0, w.core_start - context)
        assert w.end == min(length, w.core_end + context)


@pytest.mark.parametrize("word_edges, finder_edges", [(False, False), (True, False), (True, True)])
def test_ngram_chunks_are_the_whole_candidate_list(default_nlp, word_edges, finder_edges):
    doc = default_nlp(_edge_text(12))
    suggester = NgramPresetSuggester([1, 2, 3, 4], "pii_candidates", word_edges, finder_edges)
    whole = suggester([doc]).dataXd
    chunks = list(suggester.chunks(doc, 37))
    assert max(len(chunk) for chunk in chunks) < 37 + len(doc.spans["pii_candidates"])
    numpy.testing.assert_array_equal(numpy.concatenate(chunks), whole)
    edge = [not word_edges or not (token.is_punct or token.is_space) for token in doc]
    # The shipped span finder records its edges; the gate reads them only when asked.
    recorded = doc.spans["pii_candidates"].attrs["edges"]
    assert recorded["tokens"] == len(doc)
    starts = set(recorded["starts"]) if finder_edges else set(range(len(doc)))
    ends = set(recorded["ends"]) if finder_edges else set(range(len(doc)))
    expected = {
        (i, i + n)
        for n in (1, 2, 3, 4)
        for i in range(len(doc) - n + 1)
        if edge[i] and edge[i + n - 1] and i in starts and i + n - 1 in ends
    }
    expected |= {(s.start, s.end) for s in doc.spans["pii_candidates"]}
    assert [tuple(row) for row in whole.tolist()] == sorted(expected)


def test_the_shipped_edge_gate_leaves_every_span_as_scoring_every_ngram_does(default_nlp):
    # The gate is a speed setting: pii_ner's candidates that reach its threshold lie between
    # the span finder's recorded edges (configs/README.md has the counts on the dev suite).
    text = _edge_text(12)
    gated = default_nlp(text)
    suggester = default_nlp.get_pipe("pii_ner").suggester
    assert suggester.finder_edges
    suggester.finder_edges = False
    try:
        every = default_nlp(text)
    finally:
        suggester.finder_edges = True
    for key in ("pii_ner", "pii"):
        assert _groups_of(gated, key) == _groups_of(every, key)
        # Fewer candidates per matrix product: the same sums in another order.
        for ours, theirs in zip(_scores(gated, key), _scores(every, key), strict=True):
            assert ours == theirs or ours == pytest.approx(theirs, rel=1e-5)


def _groups_of(doc, key: str) -> list[tuple[int, int, str]]:
    return [(s.start_char, s.end_char, s.label_) for s in doc.spans[key]]


def test_token_batches_cut_at_the_token_bound():
    nlp = spacy.blank("en")
    docs = [nlp.make_doc("a " * n) for n in (3, 50, 2, 2, 120, 1)]
    batches = list(token_batches(docs, batch_size=4, max_tokens=50))
    assert [[len(d) for d in batch] for batch in batches] == [[3, 50], [2, 2, 120], [1]]


@pytest.fixture
def model_calls(default_nlp, monkeypatch):
    """The rows of every model call inside the pipeline: the encoder's tokens, the listened
    heads' tokens and pii_ner's candidates, recorded per call."""
    import spacy_pii.adapters.listened_windows as heads_module
    import spacy_pii.pipeline.windowed_tok2vec as encoder_module

    calls: dict[str, list[int]] = {"encoder": [], "heads": [], "ner": []}
    encode, run_head = encoder_module.chain_forward, heads_module._run_call
    score_call = ner_module.PiiNer._score_call

    def encoder(model, docs, is_train):
        calls["encoder"].append(sum(len(doc) for doc in docs))
        return encode(model, docs, is_train)

    def heads(head, tensors, call, cores):
        calls["heads"].append(sum(end - start for _, start, end, _, _ in call))
        return run_head(head, tensors, call, cores)

    def ner(self, docs, call, head, factored, kept):
        calls["ner"].append(sum(len(candidates) for _, candidates in call))
        return score_call(self, docs, call, head, factored, kept)

    monkeypatch.setattr(encoder_module, "chain_forward", encoder)
    monkeypatch.setattr(heads_module, "_run_call", heads)
    monkeypatch.setattr(ner_module.PiiNer, "_score_call", ner)
    return calls


@pytest.mark.parametrize("family", ["shared", *sorted(FAMILIES)])
def test_model_calls_stay_bounded_and_their_work_grows_with_the_text(
    default_nlp, model_calls, monkeypatch, family
):
    # Operation counts, not seconds: what each model call holds must not depend on the
    # document's length, and the work of all calls must grow as its tokens do. Windows of
    # 128 tokens, so that 30,000 characters already hold dozens.
    window, per_call = 128, 512
    _set_windows(default_nlp, monkeypatch, window, per_call)
    build = (lambda n: _edge_text(n // 60)) if family == "shared" else FAMILIES[family]
    work = {}
    for size in (3_000, 30_000):
        for rows in model_calls.values():
            rows.clear()
        doc = default_nlp(build(size))
        assert max(model_calls["encoder"]) <= window
        assert max(model_calls["heads"]) <= window
        longest = max((s.end - s.start for s in doc.spans["pii_candidates"]), default=1)
        # A call holds the candidates of per_call // 4 starting tokens, plus the span
        # finder's spans that start there (at most `longest` per token).
        assert max(model_calls["ner"], default=0) <= per_call // 4 * (4 + longest)
        work[size] = {name: sum(rows) for name, rows in model_calls.items()}
        tokens = len(doc)
        assert work[size]["encoder"] <= tokens * (1 + 2 * 4 / (window - 8)) + 1
    for name in ("encoder", "heads", "ner"):
        assert work[30_000][name] <= 12 * max(1, work[3_000][name]), name
