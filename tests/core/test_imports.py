"""The core has no import cycle, counting the imports inside functions: a module at the bottom
(the contract, the words) never reaches up, even lazily, to forms, replays or the database."""

from __future__ import annotations

import ast
from pathlib import Path

import games.core

CORE = Path(games.core.__file__).parent


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, name: str) -> set[str]:
    """Every module ``path`` imports anywhere in its text (module level, in functions, in type
    checking blocks), relative imports made absolute; ``from a import b`` names both ``a`` and
    ``a.b``, as ``b`` may be a module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same tree it imports (migrations left out: Django loads
    them apart)."""
    paths = {
        module_name(path, root): path
        for path in root.rglob("*.py")
        if "migrations" not in path.relative_to(root).parts
    }
    return {
        name: {other for other in imports_of(path, name) if other in paths and other != name}
        for name, path in paths.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each cycle's modules (strongly connected groups of more than one module), sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            group = []
            while True:
                other = stack.pop()
                group.append(other)
                if other == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return found


def test_the_core_has_no_import_cycle_even_inside_functions():
    graph = import_graph(CORE)
    assert "games.core.gamedef" in graph and "games.core.templatetags.arena" in graph
    assert cycles(graph) == []


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path):
    core = tmp_path / "games" / "core"
    core.mkdir(parents=True)
    (tmp_path / "games" / "__init__.py").write_text("")
    (core / "__init__.py").write_text("")
    (core / "contract.py").write_text("def form():\n    from . import forms\n")
    (core / "forms.py").write_text("from games.core.contract import form\n")
    (core / "words.py").write_text("import games.core.contract\n")
    assert cycles(import_graph(core)) == [["games.core.contract", "games.core.forms"]]
