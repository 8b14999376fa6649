"""The README and the docs follow the code.

- Every ```python block of README.md and docs/*.md runs, the blocks of one page in order and
  in one namespace (a page's later blocks may use its earlier ones). A ```text block right
  after a python block is its output: what the block prints must equal it. Other blocks
  (```text, ```console, ```bash, ```ini, ```yaml) are output or commands, not run.
- An HTML comment on the line before a python block changes that:
  ``<!-- docs-test: skip (why) -->`` does not run it (the reason is required, and shown);
  ``<!-- docs-test: requires MODULE -->`` runs it only where MODULE imports (an optional
  extra), and skips it with that reason elsewhere.
- The generated parts of the reference pages (docs/hooks/reference.py) change when the code
  does: a default changed in a component's settings model changes the components page.

``spacy_pii.load`` is cached here, so the default pipeline loads once per test process.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path
from typing import Any

import pytest
from script_module import load_script

import spacy_pii

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TEST_COMMAND = (
    'python3 -m venv .venv && .venv/bin/pip install -e ".[dev]" && .venv/bin/python -m pytest -q'
)
FENCE = re.compile(
    r"(?:^<!-- docs-test: (?P<directive>[^\n]*?) -->\n)?^```(?P<lang>[a-z]*)\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)


def _reference() -> Any:
    return load_script(ROOT / "docs" / "hooks" / "reference.py", "docs_reference")


reference = _reference()


def code_blocks(text: str) -> list[tuple[str, str, str | None, str | None]]:
    """(lang, body, directive, the output block after it or None), in page order."""
    found = list(FENCE.finditer(text))
    blocks = []
    for index, match in enumerate(found):
        output = None
        following = found[index + 1] if index + 1 < len(found) else None
        if (
            following is not None
            and following.group("lang") == "text"
            and not following.group("directive")
            and not text[match.end() : following.start()].strip()
        ):
            output = following.group("body")
        blocks.append((match.group("lang"), match.group("body"), match.group("directive"), output))
    return blocks


_LOADED: dict[str, Any] = {}
_real_load = spacy_pii.load


def _cached_load(name: str = "default", **kwargs: Any) -> Any:
    if kwargs:
        return _real_load(name, **kwargs)
    if name not in _LOADED:
        _LOADED[name] = _real_load(name)
    return _LOADED[name]


def _run_blocks(page: Path, root: Path = ROOT) -> list[str]:
    """Run a page's python blocks; return what was skipped and why."""
    skipped = []
    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem}"}
    blocks = [b for b in code_blocks(page.read_text(encoding="utf-8")) if b[0] == "python"]
    for number, (_, body, directive, output) in enumerate(blocks, start=1):
        where = f"{page.relative_to(root)}, python block {number}"
        if directive:
            kind, _, argument = directive.partition(" ")
            if kind == "skip":
                assert argument.strip(), f"{where}: a skip needs its reason"
                skipped.append(f"{where}: {argument.strip()}")
                continue
            if kind == "requires":
                if importlib.util.find_spec(argument.strip()) is None:
                    skipped.append(f"{where}: needs {argument.strip()}")
                    continue
            else:
                raise AssertionError(f"{where}: unknown directive {directive!r}")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(body, where, "exec"), namespace)
        if output is not None:
            assert printed.getvalue().rstrip() == output.rstrip(), f"{where}: output differs"
    return skipped


def _python_blocks(page: Path) -> list[tuple[str, str, str | None, str | None]]:
    return [b for b in code_blocks(page.read_text(encoding="utf-8")) if b[0] == "python"]


PAGES_WITH_CODE = [page for page in PAGES if _python_blocks(page)]


@pytest.mark.parametrize(
    "page", PAGES_WITH_CODE, ids=[str(p.relative_to(ROOT)) for p in PAGES_WITH_CODE]
)
def test_every_python_block_runs_and_prints_its_output(page, monkeypatch):
    monkeypatch.setattr(spacy_pii, "load", _cached_load)
    skipped = _run_blocks(page)
    if len(skipped) == len(_python_blocks(page)):
        pytest.skip("; ".join(skipped))


def test_the_readme_and_the_guides_have_examples_that_run():
    names = {str(page.relative_to(ROOT)) for page in PAGES_WITH_CODE}
    assert {"README.md", "docs/getting-started.md", "docs/redaction.md"} <= names


def test_the_block_reader_sees_directives_and_outputs():
    text = (
        "```python\nprint(1)\n```\n\n```text\n1\n```\n"
        "<!-- docs-test: skip (needs a cluster) -->\n```python\nraise SystemExit\n```\n"
        "```console\n$ ls\n```\n"
    )
    blocks = code_blocks(text)
    assert [(b[0], b[2], b[3]) for b in blocks] == [
        ("python", None, "1\n"),
        ("text", None, None),
        ("python", "skip (needs a cluster)", None),
        ("console", None, None),
    ]


