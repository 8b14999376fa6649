"""``spacy-pii scan``, ``redact-table`` and ``restore-table``: registered onto the app by
:func:`register`, so the main CLI module only gains one call.

Exit codes as the rest of the CLI: 0 success, 2 bad input or options. Messages name files,
lines, rows and columns, never a cell's value.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

Model = Annotated[
    str,
    typer.Option("--model", help="default (names too), rules (fast, no names), a name or path."),
]
Format = Annotated[
    str | None, typer.Option("--format", help="csv | tsv | jsonl | parquet. Default: suffix.")
]
Delimiter = Annotated[
    str | None, typer.Option("--delimiter", help="CSV delimiter. Default: sniffed.")
]
Encoding = Annotated[str, typer.Option("--encoding", help="Text encoding of CSV and JSONL.")]
Strict = Annotated[
    bool, typer.Option("--strict", help="A ragged CSV row is an error, not padded/cut.")
]


def _detector(model: str) -> Any:
    from .detect import load_detector

    return load_detector(model)


def _open(path: Path, fmt: str | None, delimiter: str | None, encoding: str, strict: bool) -> Any:
    from .readers import open_table

    return open_table(path, fmt, delimiter=delimiter, encoding=encoding, strict=strict)


def _progress_bar(total: int | None) -> tuple[Any, Any]:
    from tqdm import tqdm

    # stderr, and silent when stderr is not a terminal, so logs and pipes stay clean.
    bar = tqdm(total=total, unit="row", desc="scan", file=sys.stderr, disable=None)
    state = {"done": 0}

    def update(rows: int) -> None:
        bar.update(rows - state["done"])
        state["done"] = rows

    return bar, update


def scan(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="The table file.")],
    fmt: Format = None,
    delimiter: Delimiter = None,
    encoding: Encoding = "utf-8",
    strict: Strict = False,
    model: Model = "default",
    sample: Annotated[int, typer.Option("--sample", min=1, help="Cells per column.")] = 500,
    seed: Annotated[int, typer.Option("--seed", help="Sample seed.")] = 0,
    full: Annotated[bool, typer.Option("--full", help="Examine every cell (no sample).")] = False,
    max_full_rows: Annotated[
        int, typer.Option("--max-full-rows", min=1, help="Refuse a full pass over more rows.")
    ] = 10_000_000,
    json_out: Annotated[
        Path | None, typer.Option("--json", dir_okay=False, help="Scan JSON; '-' = stdout.")
    ] = None,
    html_out: Annotated[Path | None, typer.Option("--html", dir_okay=False, help="HTML.")] = None,
    policy_out: Annotated[
        Path | None,
        typer.Option("--policy-out", dir_okay=False, help="Write the suggested policy YAML."),
    ] = None,
) -> None:
    """Say which columns of a table hold personal data, how much, and how sure the scan is."""
    import yaml

    from .policy import policy_from_scan
    from .report import format_summary, write_html
    from .scan import scan_table

    source = _open(path, fmt, delimiter, encoding, strict)
    detector = _detector(model)
    bar, update = _progress_bar(source.row_count)
    try:
        result = scan_table(source, detector, sample_size=sample, seed=seed, full=full,
                            max_full_rows=max_full_rows, progress=update)  # fmt: skip
    finally:
        bar.close()
    if json_out is not None and str(json_out) == "-":
        typer.echo(result.to_json())
    else:
        typer.echo(format_summary(result))
        if json_out is not None:
            json_out.write_text(result.to_json() + "\n", encoding="utf-8")
    if html_out is not None:
        write_html(result, html_out)
    if policy_out is not None:
        policy = policy_from_scan(result).to_dict()
        policy_out.write_text(yaml.safe_dump(policy, sort_keys=False), encoding="utf-8")


def redact_table_command(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="The table file.")],
    output: Annotated[Path, typer.Option("-o", "--output", dir_okay=False, help="Output file.")],
    policy: Annotated[
        Path | None,
        typer.Option("--policy", exists=True, dir_okay=False, help="Policy YAML, or scan JSON."),
    ] = None,
    vault: Annotated[
        Path | None, typer.Option("--vault", dir_okay=False, help="Write the vault JSON here.")
    ] = None,
    summary: Annotated[
        Path | None, typer.Option("--summary", dir_okay=False, help="Summary JSON (no values).")
    ] = None,
    fmt: Format = None,
    delimiter: Delimiter = None,
    encoding: Encoding = "utf-8",
    strict: Strict = False,
    model: Model = "default",
    key_env: Annotated[
        str, typer.Option("--key-env", help="Env variable holding the hash/fake key.")
    ] = "SPACY_PII_KEY",
    locale: Annotated[str, typer.Option("--locale", help="Faker locale for 'fake'.")] = "en_US",
) -> None:
    """Redact a table by column policies, one vault for the run; same format and schema out.

    Without --policy the table is scanned first and its suggested policy applied.
    """
    from ..errors import ConfigError
    from .outputs import redact_table
    from .policy import read_policy

    source = _open(path, fmt, delimiter, encoding, strict)
    if output.resolve() == path.resolve():
        raise ConfigError("the output would overwrite the input")
    table_policy = None
    if policy is not None:
        table_policy = _policy_file(policy) if policy.suffix == ".json" else read_policy(policy)
    needs_model = table_policy is None or any(
        table_policy.for_column(c).policy == "spans" for c in source.columns
    )
    detector = _detector(model) if needs_model else None
    result = redact_table(source, table_policy, detector=detector, key=os.environ.get(key_env),
                          output=output, locale=locale)  # fmt: skip
    if vault is not None:
        vault.write_text(json.dumps(result.vault, ensure_ascii=False, indent=1), encoding="utf-8")
        if os.name == "posix":
            os.chmod(vault, 0o600)  # the vault holds the real values
    text = json.dumps(result.to_dict(), indent=2)
    if summary is not None:
        summary.write_text(text + "\n", encoding="utf-8")
    typer.echo(
        f"{path.name}: {result.rows} rows; {len(result.vault)} placeholders; "
        + ", ".join(f"{name} {p['policy']}" for name, p in result.policies.items()),
        err=True,
    )


def _policy_file(path: Path) -> Any:
    from ..errors import ConfigError
    from .policy import ColumnPolicy, TablePolicy, parse_policy

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise ConfigError(f"{path.name}: not a JSON file") from None
    if isinstance(data, dict) and data.get("kind") == "spacy-pii.table-scan":
        columns = {
            column["name"]: ColumnPolicy(
                policy=column["policy"] if column["pii_type"] or column["policy"] != "mask"
                else "spans",
                type=column["pii_type"],
            )
            for column in data["columns"]
        }  # fmt: skip
        return TablePolicy(columns=columns)
    return parse_policy(data)


def restore_table_command(
    path: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A redacted table.")],
    output: Annotated[Path, typer.Option("-o", "--output", dir_okay=False, help="Output file.")],
    vault: Annotated[Path, typer.Option("--vault", exists=True, dir_okay=False, help="Vault.")],
    columns: Annotated[
        list[str] | None, typer.Option("--column", help="Restore only this column; repeatable.")
    ] = None,
    fmt: Format = None,
    delimiter: Delimiter = None,
) -> None:
    """Put a vault's values back into a redacted table (hash, fake and secrets stay)."""
    from ..errors import ConfigError
    from .outputs import restore_table

    source = _open(path, fmt, delimiter, "utf-8", False)
    try:
        values = json.loads(vault.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise ConfigError(f"{vault.name}: not a vault JSON file") from None
    restore_table(source, values, columns=columns or None, output=output)


def register(app: typer.Typer, typed_errors: Any) -> None:
    """Add the table commands to ``app``, wrapped in the CLI's typed-error handler."""
    app.command("scan")(typed_errors(scan))
    app.command("redact-table")(typed_errors(redact_table_command))
    app.command("restore-table")(typed_errors(restore_table_command))
