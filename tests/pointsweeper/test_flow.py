"""The Pointsweeper match flow: phases, clocks, refusals, the three boards and what each viewer may
see. Time is a fake ``now`` advanced by hand; boards are pasted so every sum is known."""

from __future__ import annotations

import copy
import json
import random
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import pytest

from games.core.game.contract import settled
from games.core.game.gamedef import ActionError, SeatInfo, Viewer
from games.pointsweeper import engine, flow, players
from games.pointsweeper import page as pages
from games.pointsweeper import view as gate
from tests import flows
from tests.flows import T0, at

SEATS = [SeatInfo(0, "EC", "Ann"), SeatInfo(1, "DMO", "Bob")]
EC, DMO = 0, 1
RANK_1_AND_CORNERS = ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a8", "h8"]


def board_text(mines: list[str], values: dict[str, int] | None = None, default: int = 1) -> str:
    cells: list[int | str] = [default] * 64
    for square, value in (values or {}).items():
        cells[engine.SQUARES.index(square)] = value
    for square in mines:
        cells[engine.SQUARES.index(square)] = "M"
    return engine.format_board(engine.Board(tuple(cells)))


def pasted(*texts: str, **extra: Any) -> dict[str, Any]:
    boards = list(texts) + [board_text(RANK_1_AND_CORNERS)] * (3 - len(texts))
    return {"boards": "pasted", **dict(zip(flow.PASTED, boards, strict=True)), **extra}


def clean(settings: dict[str, Any]) -> dict[str, Any]:
    return settled(flow.SETTINGS, settings, flow.check_settings)


def begin(settings: dict | None = None, *, first: int = EC, seed: int = 5) -> dict:
    """A match whose first board is in play, ``first`` to move."""
    state = flow.start(settings or pasted(), SEATS, seed, T0).state
    return flow.act(state, DMO, {"type": "choose_order", "first": first == DMO}, T0).state


def scout(piece: str, square: str) -> dict:
    return {"type": "scout", "piece": piece, "square": square}


def claim(piece: str, start: str, end: str) -> dict:
    return {"type": "claim", "piece": piece, "start": start, "end": end}


PASS = {"type": "pass"}


def play(state: dict, *moves: tuple[int, dict], now: datetime = T0) -> dict:
    for seat, action in moves:
        state = flow.act(state, seat, action, now).state
    return state


def open_scouts(state: dict) -> dict:
    """Three scouts each (EC first) so that both may claim."""
    for i in range(3):
        for seat in (state["turn"], 1 - state["turn"]):
            state = play(state, (seat, scout(f"P{i + 1}", "e4")))
    return state


refused = partial(flows.refused, flow.act)


# --- settings and start --------------------------------------------------------------------------


def test_it_starts_with_the_dmo_choosing_the_order_of_board_1():
    outcome = flow.start({}, SEATS, 1, T0)
    state = outcome.state
    assert state["phase"] == "order"
    assert state["chooser"] == DMO
    assert state["deadlines"] == {"order": at(60).isoformat()}
    assert outcome.public == {"board_no": 1, "chooser": DMO}


def test_it_generates_three_match_boards_from_the_seed():
    a = flow.start({}, SEATS, 9, T0).state["boards"]
    assert a == flow.start({}, SEATS, 9, T0).state["boards"]
    assert a != flow.start({}, SEATS, 10, T0).state["boards"]
    assert len(set(a)) == 3
    for text in a:
        engine.check_match_board(engine.parse_board(text))


def test_it_plays_the_pasted_boards():
    text = board_text(RANK_1_AND_CORNERS, {"e4": 5})
    state = flow.start(pasted(text), SEATS, 1, T0).state
    assert state["boards"][0] == text


def test_it_refuses_a_pasted_board_with_a_clear_reason():
    bad = board_text(RANK_1_AND_CORNERS[:9])
    with pytest.raises(ValueError, match="board 2: a match board has exactly 10 mines"):
        clean(pasted(board_text(RANK_1_AND_CORNERS), bad))
    with pytest.raises(ValueError, match="board 1: a board has 8 lines"):
        clean(pasted("1 2 3"))
    with pytest.raises(ValueError, match="board 1: "):
        clean({"boards": "pasted", "board_1": "x"})


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"colour": "red"}, "unknown setting"),
        ({"move_seconds": 0}, "move_seconds"),
        ({"bank_seconds": -1}, "bank_seconds"),
        ({"tie_to": "nobody"}, "tie_to is one of 'DMO', 'EC'"),
        ({"scout_turns": 17}, "scout_turns"),
        ({"boards": "drawn"}, "random"),
    ],
)
def test_it_refuses_bad_settings(settings, message):
    with pytest.raises(ValueError, match=message):
        clean(settings)


