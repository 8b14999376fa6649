"""Evaluation reports: a console table, Markdown and a self-contained HTML page.

Every report masks PII by default: span characters become their type (``[PERSON]``) in the
worklist and in the displaCy renderings of sample errors. Values appear only when the
caller passes ``show_values=True``, and a result computed with values shown refuses to
render into a masked report, so a flag set once cannot leak through a later default.

spaCy (for displaCy) and matplotlib (for the precision-recall curves, Agg backend) are
imported inside the functions that draw, so the scoring core stays free of both.

Why this module is over 400 lines: the three renderings (console, Markdown, HTML) share the
masking check and the row builders; split by format, each would repeat them.
"""

from __future__ import annotations

import base64
import html
import io
from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import ConfigError
from .calibration import ThresholdPoint
from .documents import Document, DroppedSpan, Span
from .gate import GateResult
from .scoring import DEFAULT_CONTEXT_CHARS, EvaluationResult, Scores, document_errors, text_shape

# Rows of the worklist a report shows; the full list is in the metrics JSON.
WORKLIST_ROWS = 200
# Sample errors drawn with displaCy: about one screen of renderings.
SAMPLE_ERRORS = 12


def _check_masking(result: EvaluationResult, show_values: bool) -> None:
    if result.values_shown and not show_values:
        raise ConfigError("this result holds raw values; render it with show_values=True")


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _score_row(name: str, s: Scores) -> list[str]:
    return [name, str(s.support), str(s.tp), str(s.fp), str(s.fn)] + [
        _pct(v) for v in (s.precision, s.recall, s.f1, s.f2)
    ]


_SCORE_HEAD = ["label", "support", "TP", "FP", "FN", "P", "R", "F1", "F2"]
_GATE_HEAD = ["label", "floor", "support", "min support", "recall", "95% Wilson", "verdict"]


def _score_rows(result: EvaluationResult) -> list[list[str]]:
    rows = [_score_row(label, s) for label, s in result.per_label.items()]
    rows.append(_score_row("micro", result.micro))
    m = result.macro
    rows.append(
        ["macro", "-", "-", "-", "-"]
        + [_pct(v) for v in (m.precision, m.recall)]
        + [_pct(m.f1), _pct(m.f2)]
    )
    return rows


def _gate_rows(gate: GateResult) -> list[list[str]]:
    return [
        [
            g.label,
            f"{g.floor:.2f}",
            str(g.support),
            str(g.min_support),
            _pct(g.recall),
            f"[{g.wilson_low:.3f}, {g.wilson_high:.3f}]",
            "pass" if g.passed else "FAIL: " + ", ".join(g.reasons),
        ]
        for g in gate.labels
    ]


def format_table(result: EvaluationResult, gate: GateResult | None = None) -> str:
    """A fixed-width console summary: per-label scores, averages, leakage and the gate."""

    def block(head: list[str], rows: list[list[str]]) -> list[str]:
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))  # noqa: E731
        return [fmt(head), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]

    lines = [f"documents: {result.documents}  taxonomy: {result.taxonomy_version}"]
    lines += block(_SCORE_HEAD, _score_rows(result))
    overlap = ", ".join(f"{k} {s.f1:.3f}" for k, s in result.overlap.per_label.items())
    lines.append(f"overlap F1 (a prediction of the label overlaps the gold span): {overlap}")
    leak = result.leakage
    lines.append(
        f"character leakage: {leak.rate:.4f} ({leak.leaked_chars} of {leak.gold_chars} "
        "gold PII characters covered by no prediction)"
    )
    if gate is not None:
        lines.append("")
        lines += block(_GATE_HEAD, _gate_rows(gate))
        lines.append(
            "gate: PASS" if gate.passed else "gate: FAIL " + ", ".join(gate.failing_labels)
        )
    return "\n".join(lines)


# -- pictures -------------------------------------------------------------------------------