def test_a_wrong_output_block_fails_and_a_skip_needs_its_reason(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```python\nprint(2)\n```\n\n```text\n3\n```\n")
    with pytest.raises(AssertionError, match="output differs"):
        _run_blocks(page, tmp_path)
    page.write_text("<!-- docs-test: skip -->\n```python\nprint(2)\n```\n")
    with pytest.raises(AssertionError, match="needs its reason"):
        _run_blocks(page, tmp_path)
    page.write_text("<!-- docs-test: requires no_such_module_here -->\n```python\n1/0\n```\n")
    assert _run_blocks(page, tmp_path) == ["page.md, python block 1: needs no_such_module_here"]


# -- generated pages ---------------------------------------------------------------------------


def _components_page() -> str:
    return reference.render((ROOT / "docs" / "components.md").read_text(encoding="utf-8"))


def _row(page: str, component: str, setting: str) -> str:
    section = page.split(f"### `{component}`", 1)[1].split("\n### ", 1)[0]
    return next(line for line in section.splitlines() if line.startswith(f"| `{setting}` |"))


def test_the_components_page_shows_the_code_defaults():
    from pydantic import BaseModel
    from spacy.language import Language

    page = _components_page()
    assert "<!-- generated" not in page
    for factory, _ in reference.package_factories():
        assert f"### `{factory}`" in page
        defaults = Language.get_factory_meta(factory).default_config
        for setting in defaults:
            assert f"| `{setting}` |" in page.split(f"### `{factory}`", 1)[1]
    from spacy_pii.pipeline.pii_ner import PiiNerSettings

    assert issubclass(PiiNerSettings, BaseModel)
    assert "`0.5`" in _row(page, "pii_ner", "threshold")
    assert "≥ 0.0, ≤ 1.0" in _row(page, "pii_ner", "threshold")


def test_a_default_changed_in_a_settings_model_changes_the_page(monkeypatch):
    from pydantic import Field
    from spacy.language import Language

    from spacy_pii.pipeline import pii_ner

    class ChangedSettings(pii_ner.PiiNerSettings):
        threshold: float = Field(default=0.35, ge=0.0, le=1.0)

    ChangedSettings.__module__ = pii_ner.__name__
    monkeypatch.setattr(pii_ner, "PiiNerSettings", ChangedSettings)
    # The settings model alone: the factory's default_config still says 0.5, and the build
    # refuses a page that would show one default while add_pipe uses the other.
    with pytest.raises(reference.DefaultsDisagree, match=r"pii_ner\.threshold"):
        _components_page()
    # Both changed, as a real change of the default is made: the page shows the new one.
    meta = Language.get_factory_meta("pii_ner")
    monkeypatch.setitem(meta.default_config, "threshold", 0.35)
    assert "`0.35`" in _row(_components_page(), "pii_ner", "threshold")


def test_the_cli_page_is_the_typer_app():
    import typer

    page = reference.render((ROOT / "docs" / "cli.md").read_text(encoding="utf-8"))
    from spacy_pii.io.cli import app

    group = typer.main.get_command(app)
    for name, command in group.commands.items():
        assert f"## `spacy-pii {name}`" in page
        for param in command.params:
            if param.param_type_name == "option":
                assert f"`{param.opts[0]}`" in page.split(f"## `spacy-pii {name}`", 1)[1]

    def app_with(limit: int) -> typer.Typer:
        app = typer.Typer(name="tool")

        @app.command()
        def run(limit_: int = typer.Option(limit, "--limit", help="How many.")) -> None:
            """Run it."""

        @app.command()
        def other() -> None:
            """Another."""

        return app

    assert "| `--limit` | `int` | `7` | How many. |" in reference.cli_markdown(app_with(7))
    assert "| `--limit` | `int` | `9` | How many. |" in reference.cli_markdown(app_with(9))


def test_the_taxonomy_page_and_the_readme_table_are_the_yaml():
    taxonomy = spacy_pii.load_taxonomy()
    page = reference.render((ROOT / "docs" / "taxonomy.md").read_text(encoding="utf-8"))
    assert f"**`{taxonomy.version}`**" in page
    for name in taxonomy.types:
        assert f"| `{name}` |" in page
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in readme.splitlines()
        if re.match(r"^\| `[A-Z_]+` \|", line)
    ]
    assert rows == [row[:7] for row in reference.type_rows(taxonomy)]


def test_the_training_page_lists_the_all_workflow():
    import yaml

    project = yaml.safe_load((ROOT / "project.yml").read_text(encoding="utf-8"))
    page = reference.render((ROOT / "docs" / "training.md").read_text(encoding="utf-8"))
    for step in project["workflows"]["all"]:
        assert f"`{step}`" in page


def test_an_unknown_marker_is_an_error():
    with pytest.raises(KeyError, match="nothing_here"):
        reference.render("<!-- generated: nothing_here -->\n")


# -- the front page --------------------------------------------------------------------------------


def test_the_readme_is_a_front_page_with_the_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 260
    assert TEST_COMMAND in readme
    assert TEST_COMMAND in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