# --- the order -----------------------------------------------------------------------------------


def test_it_lets_the_dmo_choose_to_move_first_on_board_1():
    state = flow.start(pasted(), SEATS, 1, T0).state
    outcome = flow.act(state, DMO, {"type": "choose_order", "first": True}, at(5))
    assert outcome.state["first"] == DMO
    assert outcome.state["turn"] == DMO
    assert outcome.state["phase"] == "play"
    assert outcome.state["deadlines"] == {"turn": at(5 + 60 + 120).isoformat()}


def test_it_lets_the_chooser_play_second():
    state = flow.start(pasted(), SEATS, 1, T0).state
    assert flow.act(state, DMO, {"type": "choose_order", "first": False}, T0).state["first"] == EC


def test_it_refuses_the_order_from_the_other_player():
    state = flow.start(pasted(), SEATS, 1, T0).state
    refused(state, EC, {"type": "choose_order", "first": True}, "not_chooser")


def test_it_refuses_an_order_that_is_not_true_or_false():
    state = flow.start(pasted(), SEATS, 1, T0).state
    refused(state, DMO, {"type": "choose_order", "first": "yes"}, "bad_order")


def test_it_draws_the_first_player_when_the_chooser_runs_out_of_time():
    state = flow.start(pasted(), SEATS, 1, T0).state
    outcome = flow.timeout(state, "order", at(60))
    assert outcome.kind == "order_drawn"
    assert outcome.state["first"] in (0, 1)
    assert outcome.state["draws"] == 1
    assert flow.timeout(state, "order", at(60)).state == outcome.state


def test_it_refuses_moves_while_the_order_is_chosen():
    state = flow.start(pasted(), SEATS, 1, T0).state
    refused(state, EC, scout("Q", "d4"), "wrong_phase")


def test_it_lets_the_ec_choose_board_2_and_the_dmo_board_3():
    state = begin()
    state = play(state, (EC, PASS), (DMO, PASS))
    assert state["board_no"] == 2
    assert state["chooser"] == EC
    refused(state, DMO, {"type": "choose_order", "first": True}, "not_chooser")
    state = play(state, (EC, {"type": "choose_order", "first": True}), (EC, PASS), (DMO, PASS))
    assert state["board_no"] == 3
    assert state["chooser"] == DMO


# --- scouting ------------------------------------------------------------------------------------


def test_it_tells_only_the_scout_the_result():
    text = board_text(RANK_1_AND_CORNERS, {"d4": 5, "d5": -2})
    state = begin(pasted(text))
    outcome = flow.act(state, EC, scout("R1", "d4"), at(3))
    note = outcome.private[EC]["scout"]
    board = engine.parse_board(text)
    assert (note["sum"], note["mines"]) == engine.scout(board, "R", "d4", True)
    assert "sum" not in outcome.public and "mines" not in outcome.public
    assert outcome.public["piece"] == "R1"
    assert outcome.public["square"] == "d4"
    assert outcome.state["play"]["notebooks"]["0"] == [note]
    assert outcome.state["turn"] == DMO


def test_it_scouts_the_second_players_pawns_toward_rank_1():
    state = begin(first=EC)
    state = play(state, (EC, scout("Q", "d4")))
    outcome = flow.act(state, DMO, scout("P1", "e7"), T0)
    assert set(outcome.public["squares"]) == {"e7", "e6", "e5", "d6", "f6"}


def test_it_refuses_a_second_scout_with_the_same_piece():
    state = play(begin(), (EC, scout("N1", "d4")), (DMO, scout("N1", "d4")))
    refused(state, EC, scout("N1", "e4"), "piece_used")


def test_it_refuses_a_scout_after_the_piece_claimed():
    state = open_scouts(begin())
    state = play(state, (EC, claim("R1", "a3", "h3")), (DMO, PASS))
    refused(state, EC, scout("R1", "d4"), "piece_used")


