"""``spacy-pii benchmark``: the CLI runs the benchmark package and writes its reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_pii.io.cli import app

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()


def test_quick_rules_run_writes_json_and_markdown_with_the_rules_row(tmp_path, monkeypatch):
    # About 15 s alone, nearly all of it spaCy importing every installed package's
    # factories (spacy-transformers, then torch) the first time a pipeline is built; a
    # few seconds in a full run, where that import is already done.
    monkeypatch.chdir(REPO)  # the default corpora are repository paths
    out = tmp_path / "bench"
    result = runner.invoke(
        app,
        [
            "benchmark",
            "--quick",
            "--systems",
            "rules",
            "--no-probe",
            "--n-process",
            "1",
            "--limit",
            "20",
            "--out-dir",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads((out / "benchmark.json").read_text(encoding="utf-8"))
    assert data["corpus"]["files"] == [
        "presidio_research_synth_v2.jsonl",
        "wnut17_dev.jsonl",
    ]
    assert data["corpus"]["documents"] == 40  # --limit 20 per file
    rules = data["systems"]["rules"]
    assert rules["status"] == "ok"
    assert rules["throughput"]["1"]["chars_per_s"] > 0
    assert "| rules |" in (out / "benchmark.md").read_text(encoding="utf-8")
    assert "PASS" in result.output or "SKIP" in result.output  # the target lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(["--systems", "rules,spacy"], "unknown rows", id="unknown-row"),
        pytest.param(["--n-process", "one"], "--n-process", id="bad-process-count"),
        pytest.param(["--n-process", "0"], "--n-process", id="zero-processes"),
    ],
)
def test_bad_options_exit_2_before_any_work(tmp_path, args, message):
    result = runner.invoke(app, ["benchmark", "--out-dir", str(tmp_path), *args])
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "benchmark.json").exists()


def test_missing_default_corpus_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no corpus/ folder here
    result = runner.invoke(app, ["benchmark", "--systems", "rules", "--out-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "--corpus" in result.output


def test_training_script_is_a_wrapper_over_the_command():
    import subprocess

    completed = subprocess.run(
        [sys.executable, str(REPO / "training" / "benchmark.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "--no-probe" in completed.stdout


def _fake_results(verdict: str) -> dict:
    return {
        "systems": {},
        "checks": [
            {
                "id": "rules_vs_scrubadub",
                "description": "rules chars/s / scrubadub chars/s (1 process)",
                "value": 0.9 if verdict == "FAIL" else 1.2,
                "target": ">= 1x",
                "verdict": verdict,
            }
        ],
    }


@pytest.mark.parametrize(
    ("verdict", "flags", "code"),
    [
        pytest.param("FAIL", ["--check"], 1, id="check-fails"),
        pytest.param("FAIL", [], 0, id="report-only"),
        pytest.param("PASS", ["--check"], 0, id="check-passes"),
    ],
)
def test_check_exits_1_when_a_target_fails(tmp_path, monkeypatch, verdict, flags, code):
    import spacy_pii.benchmark as benchmark

    monkeypatch.chdir(REPO)
    monkeypatch.setattr(benchmark, "run_benchmark", lambda **kwargs: _fake_results(verdict))
    monkeypatch.setattr(benchmark, "write_outputs", lambda results, out_dir: {})
    result = runner.invoke(app, ["benchmark", "--out-dir", str(tmp_path), *flags])
    assert result.exit_code == code, result.output
    assert f"{verdict}  rules chars/s / scrubadub chars/s" in result.output


def test_help_names_the_targets_not_issue_numbers():
    result = runner.invoke(app, ["benchmark", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for target in ("50x Presidio full", "1x scrubadub", "3x Presidio full", "1.1", "1 GB"):
        assert target in text
    assert "issue" not in text.lower()
