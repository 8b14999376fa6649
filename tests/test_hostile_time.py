"""Hostile inputs run in linear time through ``nlp(...)``, not only through the pure rules.

Each family of :mod:`spacy_pii.benchmark.hostile` is timed at 100,000 and 1,000,000
characters through the rules pipeline with redaction (what ``spacy-pii redact --model
rules`` runs: the rules pipeline, then ``pii_redact``) and, marked slow, the default
pipeline. Between 10,000 and 100,000 characters the CPU's caches alone make linear code
15 to 18 times slower for ten times the text (measured: that ratio failed a limit of 15
on a busy machine), so the sizes are those where the caches no longer matter: linear
code measured 4.4 to 5.0 times for five times the text from 200,000 to 1,000,000. The
tests assert the ratio of CPU times (:func:`~spacy_pii.benchmark.hostile.growth_ratio`:
both sizes warmed, each call on a text no cache has seen, the fastest of several calls),
never a wall-clock time. A quadratic step shows as 100 times; the limit of 20 leaves a
linear pipeline room for a busy machine (the ratios measured are in
docs/long-documents.md). What each model call holds, independently of the
machine, is counted in tests/test_long_documents.py. The other tests pin what the
tokenizer's guard and the token split must keep: spaCy's tokens on ordinary text, the
exact text, and the doc's data across a split.
"""

from __future__ import annotations

import itertools
import pickle

import pytest
import spacy

import spacy_pii
from spacy_pii.adapters.span_groups import split_tokens_at
from spacy_pii.assembly.build import GUARDED_TOKENIZER, LANGUAGE_TOKENIZER, rules_pipeline
from spacy_pii.benchmark.hostile import FAMILIES, growth_ratio
from spacy_pii.io.stream import load_redaction_pipeline
from spacy_pii.pipeline.guarded_tokenizer import PIECE_CHARS, GuardedTokenizer, guard

SMALL, LARGE = 100_000, 1_000_000
# Linear code measured 8.4 to 12.7 times here (docs/long-documents.md); one run of the whole
# test command on a quiet machine saw glued_cards through the rules and pii_redact above 13,
# so the limit leaves that room. An n log n step shows as about 11 times, a quadratic one as
# 100 times.
MAX_GROWTH = 20.0


def _growth(nlp, family: str) -> float:
    nlp.max_length = max(nlp.max_length, LARGE + 100)
    build = FAMILIES[family]
    growth = growth_ratio(nlp, build(SMALL), build(LARGE), rounds=5, limit=MAX_GROWTH)
    print(f"growth {family} {growth:.2f}")  # shown by pytest -rP: the worst ratio seen
    return growth


@pytest.fixture(scope="module")
def redaction_nlp():
    return load_redaction_pipeline("rules")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_redaction_pipeline_grows_linearly(redaction_nlp, family):
    # The rules pipeline and then pii_redact: the rules pipeline's growth is inside it.
    growth = _growth(redaction_nlp, family)
    assert growth <= MAX_GROWTH, f"{family}: 10x the text took {growth:.1f}x the time"


@pytest.fixture(scope="module")
def default_nlp():
    return spacy_pii.load()


@pytest.mark.slow  # 11 families, each about 4 calls on a million characters: about 15 min
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_default_pipeline_grows_linearly(default_nlp, family):
    growth = _growth(default_nlp, family)
    assert growth <= MAX_GROWTH, f"{family}: 10x the text took {growth:.1f}x the time"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_hostile_text_survives_exactly(rules_nlp, family):
    text = FAMILIES[family](3_000)
    doc = rules_nlp(text)
    assert doc.text == text
    for span in doc.spans["pii"]:
        assert text[span.start_char : span.end_char] == span.text


