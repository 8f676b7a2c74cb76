"""Each game's ``page_only`` (game.py: what frames leave out, the panels carry it drawn) agrees
with what its ``page`` (page.py) adds to the gate's view: everything the page adds is listed,
unless the page's script reads it (page.py ``SCRIPT_READS``: frames carry it); and everything
listed is something the page adds (or a part of one: what frames leave out of a part the script
reads) or a fact of the view that only the panels draw. Read over every version of a match played
by the game's own bots, for every audience."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games.core.game.gamedef import FlowGame
from games.core.game.registry import get_game
from games.core.match.replaying import state_at
from games.core.render.rendering import audiences
from tests.bot_matches import TABLES, Table, play

pytestmark = pytest.mark.django_db

# Settings a game is also played under, for parts its default table never shows.
ALSO = {"bejeweled-2": ({"mode": "action"},)}


def paths(data: Any, at: str = "") -> set[str]:
    """Every dotted path in ``data`` (``*`` for every item of a list)."""
    found = {at} if at else set()
    if isinstance(data, dict):
        for key, value in data.items():
            found |= paths(value, f"{at}.{key}" if at else key)
    elif isinstance(data, list):
        for item in data:
            found |= paths(item, f"{at}.*" if at else "*")
    return found


def added(view: Any, page: Any, at: str = "") -> set[str]:
    """The dotted paths that ``page`` has and ``view`` lacks, each at its top (a new object's
    own keys are not listed again)."""
    if isinstance(view, dict) and isinstance(page, dict):
        found: set[str] = set()
        for key, value in page.items():
            path = f"{at}.{key}" if at else key
            found |= {path} if key not in view else added(view[key], value, path)
        return found
    if isinstance(view, list) and isinstance(page, list):
        return {
            path
            for before, after in zip(view, page, strict=False)
            for path in added(before, after, f"{at}.*" if at else "*")
        }
    return set()


def covered(path: str, listed: set[str]) -> bool:
    """``path`` is listed, or lies within a listed part."""
    parts = path.split(".")
    return any(".".join(parts[:end]) in listed for end in range(1, len(parts) + 1))


@pytest.fixture(scope="module")
def seen(django_db_setup, django_db_blocker) -> dict[str, tuple[set[str], set[str], set[str]]]:
    """Each flow game's match played by its bots: {game: (the paths its page added to any view,
    every path of any view, every path of any page)}."""
    from django.contrib.auth import get_user_model

    from tests.conftest import FakeClock

    found: dict[str, tuple[set[str], set[str], set[str]]] = {}
    with django_db_blocker.unblock(), pytest.MonkeyPatch.context() as patch:
        clock = FakeClock()
        patch.setattr("games.core.match.clock.now", clock)
        host = get_user_model().objects.create_user("page-only-hostess")
        for key in sorted(TABLES):
            game = get_game(key)
            if not isinstance(game, FlowGame) or game.flow_module.page is None:
                continue
            by_page: set[str] = set()
            in_view: set[str] = set()
            in_page: set[str] = set()
            for settings in (TABLES[key].settings, *ALSO.get(key, ())):
                patch.setitem(TABLES, key, Table(TABLES[key].levels, settings))
                match = play(key, host, clock.advance, events=80, seed=1129).match
                for version in range(match.version + 1):
                    state = state_at(match, version)
                    for viewer in audiences(match):
                        shown = game.seen(state, viewer)
                        if shown:
                            in_view |= paths(shown)
                            before = copy.deepcopy(shown)  # a page may draw on its view
                            drawn = game.flow_module.page(shown)
                            by_page |= added(before, drawn)
                            in_page |= paths(drawn)
                match.delete()
            found[key] = (by_page, in_view, in_page)
        host.delete()
    return found


@pytest.mark.parametrize("key", sorted(TABLES))
def test_what_the_page_adds_is_page_only_unless_its_script_reads_it(seen, key):
    game = get_game(key)
    assert isinstance(game, FlowGame)
    script_reads = set(vars(game.page_module or game.flow).get("SCRIPT_READS", ()))
    by_page, _, _ = seen[key]
    listed = set(game.page_only)
    unlisted = {path for path in by_page if not covered(path, listed | script_reads)}
    assert unlisted == set(), "the page adds these: list them in page_only or SCRIPT_READS"
    assert script_reads <= by_page, "SCRIPT_READS names what the page does not add"
    assert script_reads.isdisjoint(listed), "frames cannot both carry and leave out a part"


@pytest.mark.parametrize("key", sorted(TABLES))
def test_page_only_lists_only_what_the_page_adds_or_the_view_has(seen, key):
    by_page, in_view, in_page = seen[key]
    # A part of what the page adds may be listed (Seven Gem Swap's grid travels for its looks,
    # which the script reads, without its board, marks and caption, which only the panel draws).
    within = {path for path in in_page if covered(path, by_page)}
    nothing = set(get_game(key).page_only) - by_page - within - in_view
    assert nothing == set(), "page_only lists parts no view of a whole match has"


def test_a_part_the_page_adds_is_found_where_the_view_lacks_it():
    view = {"board": "AB", "bar": {"points": 3}, "log": [{"seat": 0}]}
    page = {**view, "grid": {}, "bar": {"points": 3, "percent": 30}, "log": [{"seat": 0, "t": 1}]}
    assert added(view, page) == {"grid", "bar.percent", "log.*.t"}
    assert covered("log.*.t", {"log"}) and not covered("logs", {"log"})
