"""pii_ner: config validation, span selection, serialization, scores and processes."""

from __future__ import annotations

from pathlib import Path

import numpy
import pytest
import spacy
import srsly
import tiny_ner
from spacy.pipeline.spancat import SpanCategorizer
from thinc.api import ConfigValidationError

from spacy_pii.assembly.release import assemble_pipeline
from spacy_pii.core.conventions import edge_punctuation, leading_honorifics
from spacy_pii.errors import ConfigError
from spacy_pii.evaluation.score_map import IsotonicCurve, ScoreMap
from spacy_pii.pipeline.ngram_suggester import build_ngram_preset_suggester
from spacy_pii.pipeline.pii_ner import SCORE_MAP_FILE, select_spans

SHIPPED = Path(__file__).resolve().parents[1] / "spacy_pii" / "models" / "en_pii_default"

TRAIN = tiny_ner.TRAIN


def _examples(nlp):
    return tiny_ner.examples(nlp)


@pytest.fixture(scope="module")
def trained_nlp():
    return tiny_ner.trained_pipeline(threshold=0.3)


# -- configuration ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "config, error",
    [
        ({"threshold": 1.5}, ConfigError),
        ({"threshold": -0.1}, ConfigError),
        ({"negative_weight": 0.0}, ConfigError),
        ({"threshold": "high"}, ConfigValidationError),
        ({"trim_honorifics": "sometimes"}, ConfigValidationError),
    ],
    ids=[
        "threshold-above-1",
        "threshold-below-0",
        "zero-negative-weight",
        "str-threshold",
        "str-flag",
    ],
)
def test_factory_rejects_bad_settings(config, error):
    nlp = spacy.blank("en")
    with pytest.raises(error):
        nlp.add_pipe("pii_ner", config=config)


def test_defaults_write_their_own_key_and_score_it():
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("pii_ner")
    assert ner.key == "pii_ner"
    assert nlp.config["components"]["pii_ner"]["scorer"]["spans_key"] == "pii_ner"
    assert "doc.spans" in nlp.get_pipe_meta("pii_ner").assigns


# -- span selection ---------------------------------------------------------------------


def _scores(*rows):
    return numpy.asarray(rows, dtype="f")


@pytest.mark.parametrize(
    "indices, scores, threshold, expected",
    [
        # the probable short span wins over the improbable long span that contains it
        ([[0, 2], [0, 3]], _scores([0.9, 0.05, 0.05], [0.6, 0.1, 0.3]), 0.5, [(0, 2, 0, 0.9)]),
        # a positive label below the negative's probability is still kept above threshold
        ([[1, 2]], _scores([0.3, 0.0, 0.7]), 0.25, [(1, 2, 0, 0.3)]),
        ([[1, 2]], _scores([0.3, 0.0, 0.7]), 0.5, []),
        # disjoint spans are both kept, sorted by start
        (
            [[3, 4], [0, 1]],
            _scores([0.1, 0.8, 0.1], [0.7, 0.2, 0.1]),
            0.5,
            [(0, 1, 0, 0.7), (3, 4, 1, 0.8)],
        ),
        # equal probabilities: the earlier start, then the longer span, decides
        ([[1, 3], [0, 2]], _scores([0.8, 0.1, 0.1], [0.8, 0.1, 0.1]), 0.5, [(0, 2, 0, 0.8)]),
        ([[0, 1], [0, 2]], _scores([0.8, 0.1, 0.1], [0.8, 0.1, 0.1]), 0.5, [(0, 2, 0, 0.8)]),
    ],
    ids=[
        "nested-by-probability",
        "below-negative",
        "below-threshold",
        "disjoint",
        "tie-start",
        "tie-length",
    ],
)
def test_select_spans(indices, scores, threshold, expected):
    chosen = select_spans(numpy.asarray(indices), scores, threshold=threshold, n_labels=2)
    assert [(s, e, label, pytest.approx(p)) for s, e, label, p in chosen] == expected


