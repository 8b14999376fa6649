"""The table suite: gold for every column, rebuilt byte for byte, and the scorer's counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spacy_pii.tables import open_table, rows_source, scan_table
from spacy_pii.tables.evaluate import score_predictions, suite_tables
from spacy_pii.tables.report import render_html
from spacy_pii.tables.suite import HELD_OUT, SUITE, write_suite

SUITE_DIR = Path(__file__).resolve().parents[1] / "corpus" / "tables"


def test_every_table_has_gold_for_every_column():
    pairs = suite_tables(SUITE_DIR) + suite_tables(SUITE_DIR / "heldout")
    assert len(pairs) == len(SUITE) + len(HELD_OUT)
    for path, gold in pairs:
        assert open_table(path).columns == list(gold["columns"]), path.name
        for spec in gold["columns"].values():
            assert spec["gold"] in ("pii", "clean", "quasi")
            assert (spec["type"] is not None) == (spec["gold"] == "pii")


def test_suite_rebuilds_identically(tmp_path):
    pytest.importorskip("faker")
    specs = tuple(spec for spec in SUITE if spec.name in ("catalog_misleading", "klanten_nl"))
    for path in write_suite(tmp_path, specs=specs):
        assert path.read_bytes() == (SUITE_DIR / path.name).read_bytes()


def test_scores_count_flags_misses_and_quasi():
    def everything_pii(path):
        return {name: ("pii", None) for name in open_table(path).columns}

    def nothing(path):
        return {}

    flagged = score_predictions(SUITE_DIR, everything_pii).to_dict()
    assert flagged["recall"]["value"] == 1.0 and flagged["precision"]["value"] < 0.6
    assert all(row["typed"] == 0 for row in flagged["per_type"].values())
    silent = score_predictions(SUITE_DIR, nothing).to_dict()
    assert silent["recall"]["value"] == 0.0 and silent["precision"]["value"] is None
    assert len(silent["misses"]) == flagged["recall"]["of"]
    assert "crm_export_en.csv:city" in silent["quasi"]


def test_html_report_holds_shapes_not_values():
    rows = [(f"Zelda{chr(97 + i % 26)}", f"zed{i}@example.com", "4111 1111 1111 1111")
            for i in range(40)]  # fmt: skip

    def detector(texts):
        return [[(0, len(t), "EMAIL")] if "@" in t else [] for t in texts]

    scan = scan_table(rows_source(["first_name", "email", "card"], rows), detector)
    page = render_html(scan)
    assert "Xxxxxx" in page and "xxxdd@xxxxxxx.xxx" in page and "dddd dddd dddd dddd" in page
    assert "Zelda" not in page and "example.com" not in page and "4111" not in page
    assert json.loads(scan.to_json())["summary"]["pii"] == 2