def pr_curve_png(label: str, points: Sequence[ThresholdPoint], floor: float | None = None) -> bytes:
    """A precision-recall curve for one label as PNG bytes (matplotlib, Agg backend)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4.2, 3.4), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    ordered = sorted(points, key=lambda p: p.threshold)
    # A cut point that keeps nothing has only the vacuous precision of 1.0: not drawn.
    drawn = [p for p in ordered if p.tp + p.fp]
    axes.plot([p.recall for p in drawn], [p.precision for p in drawn], marker="o", lw=1.5)
    if floor is not None:
        axes.axvline(floor, color="#c92a2a", ls="--", lw=1, label=f"recall floor {floor:.2f}")
        axes.legend(loc="lower left", fontsize=8)
    axes.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), xlabel="recall", ylabel="precision")
    axes.set_title(f"{label} (n={ordered[0].support if ordered else 0})", fontsize=10)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def error_view(
    index: int,
    gold: Document,
    pred: Document,
    start: int,
    end: int,
    *,
    title: str,
    context_chars: int = DEFAULT_CONTEXT_CHARS,
    show_values: bool = False,
) -> dict[str, Any]:
    """A displaCy ``span``-style manual dict of the window around ``start:end``.

    The window is cut at every gold and predicted boundary; each piece inside a span
    becomes one ``[TYPE]`` token (its value only with ``show_values``), so the rendering
    shows where gold and prediction begin and end without the characters between; the text
    around them is shown as its shape (:func:`~spacy_pii.evaluation.scoring.text_shape`) unless
    ``show_values``.
    """
    text = gold.text
    lo, hi = max(0, start - context_chars), min(len(text), end + context_chars)
    spans: list[tuple[str, Span | DroppedSpan]] = [
        ("gold", s) for s in gold.spans if s.start < hi and s.end > lo
    ]
    spans += [("pred", s) for s in pred.spans if s.start < hi and s.end > lo]
    # Spans of dropped labels (dates, places) are masked too, but not drawn.
    spans += [
        ("mask", s)
        for s in (*gold.dropped_spans, *pred.dropped_spans)
        if s.start < hi and s.end > lo
    ]
    clip = lambda x: min(max(x, lo), hi)  # noqa: E731
    cuts = sorted({lo, hi, *(clip(s.start) for _, s in spans), *(clip(s.end) for _, s in spans)})
    tokens: list[str] = []
    token_at: dict[int, int] = {}
    for a, b in pairwise(cuts):
        token_at[a] = len(tokens)
        covering = [(side, s) for side, s in spans if s.start <= a and s.end >= b]
        if not covering:
            # Text no span marks may still be personal data: its shape only, unless asked.
            tokens.extend((text[a:b] if show_values else text_shape(text[a:b])).split())
        elif show_values:
            tokens.extend(text[a:b].split() or ["\u00b7"])
        else:
            golds = [s.label for side, s in covering if side == "gold"]
            tokens.append(f"[{(golds or [covering[0][1].label])[0]}]")
    token_at[hi] = len(tokens)
    rendered = []
    for side, s in spans:
        if side == "mask":
            continue
        first, last = token_at[clip(s.start)], token_at[clip(s.end)]
        if last > first:
            rendered.append({"start_token": first, "end_token": last, "label": f"{side} {s.label}"})
    return {"text": " ".join(tokens), "tokens": tokens, "spans": rendered, "title": title}


def error_views(
    gold_docs: Sequence[Document],
    pred_docs: Sequence[Document],
    *,
    limit: int = SAMPLE_ERRORS,
    context_chars: int = DEFAULT_CONTEXT_CHARS,
    show_values: bool = False,
) -> list[dict[str, Any]]:
    """Up to ``limit`` sample errors, taken round-robin over (side, label, kind) groups."""
    groups: dict[tuple[str, str, str], list[tuple[int, Any]]] = defaultdict(list)
    for index, (g, p) in enumerate(zip(gold_docs, pred_docs, strict=True)):
        for error in document_errors(g, p):
            bucket = groups[(error.side, error.label, error.kind)]
            if len(bucket) < limit:
                bucket.append((index, error))
    picked: list[tuple[int, Any]] = []
    queues = [list(v) for _, v in sorted(groups.items())]
    while len(picked) < limit and any(queues):
        for queue in queues:
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    views = []
    for index, error in picked:
        name = gold_docs[index].id or str(index + 1)
        # displaCy inserts the title as markup; a document id comes from the input file.
        title = html.escape(f"document {name}: {error.side.upper()} {error.label} ({error.kind})")
        views.append(
            error_view(
                index,
                gold_docs[index],
                pred_docs[index],
                error.start,
                error.end,
                title=title,
                context_chars=context_chars,
                show_values=show_values,
            )
        )
    return views


def render_views(views: Sequence[dict[str, Any]], taxonomy: Taxonomy | None = None) -> str:
    """displaCy HTML for error views; gold and predicted spans take the type's colour."""
    if not views:
        return ""
    from spacy import displacy

    taxonomy = load_taxonomy(taxonomy)
    colors = {
        f"{side} {name}": t.color for name, t in taxonomy.types.items() for side in ("gold", "pred")
    }
    return displacy.render(list(views), style="span", manual=True, options={"colors": colors})


