"""Glittering Paths as the core sees it: the registered definition, its settings (and the host's
form), the board as the shared grid, the analysis hooks and the host's adjudication. No database."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from games.core.forms import MatchSettingsForm
from games.core.game.contract import defaults
from games.core.game.gamedef import ActionError, SeatInfo, Viewer
from games.core.game.registry import get_game
from games.core.render.jsondiff import without
from games.core.templatetags.arena import grid_cells
from games.glittering_paths import bot, engine, flow, rounds
from games.glittering_paths import page as pages
from games.glittering_paths import view as gate
from games.glittering_paths.game import GAME, GlitteringPaths, board_grid
from tests.flows import T0

SEATS = [SeatInfo(0, "EC", "Rita"), SeatInfo(1, "DMO", "Sam")]
TINY = "RSG\nLRS"  # red's A1 B1 B2 scores 2 and leaves no path for anyone
TINY_BOARDS = "\n\n".join([TINY] * 3)


def started(**settings: object) -> dict:
    return GAME.start(GAME.clean_settings(dict(settings)), SEATS, 7, T0).state


def test_it_is_registered_under_its_key() -> None:
    assert get_game("glittering-paths") is GAME
    assert isinstance(GAME, GlitteringPaths)
    assert GAME.roles == ("EC", "DMO") and GAME.min_seats == GAME.max_seats == 2


def test_it_declares_its_assets_bot_levels_and_unversioned_path() -> None:
    assert GAME.scripts == ("js/grid.js", "js/steps.js", "js/glittering_paths.js")
    assert GAME.stylesheets == ("css/glittering_paths.css",)
    assert GAME.bot_levels == ("best", "casual")
    assert set(GAME.bot_level_help) == set(GAME.bot_levels)
    assert GAME.unversioned_actions == flow.UNVERSIONED_ACTIONS == frozenset({"path"})


def test_default_settings_are_the_flows_and_start_automatically() -> None:
    cleaned = GAME.clean_settings({})
    assert cleaned == {**defaults(flow.SETTINGS), "auto_start": True}
    assert cleaned["boards"] == "" and cleaned["turn_seconds"] == 60


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"turn_seconds": 2}, "turn_seconds must be a whole number"),
        ({"race_seconds": "two minutes"}, "race_seconds must be a whole number"),
        ({"tie_to": "host"}, "tie_to is one of"),
        ({"board_area": 5}, "board_area"),
        ({"boards": "RSG\nLRS"}, "give exactly 3 boards"),
        ({"colour": "red"}, "unknown setting"),
        ({"auto_start": "yes"}, "auto_start"),
    ],
)
def test_bad_settings_are_refused_with_a_reason(settings: dict, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        GAME.clean_settings(settings)


def test_the_settings_form_cleans_pasted_boards_from_a_browser() -> None:
    form_class = MatchSettingsForm.for_game(GAME)
    pasted = "RSG\r\nLRS \r\n\r\nRSG\r\nLRS\r\n  \r\nRSG\r\nLRS\r\n"
    form = form_class(
        {
            "seat_count": 2,
            "auto_start": "on",
            "race_seconds": 60,
            "turn_seconds": 30,
            "interval_seconds": 0,
            "board_area": 64,
            "boards": pasted,
            "tie_to": "EC",
        }
    )
    assert form.is_valid(), form.errors
    settings = form.match_settings()
    assert settings["boards"] == TINY_BOARDS
    assert GAME.clean_settings(settings)["boards"] == TINY_BOARDS
    assert form.roles() == ["EC", "DMO"]


def test_the_settings_form_names_the_broken_board() -> None:
    form = MatchSettingsForm.for_game(GAME)(
        {
            "seat_count": 2,
            "race_seconds": 60,
            "turn_seconds": 30,
            "interval_seconds": 15,
            "board_area": 64,
            "boards": "RSG\nLRS\n\nRRG\nLRS\n\nRSG\nLRS",
            "tie_to": "DMO",
        }
    )
    assert not form.is_valid()
    assert "round 2" in form.errors["boards"][0]


def test_the_view_carries_the_board_as_a_grid() -> None:
    state = started(boards=TINY_BOARDS)
    shown = GAME.view(state, Viewer.spectator())
    grid = grid_cells(shown["grid"])
    assert grid["name"] == "board"
    assert [[cell["cell"] for cell in row] for row in grid["rows"]] == [
        ["A1", "B1", "C1"],
        ["A2", "B2", "C2"],
    ]
    first = grid["rows"][0][0]
    assert {key: first[key] for key in ("cell", "text", "css", "label", "marks")} == {
        "cell": "A1",
        "text": "R",
        "css": "gp-gem gp-R gem-red",
        "label": "A1, ruby (red)",
        "marks": "",
    }
    assert shown["clock_label"] == "Race clock"


def test_the_last_path_is_named_and_its_cells_drawn_empty() -> None:
    state = started(boards=TINY_BOARDS)
    state = GAME.act(state, 0, {"type": "path", "cells": ["A1", "B1", "B2"]}, T0).state
    shown = GAME.view(state, Viewer(seat=1))
    cells = {c["cell"]: c for row in grid_cells(shown["grid"])["rows"] for c in row}
    assert all(cells[name]["css"] == "gp-empty" for name in ("A1", "B1", "B2"))
    # The page's script marks them, from the cells the board panel names.
    assert shown["last_move"]["cells"] == ["A1", "B1", "B2"]
    assert shown["last_move"]["name"] == "Rita"
    assert "grid" not in shown["history"][0]  # drawn when the round is opened


def test_a_finished_round_opened_has_its_first_board_and_named_turns() -> None:
    state = started(boards=TINY_BOARDS, interval_seconds=60)
    state = GAME.act(state, 0, {"type": "path", "cells": ["A1", "B1", "B2"]}, T0).state
    shown = GAME.view(state, Viewer.spectator())
    opened = pages.round_page(shown, 1)
    assert opened["grid"]["name"] == "analysis-1"
    assert [c["text"] for c in grid_cells(opened["grid"])["rows"][0]] == ["R", "S", "G"]
    assert opened["analysis"] is None  # not analysed yet
    assert pages.round_page(shown, 2) is None


def test_the_frames_leave_out_what_only_the_panels_draw() -> None:
    state = started(boards=TINY_BOARDS, interval_seconds=60)
    state = GAME.act(state, 0, {"type": "path", "cells": ["A1", "B1", "B2"]}, T0).state
    sent = without(GAME.view(state, Viewer(seat=1)), GAME.page_only)
    assert set(sent["last_move"]) == {"score", "steps"}
    assert set(sent["history"][0]) == {"round", "shape", "reason", "totals", "reason_text"}
    assert "moves" not in sent and "grid" not in sent and "prompt" not in sent


def test_board_grid_labels_empty_cells() -> None:
    grid = grid_cells(board_grid("R.\n.S", name="x", caption="c"))
    assert grid["rows"][0][1]["label"] == "B1, empty"
    assert grid["rows"][1][1]["css"] == "gp-gem gp-S gem-blue"


def test_the_view_adds_nothing_a_seat_may_not_know() -> None:
    state = started()
    for viewer in (Viewer(seat=0), Viewer(seat=1), Viewer.spectator(), Viewer.host()):
        text = json.dumps(GAME.view(state, viewer))
        assert '"seed"' not in text and "pasted" not in text and "board_before" not in text


def test_the_analysis_runs_from_the_job_alone_and_is_informational() -> None:
    state = started(boards=TINY_BOARDS, interval_seconds=60)
    state = GAME.act(state, 0, {"type": "path", "cells": ["A1", "B1", "B2"]}, T0).state
    job = GAME.analysis_job(state)
    assert job is not None
    result = GAME.run_analysis(json.loads(json.dumps(job)))
    outcome = GAME.record_analysis(state, job, result)
    assert outcome.informational and outcome.kind == "analysis"
    row = outcome.state["history"][0]["analysis"][0]
    assert row["best_cells"] == ["A1", "B1", "B2"] and row["best_score"] == "2"
    assert GAME.analysis_job(outcome.state) is None
    opened = pages.round_page(GAME.view(outcome.state, Viewer.spectator()), 1)
    assert opened["analysis"][0]["matched_best"] is True
    assert opened["analysis"][0]["name"] == "Rita"
    assert opened["analysis"][0]["board"] == TINY


def test_a_round_has_no_winner_to_award_the_host_ends_it_instead() -> None:
    state = started(interval_seconds=60)
    with pytest.raises(ActionError) as refused:
        GAME.adjudicate(state, {"winner": 1, "scope": "round"}, T0)
    assert refused.value.code == "bad_award"
    outcome = GAME.end_round(state, T0)
    assert outcome.state["phase"] == "interval"
    assert outcome.state["history"][0]["reason"] == "host"


def test_the_dashboards_match_scope_awards_the_match() -> None:
    outcome = GAME.adjudicate(started(), {"winner": 0, "scope": "match"}, T0)
    assert outcome.result is not None and outcome.result["winner"] == 0
    assert outcome.prizes[0]["garnets"] == rounds.GARNETS


def test_a_winner_award_goes_straight_to_the_flow() -> None:
    assert GAME.adjudicate(started(), {"winner": 1}, T0).result["winner"] == 1
    with pytest.raises(ActionError) as refused:
        GAME.adjudicate(started(), {"winner": 0, "scope": "season"}, T0)
    assert refused.value.code == "bad_award"


def test_a_draft_is_checked_by_the_flow() -> None:
    state = started(boards=TINY_BOARDS)
    kept = GAME.clean_draft(state, 0, {"cells": ["a1", "B1"]})
    assert kept == flow.clean_draft(state, 0, {"cells": ["a1", "B1"]})
    assert kept["cells"] == ["A1", "B1"] and kept["problem"] is None and not kept["complete"]
    broken = GAME.clean_draft(state, 0, {"cells": ["B1"]})
    assert broken["problem"]


def test_a_bot_decides_from_its_view() -> None:
    state = started(boards=TINY_BOARDS)
    later = T0 + timedelta(seconds=60)
    action = GAME.bot_action(GAME.view(state, Viewer(seat=0)), 0, "best", later)
    assert action == {"type": "path", "cells": ["A1", "B1", "B2"], "turn": 1}
    assert bot.decide(gate.view(state, Viewer(seat=0)), 0, "best", later) == action


def test_warm_up_runs() -> None:
    GAME.warm_up()
    assert engine.best_path(TINY, "red")[1] == ["A1", "B1", "B2"]
