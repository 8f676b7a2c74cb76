"""Seven Gem Swap's GameDefinition: registration, settings, the host's clock extension through
adjudicate, drafts, and the page data the view adds (no database)."""

from __future__ import annotations

import pytest

from games.core.forms import MatchSettingsForm
from games.core.game.gamedef import ActionError, SeatInfo, Viewer
from games.core.game.registry import get_game
from games.core.render.jsondiff import without
from games.core.templatetags.arena import grid_cells
from games.seven_gem_swap import engine, flow
from games.seven_gem_swap.game import GAME, SevenGemSwap
from tests.flows import T0

SEATS = [SeatInfo(i, "", name) for i, name in enumerate(["Ada", "Bob", "Cy"])]


def started(**settings):
    return GAME.start({"bid_seconds": 600, "round_seconds": 600, **settings}, SEATS, 7, T0).state


def in_round(**settings):
    state = started(**settings)
    for seat, colours in enumerate(["RGB", "GBR", "BRG"]):
        state = GAME.act(state, seat, {"type": "bid", "bid": -seat, "colours": colours}, T0).state
    return state


def own_gem(state, seat: int) -> str:
    colour = state["colours"][str(seat)]
    index = engine.parse_board(state["board"]).cells.index(colour)
    return engine.cell_name(index)


def test_it_is_registered_with_its_seats_and_unversioned_actions():
    game = get_game("seven-gem-swap")
    assert isinstance(game, SevenGemSwap)
    assert (game.min_seats, game.max_seats, game.roles) == (2, 7, ())
    assert game.unversioned_actions == flow.UNVERSIONED_ACTIONS == {"bid", "submit"}
    assert game.scripts[-1] == "js/seven_gem_swap.js" and "js/grid.js" in game.scripts
    assert set(game.bot_levels) == {"beginner", "club", "expert"}


def test_the_settings_have_defaults_and_keep_auto_start():
    cleaned = GAME.clean_settings({})
    assert cleaned["round_seconds"] == 86400 and cleaned["auto_start"] is True
    assert GAME.clean_settings({"auto_start": False})["auto_start"] is False


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"round_seconds": 5}, "round_seconds must be a whole number from 10"),
        ({"board": "RRR"}, "board:"),
        ({"no_card_scores": "half"}, "no_card_scores"),
        ({"colours": "R"}, "unknown setting"),
    ],
)
def test_bad_settings_are_refused_with_a_reason(settings, message):
    with pytest.raises(ValueError, match=message):
        GAME.clean_settings(settings)


def test_the_settings_form_checks_a_pasted_grid():
    form_class = MatchSettingsForm.for_game(GAME)
    form = form_class(
        {
            "title": "t",
            "seat_count": "3",
            "auto_start": "on",
            "bid_seconds": "60",
            "round_seconds": "60",
            "no_card_scores": "own_colour",
            "board": "\n".join(["RRRRRRRRRR"] * 10),
        }
    )
    assert not form.is_valid()
    assert "10 gems of each colour" in str(form.errors["board"])
    form = form_class(
        {"seat_count": "8", "bid_seconds": "60", "round_seconds": "60", "no_card_scores": "nothing"}
    )
    assert not form.is_valid() and "seat_count" in form.errors


def test_the_host_ends_the_round_as_its_time_running_out_would():
    state = in_round()
    assert GAME.end_round_label(state) == "round 1 now, with the sequences sent so far"
    ended = GAME.end_round(state, T0)
    timed_out = GAME.timeout(state, "round", T0, None)
    assert (ended.kind, ended.state) == (timed_out.kind, timed_out.state)
    assert ended.state["round"] == 2


def test_a_draft_is_kept_for_its_round_only():
    state = in_round()
    gem = own_gem(state, 0)
    draft = {"round": 1, "gem": gem, "moves": "uur", "premove": False}
    kept = GAME.clean_draft(state, 0, draft)
    assert {k: v for k, v in kept.items() if k != "preview"} == {
        "round": 1,
        "gem": gem,
        "moves": "UUR",
        "premove": False,
    }
    with pytest.raises(ActionError, match="round 2"):
        GAME.clean_draft(state, 0, {**draft, "round": 2})
    with pytest.raises(ActionError):
        GAME.clean_draft(started(), 0, draft)


def test_a_player_sees_their_gems_marked_and_their_cards():
    state = in_round()
    shown = GAME.view(state, Viewer(seat=0))
    own = shown["me"]["colour"]
    mine = [engine.cell_name(i) for i, g in enumerate(state["board"].replace("\n", "")) if g == own]
    grid = shown["grid"]
    assert grid["board"] == state["board"] and grid["caption"] == "The grid as round 1 starts"
    assert {cell for cell, marks in grid["marks"].items() if "sgs-own" in marks} == set(mine)
    assert shown["me"]["gems"] == mine
    assert [c["letter"] for c in shown["me"]["cards"]] == list(engine.COLOURS)
    assert shown["clock"]["key"] == "round"
    assert "pick one of your" in shown["prompt"]


