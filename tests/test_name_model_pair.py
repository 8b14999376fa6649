"""Two name models side by side: the mean of their scores per span (core.span_mean), the
``pii_ner_mean`` component, and a pair assembled from two runs of one recipe."""

from __future__ import annotations

from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc
from thinc.api import fix_random_seed
from tiny_ner import examples, fit

from spacy_pii.adapters.span_groups import group_to_hits, hits_to_group
from spacy_pii.assembly.name_model_pair import NAMES_KEY, pair_name_models
from spacy_pii.assembly.release import name_model_components, span_finder_edge_settings
from spacy_pii.core.hits import Hit
from spacy_pii.core.span_mean import mean_scored
from spacy_pii.errors import ConfigError

ADA = Hit(0, 3, "PERSON", 0.8, "a", "model")


def test_a_span_both_models_propose_keeps_the_mean_and_one_alone_is_halved():
    first = [ADA, Hit(8, 13, "PERSON", 0.4, "a", "model")]
    second = [Hit(0, 3, "PERSON", 0.6, "b", "model"), Hit(20, 25, "PERSON", 0.9, "b", "model")]
    merged = mean_scored([first, second], "mean")
    assert [(h.start, h.end, h.score) for h in merged] == [
        (0, 3, pytest.approx(0.7)),
        (8, 13, pytest.approx(0.2)),
        (20, 25, pytest.approx(0.45)),
    ]
    assert {(h.detector, h.kind) for h in merged} == {("mean", "model")}


def test_the_label_is_part_of_a_span_and_order_within_a_group_does_not_matter():
    org = Hit(0, 3, "ORG", 0.5, "b", "model")
    merged = mean_scored([[ADA], [org]], "mean")
    assert [(h.label, h.score) for h in merged] == [("ORG", 0.25), ("PERSON", 0.4)]
    late = Hit(5, 9, "PERSON", 0.2, "a", "model")
    assert mean_scored([[late, ADA], [org]], "m") == mean_scored([[ADA, late], [org]], "m")


def test_an_unscored_span_counts_zero_and_a_repeated_one_its_higher_score():
    unscored = Hit(0, 3, "PERSON", None, "b", "model")
    assert mean_scored([[ADA], [unscored]], "m")[0].score == pytest.approx(0.4)
    again = Hit(0, 3, "PERSON", 0.2, "a", "model")
    assert mean_scored([[again, ADA], []], "m")[0].score == pytest.approx(0.4)


def test_a_mean_of_one_group_is_refused():
    with pytest.raises(ValueError, match="two"):
        mean_scored([[ADA]], "m")


def _doc_with_groups() -> Doc:
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Ada met Grace in Leeds")
    doc.spans["pii_ner"] = hits_to_group(doc, "pii_ner", [ADA])
    doc.spans["pii_ner_2"] = hits_to_group(
        doc, "pii_ner_2", [Hit(0, 3, "PERSON", 0.6, "b", "model"), Hit(8, 13, "PERSON", 0.5, "b")]
    )
    return doc


def test_the_component_writes_the_mean_group_and_leaves_its_inputs():
    nlp = spacy.blank("en")
    mean = nlp.add_pipe("pii_ner_mean")
    doc = mean(_doc_with_groups())
    hits = group_to_hits(doc.spans[NAMES_KEY])
    assert [(doc.text[h.start : h.end], h.score, h.detector) for h in hits] == [
        ("Ada", pytest.approx(0.7), "pii_ner_mean"),
        ("Grace", pytest.approx(0.25), "pii_ner_mean"),
    ]
    assert len(doc.spans["pii_ner"]) == 1 and len(doc.spans["pii_ner_2"]) == 2


def test_a_missing_model_group_is_an_error_that_names_the_group_not_the_text():
    nlp = spacy.blank("en")
    mean = nlp.add_pipe("pii_ner_mean")
    doc = _doc_with_groups()
    del doc.spans["pii_ner_2"]
    with pytest.raises(ValueError, match="'pii_ner_2'") as caught:
        mean(doc)
    assert "Ada" not in str(caught.value)


@pytest.mark.parametrize(
    "config",
    [
        {"input_keys": ["pii_ner"]},
        {"input_keys": ["pii_ner", "pii_ner"]},
        {"input_keys": ["pii_ner", "pii_ner_2"], "spans_key": "pii_ner"},
    ],
)
def test_bad_settings_are_refused(config):
    with pytest.raises(ConfigError):
        spacy.blank("en").add_pipe("pii_ner_mean", config=config)


