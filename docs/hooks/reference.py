"""The reference pages' generated parts: components, CLI and taxonomy, read from the code.

MkDocs runs :func:`on_page_markdown` on every page (``hooks:`` in mkdocs.yml); a marker
``<!-- generated: NAME -->`` on a line of its own is replaced by ``GENERATORS[NAME]()``. The
pages therefore cannot drift from the code: a default, an option or a type changes the built
page the next time it is built, and ``mkdocs build --strict`` runs in CI.

- components: every ``spacy_factories`` entry point of this distribution, with spaCy's
  ``default_config`` as a ``config.cfg`` block and one row per setting: its type and
  bounds from the component's pydantic settings model, its default, its meaning from the
  factory's ``Args:``. A default that differs between ``default_config`` and the settings
  model stops the build (:class:`DefaultsDisagree`): the two would otherwise disagree about
  what ``add_pipe`` without a config does.
- cli: every command of the Typer app ``spacy_pii.io.cli:app`` with its arguments and
  options, as click sees them.
- taxonomy: the shipped taxonomy YAML, through the same loader the merge uses.
- project: the steps of project.yml's ``all`` workflow, with their outputs.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

MARKER = re.compile(r"^<!-- generated: ([a-z_]+) -->$", re.MULTILINE)
PACKAGE = "spacy_pii"
ROOT = Path(__file__).resolve().parents[2]


class DefaultsDisagree(ValueError):
    """A factory's ``default_config`` and its settings model give a setting two defaults."""


# -- shared -----------------------------------------------------------------------------------


def _cell(text: str) -> str:
    """One Markdown table cell from docstring text: one line, no bare pipes, no reST roles."""
    text = re.sub(r":(?:class|func|mod|meth|attr|data):`~?([^`]+)`", r"`\1`", text)
    text = text.replace("``", "`")
    return " ".join(text.split()).replace("|", "\\|")


def _plain(value: Any) -> Any:
    """Tuples as lists, models and dataclasses as dicts: values as a config holds them."""
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value))
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | frozenset | set):
        items = [_plain(v) for v in value]
        return sorted(items) if isinstance(value, frozenset | set) else items
    return value


def _show(value: Any) -> str:
    """A default as a config reader writes it: JSON, a registered function by its name."""
    if isinstance(value, Mapping):
        registered = next((k for k in value if str(k).startswith("@")), None)
        if registered is not None:
            return f"`{value[registered]}` (`{registered}`)"
    return f"`{json.dumps(_plain(value), ensure_ascii=False)}`"


# -- components -------------------------------------------------------------------------------


def docstring_args(function: Callable[..., Any]) -> dict[str, str]:
    """The ``Args:`` section of a Google-style docstring: argument -> its text, joined."""
    doc = inspect.getdoc(function) or ""
    args: dict[str, str] = {}
    current = None
    in_args = False
    for line in doc.splitlines():
        if line.strip() == "Args:":
            in_args = True
            continue
        if not in_args:
            continue
        if line and not line.startswith(" "):
            break  # the next section
        match = re.match(r"^ {4}(\w+)(?: \([^)]*\))?: ?(.*)$", line)
        if match:
            current = match.group(1)
            args[current] = match.group(2)
        elif current is not None and line.strip():
            args[current] += " " + line.strip()
    return args


def settings_model_of(module: Any) -> Any:
    """The pydantic ``...Settings`` model defined in a component's module, or None."""
    from pydantic import BaseModel

    for _, value in inspect.getmembers(module, inspect.isclass):
        if (
            issubclass(value, BaseModel)
            and value.__module__ == module.__name__
            and value.__name__.endswith("Settings")
        ):
            return value
    return None


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    text = text or str(annotation)
    return text.replace("typing.", "").replace("NoneType", "None")


def _bounds(field: Any) -> str:
    marks = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    found = []
    for item in field.metadata:
        for attribute, mark in marks.items():
            value = getattr(item, attribute, None)
            if value is not None:
                found.append(f"{mark} {value}")
    return ", ".join(found)