def test_the_grid_is_drawn_with_a_look_for_every_cell():
    drawn = grid_cells(GAME.view(in_round(), Viewer(seat=0))["grid"])
    cells = [cell for row in drawn["rows"] for cell in row]
    assert len(cells) == 100 and cells[0]["cell"] == "A1" and cells[-1]["cell"] == "J10"
    gem = next(c for c in cells if c["text"])
    assert f"sgs-{gem['text']}" in gem["css"].split()  # beside the gem set's class
    assert gem["label"] == f"{gem['cell']}, {engine.COLOUR_NAMES[gem['text']]} gem"
    rock = next(c for c in cells if not c["text"])
    assert "sgs-rock" in rock["css"].split() and rock["label"] == f"{rock['cell']}, rock"


def test_a_spectator_gets_no_seat_part_and_no_host_part():
    shown = GAME.view(in_round(), Viewer.spectator())
    assert "me" not in shown and "host" not in shown
    assert not any("sgs-own" in marks for marks in shown["grid"]["marks"].values())


def test_the_host_gets_every_bid_in_the_host_rows():
    shown = GAME.view(in_round(), Viewer.host())
    assert [row["bid"]["colours"] for row in shown["host"]["rows"]] == ["RGB", "GBR", "BRG"]


def played_round():
    """Round 1 played: Ada's gem goes up and left, Bob and Cy send nothing."""
    state = in_round()
    gem = own_gem(state, 0)
    state = GAME.act(state, 0, {"type": "submit", "gem": gem, "moves": "UL"}, T0).state
    return GAME.timeout(state, "round", T0, None).state, gem


def test_each_round_played_is_listed_with_every_players_points():
    state, _ = played_round()
    shown = GAME.view(state, Viewer.spectator())
    [entry] = shown["rounds_played"]
    assert entry["round"] == 1 and entry["changed"] == len(shown["last_round"]["changed"])
    points = {line["name"]: line["points"] for line in entry["lines"]}
    assert set(points) == {"Ada", "Bob", "Cy"} and points["Bob"] == "+0"
    assert shown["last_round"]["board_before"] == state["history"][0]["public"]["board_before"]
    assert "history" not in shown


def test_the_host_plays_the_last_round_from_the_steps_the_server_sent():
    state, gem = played_round()
    shown = GAME.view(state, Viewer.host())
    last = shown["host"]["last_round"]
    steps = state["history"][0]["secret"]["steps"]
    assert last["round"] == 1 and last["step_count"] == len(steps)
    assert last["steps"] == [
        {
            "board": step["board"],
            "moves": [
                [int(move["player"]), move["from"], move["to"], move["direction"]]
                + ([] if move["ok"] else [move["reason"]])
                for move in step["moves"]
            ],
        }
        for step in steps
    ]
    assert last["steps"][0]["moves"][0][:2] == [0, gem]
    assert last["steps"][-1]["board"] == state["history"][0]["public"]["board_after"]
    words = shown["host"]["step_words"]
    assert words["moves"]["U"] == "up" and words["failures"]["locked"] == "into a locked cell"
    # Each seat's sequence is in its row of the host's table.
    assert [row["played"] for row in shown["host"]["rows"]] == [
        {"gem": gem, "moves": "UL", "card": None, "premove": False},
        None,
        None,
    ]


def test_a_draft_preview_is_worded_for_the_composer():
    state = in_round()
    gem = own_gem(state, 0)
    preview = GAME.clean_draft(state, 0, {"round": 1, "gem": gem})["preview"]
    assert preview["text"].startswith(f"Path: {gem}. If no one else moved: your largest group ")
    assert preview["caption"] == "The grid as round 1 starts"


def test_a_failing_sequence_is_worded_with_the_move_that_fails():
    state = in_round()
    gem = own_gem(state, 0)
    away = "D" if gem[1:] != "10" else "U"
    back = {"D": "U", "U": "D"}[away]
    preview = GAME.clean_draft(state, 0, {"gem": gem, "moves": away + back})["preview"]
    assert preview["path"] == preview["path"][:2]
    assert (
        f"Move 2 ({'up' if back == 'U' else 'down'}) would fail: {gem} is locked"
        in (preview["text"])
    )
    assert preview["caption"] == "Preview: the grid after your moves, as if no one else moved"


def test_a_seat_sees_its_sent_sequence_worded_and_no_one_else_does():
    state = in_round()
    gem = own_gem(state, 0)
    state = GAME.act(state, 0, {"type": "submit", "gem": gem, "moves": "UL"}, T0).state
    assert GAME.view(state, Viewer(seat=0))["me"]["preview"]["text"].startswith(f"Path: {gem}")
    assert GAME.view(state, Viewer(seat=1))["me"]["preview"] is None
    for viewer in (Viewer.spectator(), Viewer.host()):
        assert "Path:" not in str(GAME.view(state, viewer))


