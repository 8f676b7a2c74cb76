"""The core announces and the apps built on it listen: nothing in games/core imports another of
the project's apps (notifications, seasons, a game). They connect themselves in their
AppConfig.ready() (games/core/signals.py, scheduler.register_clock / register_service,
authority.tell_seasons_hosted)."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "games" / "core"


def imported(source: str) -> set[str]:
    """Every module ``source`` imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def outside_the_core(source: str) -> list[str]:
    return sorted(
        name
        for name in imported(source)
        if name.startswith("games.") and not name.startswith(("games.core", "games.__"))
    )


def test_the_core_imports_none_of_the_apps_built_on_it():
    found = {
        str(path.relative_to(CORE)): outside
        for path in sorted(CORE.rglob("*.py"))
        if (outside := outside_the_core(path.read_text()))
    }
    assert found == {}


def test_an_import_planted_in_the_core_is_found_wherever_it_hides():
    planted = """
from games.core import broadcast

def later():
    from games.notifications import events
    import games.seasons.services
"""
    assert outside_the_core(planted) == [
        "games.notifications",
        "games.notifications.events",
        "games.seasons.services",
    ]


def test_notifications_hear_a_matchs_events_through_the_cores_signal():
    from games.core import scheduler, signals
    from games.notifications import delivery, events

    # What each event tells whom is tested through the signal in tests/notifications/.
    assert signals.event_appended.has_listeners()
    assert callable(events.on_appended)
    assert delivery.run_forever in scheduler.SERVICES