def test_select_spans_is_independent_of_candidate_order():
    rng = numpy.random.default_rng(7)
    indices = numpy.asarray([[i, i + n] for i in range(10) for n in (1, 2, 3)])
    scores = rng.dirichlet(numpy.ones(4), size=len(indices)).astype("f")
    reference = select_spans(indices, scores, threshold=0.2, n_labels=3)
    order = rng.permutation(len(indices))
    assert select_spans(indices[order], scores[order], threshold=0.2, n_labels=3) == reference
    taken = [t for s, e, *_ in reference for t in range(s, e)]
    assert len(taken) == len(set(taken))  # no overlap


@pytest.mark.parametrize(
    "words, expected",
    [
        (["Dr.", "Jane", "Doe"], 1),
        (["MR", "PROF", "Smith"], 2),
        (["Jane", "Doe"], 0),
        (["Dr"], 0),  # a span that is only a title keeps its word
        (["Drake"], 0),
    ],
    ids=["dr-dot", "stacked-upper", "no-title", "title-only", "name-starting-dr"],
)
def test_leading_honorifics(words, expected):
    assert leading_honorifics(words) == expected


@pytest.mark.parametrize(
    "words, expected",
    [
        (["Louisa", "-"], (0, 1)),
        (["(", "Karla", ")", ":"], (1, 2)),
        (["Jane", "Doe"], (0, 0)),
        (["P.", "Dippel"], (0, 0)),  # an initial keeps its full stop
        (["\n", "Ana", "\u2014"], (1, 1)),
        (["-", ":"], (2, 0)),  # nothing left
    ],
    ids=["dash-after", "brackets-colon", "clean", "initial", "space-and-em-dash", "only-punct"],
)
def test_edge_punctuation(words, expected):
    assert edge_punctuation(words) == expected


@pytest.mark.parametrize(
    "trim, expected",
    [(True, ["Karla"]), (False, ["(Karla):"])],
    ids=["trimmed", "kept-when-off"],
)
def test_person_spans_lose_edge_punctuation(trim, expected):
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("pii_ner", config={"trim_punctuation": trim})
    ner.add_label("PERSON")
    doc = nlp.make_doc("Note (Karla): called back")
    # spaCy reads "):" as one token (an emoticon), which a span then takes along.
    assert [t.text for t in doc[1:4]] == ["(", "Karla", "):"]
    # One candidate, doc[1:4], scored PERSON 0.9 (the last column is the negative label).
    group = ner._span_group(doc, numpy.asarray([[1, 4]]), numpy.asarray([[0.9, 0.1]], "f"))
    assert [span.text for span in group] == expected
    assert len(group.attrs["scores"]) == len(group)


def test_a_line_break_after_a_title_is_trimmed_with_it():
    nlp = spacy.blank("en")
    ner = nlp.add_pipe("pii_ner")
    ner.add_label("PERSON")
    doc = nlp.make_doc("said Miss\nBartlett, filling")
    assert [t.text for t in doc[1:4]] == ["Miss", "\n", "Bartlett"]
    group = ner._span_group(doc, numpy.asarray([[1, 4]]), numpy.asarray([[0.9, 0.1]], "f"))
    assert [span.text for span in group] == ["Bartlett"]


