"""Pointsweeper's wiring into the core: the registered definition, its settings and form."""

from __future__ import annotations

import pytest

from games.core.forms import MatchSettingsForm
from games.core.game.gamedef import SeatInfo, Viewer
from games.core.game.registry import get_game
from games.core.models import Match
from games.pointsweeper import bot, engine, flow
from games.pointsweeper.game import POINTSWEEPER

BOARD = engine.format_board(engine.generate_board(5))


def test_the_game_is_registered_with_its_roles_levels_and_assets():
    game = get_game("pointsweeper")
    assert game is POINTSWEEPER
    assert game.roles == ("EC", "DMO")
    assert (game.min_seats, game.max_seats) == (2, 2)
    assert game.bot_levels == tuple(bot.BOT_LEVELS)
    assert set(game.bot_level_help) == set(game.bot_levels)
    assert game.unversioned_actions == flow.UNVERSIONED_ACTIONS
    assert "js/pointsweeper.js" in game.scripts and "js/grid.js" in game.scripts


def test_settings_default_and_refuse_nonsense():
    cleaned = POINTSWEEPER.clean_settings({})
    assert cleaned["auto_start"] is True and cleaned["scout_turns"] == 3
    assert POINTSWEEPER.clean_settings({"auto_start": False})["auto_start"] is False
    for bad in ({"colour": "red"}, {"move_seconds": 0}, {"tie_to": "nobody"}, {"boards": "pasted"}):
        with pytest.raises(ValueError):
            POINTSWEEPER.clean_settings(bad)


def test_the_view_carries_an_8x8_grid_rank_8_on_top():
    from datetime import UTC, datetime

    seats = [SeatInfo(0, "EC", "Ada"), SeatInfo(1, "DMO", "Bob")]
    state = POINTSWEEPER.start(POINTSWEEPER.clean_settings({}), seats, 3, datetime.now(UTC)).state
    grid = POINTSWEEPER.view(state, Viewer.spectator())["board_grid"]
    assert len(grid["rows"]) == 8 and all(len(row) == 8 for row in grid["rows"])
    assert grid["rows"][0][0]["cell"] == "a8" and grid["rows"][7][7]["cell"] == "h1"
    assert {c["css"] for row in grid["rows"] for c in row} == {"ps-hidden"}


FORM_DATA = {
    "seat_count": 2,
    "boards": "random",
    "move_seconds": 30,
    "bank_seconds": 90,
    "order_seconds": 20,
    "scout_turns": 2,
    "tie_to": "EC",
}


def test_the_settings_form_gives_the_settings():
    form = MatchSettingsForm.for_game(POINTSWEEPER)(data=FORM_DATA)
    assert form.is_valid(), form.errors
    settings = form.match_settings()
    cleaned = POINTSWEEPER.clean_settings(settings)
    assert cleaned["move_seconds"] == 30 and cleaned["tie_to"] == "EC"
    assert [cleaned[key] for key in flow.PASTED] == ["", "", ""]


def test_the_settings_form_takes_three_pasted_boards_and_refuses_a_bad_one():
    data = {**FORM_DATA, "boards": "pasted", "board_1": BOARD, "board_2": BOARD, "board_3": BOARD}
    form = MatchSettingsForm.for_game(POINTSWEEPER)(data=data)
    assert form.is_valid(), form.errors
    kept = POINTSWEEPER.clean_settings(form.match_settings())
    assert [kept[key] for key in flow.PASTED] == [BOARD] * 3
    form = MatchSettingsForm.for_game(POINTSWEEPER)(data={**data, "board_2": "nonsense"})
    assert not form.is_valid()
    assert "board 2" in str(form.errors)


@pytest.mark.django_db
def test_the_new_match_page_takes_pasted_boards(client, make_user):
    client.force_login(make_user("hostess"))
    data = {**FORM_DATA, "title": "Pasted", "boards": "pasted"}
    data.update(board_1=BOARD, board_2=BOARD, board_3=BOARD)
    response = client.post("/matches/new/pointsweeper/", data)
    assert response.status_code == 302
    kept = Match.objects.get(title="Pasted").settings
    assert [kept[key] for key in flow.PASTED] == [BOARD] * 3
