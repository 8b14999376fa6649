"""The CLI: evaluate (--pred and --model), gate and calibrate, exit codes and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import SpanGroup
from typer.testing import CliRunner

from spacy_pii.assembly import build as assembly_build
from spacy_pii.evaluation.calibration import ThresholdPolicy
from spacy_pii.io.cli import app

DATA = Path(__file__).parent / "data"
GOLD = DATA / "gold_small.jsonl"
PRED = DATA / "pred_small.jsonl"
# Values in the small gold file that must not leak into any default output.
VALUES = ("Maria Lopez", "078-05-1120", "4111 1111", "ops_bot", "jdoe42", "maria.lopez@")

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def metrics(tmp_path) -> Path:
    out = tmp_path / "metrics.json"
    result = _run("evaluate", GOLD, "--pred", PRED, "--output", out, "--min-support", "1")
    assert result.exit_code == 0, result.output
    return out


def test_evaluate_grades_a_prediction_file(metrics):
    data = json.loads(metrics.read_text())
    per_label = data["evaluation"]["per_label"]
    assert {k: (v["tp"], v["fp"], v["fn"]) for k, v in per_label.items()} == {
        "ADDRESS": (1, 0, 0),
        "EMAIL": (1, 0, 0),
        "GOV_ID": (1, 0, 0),
        "PAYMENT": (1, 0, 0),
        "PERSON": (2, 1, 0),
        "PHONE": (1, 0, 0),
        "SECRET": (1, 0, 0),
        "USERNAME": (1, 0, 1),
    }
    micro = data["evaluation"]["micro"]
    assert (micro["precision"], micro["recall"]) == (0.9, 0.9)
    assert data["evaluation"]["dropped_gold"] == {"DATE_TIME": 1}
    assert data["evaluation"]["dropped_pred"] == {"DATE_TIME": 1}
    assert data["gate"]["passed"] is True
    assert data["inputs"] == {"gold": GOLD.name, "model": None, "pred": PRED.name}
    assert not any(value in metrics.read_text() for value in VALUES)


def test_evaluate_prints_table_and_gate_and_writes_reports(tmp_path):
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    result = _run("evaluate", GOLD, "--pred", PRED, "--report", html, "--markdown", md)
    assert result.exit_code == 0  # evaluate reports the gate; `gate` enforces it
    assert "USERNAME" in result.stdout and "gate: FAIL" in result.stdout
    for path in (html, md):
        text = path.read_text(encoding="utf-8")
        assert "insufficient_support" in text
        assert not any(value in text for value in VALUES)
    assert "data:image/png;base64," in html.read_text()


def test_show_values_puts_values_in_the_worklist(tmp_path):
    out = tmp_path / "m.json"
    assert _run("evaluate", GOLD, "--pred", PRED, "--output", out, "--show-values").exit_code == 0
    (item,) = json.loads(out.read_text())["evaluation"]["worklist"]
    assert (item["label"], item["value"], item["document_id"]) == ("USERNAME", "ops_bot", "small-5")


def test_gate_passes_then_fails_when_a_floor_is_raised(metrics):
    assert _run("gate", metrics, "--min-support", "1").exit_code == 0
    raised = _run("gate", metrics, "--min-support", "1", "--floor", "USER=0.6")
    assert raised.exit_code == 1
    assert "FAIL USERNAME: below_floor" in raised.stderr


def test_gate_fails_on_too_little_support(metrics):
    result = _run("gate", metrics)  # default minimum: 73 or 189 spans per gated label
    assert result.exit_code == 1
    assert "FAIL GOV_ID: insufficient_support" in result.stderr


def test_gate_fails_on_an_empty_gold_set(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    out = tmp_path / "m.json"
    assert _run("evaluate", empty, "--pred", empty, "--output", out).exit_code == 0
    result = _run("gate", out, "--min-support", "1")
    assert result.exit_code == 1 and "insufficient_support" in result.stderr


def test_gate_refuses_a_file_that_is_not_metrics(tmp_path):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"per_label": {}}), encoding="utf-8")
    assert _run("gate", other).exit_code == 2
    other.write_text(json.dumps({"kind": "spacy-pii.metrics", "evaluation": {}}), "utf-8")
    result = _run("gate", other)
    assert result.exit_code == 2 and "taxonomy_version" in result.stderr


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_pred_text_mismatch_names_the_line_not_the_text(tmp_path):
    lines = _lines(PRED)
    row = json.loads(lines[2])
    row["text"] = row["text"].replace("Ship", "Send")
    lines[2] = json.dumps(row)
    bad = tmp_path / "pred.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _run("evaluate", GOLD, "--pred", bad)
    assert result.exit_code == 2
    assert "line 3" in result.stderr and "Baker" not in result.stderr
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(_lines(PRED)[:4]) + "\n", encoding="utf-8")
    assert "4 lines" in _run("evaluate", GOLD, "--pred", short).stderr


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        (
            '{"text": "Maria Lopez", "spans": [{"start": 0, "end": 99, "label": "PERSON"}]}',
            "line 2: span 0 (0:99) ends beyond",
        ),
        (
            '{"text": "Maria Lopez", "spans": [{"start": 0, "end": 5, "label": "HAT"}]}',
            "line 2: label 'HAT'",
        ),
    ],
    ids=["json", "offsets", "label"],
)
def test_malformed_gold_line_is_a_typed_error_with_its_line(tmp_path, line, message):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(_lines(GOLD)[0] + "\n" + line + "\n", encoding="utf-8")
    result = _run("evaluate", gold, "--pred", gold)
    assert result.exit_code == 2
    assert "CorpusLineError" in result.stderr and message in result.stderr
    assert "Maria" not in result.stderr


@pytest.mark.parametrize(
    "args", [[], ["--model", "rules", "--pred", str(PRED)]], ids=["neither", "both"]
)
def test_exactly_one_prediction_source(args):
    result = _run("evaluate", GOLD, *args)
    assert result.exit_code == 2 and "exactly one" in result.stderr


def test_calibrate_writes_a_policy(tmp_path):
    out = tmp_path / "policy.json"
    result = _run(
        "calibrate",
        GOLD,
        "--pred",
        PRED,
        "--calibration-version",
        "sha256:m1",
        "--eval-set-version",
        "small-1",
        "--min-support",
        "1",
        "--output",
        out,
    )
    assert result.exit_code == 0, result.output
    policy = ThresholdPolicy.load(out)
    # PERSON: gold scored 0.9 and 0.8, a look-alike 0.3; 0.8 keeps both and drops it.
    assert policy.labels["PERSON"].threshold == 0.8
    assert policy.labels["PERSON"].measured_precision == 1.0
    assert "USERNAME" not in policy.labels  # not gated, no explicit floor
    assert "PERSON: threshold 0.8000" in result.stdout


def test_calibrate_fails_closed(tmp_path):
    out = tmp_path / "policy.json"
    common = [
        "calibrate",
        GOLD,
        "--pred",
        PRED,
        "--calibration-version",
        "m",
        "--eval-set-version",
        "e",
        "--output",
        out,
    ]
    result = _run(*common)
    assert result.exit_code == 1 and "failed closed" in result.stderr
    assert "PERSON" in result.stderr and not out.exists()
    result = _run(*common, "--min-support", "1", "--floor", "USERNAME=0.9")
    assert result.exit_code == 1 and "USERNAME" in result.stderr and not out.exists()


# -- --model, through a stand-in for the pipeline loader -----------------------------------

_PREDICTIONS = {json.loads(x)["text"]: json.loads(x)["spans"] for x in _lines(PRED)}


@Language.component("test_cli_replay_predictions")
def _replay(doc):
    spans, scores = [], []
    for raw in _PREDICTIONS.get(doc.text, []):
        span = doc.char_span(raw["start"], raw["end"], label=raw["label"], alignment_mode="expand")
        spans.append(span)
        scores.append(raw.get("score"))
    doc.spans["pii"] = SpanGroup(doc, name="pii", spans=spans, attrs={"scores": scores})
    return doc


def test_model_predictions_come_from_doc_spans_pii(monkeypatch, tmp_path):
    def load(name: str):
        assert name == "rules"
        nlp = spacy.blank("en")
        nlp.add_pipe("test_cli_replay_predictions")
        return nlp

    monkeypatch.setattr(assembly_build, "load_pipeline", load)
    out = tmp_path / "m.json"
    result = _run("evaluate", GOLD, "--model", "rules", "--output", out, "--min-support", "1")
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["evaluation"]["micro"]["tp"] == 9 and data["gate"]["passed"]
    policy = tmp_path / "p.json"
    result = _run(
        "calibrate",
        GOLD,
        "--model",
        "rules",
        "--calibration-version",
        "m",
        "--eval-set-version",
        "e",
        "--min-support",
        "1",
        "--output",
        policy,
    )
    assert result.exit_code == 0 and ThresholdPolicy.load(policy).labels["PERSON"].threshold == 0.8