def component_rows(
    factory: str,
    default_config: Mapping[str, Any],
    settings: Any,
    descriptions: Mapping[str, str],
) -> list[str]:
    """The settings table of one factory, checking its two sources of defaults agree."""
    fields = settings.model_fields if settings is not None else {}
    rows = ["| setting | type | default | what it does |", "|---|---|---|---|"]
    for key, config_default in default_config.items():
        field = fields.get(key)
        if field is not None:
            default = field.get_default(call_default_factory=True)
            if _plain(default) != _plain(config_default):
                raise DefaultsDisagree(
                    f"{factory}.{key}: default_config gives {_plain(config_default)!r}, "
                    f"{settings.__name__} gives {_plain(default)!r}"
                )
            kind = _type_name(field.annotation)
            bounds = _bounds(field)
            kind = f"{kind} ({bounds})" if bounds else kind
        else:
            default = config_default
            kind = "registered function" if isinstance(default, Mapping) else "config value"
        rows.append(
            f"| `{key}` | `{_cell(kind)}` | {_cell(_show(default))} "
            f"| {_cell(descriptions.get(key, ''))} |"
        )
    return rows


def _config_block(factory: str, default_config: Mapping[str, Any]) -> list[str]:
    from thinc.api import Config

    block = Config({"components": {factory: {"factory": factory, **default_config}}})
    return ["```ini", block.to_str().strip(), "```"]


def package_factories() -> list[tuple[str, str]]:
    """(factory name, ``module:function``) of this distribution's factory entry points."""
    found = [
        (point.name, point.value)
        for point in entry_points(group="spacy_factories")
        if point.value.startswith(f"{PACKAGE}.")
    ]
    # Pipeline order first (the flow of the shipped pipeline), then any other by name.
    return sorted(set(found), key=lambda item: (_FLOW.get(item[0], len(_FLOW)), item[0]))


_FLOW_ORDER = (
    "pii_rules",
    "pii_span_finder",
    "pii_ner",
    "pii_peer_tagger",
    "pii_peer_spans",
    "pii_merge",
    "pii_redact",
)
_FLOW = {name: rank for rank, name in enumerate(_FLOW_ORDER)}


def components_markdown(factories: Iterable[tuple[str, str]] | None = None) -> str:
    """Every factory: its summary, what it reads and writes, its settings, its config."""
    from spacy.language import Language

    out: list[str] = []
    for factory, target in factories if factories is not None else package_factories():
        module_name, _, function_name = target.partition(":")
        module = import_module(module_name)
        function = getattr(module, function_name)
        meta = Language.get_factory_meta(factory)
        summary = (inspect.getdoc(function) or "").split("\n\n")[0]
        out += [f"### `{factory}`", "", _cell(summary), ""]
        out += [
            f"Module `{module_name}`. Writes {', '.join(f'`{a}`' for a in meta.assigns) or '–'}"
            f"; reads {', '.join(f'`{r}`' for r in meta.requires) or '–'}.",
            "",
        ]
        settings = settings_model_of(module)
        out += component_rows(factory, meta.default_config, settings, docstring_args(function))
        out += ["", "The default block, as `config.cfg` takes it:", ""]
        out += _config_block(factory, meta.default_config)
        out.append("")
    return "\n".join(out)


# -- the command line -------------------------------------------------------------------------


def cli_markdown(app: Any = None) -> str:
    """Every command of a Typer app, with its usage, help, arguments and options."""
    import typer

    if app is None:
        app = import_module(f"{PACKAGE}.io.cli").app
    # Typer builds a click command tree (its own copy of click in recent releases, so the
    # objects are read by their attributes, not by click's classes).
    group = typer.main.get_command(app)
    program = group.name or "spacy-pii"
    context = group.context_class(group, info_name=program)
    out = [_cell(group.help or ""), ""]
    commands = getattr(group, "commands", None) or {program: group}
    for name, command in commands.items():
        sub = command.context_class(command, info_name=name, parent=context)
        arguments = [p.name.upper() for p in command.params if p.param_type_name == "argument"]
        usage = " ".join(["[OPTIONS]", *arguments])
        out += [f"## `{program} {name}`", "", "```text", f"{program} {name} {usage}", "```", ""]
        out += [(command.help or "").strip(), ""]
        rows = ["| argument or option | type | default | what it does |", "|---|---|---|---|"]
        for param in command.params:
            if param.param_type_name == "argument":
                label = f"`{param.name.upper()}`"
            else:
                label = " / ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
            default = "required" if param.required else _cli_default(param.default)
            help_text = getattr(param, "help", None) or ""
            kind = _cell(_param_type(param, sub))
            rows.append(f"| {label} | `{kind}` | {_cell(default)} | {_cell(help_text)} |")
        out += [*rows, ""]
    return "\n".join(out)


