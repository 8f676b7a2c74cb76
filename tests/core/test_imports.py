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
    assert "games.core.game.gamedef" in graph and "games.core.templatetags.arena" in graph
    assert cycles(graph) == []


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path):
    core = tmp_path / "games" / "core"
    core.mkdir(parents=True)
    (tmp_path / "games" / "__init__.py").write_text("")
    (core / "game").mkdir()
    for package in (core, core / "game"):
        (package / "__init__.py").write_text("")
    (core / "game" / "contract.py").write_text("def form():\n    from .. import forms\n")
    (core / "forms.py").write_text("from games.core.game.contract import form\n")
    (core / "game" / "words.py").write_text("import games.core.game.contract\n")
    assert cycles(import_graph(core)) == [["games.core.forms", "games.core.game.contract"]]


def test_what_a_game_is_imports_nothing_else_of_the_core_nor_django_at_its_top():
    """games/core/game/ (the definition, the contract check, the flows' pure helpers) is what
    flows, engines and the verifier import: it reaches nothing of the other rooms, even inside a
    function, and no Django at import time."""
    room = CORE / "game"
    reached = {
        module_name(path, CORE): sorted(
            other
            for other in imports_of(path, module_name(path, CORE))
            if other.startswith("games.core") and not other.startswith("games.core.game")
        )
        for path in sorted(room.glob("*.py"))
    }
    assert reached and all(others == [] for others in reached.values()), reached
    for path in room.glob("*.py"):
        tree = ast.parse(path.read_text())
        top = {
            alias.name if isinstance(node, ast.Import) else node.module or ""
            for node in tree.body
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        assert not any(name.startswith("django") for name in top), path.name


# --- the core announces, the apps built on it listen ---------------------------------------------


def outside_the_core(root: Path) -> dict[str, list[str]]:
    """Each module under ``root`` (games/core) that imports another of the project's apps
    (notifications, seasons, a game), with what it imports."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        apps = sorted(
            other
            for other in imports_of(path, name)
            if other.startswith("games.") and not other.startswith("games.core")
        )
        if apps:
            found[name] = apps
    return found


def test_the_core_imports_none_of_the_apps_built_on_it():
    """They connect themselves in their AppConfig.ready(): games/core/match/signals.py's
    event_appended, scheduler.register_clock and register_service,
    authority.tell_seasons_hosted."""
    assert outside_the_core(CORE) == {}


def test_an_import_planted_in_the_core_is_found_wherever_it_hides(tmp_path):
    core = tmp_path / "games" / "core"
    (core / "match").mkdir(parents=True)
    for package in (core, core / "match"):
        (package / "__init__.py").write_text("")
    (core / "match" / "services.py").write_text(
        "from . import broadcast\n\n"
        "def later():\n"
        "    from games.notifications import events\n"
        "    import games.seasons.tick\n"
    )
    assert outside_the_core(core) == {
        "games.core.match.services": [
            "games.notifications",
            "games.notifications.events",
            "games.seasons.tick",
        ]
    }


def test_notifications_hear_a_matchs_events_through_the_cores_signal():
    from games.core.live import scheduler
    from games.core.match import signals
    from games.notifications import delivery

    # What each event tells whom is tested through the signal in tests/notifications/.
    assert signals.event_appended.has_listeners()
    assert delivery.run_forever in scheduler.SERVICES
