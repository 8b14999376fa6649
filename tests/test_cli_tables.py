"""``spacy-pii scan``, ``redact-table`` and ``restore-table`` on a small CSV (rules model)."""

from __future__ import annotations

import csv
import json

from typer.testing import CliRunner

from spacy_pii.io.cli import app

runner = CliRunner()
FIRST = ["Joy", "Mark", "Grace", "Ada", "Søren", "Anne-Marie"]


def _write(path):
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "first_name", "email", "ip", "plan"])
        for i in range(60):
            writer.writerow([i, FIRST[i % 6], f"user{i}@example.com", f"10.0.{i}.7", "gold"])


def test_scan_writes_json_html_and_a_policy_without_values(tmp_path):
    table = tmp_path / "people.csv"
    _write(table)
    out = runner.invoke(app, ["scan", str(table), "--model", "rules", "--json",
                              str(tmp_path / "s.json"), "--html", str(tmp_path / "s.html"),
                              "--policy-out", str(tmp_path / "p.yaml")])  # fmt: skip
    assert out.exit_code == 0, out.output
    scan = json.loads((tmp_path / "s.json").read_text())
    decisions = {c["name"]: c["decision"] for c in scan["columns"]}
    assert decisions == {"id": "clean", "first_name": "pii", "email": "pii", "ip": "pii",
                         "plan": "clean"}  # fmt: skip
    page = (tmp_path / "s.html").read_text()
    assert "Xxxxx" in page and 'id="columns"' in page
    for text in (out.output, page, (tmp_path / "s.json").read_text()):
        assert not any(name in text for name in FIRST)
        assert "user1@example.com" not in text and "10.0.1.7" not in text
    red = runner.invoke(app, ["redact-table", str(table), "-o", str(tmp_path / "r.csv"),
                              "--policy", str(tmp_path / "p.yaml"), "--vault",
                              str(tmp_path / "v.json")])  # fmt: skip
    assert red.exit_code == 0, red.output
    redacted = (tmp_path / "r.csv").read_text()
    assert "Grace" not in redacted and "<PERSON_3>" in redacted and redacted.count("\n") == 61
    restore = ["restore-table", str(tmp_path / "r.csv"), "-o", str(tmp_path / "b.csv")]
    back = runner.invoke(app, [*restore, "--vault", str(tmp_path / "v.json")])
    assert back.exit_code == 0, back.output
    assert (tmp_path / "b.csv").read_text() == table.read_text()


def test_bad_input_exits_2_without_values(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"first_name\nJos\xe9\n")
    out = runner.invoke(app, ["scan", str(bad), "--model", "rules"])
    assert out.exit_code == 2 and "TableError" in out.output and "Jos" not in out.output
    table = tmp_path / "t.csv"
    _write(table)
    full = runner.invoke(app, ["scan", str(table), "--model", "rules", "--full",
                               "--max-full-rows", "10"])  # fmt: skip
    assert full.exit_code == 2 and "limit" in full.output
    policy = tmp_path / "p.yaml"
    policy.write_text("columns:\n  email: {policy: shred}\n")
    red = runner.invoke(app, ["redact-table", str(table), "-o", str(tmp_path / "o.csv"),
                              "--policy", str(policy)])  # fmt: skip
    assert red.exit_code == 2 and "policy" in red.output