def test_it_refuses_a_pawn_scout_on_rank_8():
    refused(begin(), EC, scout("P1", "d8"), "illegal_move")


@pytest.mark.parametrize(
    "action, code",
    [
        ({"type": "scout", "piece": "R", "square": "d4"}, "bad_piece"),
        ({"type": "scout", "piece": "P9", "square": "d4"}, "bad_piece"),
        ({"type": "scout", "piece": "Q", "square": "z9"}, "bad_square"),
        ({"type": "scout", "piece": "Q"}, "bad_square"),
        ({"type": "dance"}, "unknown_action"),
    ],
)
def test_it_refuses_malformed_actions(action, code):
    refused(begin(), EC, action, code)


def test_it_asks_which_rook():
    error = refused(begin(), EC, {"type": "scout", "piece": "r", "square": "d4"}, "bad_piece")
    assert "R1 or R2" in error.message


def test_it_refuses_a_move_out_of_turn():
    refused(begin(first=EC), DMO, scout("Q", "d4"), "not_your_turn")


# --- claiming ------------------------------------------------------------------------------------


def test_it_allows_only_scouts_on_the_first_three_turns():
    state = begin()
    refused(state, EC, claim("R1", "a3", "h3"), "scout_turns")
    state = play(state, (EC, scout("P1", "e4")), (DMO, scout("P1", "e4")))
    state = play(state, (EC, scout("P2", "e4")), (DMO, scout("P2", "e4")))
    refused(state, EC, claim("R1", "a3", "h3"), "scout_turns")
    state = play(state, (EC, scout("P3", "e4")), (DMO, scout("P3", "e4")))
    assert flow.act(state, EC, claim("R1", "a3", "h3"), T0).kind == "claimed"


def test_it_claims_and_reveals_the_tiles():
    text = board_text(RANK_1_AND_CORNERS, {"a3": 5, "b3": -2})
    state = open_scouts(begin(pasted(text)))
    outcome = flow.act(state, EC, claim("R1", "a3", "h3"), T0)
    play_ = outcome.state["play"]
    assert outcome.public["points"] == 5 - 2 + 6
    assert outcome.public["values"]["a3"] == 5
    assert play_["points"] == [9, 0]
    assert play_["revealed"]["b3"] == -2
    assert set(play_["claimed"]) == {f"{f}3" for f in "abcdefgh"}


def test_it_claims_only_the_mine_when_a_claim_hits_one():
    state = open_scouts(begin())
    outcome = flow.act(state, EC, claim("R1", "a3", "a1"), T0)
    assert outcome.public["squares"] == ["a1"]
    assert outcome.public["values"] == {"a1": "M"}
    assert outcome.state["play"]["mines"] == [1, 0]
    assert outcome.state["totals"]["mines"] == [1, 0]
    assert "a2" not in outcome.state["play"]["revealed"]


def test_it_refuses_a_second_claim_with_the_same_piece():
    state = open_scouts(begin())
    state = play(state, (EC, claim("R1", "a3", "h3")), (DMO, PASS))
    refused(state, EC, claim("R1", "a4", "h4"), "piece_used")


def test_it_lets_a_scouted_piece_claim():
    state = open_scouts(begin())
    assert flow.act(state, EC, claim("P1", "e4", "e5"), T0).kind == "claimed"


def test_it_refuses_a_move_the_piece_cannot_make():
    refused(open_scouts(begin()), EC, claim("B1", "a3", "a5"), "illegal_move")


def test_it_moves_the_second_players_pawns_down():
    state = open_scouts(begin(first=EC))
    state = play(state, (EC, PASS))
    refused(state, DMO, claim("P4", "e4", "e5"), "illegal_move")
    assert flow.act(state, DMO, claim("P4", "e7", "e5"), T0).kind == "claimed"


# --- passing and clocks --------------------------------------------------------------------------


def test_it_gives_every_turn_to_the_player_who_has_not_passed():
    state = play(begin(), (EC, PASS))
    assert state["turn"] == DMO
    state = play(state, (DMO, scout("Q", "d4")))
    assert state["turn"] == DMO
    refused(state, EC, scout("Q", "d4"), "not_your_turn")