def test_a_premove_costs_its_price_so_the_core_can_check_the_ledger():
    state = in_round()
    submit = {"type": "submit", "gem": own_gem(state, 0), "moves": "U"}
    assert GAME.action_cost(state, 0, submit) == {}
    assert GAME.action_cost(state, 0, {**submit, "premove": True}) == {"garnets": 2}
    state["premoves"]["0"] = 2
    assert GAME.action_cost(state, 0, {**submit, "premove": True}) == {"garnets": 8}
    assert GAME.action_cost(state, 0, {"type": "bid", "premove": True}) == {}


def round_two_all_moving():
    """Round 2 played by all three, each sending four moves from one of their gems (some may
    fail) and their own colour card; Ada premoves."""
    state, _ = played_round()
    for seat, moves in enumerate(["RRDD", "LLUU", "DRDR"]):
        action = {
            "type": "submit",
            "gem": own_gem(state, seat),
            "moves": moves,
            "card": state["colours"][str(seat)],
            "premove": seat == 0,
        }
        state = GAME.act(state, seat, action, T0).state
    return state


def test_a_rounds_event_names_the_cells_each_scoring_group_lit():
    state = round_two_all_moving()
    entry = state["history"][-1]["public"]
    assert entry["round"] == 2 and set(entry["groups"]) == {"0", "1", "2"}
    for seat, cells in entry["groups"].items():
        colour = state["colours"][seat]
        assert cells == engine.largest_group_cells(entry["board_after"], colour + colour)
        assert len(cells) == entry["points"][seat]["group"]
    # Said once: the view's last round carries no groups (the event does).
    assert "groups" not in GAME.view(state, Viewer.spectator())["last_round"]


DELTA = {"U": -10, "D": 10, "L": -1, "R": 1}


def test_the_host_steps_carry_the_grids_the_engine_played_and_the_moves_that_made_them():
    """The page plays the host's steps from the grids the server sent (it makes no grid of its
    own): each step's grid is the engine's; each move that succeeded swapped its gem with the
    cell it names and locked the cell it left, as the page marks them."""
    state = round_two_all_moving()
    sent = GAME.view(state, Viewer.host())["host"]["last_round"]["steps"]
    entry = state["history"][-1]
    played = entry["secret"]["steps"]
    assert any(len(move) == 4 for step in sent for move in step["moves"])
    before = entry["public"]["board_before"].replace("\n", "")
    locked: set[str] = set()
    for step, engine_step in zip(sent, played, strict=True):
        assert step["board"] == engine_step["board"]
        after = step["board"].replace("\n", "")
        for _seat, start, to, _direction, *failed in step["moves"]:
            if failed:
                continue
            i, j = engine.parse_cell(start), engine.parse_cell(to)
            assert (after[i], after[j]) == (before[j], before[i])
            locked.add(start)
        assert locked == set(engine_step["locked"])
        before = after
    assert before == state["board"].replace("\n", "")


def test_frames_leave_out_what_only_the_panels_draw():
    state = round_two_all_moving()
    for viewer in (Viewer(seat=0), Viewer.host(), Viewer.spectator()):
        sent = without(GAME.view(state, viewer), GAME.page_only)
        assert sent["board"] == state["board"] and set(sent["grid"]) >= {"looks", "name"}
        assert not {"board", "marks", "caption"} & set(sent["grid"])
        assert not {"players", "rounds_played", "scores", "played", "prompt"} & set(sent)
        assert set(sent["last_round"]) == {"round", "board_before", "changed"}
    host = without(GAME.view(state, Viewer.host()), GAME.page_only)["host"]
    assert "rows" not in host and "submissions" not in host
    assert set(host["last_round"]) == {"steps"}


def test_the_status_chips_and_the_table_read_only_what_they_show():
    """The status line's chips and the players' table each get their own small rows, so that a
    submission changes the chips' inputs and leaves the table's alone."""
    state = in_round()
    before = GAME.view(state, Viewer(seat=1))
    state = GAME.act(state, 0, {"type": "submit", "gem": own_gem(state, 0), "moves": ""}, T0).state
    after = GAME.view(state, Viewer(seat=1))
    assert [chip["text"] for chip in after["progress"]] == [
        "Ada: submitted",
        "Bob (you): composing",
        "Cy: composing",
    ]
    assert [chip["css"] for chip in after["progress"]] == ["done", "is-you", ""]
    assert after["table"] == before["table"] and after["progress"] != before["progress"]
    assert after["composing"] is True and GAME.view(state, Viewer.spectator())["composing"] is False