def test_ngram_preset_suggester_unions_ngrams_and_preset_spans():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("one two three four five")
    doc.spans["cands"] = [doc[0:5], doc[1:2]]
    suggested = build_ngram_preset_suggester(sizes=[1], spans_key="cands")([doc])
    rows = {tuple(map(int, row)) for row in suggested.dataXd}
    assert rows == {(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (0, 5)}
    assert list(suggested.lengths) == [6]
    empty = build_ngram_preset_suggester(sizes=[1], spans_key="cands")([nlp.make_doc("")])
    assert list(empty.lengths) == [0]


def test_ngram_preset_suggester_skips_ngrams_on_punctuation_edges_but_not_preset_spans():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Ada ( Byron ) ,\n\nLovelace")
    assert [t.text for t in doc] == ["Ada", "(", "Byron", ")", ",", "\n\n", "Lovelace"]
    doc.spans["cands"] = [doc[1:4]]
    build = build_ngram_preset_suggester
    suggested = build(sizes=[1, 2, 3], spans_key="cands", word_edges=True)([doc])
    rows = {tuple(map(int, row)) for row in suggested.dataXd}
    # Every n-gram starts and ends on a word; the span finder's "( Byron )" stays.
    assert rows == {(0, 1), (0, 3), (2, 3), (6, 7), (1, 4)}
    every = build(sizes=[1, 2, 3], spans_key="cands")([doc])
    assert len(every.dataXd) == 7 + 6 + 5  # the preset span is a trigram too


def test_ngram_preset_suggester_keeps_ngrams_between_the_span_finders_recorded_edges():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("the pianist Ada Byron King played")
    doc.spans["cands"] = [doc[2:5]]
    record = {"tokens": 6, "starts": [1, 2, 4], "ends": [2, 4]}
    doc.spans["cands"].attrs["edges"] = record
    build = build_ngram_preset_suggester
    gated = build(sizes=[1, 2, 3], spans_key="cands", finder_edges=True)([doc])
    rows = {tuple(map(int, row)) for row in gated.dataXd}
    # Starts on 1, 2 or 4 and ends on 2 or 4, within three tokens; the finder's span stays.
    assert rows == {(1, 3), (2, 3), (2, 5), (4, 5)}
    # Without the gate asked for, every n-gram.
    ungated = build(sizes=[1, 2, 3], spans_key="cands")([doc])
    assert len(ungated.dataXd) == 6 + 5 + 4
    # A record made on another tokenization (a retokenizer after the span finder, a window
    # of a longer doc) gates nothing.
    doc.spans["cands"].attrs["edges"] = {**record, "tokens": 7}
    stale = build(sizes=[1, 2, 3], spans_key="cands", finder_edges=True)([doc])
    assert len(stale.dataXd) == 6 + 5 + 4
    # An empty record gates every n-gram: only the finder's own spans are left.
    doc.spans["cands"].attrs["edges"] = {"tokens": 6, "starts": [], "ends": []}
    empty = build(sizes=[1, 2, 3], spans_key="cands", finder_edges=True)([doc])
    assert {tuple(map(int, row)) for row in empty.dataXd} == {(2, 5)}


def test_ngram_preset_suggester_ignores_an_edge_record_after_a_retokenizer():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Dr. Ada Lovelace met Charles Babbage")
    doc.spans["cands"] = []
    doc.spans["cands"].attrs["edges"] = {"tokens": 6, "starts": [4], "ends": [5]}
    suggester = build_ngram_preset_suggester(sizes=[2], spans_key="cands", finder_edges=True)
    assert [tuple(map(int, row)) for row in suggester([doc]).dataXd] == [(4, 6)]
    with doc.retokenize() as retokenizer:
        retokenizer.merge(doc[0:2])
    # The indices no longer name the tokens they were recorded on: every bigram again.
    assert len(suggester([doc]).dataXd) == len(doc) - 1


def test_ngram_preset_suggester_gates_on_words_and_recorded_edges_together():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Ada ( Byron ) King")
    doc.spans["cands"] = []
    doc.spans["cands"].attrs["edges"] = {"tokens": 5, "starts": [0, 1, 2], "ends": [2, 3, 4]}
    suggester = build_ngram_preset_suggester(
        sizes=[1, 2, 3], spans_key="cands", word_edges=True, finder_edges=True
    )
    rows = {tuple(map(int, row)) for row in suggester([doc]).dataXd}
    assert rows == {(0, 3), (2, 3), (2, 5)}


def test_ngram_preset_suggester_rejects_zero_size():
    with pytest.raises(ConfigError):
        build_ngram_preset_suggester(sizes=[0, 1], spans_key="cands")


def test_gold_spans_join_the_suggestions_in_training():
    nlp = spacy.blank("en")
    ner = nlp.add_pipe(
        "pii_ner",
        config={"suggester": {"@misc": "spacy.ngram_suggester.v1", "sizes": [1]}},
    )
    (example,) = [eg for eg in _examples(nlp) if eg.reference.text.startswith("Alan")]
    suggested = ner.suggester([example.predicted])
    augmented = ner._add_gold_spans([example], suggested)
    rows = {tuple(map(int, row)) for row in augmented.dataXd}
    assert rows == {tuple(map(int, row)) for row in suggested.dataXd} | {(0, 2), (4, 9)}
    assert int(augmented.lengths[0]) == len(rows)


@pytest.mark.parametrize("gold_spans", [True, False], ids=["with-gold", "suggester-only"])
def test_update_learns_from_an_empty_span_finder_key(gold_spans):
    # A preset key that no span finder has filled yet: only the gold spans can teach.
    nlp = spacy.blank("en")
    nlp.add_pipe(
        "pii_ner",
        config={
            "suggester": {
                "@misc": "pii.ngram_preset_suggester.v1",
                "sizes": [1],
                "spans_key": "pii_candidates",
            },
            "train_on_gold_spans": gold_spans,
        },
    )
    examples = _examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    losses = nlp.update(examples, sgd=optimizer)
    assert losses["pii_ner"] > 0.0


# -- a trained component -----------------------------------------------------------------

PROBE = ["My name is Ada Lovelace and I code.", "Alan Turing lives at 12 Baker Street, London."]


def _predictions(nlp, texts):
    out = []
    for doc in nlp.pipe(texts):
        group = doc.spans["pii_ner"]
        out.append(
            [
                (span.start_char, span.end_char, span.label_, round(score, 5), detector)
                for span, score, detector in zip(
                    group, group.attrs["scores"], group.attrs["detectors"], strict=True
                )
            ]
        )
    return out


def test_scores_are_probabilities_positional_with_spans(trained_nlp):
    predicted = _predictions(trained_nlp, PROBE)
    assert any(predicted), "the tiny model should find something in its own training text"
    for doc_spans in predicted:
        for _, _, label, score, detector in doc_spans:
            assert 0.0 <= score <= 1.0
            assert isinstance(score, float)
            assert detector == "pii_ner"
            assert label in {"PERSON", "ADDRESS"}


def test_honorific_is_trimmed_from_person(trained_nlp):
    doc = trained_nlp("Ask Dr. Linus Pauling about it.")
    assert all(not s.text.startswith("Dr") for s in doc.spans["pii_ner"] if s.label_ == "PERSON")


def test_disk_round_trip_keeps_predictions(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    assert loaded.get_pipe("pii_ner").labels == trained_nlp.get_pipe("pii_ner").labels
    assert loaded.get_pipe("pii_ner").settings.threshold == pytest.approx(0.3)
    assert _predictions(loaded, PROBE) == _predictions(trained_nlp, PROBE)
    # The folder holds the labels, not the settings: the config decides.
    assert srsly.read_json(tmp_path / "model" / "pii_ner" / "cfg") == {
        "labels": list(trained_nlp.get_pipe("pii_ner").labels)
    }


def test_bytes_round_trip_keeps_predictions(trained_nlp):
    clone = spacy.blank("en").from_config(trained_nlp.config)
    clone.from_bytes(trained_nlp.to_bytes())
    assert _predictions(clone, PROBE) == _predictions(trained_nlp, PROBE)


def test_two_processes_match_one(trained_nlp):
    texts = PROBE * 4
    single = _predictions(trained_nlp, texts)
    docs = list(trained_nlp.pipe(texts, n_process=2, batch_size=2))
    multi = [
        [
            (s.start_char, s.end_char, s.label_, round(score, 5), detector)
            for s, score, detector in zip(
                d.spans["pii_ner"],
                d.spans["pii_ner"].attrs["scores"],
                d.spans["pii_ner"].attrs["detectors"],
                strict=True,
            )
        ]
        for d in docs
    ]
    assert multi == single


def test_evaluate_reports_pii_ner_scores(trained_nlp):
    scores = trained_nlp.evaluate(_examples(trained_nlp))
    assert {"spans_pii_ner_p", "spans_pii_ner_r", "spans_pii_ner_f"} <= scores.keys()
    assert scores["spans_pii_ner_f"] > 0.5


def test_merge_reads_the_model_lane(trained_nlp, tmp_path):
    trained_nlp.to_disk(tmp_path / "model")
    nlp = spacy.load(tmp_path / "model")
    nlp.add_pipe("pii_merge", config={"candidate_keys": ["pii_ner"]})
    doc = nlp("My name is Ada Lovelace and I code.")
    assert [(s.text, s.label_) for s in doc.spans["pii"]] == [
        (s.text, s.label_) for s in doc.spans["pii_ner"] if s.label_ in ("PERSON", "ADDRESS")
    ]
    assert doc.spans["pii"].attrs["detectors"] == ["pii_ner"] * len(doc.spans["pii"])


# -- the score map -------------------------------------------------------------------------

# PERSON's scores are halved; every other label goes through the pooled curve, which keeps
# them. A map this easy to predict shows where it is (and is not) applied.
HALVING = ScoreMap(
    min_examples=1,
    labels={"PERSON": IsotonicCurve(x=(0.0, 1.0), y=(0.0, 0.5), examples=10)},
    pooled=IsotonicCurve(x=(0.0, 1.0), y=(0.0, 1.0), examples=20),
    examples={"PERSON": 10, "ADDRESS": 10},
)


@pytest.fixture(scope="module")
def calibrated_nlp(trained_nlp, tmp_path_factory):
    # Assembled from files, as training/calibrate.py does: the saved model and a map file.
    root = tmp_path_factory.mktemp("calibrated")
    trained_nlp.to_disk(root / "model")
    HALVING.save(root / "score_map.json")
    return spacy.load(
        assemble_pipeline(root / "model", root / "out", score_map=root / "score_map.json")
    )


def test_score_map_changes_scores_not_spans(trained_nlp, calibrated_nlp):
    raw = _predictions(trained_nlp, PROBE)
    calibrated = _predictions(calibrated_nlp, PROBE)
    assert any(label == "PERSON" for doc in raw for _, _, label, _, _ in doc)
    # Selection reads the raw probability: the same spans, even those whose halved score
    # now lies below the component's threshold (0.3).
    assert [[s[:3] for s in doc] for doc in calibrated] == [[s[:3] for s in doc] for doc in raw]
    for raw_doc, doc in zip(raw, calibrated, strict=True):
        for (*_, label, raw_score, _), (*_, score, _) in zip(raw_doc, doc, strict=True):
            expected = raw_score / 2 if label == "PERSON" else raw_score
            assert score == pytest.approx(expected, abs=1e-5)


def test_the_score_map_arrives_through_initialize():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_ner")
    nlp.config["initialize"]["components"]["pii_ner"] = {"score_map": HALVING.to_dict()}
    nlp.initialize(lambda: _examples(nlp))
    assert nlp.get_pipe("pii_ner").score_map == HALVING
    # The identity map is no map: raw scores are written.
    nlp.config["initialize"]["components"]["pii_ner"] = {"score_map": ScoreMap().to_dict()}
    nlp.initialize(lambda: _examples(nlp))
    assert nlp.get_pipe("pii_ner").score_map is None


def test_score_map_survives_disk_and_is_removed_with_it(calibrated_nlp, tmp_path):
    folder = tmp_path / "model"
    calibrated_nlp.to_disk(folder)
    assert (folder / "pii_ner" / SCORE_MAP_FILE).is_file()
    loaded = spacy.load(folder)
    assert loaded.get_pipe("pii_ner").score_map == HALVING
    assert _predictions(loaded, PROBE) == _predictions(calibrated_nlp, PROBE)
    # A pipeline without a map saved over the same folder: no stale map comes back.
    spacy.load(assemble_pipeline(folder, tmp_path / "raw")).to_disk(folder)
    assert not (folder / "pii_ner" / SCORE_MAP_FILE).exists()
    assert spacy.load(folder).get_pipe("pii_ner").score_map is None


def test_score_map_survives_bytes(calibrated_nlp):
    clone = spacy.blank("en").from_config(calibrated_nlp.config)
    clone.from_bytes(calibrated_nlp.to_bytes())
    assert clone.get_pipe("pii_ner").score_map == HALVING
    assert _predictions(clone, PROBE) == _predictions(calibrated_nlp, PROBE)
    ner = calibrated_nlp.get_pipe("pii_ner")
    bare = spacy.blank("en").from_config(calibrated_nlp.config).get_pipe("pii_ner")
    bare.from_bytes(ner.to_bytes(exclude=["score_map"]))
    assert bare.score_map is None
    # spaCy's own byte layout, as written before the score map, still loads.
    bare.from_bytes(ner.to_bytes())
    assert bare.score_map == HALVING
    bare.from_bytes(SpanCategorizer.to_bytes(ner))
    assert bare.score_map is None
    assert bare.labels == ner.labels


def test_a_bad_score_map_file_fails_to_load_with_a_typed_error(calibrated_nlp, tmp_path):
    folder = tmp_path / "model"
    calibrated_nlp.to_disk(folder)
    (folder / "pii_ner" / SCORE_MAP_FILE).write_text('{"schema_version": 9}', encoding="utf-8")
    with pytest.raises(ConfigError, match="schema_version"):
        spacy.load(folder)


def test_two_processes_apply_the_score_map(calibrated_nlp):
    texts = PROBE * 2
    single = _predictions(calibrated_nlp, texts)
    docs = calibrated_nlp.pipe(texts, n_process=2, batch_size=2)
    multi = [[round(score, 5) for score in doc.spans["pii_ner"].attrs["scores"]] for doc in docs]
    assert multi == [[s[3] for s in doc] for doc in single]


def test_the_shipped_pipeline_writes_scores_through_its_pooled_score_map(tmp_path):
    assert (SHIPPED / "pii_ner" / SCORE_MAP_FILE).exists()
    nlp = spacy.load(SHIPPED)
    ner = nlp.get_pipe("pii_ner")
    score_map = ner.score_map
    assert score_map is not None and score_map.labels == {} and score_map.pooled is not None
    # Any text with a PERSON the model finds; the map, not the sentence, is under test.
    text = "My name is Ada Lovelace and I code."
    # pii_span_ranker rescores the pii_ner group after pii_ner; the map is pii_ner's own.
    with nlp.select_pipes(disable=["pii_span_ranker"]):
        calibrated_doc = nlp(text)
    calibrated = calibrated_doc.spans["pii_ner"]
    raw_nlp = spacy.load(assemble_pipeline(SHIPPED, tmp_path / "raw"))
    if "pii_span_ranker" in raw_nlp.pipe_names:
        raw_nlp.disable_pipe("pii_span_ranker")
    raw_doc = raw_nlp(text)
    raw = raw_doc.spans["pii_ner"]
    assert [(s.start, s.end, s.label_) for s in calibrated] == [
        (s.start, s.end, s.label_) for s in raw
    ]
    assert len(raw) >= 1
    expected = [
        score_map.apply(span.label_, score)
        for span, score in zip(raw, raw.attrs["scores"], strict=True)
    ]
    assert list(calibrated.attrs["scores"]) == pytest.approx(expected)


def test_the_shipped_pipeline_splits_a_list_of_names():
    text = "Probation period: 9 weeks\nInterviewers: P. Dippel, A. Wulff"
    nlp = spacy.load(SHIPPED)
    assert nlp.get_pipe("pii_ner").settings.split_name_lists is True
    found = nlp(text)
    assert [(s.text, s.label_) for s in found.spans["pii_ner"]] == [
        ("P. Dippel", "PERSON"),
        ("A. Wulff", "PERSON"),
    ]
    # The convention itself, on a span the model might propose whole: two full names at a
    # comma become two spans, and an override on the saved pipeline switches it off.
    doc = nlp.make_doc(text)
    start = next(t.i for t in doc if t.text == "P.")
    whole = (start, len(doc))
    parts = nlp.get_pipe("pii_ner")._person_bounds(doc, *whole)
    assert [doc[a:b].text for a, b in parts] == ["P. Dippel", "A. Wulff"]
    off = spacy.load(SHIPPED, config={"components": {"pii_ner": {"split_name_lists": False}}})
    assert off.get_pipe("pii_ner")._person_bounds(doc, *whole) == [whole]
