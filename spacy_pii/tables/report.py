"""A table scan for people: a plain-text summary and an HTML page in the house style.

One table of columns × types: each cell is the share of the column's examined cells that
hold the type, with its Wilson 95% interval when the cells were sampled, or ``header``
where only the header names the type. Beside it, the decision, its rule, and masked
example shapes (``Xxxx Xxxxx``, ``ddd-ddd-dddd``). Column names appear; cell values never
do: shapes keep only punctuation and spaces.
"""

from __future__ import annotations

import html
from pathlib import Path

from ..evaluation.report import _CSS
from .evidence import RULES, ColumnScan, TypeEvidence
from .scan import TableScan

_DECISION_CSS = {"pii": "fail", "maybe": "maybe", "clean": "pass"}


def _types_seen(scan: TableScan) -> list[str]:
    seen: dict[str, int] = {}
    for column in scan.columns:
        for evidence in column.types:
            seen[evidence.type] = seen.get(evidence.type, 0) + evidence.cells + 1
    return sorted(seen, key=lambda name: (-seen[name], name))


def format_evidence(evidence: TypeEvidence | None) -> str:
    """``0.982 [0.969, 0.990]``, ``1.000`` (a full pass), or ``header (fit 0.97)``."""
    if evidence is None:
        return ""
    if evidence.share is None:
        fit = "" if evidence.shape_share is None else f" (fit {evidence.shape_share:.2f})"
        return f"header{fit}"
    text = f"{evidence.share:.3f}"
    if evidence.interval is not None:
        low, high = evidence.interval
        text += f" [{low:.3f}, {high:.3f}]"
    return text


def _row(column: ColumnScan, types: list[str]) -> list[str]:
    by_type = {evidence.type: evidence for evidence in column.types}
    shapes = ", ".join(shape for shape, _ in column.shapes)
    return [
        column.name,
        column.decision,
        column.rule,
        column.pii_type or "",
        column.policy,
        *(format_evidence(by_type.get(name)) for name in types),
        f"{column.examined}/{column.rows - column.empty}",
        shapes,
    ]


def _head(types: list[str]) -> list[str]:
    return ["column", "decision", "rule", "type", "policy", *types, "examined", "shapes"]


def format_summary(scan: TableScan) -> str:
    """A fixed-width text table for the terminal."""
    types = _types_seen(scan)
    rows = [_head(types), *(_row(column, types) for column in scan.columns)]
    widths = [min(36, max(len(row[i]) for row in rows)) for i in range(len(rows[0]))]
    lines = [
        f"{scan.source}: {scan.rows} rows, {len(scan.columns)} columns; "
        + ", ".join(f"{k} {v}" for k, v in scan.to_dict()["summary"].items())
    ]
    for row in rows:
        cells = [cell[: widths[i]].ljust(widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def render_html(scan: TableScan) -> str:
    """A self-contained HTML page for one scan."""
    types = _types_seen(scan)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in _head(types))
    body = []
    for column in scan.columns:
        cells = _row(column, types)
        css = _DECISION_CSS[column.decision]
        tds = [f"<td>{html.escape(cells[0])}</td>", f'<td class="{css}">{cells[1]}</td>']
        tds += [f"<td>{html.escape(cell)}</td>" for cell in cells[2:]]
        body.append("<tr>" + "".join(tds) + "</tr>")
    settings = scan.settings
    how = (
        "full pass: every non-empty cell examined"
        if settings.full
        else f"seeded sample of up to {settings.sample_size} cells per column (seed "
        f"{settings.seed}); shares carry Wilson 95% intervals"
    )
    summary = scan.to_dict()["summary"]
    rules = "".join(
        f"<tr><td>{html.escape(rule)}</td><td>{html.escape(text)}</td></tr>"
        for rule, text in RULES.items()
        if any(column.rule == rule for column in scan.columns)
    )
    parts = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        f"<title>spacy-pii table scan</title><style>{_CSS}.maybe{{color:#e67700}}</style>",
        "</head><body>",
        f"<h1>spacy-pii table scan: {html.escape(scan.source)}</h1>",
        f"<p>{scan.rows} rows &middot; {len(scan.columns)} columns &middot; "
        f"{summary['pii']} pii, {summary['maybe']} maybe, {summary['clean']} clean &middot; "
        f"{html.escape(how)} &middot; taxonomy {html.escape(scan.taxonomy_version)} &middot; "
        f"headers {html.escape(settings.header_version)}"
        + (f" &middot; {scan.ragged_rows} ragged rows" if scan.ragged_rows else "")
        + "</p>",
        "<h2>Columns × types</h2>",
        "<p>Share of examined cells holding each type; <em>header</em>: only the header names "
        "the type (fit: the share of cells that fit its shape). Shapes mask every letter "
        "(X, x) and digit (d).</p>",
        f'<table id="columns"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>',
        "<h2>Rules</h2>",
        f'<table id="rules"><tbody>{rules}</tbody></table>',
        "</body></html>",
    ]
    return "\n".join(parts)


def write_html(scan: TableScan, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(render_html(scan), encoding="utf-8")
    return path