def test_it_spends_nothing_from_the_bank_within_the_minute():
    state = flow.act(begin(), EC, scout("Q", "d4"), at(59)).state
    assert state["play"]["bank"] == [120.0, 120.0]
    assert state["deadlines"]["turn"] == at(59 + 180).isoformat()


def test_it_takes_time_beyond_the_minute_from_the_bank():
    state = flow.act(begin(), EC, scout("Q", "d4"), at(90)).state
    assert state["play"]["bank"] == [90.0, 120.0]
    state = flow.act(state, DMO, scout("Q", "d4"), at(100)).state
    assert state["deadlines"]["turn"] == at(100 + 60 + 90).isoformat()


def test_it_refuses_a_move_after_the_bank_ran_out():
    refused(begin(), EC, scout("Q", "d4"), "time_up", now=at(180))


def test_it_counts_an_empty_bank_as_a_pass():
    outcome = flow.timeout(begin(), "turn", at(180))
    assert outcome.kind == "bank_empty"
    assert outcome.state["play"]["passed"] == [True, False]
    assert outcome.state["play"]["bank"][EC] == 0.0
    assert outcome.state["turn"] == DMO
    assert outcome.state["deadlines"] == {"turn": at(180 + 180).isoformat()}


def test_it_ignores_a_clock_that_is_not_running():
    state = begin()
    outcome = flow.timeout(state, "order", at(500))
    assert outcome.kind == "clock_ignored"
    assert outcome.state == state


def test_it_keeps_each_bank_per_board():
    state = flow.act(begin(), EC, PASS, at(150)).state
    assert state["play"]["bank"][EC] == 30.0
    state = play(state, (DMO, PASS), now=at(150))
    state = play(state, (EC, {"type": "choose_order", "first": True}), now=at(150))
    assert state["play"]["bank"] == [120.0, 120.0]


@pytest.mark.parametrize("draft", [{}, {"piece": "Q"}])
def test_it_keeps_no_drafts(draft):
    with pytest.raises(ActionError):
        flow.clean_draft(begin(), EC, draft)


# --- the end of a board --------------------------------------------------------------------------


def test_it_ends_the_board_when_both_have_passed():
    outcome = flow.act(play(begin(), (EC, PASS)), DMO, PASS, T0)
    record = outcome.state["history"][0]
    assert record["reason"] == "passed"
    assert outcome.public["board_over"]["board"] == record["board"]
    assert outcome.state["phase"] == "order"


def test_it_ends_the_board_when_all_mines_are_claimed():
    mines = ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a2", "b2"]
    state = open_scouts(begin(pasted(board_text(mines))))
    state = play(state, (EC, claim("R1", "a1", "h1")))
    assert state["board_no"] == 1
    outcome = flow.act(state, DMO, claim("R1", "a2", "b2"), T0)
    assert outcome.state["history"][0]["reason"] == "all_mines"
    assert outcome.state["totals"]["mines"] == [8, 2]


def test_it_ends_the_board_when_all_tiles_are_claimed():
    state = open_scouts(begin(pasted(board_text(RANK_1_AND_CORNERS))))
    state = play(
        state,
        (EC, claim("Q", "a2", "h2")),
        (DMO, claim("Q", "a5", "h5")),
        (EC, claim("R1", "a3", "h3")),
        (DMO, claim("R1", "a6", "h6")),
        (EC, claim("R2", "a4", "h4")),
        (DMO, claim("R2", "a7", "h7")),
        (EC, claim("K", "b8", "c8")),
        (DMO, claim("K", "d8", "e8")),
        (EC, claim("N1", "f8", "h7")),
    )
    assert state["board_no"] == 1
    outcome = flow.act(state, DMO, claim("N1", "g8", "e7"), T0)
    assert outcome.state["history"][0]["reason"] == "all_tiles"
    assert outcome.state["history"][0]["points"] == [3 * 8 + 3, 3 * 8 + 3]