ORDINARY = [
    "Hello (world)! Mr. Smith's e-mail: ada@example.com, see https://example.com/a?b=c.",
    "Call +1 (555) 123-4567 or 020 7946 0958; card 4242-4242-4242-4242.",
    "It's 5:30pm -- don't forget: \"quoted\" [brackets] {braces} <angle>...",
    "((nested)) ((( x ))) ====== ------ ...... !!! ??? 'single' \u00a0 tab\there\nnew  line",
    "Long URL https://example.com/" + "segment/" * 10 + " and key=value&other=1",
    "   leading and trailing spaces   ",
    "",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_guarded_tokenizer_keeps_spacys_tokens_on_ordinary_text(text):
    nlp = spacy.blank("en")
    guarded = guard(nlp.tokenizer)
    expected = [(t.text, t.whitespace_) for t in nlp.tokenizer(text)]
    assert [(t.text, t.whitespace_) for t in guarded(text)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "x " + "(" * 300 + ")" * 300 + " y  z\n\tq",
        "tail " + "(" * 40,
        "=" * 17 + "x",
        "a:" * 200 + " next",
        "  " + "%2F" * 50 + "  ",
        "data:image/png;base64," + "iVBORw0KGgo/AAA+NSUhEUgAA" * 8,
    ],
)
def test_guarded_tokenizer_cuts_hostile_runs_exactly(text):
    guarded = guard(spacy.blank("en").tokenizer)
    doc = guarded(text)
    assert doc.text == text
    assert max(len(token) for token in doc) <= PIECE_CHARS


@pytest.mark.parametrize(
    "text",
    [
        "\u00e9\u00e8" * 120 + " \U0001d68a\U0001d68d",
        "0123456789abcdef" * 20,
        "\u3042\u308c\u308c\u3002\u300c\u9762\u767d\u3044\u300d" * 20,
    ],
)
def test_long_runs_without_ascii_punctuation_stay_spacys(text):
    # spaCy reads these in linear time (measured), so the guard leaves them alone.
    nlp = spacy.blank("en")
    expected = [(t.text, t.whitespace_) for t in nlp.tokenizer(text)]
    assert [(t.text, t.whitespace_) for t in guard(nlp.tokenizer)(text)] == expected


def test_guarded_tokenizer_is_the_shipped_tokenizer_and_the_rules_language_option():
    language = rules_pipeline(tokenizer="language")
    assert isinstance(language.tokenizer, GuardedTokenizer)
    assert language.config["nlp"]["tokenizer"]["@tokenizers"] == "pii.guarded_tokenizer.v1"
    shipped = spacy_pii.load()
    assert isinstance(shipped.tokenizer, GuardedTokenizer)


@pytest.mark.parametrize("lang", ["nl", "de", "da", "sv"])
def test_a_possessive_s_is_split_only_when_asked(lang):
    text = "Anna's fiets, de auto's van Rutte’s kabinet in 's-Hertogenbosch"
    plain = spacy.blank(lang, config={"nlp": {"tokenizer": GUARDED_TOKENIZER}})
    split = spacy.blank(lang, config={"nlp": {"tokenizer": LANGUAGE_TOKENIZER}})
    assert "Anna's" in [t.text for t in plain(text)]
    tokens = [t.text for t in split(text)]
    assert tokens[:2] == ["Anna", "'s"]
    assert tokens[tokens.index("Rutte") : tokens.index("Rutte") + 2] == ["Rutte", "’s"]
    # A leading apostrophe has no letter before it: spaCy's own tokens stay.
    assert tokens[-2:] == [t.text for t in plain(text)][-2:]
    assert "".join(t.text_with_ws for t in split(text)) == text


def test_guarded_tokenizer_round_trips(tmp_path):
    guarded = guard(spacy.blank("en").tokenizer, max_run=50, max_affix=4)
    copy = pickle.loads(pickle.dumps(guarded))
    assert isinstance(copy, GuardedTokenizer)
    assert (copy.max_run, copy.max_affix) == (50, 4)
    guarded.to_disk(tmp_path / "tokenizer")
    loaded = guard(spacy.blank("en").tokenizer).from_disk(tmp_path / "tokenizer")
    assert [t.text for t in loaded("Mr. Smith's (x)")] == ["Mr.", "Smith", "'s", "(", "x", ")"]


def test_split_in_one_pass_matches_the_retokenizer():
    nlp = spacy.blank("en")
    text = "card:4242424242424242,mail:ada@example.com (555)123-4567, end"
    cuts = [5, 21, 27, 31, 44, 46, 49, 58]
    reference = nlp.make_doc(text)
    with reference.retokenize() as retokenizer:
        for token in list(reference):
            inner = sorted(c - token.idx for c in cuts if token.idx < c < token.idx + len(token))
            if inner:
                bounds = [0, *inner, len(token)]
                orths = [token.text[a:b] for a, b in itertools.pairwise(bounds)]
                retokenizer.split(token, orths, heads=[(token, 0)] * len(orths))
    split = split_tokens_at(nlp.make_doc(text), cuts)
    assert [(t.text, t.whitespace_) for t in split] == [(t.text, t.whitespace_) for t in reference]