# -- documents ------------------------------------------------------------------------------


def _html_table(head: list[str], rows: list[list[str]], table_id: str) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f'<table id="{table_id}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def _level_rows(result: EvaluationResult) -> list[list[str]]:
    rows = []
    for level in ("overlap", "token", "char"):
        scores = getattr(result, level)
        rows += [[level, *_score_row(k, s)] for k, s in scores.per_label.items()]
        rows.append([level, *_score_row("micro", scores.micro)])
    return rows


def _error_rows(result: EvaluationResult) -> list[list[str]]:
    fields = [
        "fn_boundary",
        "fn_wrong_type",
        "fn_missed",
        "fp_boundary",
        "fp_wrong_type",
        "fp_spurious",
    ]
    return [[k, *(str(getattr(e, f)) for f in fields)] for k, e in result.errors.items()]


_ERROR_HEAD = [
    "label",
    "FN boundary",
    "FN wrong type",
    "FN missed",
    "FP boundary",
    "FP wrong type",
    "FP spurious",
]
_WORK_HEAD = ["document", "label", "offsets", "kind", "context"]


def _work_rows(result: EvaluationResult, show_values: bool) -> list[list[str]]:
    rows = []
    for item in result.worklist[:WORKLIST_ROWS]:
        name = item.document_id or str(item.document + 1)
        context = item.context + (f"  (value: {item.value})" if show_values and item.value else "")
        rows.append([name, item.label, f"{item.start}:{item.end}", item.kind, context])
    return rows


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;color:#212529}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ced4da;
padding:3px 8px;font-size:13px;text-align:left}th{background:#f1f3f5}
.pass{color:#2b8a3e}.fail{color:#c92a2a}.curves img{margin:4px;border:1px solid #dee2e6}"""


def render_html(
    result: EvaluationResult,
    gate: GateResult | None = None,
    *,
    curves: Mapping[str, Sequence[ThresholdPoint]] | None = None,
    views: Sequence[dict[str, Any]] = (),
    show_values: bool = False,
    taxonomy: Taxonomy | None = None,
) -> str:
    """A self-contained HTML page (curves embedded as base64 PNG)."""
    _check_masking(result, show_values)
    floors = {g.label: g.floor for g in gate.labels} if gate else {}
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        f"<title>spacy-pii evaluation</title><style>{_CSS}</style></head><body>",
        "<h1>spacy-pii evaluation</h1>",
        f"<p>{result.documents} documents &middot; taxonomy {html.escape(result.taxonomy_version)}"
        f" &middot; values {'SHOWN' if show_values else 'masked'}</p>",
    ]
    if gate is not None:
        verdict = "PASS" if gate.passed else "FAIL: " + ", ".join(gate.failing_labels)
        css = "pass" if gate.passed else "fail"
        parts += [
            f'<h2>Recall gate: <span class="{css}">{html.escape(verdict)}</span></h2>',
            _html_table(_GATE_HEAD, _gate_rows(gate), "gate"),
        ]
    parts += ["<h2>Exact-span scores</h2>", _html_table(_SCORE_HEAD, _score_rows(result), "scores")]
    if curves:
        parts.append('<h2>Precision-recall curves</h2><div class="curves">')
        for label, points in curves.items():
            data = base64.b64encode(pr_curve_png(label, points, floors.get(label))).decode()
            parts.append(
                f'<img alt="precision-recall curve {label}" src="data:image/png;base64,{data}">'
            )
        parts.append("</div>")
    leak = result.leakage
    parts += [
        f"<h2>Character leakage: {leak.rate:.4f}</h2><p>{leak.leaked_chars} of {leak.gold_chars}"
        " gold PII characters are covered by no prediction.</p>",
        "<h2>Overlap, token and character level</h2>",
        _html_table(["level", *_SCORE_HEAD], _level_rows(result), "levels"),
        "<h2>Errors by kind</h2>",
        _html_table(_ERROR_HEAD, _error_rows(result), "errors"),
    ]
    if views:
        parts += ["<h2>Sample errors</h2>", render_views(views, taxonomy)]
    parts += [
        f"<h2>False-negative worklist ({len(result.worklist)}, first {WORKLIST_ROWS} shown)</h2>",
        _html_table(_WORK_HEAD, _work_rows(result, show_values), "worklist"),
        "</body></html>",
    ]
    return "\n".join(parts)


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    cell = lambda c: c.replace("|", "\\|")  # noqa: E731
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(
    result: EvaluationResult,
    gate: GateResult | None = None,
    *,
    images: Mapping[str, str] | None = None,
    show_values: bool = False,
) -> str:
    """Markdown; ``images`` maps a label to the relative path of its curve PNG."""
    _check_masking(result, show_values)
    out = [
        "# spacy-pii evaluation",
        "",
        f"{result.documents} documents, taxonomy {result.taxonomy_version}, values "
        f"{'SHOWN' if show_values else 'masked'}.",
        "",
    ]
    if gate is not None:
        verdict = "PASS" if gate.passed else "FAIL: " + ", ".join(gate.failing_labels)
        out += [f"## Recall gate: {verdict}", "", _md_table(_GATE_HEAD, _gate_rows(gate)), ""]
    out += ["## Exact-span scores", "", _md_table(_SCORE_HEAD, _score_rows(result)), ""]
    if images:
        out += ["## Precision-recall curves", ""]
        out += [f"![precision-recall curve {label}]({path})" for label, path in images.items()]
        out.append("")
    leak = result.leakage
    out += [
        f"## Character leakage: {leak.rate:.4f}",
        "",
        f"{leak.leaked_chars} of {leak.gold_chars} gold PII characters are covered by no "
        "prediction.",
        "",
        "## Overlap, token and character level",
        "",
        _md_table(["level", *_SCORE_HEAD], _level_rows(result)),
        "",
        "## Errors by kind",
        "",
        _md_table(_ERROR_HEAD, _error_rows(result)),
        "",
        f"## False-negative worklist ({len(result.worklist)}, first {WORKLIST_ROWS} shown)",
        "",
        _md_table(_WORK_HEAD, _work_rows(result, show_values)),
        "",
    ]
    return "\n".join(out)


def write_html(
    path: str | Path, result: EvaluationResult, gate: GateResult | None = None, **kwargs: Any
) -> Path:
    path = Path(path)
    path.write_text(render_html(result, gate, **kwargs), encoding="utf-8")
    return path


def write_markdown(
    path: str | Path,
    result: EvaluationResult,
    gate: GateResult | None = None,
    *,
    curves: Mapping[str, Sequence[ThresholdPoint]] | None = None,
    show_values: bool = False,
) -> Path:
    """Write Markdown, with curve PNGs in a ``<name>_assets`` folder beside it."""
    path = Path(path)
    images: dict[str, str] = {}
    if curves:
        assets = path.with_name(path.stem + "_assets")
        assets.mkdir(parents=True, exist_ok=True)
        floors = {g.label: g.floor for g in gate.labels} if gate else {}
        for label, points in curves.items():
            (assets / f"pr_{label}.png").write_bytes(pr_curve_png(label, points, floors.get(label)))
            images[label] = f"{assets.name}/pr_{label}.png"
    path.write_text(
        render_markdown(result, gate, images=images, show_values=show_values), encoding="utf-8"
    )
    return path