def test_it_ends_the_board_when_both_are_out_of_pieces():
    state = begin(pasted(board_text(["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "g8", "g7"])))
    state = open_scouts(state)
    moves = {
        "K": ("a3", "a4"),
        "Q": ("a3", "a4"),
        "R": ("a3", "a4"),
        "B": ("a3", "b4"),
        "N": ("a3", "b5"),
    }
    for piece in flow.PIECE_IDS:
        for seat in (EC, DMO):
            if piece.startswith("P"):
                start, end = ("a3", "a4") if seat == EC else ("a4", "a3")
            else:
                start, end = moves[piece[0]]
            outcome = flow.act(state, seat, claim(piece, start, end), T0)
            state = outcome.state
    assert state["history"][0]["reason"] == "out_of_pieces"
    assert outcome.public["board_over"]["reason"] == "out_of_pieces"


def test_it_lets_one_player_play_on_alone_until_out_of_pieces():
    state = open_scouts(begin())
    state = play(state, (EC, PASS))
    moves = {"K": "a3", "Q": "a3", "R": "a3", "B": "b3", "N": "b2", "P": "a3"}
    for piece in flow.PIECE_IDS:
        assert state["turn"] == DMO
        state = play(state, (DMO, claim(piece, "a4", moves[piece[0]])))
    assert state["board_no"] == 2
    assert state["history"][0]["reason"] == "passed"


# --- the whole match -----------------------------------------------------------------------------


def test_it_totals_three_boards_with_the_triangular_penalty():
    text = board_text(RANK_1_AND_CORNERS, {"a3": 5, "b3": 5})
    state = begin(pasted(text, text, text))
    state = open_scouts(state)
    state = play(state, (EC, claim("R1", "a1", "d1")), (DMO, claim("R1", "a3", "h3")))
    state = play(state, (EC, PASS), (DMO, PASS))
    state = play(state, (EC, {"type": "choose_order", "first": True}))
    state = open_scouts(state)
    state = play(state, (EC, claim("R1", "e1", "e2")), (DMO, PASS), (EC, PASS))
    state = play(state, (DMO, {"type": "choose_order", "first": False}), (EC, PASS))
    outcome = flow.act(state, DMO, PASS, T0)
    final = outcome.state["final"]
    assert final["points"] == [0, 16]
    assert final["mines"] == [5, 0]
    assert final["penalty"] == [15, 0]
    assert final["total"] == [-15, 16]
    assert outcome.result["winner"] == DMO
    assert outcome.result["prizes"] == {"1": {"garnets": 5, "tokens": 0}}
    assert outcome.state["phase"] == "over"
    assert outcome.state["deadlines"] == {}


def _three_passes(settings: dict | None = None) -> Any:
    state = flow.start(settings or pasted(), SEATS, 1, T0).state
    outcome = None
    for board in range(3):
        chooser = DMO if board != 1 else EC
        state = play(state, (chooser, {"type": "choose_order", "first": True}))
        state = play(state, (chooser, PASS))
        outcome = flow.act(state, 1 - chooser, PASS, T0)
        state = outcome.state
    return outcome


def test_it_gives_a_tie_to_the_dmo():
    outcome = _three_passes()
    assert outcome.result["winner"] == DMO
    assert "tie" in outcome.result["summary"]


def test_it_gives_a_tie_to_the_ec_when_the_host_says_so():
    assert _three_passes(pasted(tie_to="EC")).result["winner"] == EC


def test_it_refuses_every_action_once_the_match_is_over():
    refused(_three_passes().state, EC, PASS, "match_over")


def test_it_lets_the_host_settle_the_match():
    outcome = flow.adjudicate(begin(), {"winner": EC}, T0)
    assert outcome.result["winner"] == EC
    assert outcome.state["phase"] == "over"
    with pytest.raises(ActionError):
        flow.adjudicate(outcome.state, {"winner": DMO}, T0)
    with pytest.raises(ActionError):
        flow.adjudicate(begin(), {"winner": 3}, T0)


def test_it_never_mutates_the_state_it_is_given():
    state = open_scouts(begin())
    before = copy.deepcopy(state)
    flow.act(state, EC, claim("R1", "a1", "a3"), at(70))
    flow.timeout(state, "turn", at(400))
    gate.view(state, Viewer(seat=EC))
    assert state == before


# --- analysis ------------------------------------------------------------------------------------


def test_it_analyses_each_finished_board_once():
    state = open_scouts(begin())
    state = play(state, (EC, claim("R1", "a3", "h3")), (DMO, PASS), (EC, PASS))
    job = flow.analysis_job(state)
    assert job["board_no"] == 1
    result = flow.run_analysis(json.loads(json.dumps(job)))
    outcome = flow.record_analysis(state, job, result)
    assert outcome.informational
    decisions = outcome.state["history"][0]["analysis"]["seats"]
    assert [d["type"] for d in decisions["0"]] == ["claim", "pass"]
    assert decisions["0"][0]["best"]
    assert flow.analysis_job(outcome.state) is None


# --- privacy: what views and outcomes may hold ---------------------------------------------------


def _walk(value: Any, path: tuple = ()):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, (*path, i))


def assert_view_keeps_secrets(state: dict, view: dict, seat: int | None) -> None:
    """Nothing of the board in play that is not claimed, and no scout result but the viewer's own
    on the board in play, appears anywhere in ``view``."""
    current = {key: item for key, item in view.items() if key != "history"}
    text = json.dumps(current)
    assert "boards" not in view
    for record in view["history"]:
        assert record["board_no"] < state["board_no"] or state["phase"] == "over"
    if state["play"] is None:
        return
    board = engine.parse_board(state["boards"][state["board_no"] - 1])
    hidden = {s for s in engine.SQUARES if s not in state["play"]["claimed"]}
    for line in engine.format_board(board).splitlines():
        assert line not in text
    for path, item in _walk(current):
        if path[:2] == ("legal", "destinations"):
            continue  # the rules of movement, keyed by start square: nothing of the board
        if isinstance(item, dict):
            assert not (set(item) & hidden), f"a hidden square is a key at {path}"
            if item.get("square") in hidden:
                assert "value" not in item and item.get("state") != "mine", path
                assert item.get("kind") not in ("tile", "mine"), path
            if "sum" in item or "mines" in item and "piece" in item and "end" not in item:
                assert path[:2] == ("play", "notebook"), f"a scout result at {path}"
                assert item["seat"] == seat
    numbered = [
        item
        for path, item in _walk(view.get("play"), ("play",))
        if isinstance(item, dict) and "n" in item
    ]
    for other in (0, 1):
        if other == seat:
            continue
        for note in state["play"]["notebooks"][str(other)]:
            for item in numbered:
                if item["n"] == note["n"]:
                    assert "sum" not in item and "mines" not in item


def scrambled(state: dict, seat: int | None, rng: random.Random) -> dict:
    """The same match with everything ``seat`` may not know changed: the hidden squares of the
    board in play refilled (same number of mines), the boards to come replaced, the other seat's
    scout results rewritten."""
    twin = copy.deepcopy(state)
    now = twin["board_no"] - 1
    for number in range(now + 1, 3):
        twin["boards"][number] = engine.format_board(engine.generate_board(rng.randrange(10**6)))
    if twin["play"] is None:
        return twin
    board = engine.parse_board(twin["boards"][now])
    cells = list(board.cells)
    hidden = [i for i, s in enumerate(engine.SQUARES) if s not in twin["play"]["claimed"]]
    mines = sum(1 for i in hidden if cells[i] == "M")
    for i in hidden:
        cells[i] = rng.choice(engine.TILE_VALUES)
    for i in rng.sample(hidden, mines):
        cells[i] = "M"
    twin["boards"][now] = engine.format_board(engine.Board(tuple(cells)))
    for other in (0, 1):
        if other != seat:
            for note in twin["play"]["notebooks"][str(other)]:
                note["sum"] = rng.randrange(-40, 90)
                note["mines"] = rng.randrange(0, 10)
    return twin


def assert_public_outcome_keeps_secrets(outcome: Any) -> None:
    for path, item in _walk(outcome.public):
        if path[:1] == ("board_over",) or path[:1] == ("analysis",):
            continue
        if isinstance(item, dict) and item.get("type") == "scout":
            assert "sum" not in item and "mines" not in item
    if outcome.kind == "scouted":
        assert "sum" not in outcome.public and "mines" not in outcome.public


def random_action(state: dict, seat: int, rng: random.Random) -> dict:
    legal = players.legal_for(state, seat)
    roll = rng.random()
    if legal["claim"] and roll < 0.45:
        piece = rng.choice(legal["claim"])
        start, end = rng.choice(engine.legal_moves(piece, players.first_player(state, seat)))
        return claim(piece, start, end)
    if legal["scout"] and roll < 0.96:
        piece = rng.choice(legal["scout"])
        squares = [s for s in engine.SQUARES if piece[0] != "P" or s[1] not in "18"]
        return scout(piece, rng.choice(squares))
    return PASS


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_view_or_public_outcome_ever_shows_a_secret(seed):
    rng = random.Random(seed)
    now = T0
    state = flow.start({}, SEATS, seed, now).state
    steps = 0
    while state["phase"] != "over":
        now += timedelta(seconds=rng.choice([2, 30, 70]))
        running = {key: datetime.fromisoformat(due) for key, due in state["deadlines"].items()}
        late = [key for key, due in running.items() if due <= now]
        if late:
            outcome = flow.timeout(state, late[0], now)
        elif state["phase"] == "order":
            if rng.random() < 0.2:
                outcome = flow.timeout(state, "order", now)
            else:
                action = {"type": "choose_order", "first": rng.random() < 0.5}
                outcome = flow.act(state, state["chooser"], action, now)
        elif rng.random() < 0.03:
            outcome = flow.timeout(state, "turn", now)
        else:
            action = random_action(state, state["turn"], rng)
            outcome = flow.act(state, state["turn"], action, now)
            if action["type"] == "scout":
                twin = flow.act(scrambled(state, None, rng), state["turn"], action, now)
                assert twin.public == outcome.public
        assert_public_outcome_keeps_secrets(outcome)
        for private_seat, private in outcome.private.items():
            assert private["scout"]["seat"] == private_seat
        state = outcome.state
        for viewer, seat in ((Viewer(seat=0), 0), (Viewer(seat=1), 1), (Viewer(), None)):
            view = gate.view(state, viewer)
            assert_view_keeps_secrets(state, view, seat)
            assert gate.view(scrambled(state, seat, rng), viewer) == view
        steps += 1
    assert steps > 30
    assert state["final"]["total"][0] == (
        state["final"]["points"][0] - engine.triangular(state["final"]["mines"][0])
    )


def test_it_shows_a_seat_its_own_notebook_only():
    state = play(begin(), (EC, scout("Q", "d4")), (DMO, scout("Q", "e5")))
    mine = gate.view(state, Viewer(seat=EC))["play"]["notebook"]
    assert [note["square"] for note in mine] == ["d4"]
    assert "sum" in mine[0]
    theirs = gate.view(state, Viewer(seat=DMO))["play"]["log"][0]
    assert theirs["square"] == "d4" and "sum" not in theirs
    assert gate.view(state, Viewer())["play"]["notebook"] is None


def test_it_shows_the_host_both_notebooks_and_the_whole_board():
    state = play(begin(), (EC, scout("Q", "d4")), (DMO, scout("Q", "e5")))
    view = gate.view(state, Viewer.host())
    assert view["play"]["truth"] == state["boards"][0]
    assert len(view["play"]["notebooks"]["0"]) == 1 and "sum" in view["play"]["notebooks"]["1"][0]
    assert view["boards"] == state["boards"]


def test_it_shows_everyone_the_whole_board_and_every_scout_once_it_is_over():
    state = play(begin(), (EC, scout("Q", "d4")), (DMO, scout("Q", "e5")), (EC, PASS))
    state = play(state, (DMO, PASS))
    record = gate.view(state, Viewer())["history"][0]
    assert record["board"] == state["history"][0]["board"]
    assert "sum" in record["notebooks"]["0"][0] and "sum" in record["notebooks"]["1"][0]


def test_it_shows_clocks_and_banks_for_both_players():
    state = flow.act(begin(), EC, scout("Q", "d4"), at(80)).state
    view = gate.view(state, Viewer())
    assert view["play"]["bank"] == [100.0, 120.0]
    assert view["deadlines"]["turn"] == at(80 + 180).isoformat()
    assert view["turn_started"] == at(80).isoformat()


def test_it_offers_the_mover_exactly_the_legal_pieces():
    state = play(begin(), (EC, scout("Q", "d4")), (DMO, scout("Q", "d4")))
    legal = gate.view(state, Viewer(seat=EC))["legal"]
    assert "Q" not in legal["scout"] and legal["claim"] == []
    assert gate.view(state, Viewer(seat=DMO))["legal"]["scout"] == []


def test_it_says_when_the_free_move_time_ends_and_the_bank_starts_to_run():
    state = flow.act(begin(), EC, scout("Q", "d4"), at(80)).state
    view = gate.view(state, Viewer())
    assert view["move_deadline"] == at(80 + 60).isoformat()
    assert view["deadlines"]["turn"] == at(80 + 60 + 120).isoformat()
    assert gate.view(flow.start(pasted(), SEATS, 5, T0).state, Viewer())["move_deadline"] is None


def test_it_gives_the_mover_the_legal_destinations_of_each_claiming_kind():
    state = open_scouts(begin())  # the EC moves first: their pawns go toward rank 8
    legal = gate.view(state, Viewer(seat=EC))["legal"]
    destinations = legal["destinations"]
    assert set(destinations) == {"K", "Q", "R", "B", "N", "P"}
    assert destinations["N"]["a1"].split() == ["b3", "c2"]
    assert set(destinations["P"]["e2"].split()) == {"e3", "e4", "d3", "f3"}
    assert "e1" not in destinations["P"] and "e8" not in destinations["P"]
    assert set(destinations["R"]["a1"].split()) == {
        *(f"a{r}" for r in range(2, 9)),
        *["b1", "c1", "d1", "e1", "f1", "g1", "h1"],
    }
    pairs = {(s, e) for s, ends in destinations["Q"].items() for e in ends.split()}
    assert pairs == set(engine.legal_moves("Q", True))


def test_the_second_players_pawn_destinations_point_toward_rank_1():
    state = open_scouts(begin())
    state = play(state, (EC, PASS))
    destinations = gate.view(state, Viewer(seat=DMO))["legal"]["destinations"]
    assert set(destinations["P"]["e7"].split()) == {"e6", "e5", "d6", "f6"}


def test_destinations_stay_the_same_all_board_long_and_only_legal_claims_may_use_them():
    state = open_scouts(begin())
    mover = gate.view(state, Viewer(seat=EC))["legal"]
    waiting = gate.view(state, Viewer(seat=DMO))["legal"]
    # Whoever's turn it is, a seat's destinations are its pieces' moves on this board (a
    # turn's update does not send them again); what it may do now is in "claim" and "scout".
    assert set(mover["destinations"]) == set(waiting["destinations"]) == set("KQRBNP")
    assert waiting["claim"] == [] and waiting["scout"] == [] and not waiting["pass"]
    assert gate.view(state, Viewer())["legal"] is None


# --- what the page says (issue 21: tried as players would) ---------------------------------------


def page_for(state: dict, viewer: Viewer) -> dict:
    return pages.page(gate.view(state, viewer))


def test_the_chooser_and_then_the_mover_are_the_seats_to_move() -> None:
    state = flow.start(pasted(), SEATS, 5, T0).state
    assert gate.view(state, Viewer(DMO))["to_move"] == [DMO]  # the DMO chooses on board 1
    state = flow.act(state, DMO, {"type": "choose_order", "first": False}, T0).state
    assert gate.view(state, Viewer.spectator())["to_move"] == [EC]


def test_everyone_is_told_who_moves_first_and_which_way_the_pawns_go() -> None:
    state = begin(first=DMO)
    assert page_for(state, Viewer(DMO))["order_text"] == (
        "You move first on this board: your pawns go up, toward rank 8; "
        "Ann’s go down, toward rank 1."
    )
    assert page_for(state, Viewer(EC))["order_text"] == (
        "Bob moves first on this board: Bob’s pawns go up, toward rank 8; "
        "your go down, toward rank 1."
    )
    assert page_for(state, Viewer.spectator())["order_text"].startswith("Bob moves first")


def test_the_rest_of_a_claim_that_hit_a_mine_is_marked_a_tile_for_everyone() -> None:
    board = board_text(["c1", "a8", "b8", "c8", "d8", "e8", "f8", "g8", "h8", "h7"])
    state = play(begin(pasted(board, scout_turns=0)), (EC, claim("R1", "a1", "d1")))
    for viewer in (Viewer(EC), Viewer(DMO), Viewer.spectator()):
        cells = {c["cell"]: c for row in page_for(state, viewer)["board_grid"]["rows"] for c in row}
        assert cells["c1"]["css"] == "ps-mine"
        proven = {square for square, c in cells.items() if c.get("marks") == "ps-proven"}
        assert proven == {"a1", "b1", "d1"}
        assert cells["a1"]["css"] == "ps-hidden" and cells["a1"]["label"].startswith(
            "a1, hidden: a tile"
        )
