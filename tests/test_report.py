"""Reports: masked by default, tables and curves present, and a real browser renders them."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from spacy_pii.errors import ConfigError
from spacy_pii.evaluation.calibration import labels_from_predictions, sweep_by_label
from spacy_pii.evaluation.documents import Document
from spacy_pii.evaluation.gate import run_gate
from spacy_pii.evaluation.report import (
    error_view,
    error_views,
    format_table,
    pr_curve_png,
    render_html,
    render_markdown,
    write_html,
    write_markdown,
)
from spacy_pii.evaluation.scoring import evaluate

TEXT = "Call Ada Byron on 415-555-0134 or SSN 078-05-1120 before noon"
VALUES = ("Ada Byron", "415-555-0134", "078-05-1120", "555-0134", "Byron")
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def _span(value: str, label: str, cut: int = 0, score: float | None = None) -> dict:
    start = TEXT.index(value)
    return {"start": start, "end": start + len(value) - cut, "label": label, "score": score}


@pytest.fixture
def pair() -> tuple[list[Document], list[Document]]:
    gold = Document.from_raw(
        TEXT,
        [
            _span("Ada Byron", "PERSON"),
            _span("415-555-0134", "PHONE"),
            _span("078-05-1120", "US_SSN"),
        ],
    )
    pred = Document.from_raw(
        TEXT,
        [
            _span("Ada Byron", "PERSON", score=0.9),
            _span("415-555-0134", "PHONE", score=1.0),
            _span("078-05-1120", "GOV_ID", cut=1, score=0.6),
            _span("noon", "PERSON", score=0.2),
        ],
    )
    return [gold], [pred]


def _everything(pair, show_values: bool = False):
    gold, pred = pair
    result = evaluate(gold, pred, show_values=show_values)
    gate = run_gate(result, min_support=1)
    curves = sweep_by_label(labels_from_predictions(gold, pred))
    views = error_views(gold, pred, show_values=show_values)
    return result, gate, curves, views


def test_html_has_tables_curves_and_samples_and_no_values(pair):
    result, gate, curves, views = _everything(pair)
    page = render_html(result, gate, curves=curves, views=views)
    for table in ("gate", "scores", "levels", "errors", "worklist"):
        assert f'<table id="{table}">' in page
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == len(curves) == 3
    assert base64.b64decode(images[0]).startswith(b"\x89PNG\r\n\x1a\n")
    assert 'class="spans"' in page  # displaCy's span renderer
    assert "[[GOV_ID]]" in page and "FAIL" in page
    for value in VALUES:
        assert value not in page


def test_html_shows_values_only_when_asked(pair):
    result, gate, curves, views = _everything(pair, show_values=True)
    page = render_html(result, gate, curves=curves, views=views, show_values=True)
    assert "078-05-1120" in page and "values SHOWN" in page
    with pytest.raises(ConfigError):
        render_html(result, gate)  # a values-shown result cannot slip into a masked report


def test_markdown_writes_curves_beside_it_and_masks(pair, tmp_path):
    result, gate, curves, _ = _everything(pair)
    path = write_markdown(tmp_path / "report.md", result, gate, curves=curves)
    text = path.read_text(encoding="utf-8")
    assert "| label | support | TP | FP | FN | P | R | F1 | F2 |" in text
    assert "![precision-recall curve GOV_ID](report_assets/pr_GOV_ID.png)" in text
    assert (tmp_path / "report_assets" / "pr_GOV_ID.png").read_bytes().startswith(b"\x89PNG")
    assert not any(value in text for value in VALUES)
    assert "[[GOV_ID]]" in render_markdown(result, gate)


def test_error_view_shows_boundaries_without_characters(pair):
    gold, pred = pair
    start = TEXT.index("078-05-1120")
    view = error_view(0, gold[0], pred[0], start, start + 11, title="t", context_chars=5)
    # The SSN splits where the prediction ends: two masked pieces, gold over both; the text
    # around them is its shape only.
    assert view["tokens"] == ["XXX", "[GOV_ID]", "[GOV_ID]", "xxxx"]
    spans = {(s["label"], s["start_token"], s["end_token"]) for s in view["spans"]}
    assert spans == {("gold GOV_ID", 1, 3), ("pred GOV_ID", 1, 2)}


def test_console_table_and_curve_png(pair):
    result, gate, curves, _ = _everything(pair)
    table = format_table(result, gate)
    assert "micro" in table and "gate: FAIL" in table and "GOV_ID" in table
    assert pr_curve_png("PERSON", curves["PERSON"], 0.95).startswith(b"\x89PNG")


@pytest.mark.browser
@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs /usr/bin/chromium (apt-get install chromium)"
)
def test_report_renders_in_headless_chromium(pair, tmp_path):
    from matplotlib.image import imread

    result, gate, curves, views = _everything(pair)
    page = write_html(tmp_path / "report.html", result, gate, curves=curves, views=views)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "report_screenshot.png"
    shot.unlink(missing_ok=True)
    subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            "--window-size=1280,2000",
            page.resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pixels = imread(shot)[..., :3]
    assert pixels.shape[:2] == (2000, 1280)

    def share(rgb: tuple[int, int, int]) -> float:
        target = [c / 255 for c in rgb]
        close = (abs(pixels - target) < 0.02).all(axis=-1)
        return float(close.mean())

    assert share((0xF1, 0xF3, 0xF5)) > 0.001  # table header cells
    assert share((0x1F, 0x77, 0xB4)) > 0.00005  # the curves' line and markers (matplotlib C0)
    shutil.copy(page, ARTIFACTS / "report.html")


def test_document_ids_from_the_input_are_escaped(pair):
    gold, pred = pair
    gold = [gold[0].model_copy(update={"id": "<script>x</script>"})]
    result, gate = evaluate(gold, pred), None
    page = render_html(result, gate, views=error_views(gold, pred))
    assert "<script>" not in page and "&lt;script&gt;" in page


# Canaries: personal data that neither the gold nor the predictions mark, inside every
# context window. No report may hold them, nor any run of their letters or digits.
CANARIES = ("Quokkabelle", "Zanzibarov", "7731")


def _canary_files(tmp_path: Path) -> tuple[Path, Path]:
    texts = [
        "Quokkabelle Zanzibarov wrote: call Ada Byron on 415-555-0134, pin 7731.",
        "Zanzibarov says SSN 078-05-1120 belongs to Quokkabelle, code 7731",
    ]
    gold_rows, pred_rows = [], []
    for text in texts:
        spans = []
        for value, label in (
            ("Ada Byron", "PERSON"),
            ("415-555-0134", "PHONE"),
            ("078-05-1120", "US_SSN"),
        ):
            if value in text:
                start = text.index(value)
                spans.append({"start": start, "end": start + len(value), "label": label})
        gold_rows.append({"text": text, "spans": spans})
        # The model misses every span but the last, so each gold span is on the worklist.
        pred_rows.append({"text": text, "spans": spans[-1:]})
    gold, pred = tmp_path / "gold.jsonl", tmp_path / "pred.jsonl"
    gold.write_text("".join(json.dumps(r) + "\n" for r in gold_rows), encoding="utf-8")
    pred.write_text("".join(json.dumps(r) + "\n" for r in pred_rows), encoding="utf-8")
    return gold, pred


def _report_texts(tmp_path: Path, *extra: str) -> dict[str, str]:
    from typer.testing import CliRunner

    from spacy_pii.io.cli import app

    gold, pred = _canary_files(tmp_path)
    out = {
        "metrics.json": tmp_path / "metrics.json",
        "report.html": tmp_path / "report.html",
        "report.md": tmp_path / "report.md",
    }
    result = CliRunner().invoke(
        app,
        [
            "evaluate",
            str(gold),
            "--pred",
            str(pred),
            "--output",
            str(out["metrics.json"]),
            "--report",
            str(out["report.html"]),
            "--markdown",
            str(out["report.md"]),
            *extra,
        ],
    )
    assert result.exit_code in (0, 1), result.output
    texts = {name: path.read_text(encoding="utf-8") for name, path in out.items()}
    texts["console"] = result.output
    texts.update(
        (f"report_assets/{p.name}", p.read_bytes().decode("latin-1"))
        for p in (tmp_path / "report_assets").glob("*")
    )
    return texts


def test_no_report_format_holds_a_canary_without_show_values(tmp_path):
    texts = _report_texts(tmp_path)
    worklist = json.loads(texts["metrics.json"])["evaluation"]["worklist"]
    assert worklist and all("[[" in item["context"] for item in worklist)
    for name, text in texts.items():
        for canary in CANARIES:
            assert canary not in text, (name, canary)


def test_show_values_puts_the_canaries_in_the_reports(tmp_path):
    texts = _report_texts(tmp_path, "--show-values")
    for name in ("metrics.json", "report.html", "report.md"):
        assert "Quokkabelle" in texts[name] or "Zanzibarov" in texts[name], name


def test_reports_show_overlap_scores_beside_token_and_character_levels(tmp_path):
    from spacy_pii.evaluation.documents import Document
    from spacy_pii.evaluation.report import format_table, render_markdown
    from spacy_pii.evaluation.scoring import evaluate

    text = "Ada Byron met Alan Turing"
    gold = Document.from_raw(text, [{"start": 0, "end": 9, "label": "PERSON"}])
    pred = Document.from_raw(text, [{"start": 4, "end": 9, "label": "PERSON"}])
    result = evaluate([gold], [pred])
    assert result.overlap.per_label["PERSON"].f1 == 1.0
    assert result.per_label["PERSON"].f1 == 0.0
    assert "overlap F1 (a prediction of the label overlaps the gold span): PERSON 1.000" in (
        format_table(result)
    )
    assert "| overlap | PERSON |" in render_markdown(result)