# One run of a tiny recipe shaped like configs/multilingual.cfg: an encoder, a span finder
# and pii_ner listening to it, pii_ner reading the span finder's candidates.
_RUN_CONFIG = {
    "tok2vec": {
        "model": {
            "@architectures": "spacy.Tok2Vec.v2",
            "embed": {
                "@architectures": "spacy.MultiHashEmbed.v2",
                "width": 16,
                "attrs": ["NORM", "SHAPE"],
                "rows": [500, 50],
                "include_static_vectors": False,
            },
            "encode": {
                "@architectures": "spacy.MaxoutWindowEncoder.v2",
                "width": 16,
                "depth": 1,
                "window_size": 1,
                "maxout_pieces": 2,
            },
        }
    },
    "span_finder": {
        "spans_key": "pii_candidates",
        "threshold": 0.1,
        "max_length": 3,
        "model": {
            "@architectures": "spacy.SpanFinder.v1",
            "scorer": {"@layers": "spacy.LinearLogistic.v1", "nO": 2},
            "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 16},
        },
    },
    "pii_ner": {
        "threshold": 0.05,
        "suggester": {
            "@misc": "pii.ngram_preset_suggester.v1",
            "sizes": [1, 2],
            "spans_key": "pii_candidates",
        },
        "model": {
            "@architectures": "spacy.SpanCategorizer.v1",
            "reducer": {"@layers": "spacy.mean_max_reducer.v1", "hidden_size": 16},
            "scorer": {"@layers": "Softmax.v2"},
            "tok2vec": {"@architectures": "spacy.Tok2VecListener.v1", "width": 16},
        },
    },
}


def _run(seed: int, path: Path) -> Path:
    """A run of the tiny recipe with its weights initialized from ``seed``, saved."""
    fix_random_seed(seed)
    nlp = spacy.blank("xx")
    nlp.add_pipe("pii_rules", config={"language": "xx"})
    nlp.add_pipe("tok2vec", config=_RUN_CONFIG["tok2vec"])
    nlp.add_pipe("pii_span_finder", name="span_finder", config=_RUN_CONFIG["span_finder"])
    nlp.add_pipe("pii_ner", config=_RUN_CONFIG["pii_ner"])
    nlp.add_pipe("pii_merge", config={"types": ["PERSON", "EMAIL"]})
    train = examples(nlp)
    for example in train:
        gold = example.reference
        gold.spans["pii_candidates"] = list(gold.spans["pii_ner"])
    fit(nlp, train, passes=3)
    nlp.to_disk(path)
    return path


TEXTS = ["Ada Lovelace met Grace Hopper in Leeds.", "Mail ada@example.org or call Alan Turing."]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    return _run(0, root / "first"), _run(1, root / "second")


def _scored(doc: Doc, key: str) -> list[tuple[int, int, str, float | None]]:
    return [(h.start, h.end, h.label, h.score) for h in group_to_hits(doc.spans[key])]


def test_a_pair_runs_each_model_as_it_ran_alone_and_the_merge_reads_their_mean(runs, tmp_path):
    first, second = runs
    pair = pair_name_models(first, second)
    pair.to_disk(tmp_path / "pair")
    pair = spacy.load(tmp_path / "pair")
    alone = [spacy.load(first), spacy.load(second)]
    for text in TEXTS:
        doc, one, two = pair(text), alone[0](text), alone[1](text)
        assert _scored(doc, "pii_ner") == _scored(one, "pii_ner")
        assert _scored(doc, "pii_ner_2") == _scored(two, "pii_ner")
        assert _scored(doc, "pii_ner") != _scored(doc, "pii_ner_2")  # two different models
        expected = mean_scored(
            [group_to_hits(one.spans["pii_ner"]), group_to_hits(two.spans["pii_ner"])], "m"
        )
        assert _scored(doc, NAMES_KEY) == [(h.start, h.end, h.label, h.score) for h in expected]
    assert pair.get_pipe("pii_merge").settings.candidate_keys == ("pii_rules", NAMES_KEY)


def test_a_pairs_edge_settings_reach_both_span_finders(runs, tmp_path):
    pair_name_models(*runs).to_disk(tmp_path / "pair")
    assert name_model_components(tmp_path / "pair") == ["pii_ner", "pii_ner_2"]
    assert span_finder_edge_settings(tmp_path / "pair", 0.0) == {
        "span_finder": {"edge_threshold": 0.0},
        "span_finder_2": {"edge_threshold": 0.0},
    }


def test_runs_of_different_recipes_are_refused(runs, tmp_path):
    fix_random_seed(0)
    other = spacy.load(runs[1])
    other.remove_pipe("pii_ner")
    config = {**_RUN_CONFIG["pii_ner"], "suggester": {**_RUN_CONFIG["pii_ner"]["suggester"]}}
    config["model"] = {
        **config["model"],
        "reducer": {"@layers": "spacy.mean_max_reducer.v1", "hidden_size": 8},
    }
    other.add_pipe("pii_ner", config=config, before="pii_merge")
    other.get_pipe("pii_ner").add_label("PERSON")
    other.initialize()
    other.to_disk(tmp_path / "other")
    with pytest.raises(ConfigError, match="pii_ner"):
        pair_name_models(runs[0], tmp_path / "other")
    with pytest.raises(ConfigError):
        pair_name_models(runs[0], tmp_path / "absent")


def test_a_run_with_a_fitted_ranker_is_refused(runs, tmp_path):
    # Its ranker reads pii_ner alone; the pair's ranker is fitted on the mean afterwards.
    ranked = spacy.load(runs[0])
    ranked.add_pipe("pii_span_ranker", before="pii_merge")
    ranked.to_disk(tmp_path / "ranked")
    with pytest.raises(ConfigError, match="ranker"):
        pair_name_models(tmp_path / "ranked", runs[1])
