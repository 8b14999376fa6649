"""The package's import graph, read from the source with ``ast`` (nothing is imported).

Two rules keep the house in order:
- no import loop between modules;
- arrows point down: a module imports only from its own part or from a part on a lower floor.

Every ``import`` statement counts, the ones inside functions and under ``TYPE_CHECKING`` too:
a lazy import is still a dependency, only a cheaper one. The implicit import of a module's
parent packages (Python runs ``spacy_pii/__init__.py`` before any submodule) is not an arrow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "spacy_pii"

# Lowest floor first. A part is a subpackage, a top-level module, or (for the CLI, which
# drives everything) one module inside a subpackage; the longest matching name decides.
# A new subpackage or top-level module must be given a floor here.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("spacy_pii.errors", "spacy_pii.version"),
    ("spacy_pii.core",),
    # Pure logic over text and hits, and the spaCy helpers that only know hits.
    ("spacy_pii.detectors", "spacy_pii.redaction", "spacy_pii.adapters"),
    ("spacy_pii.evaluation",),
    # spaCy components; training-time helpers and the corpus generator.
    ("spacy_pii.pipeline", "spacy_pii.learning", "spacy_pii.generator"),
    # Building, loading and releasing pipelines.
    ("spacy_pii.assembly",),
    # Reading and writing records: files, streams, DataFrames, windows; tables by column.
    ("spacy_pii.io", "spacy_pii.tables"),
    ("spacy_pii.serve", "spacy_pii.benchmark"),
    ("spacy_pii.io.cli",),
    # The public front door and ``python -m spacy_pii``: nothing inside imports them.
    ("spacy_pii", "spacy_pii.__main__"),
)
FLOOR_OF = {part: level for level, parts in enumerate(FLOORS) for part in parts}


def module_files() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: its dotted name -> (file, whether it is a package)."""
    modules = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        modules[name] = (path, is_package)
    return modules


def _imported_names(tree: ast.AST, package: str) -> Iterator[str]:
    """Dotted names of what each import statement brings in, relative imports resolved."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, node.module] if node.module else anchor)
            else:
                base = node.module or ""
            for alias in node.names:
                # ``from . import x`` names a submodule or an attribute of the package.
                yield f"{base}.{alias.name}"


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (the nearest module a name lives in)."""
    modules = module_files()
    graph: dict[str, set[str]] = {}
    for name, (path, is_package) in modules.items():
        package = name if is_package else name.rpartition(".")[0]
        targets = set()
        for imported in _imported_names(ast.parse(path.read_text(encoding="utf-8")), package):
            parts = imported.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            if parts and ".".join(parts) != name:
                targets.add(".".join(parts))
        graph[name] = targets
    return graph


def part_of(module: str) -> str:
    parts = module.split(".")
    while ".".join(parts) not in FLOOR_OF:
        parts.pop()
        if not parts:
            raise KeyError(module)
    return ".".join(parts)


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def upward_arrows(graph: dict[str, set[str]]) -> list[str]:
    arrows = []
    for source, targets in sorted(graph.items()):
        source_part = part_of(source)
        for target in sorted(targets):
            target_part = part_of(target)
            if target_part != source_part and FLOOR_OF[target_part] >= FLOOR_OF[source_part]:
                arrows.append(
                    f"{source} (floor {FLOOR_OF[source_part]}) -> "
                    f"{target} (floor {FLOOR_OF[target_part]})"
                )
    return arrows


def test_every_module_has_a_floor():
    unplaced = []
    for module in module_files():
        try:
            part_of(module)
        except KeyError:
            unplaced.append(module)
    assert not unplaced, f"give these a floor in FLOORS: {unplaced}"


def test_no_import_loop_between_modules():
    assert find_cycles(import_graph()) == []


def test_every_arrow_points_down():
    assert upward_arrows(import_graph()) == []


def test_the_graph_is_read_as_python_reads_imports():
    """The reader sees relative, lazy and package-attribute imports, so the checks can fail."""
    graph = import_graph()
    # ``from ..core.taxonomy import ...`` resolves to the module, and so does the import of
    # the threshold policy inside a function of pii_merge.
    assert "spacy_pii.core.taxonomy" in graph["spacy_pii.pipeline.pii_merge"]
    assert "spacy_pii.evaluation.calibration" in graph["spacy_pii.pipeline.pii_merge"]
    # A lazy import inside a function counts (``load`` imports assembly.build when called).
    assert "spacy_pii.assembly.build" in graph["spacy_pii"]
    # ``from . import chat`` is an arrow to the submodule, not to the package itself.
    assert "spacy_pii.generator.chat" in graph["spacy_pii.generator"]
    assert "spacy_pii.generator" not in graph["spacy_pii.generator.values"]


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set(), "c": {"b"}}, []),
    ],
)
def test_find_cycles_finds_a_loop_and_only_a_loop(graph, expected):
    assert find_cycles(graph) == expected


def test_an_upward_arrow_is_reported():
    graph = {"spacy_pii.core.hits": {"spacy_pii.pipeline.pii_merge"}, "spacy_pii": set()}
    assert upward_arrows(graph) == [
        "spacy_pii.core.hits (floor 1) -> spacy_pii.pipeline.pii_merge (floor 4)"
    ]
    # The package's front door is the top: importing it from inside is an upward arrow.
    assert upward_arrows({"spacy_pii.assembly.release": {"spacy_pii"}}) != []