def _param_type(param: Any, context: Any) -> str:
    """click's type name, or Typer's displayed type where its click copy has no ``type``."""
    if getattr(param, "type", None) is not None:
        return str(param.type.name)
    shown = param.display_type(context) if callable(param.display_type) else param.display_type
    return str(shown).strip("<>")


def _cli_default(value: Any) -> str:
    if value is None or value == () or value == []:
        return "–"
    if isinstance(value, tuple | list):
        return ", ".join(f"`{v}`" for v in value)
    return f"`{value}`"


# -- the taxonomy -----------------------------------------------------------------------------


def taxonomy_markdown(taxonomy: Any = None) -> str:
    if taxonomy is None:
        taxonomy = import_module(f"{PACKAGE}.core.taxonomy").load_taxonomy()
    out = [
        f"Taxonomy version **`{taxonomy.version}`**, {len(taxonomy.types)} types, "
        f"{len(taxonomy.label_map)} external labels mapped, {len(taxonomy.dropped)} dropped "
        "with a reason.",
        "",
        "| type | class | rank | prefer | default | severity (floor) | mask | what it is |",
        "|---|---|---:|---|---|---|---|---|",
    ]
    for row in type_rows(taxonomy):
        out.append("| " + " | ".join(_cell(cell) for cell in row) + " |")
    out += ["", "### Severities", "", "| severity | recall floor | gated |", "|---|---:|---|"]
    for name, severity in taxonomy.severities.items():
        floor = "–" if severity.recall_floor is None else f"{severity.recall_floor:.2f}"
        out.append(f"| `{name}` | {floor} | {'yes' if severity.gated else 'no'} |")
    out += ["", "### Label map", "", "| external label | public type |", "|---|---|"]
    for label, target in sorted(taxonomy.label_map.items()):
        out.append(f"| `{_cell(label)}` | `{target}` |")
    out += ["", "### Dropped labels", "", "| external label | why it is dropped |", "|---|---|"]
    for label, reason in sorted(taxonomy.dropped.items()):
        out.append(f"| `{_cell(label)}` | {_cell(reason)} |")
    return "\n".join(out) + "\n"


def type_rows(taxonomy: Any) -> list[list[str]]:
    """Type, class, rank, prefer, default, severity (floor), mask, description; rank order."""
    rows = []
    ordered = sorted(taxonomy.types.items(), key=lambda item: -item[1].rank)
    for name, spec in ordered:
        floor = f"{spec.recall_floor:.2f}" if spec.gated and spec.recall_floor else "not gated"
        mask = "irreversible `<" + name + ">`" if spec.mask == "irreversible" else spec.mask
        rows.append(
            [
                f"`{name}`",
                spec.class_,
                str(spec.rank),
                spec.prefer,
                "on" if spec.default else "off",
                f"{spec.severity} ({floor})",
                mask,
                spec.description,
            ]
        )
    return rows


# -- the spacy project workflow ---------------------------------------------------------------


def project_markdown(project: Mapping[str, Any] | None = None, workflow: str = "all") -> str:
    """The steps of a ``project.yml`` workflow, in order: what each does and what it writes."""
    if project is None:
        import yaml

        with (ROOT / "project.yml").open(encoding="utf-8") as handle:
            project = yaml.safe_load(handle)
    assert project is not None
    commands = {command["name"]: command for command in project.get("commands", [])}
    out = ["| step | what it does | what it writes |", "|---|---|---|"]
    for number, name in enumerate(project["workflows"][workflow], start=1):
        command = commands[name]
        outputs = ", ".join(f"`{o}`" for o in command.get("outputs", [])) or "–"
        out.append(f"| {number}. `{name}` | {_cell(command.get('help', ''))} | {outputs} |")
    others = [name for name in commands if name not in project["workflows"][workflow]]
    out += ["", f"Steps outside `{workflow}`: " + ", ".join(f"`{n}`" for n in others) + "."]
    return "\n".join(out) + "\n"


# -- the MkDocs hook --------------------------------------------------------------------------

GENERATORS: dict[str, Callable[[], str]] = {
    "components": components_markdown,
    "cli": cli_markdown,
    "taxonomy": taxonomy_markdown,
    "project": project_markdown,
}


def render(markdown: str) -> str:
    """Replace every generation marker; an unknown marker is an error, not a blank."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in GENERATORS:
            raise KeyError(f"no generator {name!r} for a <!-- generated --> marker")
        return GENERATORS[name]().rstrip("\n")

    return MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return render(markdown)