def test_split_keeps_the_docs_data():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("write to ada@example.com now")
    doc.user_data["source"] = "test"
    doc.cats["spam"] = 0.25
    doc._context = ("line", 7)
    doc.spans["earlier"] = [doc.char_span(0, 8, label="X")]
    doc.spans["earlier"].attrs["scores"] = [0.5]
    doc.ents = [doc.char_span(9, 24, label="EMAIL")]
    split = split_tokens_at(doc, [12, 13])
    assert [t.text for t in split][2:5] == ["ada", "@", "example.com"]
    assert split.user_data["source"] == "test"
    assert split.cats == {"spam": 0.25}
    assert split._context == ("line", 7)
    assert [(s.text, s.label_) for s in split.spans["earlier"]] == [("write to", "X")]
    assert split.spans["earlier"].attrs["scores"] == [0.5]
    assert [(e.text, e.label_) for e in split.ents] == [("ada@example.com", "EMAIL")]


def test_split_without_inner_offsets_returns_the_same_doc():
    doc = spacy.blank("en").make_doc("a b c")
    assert split_tokens_at(doc, [0, 1, 2, 5]) is doc


def test_model_lane_scores_long_documents_in_chunks_alike(default_nlp, monkeypatch):
    import spacy_pii.pipeline.pii_ner as ner_module

    text = "Mr. Smith met Ada Lovelace and Dr. Grace Hopper in London. " * 40
    whole_doc = default_nlp(text)
    monkeypatch.setattr(ner_module, "SPANS_PER_PREDICT", 50)
    chunked_doc = default_nlp(text)
    whole, chunked = whole_doc.spans["pii_ner"], chunked_doc.spans["pii_ner"]
    assert len(whole) > 0
    assert [(s.start, s.end, s.label_) for s in chunked] == [
        (s.start, s.end, s.label_) for s in whole
    ]
    assert chunked.attrs["scores"] == pytest.approx(whole.attrs["scores"])


def test_model_lane_scores_a_batch_in_shared_calls_alike(default_nlp, monkeypatch):
    import spacy_pii.pipeline.pii_ner as ner_module

    texts = [f"Ada Lovelace wrote to Grace Hopper {i} times from London." for i in range(30)]
    docs = list(default_nlp.pipe(texts))  # a span group lives as long as its doc
    monkeypatch.setattr(ner_module, "SPANS_PER_PREDICT", 120)
    calls: list[int] = []
    score_call = ner_module.PiiNer._score_call

    def counted(self, docs, call, head, factored, kept):
        assert sum(len(candidates) for _, candidates in call) <= 120 or len(call) == 1
        calls.append(len({index for index, _ in call}))
        return score_call(self, docs, call, head, factored, kept)

    monkeypatch.setattr(ner_module.PiiNer, "_score_call", counted)
    shared_docs = list(default_nlp.pipe(texts))
    assert sum(calls) >= len(texts) and max(calls) > 1  # documents share calls
    whole = [d.spans["pii_ner"] for d in docs]
    shared = [d.spans["pii_ner"] for d in shared_docs]
    assert any(len(g) for g in whole)
    for a, b in zip(shared, whole, strict=True):
        assert [(s.start, s.end, s.label_) for s in a] == [(s.start, s.end, s.label_) for s in b]
        assert a.attrs["scores"] == pytest.approx(b.attrs["scores"], abs=1e-5)


def test_the_growth_command_prints_a_ratio_per_family_and_the_worst(capsys):
    from spacy_pii.benchmark.hostile import main

    main(["--sizes", "2000", "20000", "--pipelines", "rules", "--families", "titles_names",
          "word_colon", "--growth", "1000", "--rounds", "1"])  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == ["family", "2000->20000", "find_rule_hits", "nlp[rules]"]
    rows = {line.split("\t")[0]: [float(x) for x in line.split("\t")[2:]] for line in lines[1:]}
    assert set(rows) == {"titles_names", "word_colon", "worst"}
    # The format only: sizes this small say nothing of growth (the tests above measure it).
    assert all(ratio > 0 for ratio in rows["titles_names"] + rows["word_colon"])
    pairs = zip(rows["titles_names"], rows["word_colon"], strict=True)
    assert rows["worst"] == [max(pair) for pair in pairs]
