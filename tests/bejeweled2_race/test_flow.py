"""The Bejeweled 2 race's flow: one seed for every seat (the same moves give the same boards),
each limit ending the race, the ranking with its ties, the prizes and the Elimination
Candidate, the host's awards and what each viewer may see, with a hand-advanced clock."""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from functools import partial

import pytest

from games.bejeweled2 import engine, levels
from games.bejeweled2 import flow as bj2
from games.bejeweled2.puzzles import PUZZLES
from games.bejeweled2_race import bot, flow
from games.bejeweled2_race import view as gate
from games.core.game.flowkit import due
from games.core.game.gamedef import SeatInfo, Viewer
from games.core.game.registry import get_game
from tests import flows
from tests.flows import T0, at

SEED = 20_261_126


def seats(count: int) -> list[SeatInfo]:
    return [SeatInfo(i, "", f"Player {i + 1}") for i in range(count)]


def begin(count: int = 3, seed: int = SEED, **settings):
    return flow.start(settings, seats(count), seed, T0).state


def act(state, seat: int, action: dict, seconds: float = 1.0):
    """Play ``action`` for ``seat`` and check that the input state was left alone."""
    before = copy.deepcopy(state)
    outcome = flow.act(state, seat, action, at(seconds))
    assert state == before
    json.dumps(outcome.state)
    return outcome


refused = partial(flows.refused, flow.act)


def board(state, seat: int) -> str:
    return state["boards"][str(seat)]["board"]


def swap(move) -> dict:
    return {"type": "swap", "a": move[0], "b": move[1]}


def best(state, seat: int) -> dict:
    return swap(engine.best_move(board(state, seat)))


def worst(state, seat: int) -> dict:
    """A legal move that scores least at once (for a seat meant to fall behind)."""
    here = board(state, seat)
    moves = engine.legal_moves(here)
    return swap(min(moves, key=lambda m: (engine.swap(here, *m, 0).score, m)))


def play(state, moves: list[tuple[int, object]], start: float = 1.0):
    """Each seat's move in turn, chosen on its board as it is then (``best`` or ``worst``)."""
    outcome = None
    for n, (seat, choose) in enumerate(moves):
        outcome = act(state, seat, choose(state, seat), start + n)
        state = outcome.state
    return state, outcome


# --- the start and the one seed ------------------------------------------------------------------


def test_every_seat_starts_on_the_same_board_and_the_settings_are_checked():
    state = begin(5)
    assert len({board(state, seat) for seat in range(5)}) == 1
    assert state["phase"] == "racing" and due(state, flow.RACE) == at(5 * 60)
    assert state["deadlines"][flow.bar_clock(0)]  # Action by default: every seat's bar runs
    with pytest.raises(ValueError):
        flow.start({}, seats(1), SEED, T0)
    with pytest.raises(ValueError):
        flow.start({}, seats(14), SEED, T0)
    with pytest.raises(ValueError, match="past the last puzzle"):
        get_game(flow.GAME).start(
            {"mode": "puzzles", "puzzle_first": len(PUZZLES) - 1, "puzzle_count": 2},
            seats(2),
            SEED,
            T0,
        )


@pytest.mark.parametrize("mode", ["action", "classic_time", "classic_moves"])
def test_the_same_moves_give_the_same_boards_for_every_seat(mode):
    """Seats 0 and 2 play the same ten moves, at different times and interleaved with seat 1's
    other moves: their boards (refills and reshuffles included) are the same after each."""
    state = begin(3, mode=mode, moves=50, minutes=30)
    for n in range(10):
        move = best(state, 0)
        state = act(state, 0, move, 1 + 3 * n).state
        state = act(state, 1, worst(state, 1), 2 + 3 * n).state
        state = act(state, 2, move, 3 + 3 * n).state
        assert board(state, 0) == board(state, 2)
        assert state["boards"]["0"]["score"] == state["boards"]["2"]["score"]
    assert board(state, 0) != board(state, 1)


def test_a_seat_board_is_the_bejeweled_2_game_those_moves_make():
    """No rule is repeated: a race seat's board is what Bejeweled 2 makes of the moves."""
    state = begin(2, mode="classic_moves", moves=20)
    solo = bj2.start({"mode": "classic"}, [SeatInfo(0, "", "Solo")], SEED, T0).state
    for n in range(6):
        move = best(state, 1)
        state = act(state, 1, move, n + 1).state
        solo = bj2.act(solo, 0, move, at(n + 1)).state
        assert board(state, 1) == solo["board"]
        assert state["boards"]["1"]["score"] == solo["score"]


def test_a_move_is_told_only_to_its_seat():
    state = begin(3, mode="classic_time")
    outcome = act(state, 1, best(state, 1))
    assert outcome.kind == "swapped"
    assert outcome.public == {"seat": 1}
    mine = outcome.private[1]
    assert mine["board"] == board(outcome.state, 1) and mine["steps"] and mine["a"]
    assert set(outcome.private) == {1}


def test_a_seat_plays_only_its_own_board_and_not_after_it_is_done():
    state = begin(2, mode="classic_moves", moves=1)
    refused(state, 5, best(state, 0), code="not_your_game")
    refused(state, 0, {"type": "solution"}, code="unknown_action")
    refused(state, 0, {"type": "undo"}, code="not_puzzle")
    state = act(state, 0, best(state, 0)).state
    assert state["runners"]["0"]["done"] and state["runners"]["0"]["reason"] == "moves_used"
    refused(state, 0, best(state, 0), code="seat_done", now=at(2))
    assert state["phase"] == "racing"  # seat 1 still has its move


# --- the limits ----------------------------------------------------------------------------------


def test_classic_in_moves_ends_when_every_seat_used_its_moves_and_ranks_them():
    state = begin(3, mode="classic_moves", moves=2)
    state, outcome = play(
        state,
        [
            (0, best),
            (1, best),
            (2, worst),
        ],
    )
    assert outcome.result is None
    state, outcome = play(state, [(0, best), (1, best), (2, worst)], start=10)
    assert outcome.result is not None and state["phase"] == "over"
    result = gate.view(state, Viewer.spectator())["result"]
    assert result["totals"] == {k: state["boards"][k]["score"] for k in "012"}
    assert result["totals"]["0"] == result["totals"]["1"] > result["totals"]["2"]
    # Seats 0 and 1 played the same moves: they share first place; seat 2 is last, the EC.
    assert result["places"] == {"0": 1, "1": 1, "2": 3}
    assert result["winner"] is None and result["top"] == [0, 1]
    assert result["elimination_candidate"] == 2 and result["ec_tied"] == []
    assert result["garnets"] == {"0": 2, "1": 2, "2": 0}
    assert outcome.prizes == {0: {"garnets": 2, "tokens": 0}, 1: {"garnets": 2, "tokens": 0},
                              2: {"garnets": 0, "tokens": 0}}  # fmt: skip
    assert "Elimination Candidate" in result["summary"]
    assert state["deadlines"] == {}


def test_a_race_every_seat_ties_says_so_once_and_three_tied_are_listed_as_a_host_says_them():
    state = begin(3, mode="classic_moves", moves=1)
    state, outcome = play(state, [(0, best), (1, best), (2, best)])
    result = gate.view(state, Viewer.spectator())["result"]
    assert result["top"] == [0, 1, 2] and result["elimination_candidate"] is None
    points = f"{result['totals']['0']:,} points"
    assert result["summary"] == (
        f"All 3 players tie with {points}; the host names the Elimination Candidate."
    )
    four = begin(4, mode="classic_moves", moves=1)
    four, _ = play(four, [(0, best), (1, best), (2, best), (3, worst)])
    summary = gate.view(four, Viewer.spectator())["result"]["summary"]
    names = [seat["name"] for seat in four["seats"]]
    assert summary.startswith(f"{names[0]}, {names[1]} and {names[2]} share first place")


def test_classic_against_the_clock_ends_at_the_time_limit_and_refuses_late_moves():
    state = begin(3, mode="classic_time", minutes=2)
    state, _ = play(state, [(0, best), (0, best), (1, best)])
    refused(state, 2, best(state, 2), code="time_up", now=at(120))
    outcome = flow.timeout(state, flow.RACE, at(120))
    assert outcome.kind == "race_over" and outcome.result is not None
    new = outcome.state
    assert all(r["done"] and r["reason"] == "race_over" for r in new["runners"].values())
    result = new["result"]
    assert result["totals"]["2"] == 0 and result["elimination_candidate"] == 2
    # First place earns 2 garnets for each of the two seats behind it.
    assert result["winner"] == 0 and result["garnets"]["0"] == 4 and result["garnets"]["1"] == 2


def test_an_action_bar_puts_its_seat_out_only_when_it_is_really_empty():
    state = begin(2, mode="action", minutes=30)
    when = due(state, flow.bar_clock(0))
    assert when == due(state["boards"]["0"], levels.CLOCK)
    state = act(state, 0, best(state, 0), 10).state
    later = due(state, flow.bar_clock(0))
    assert later > when  # a move filled the bar: its clock moved
    early = flow.timeout(state, flow.bar_clock(0), when)
    assert early.kind == "clock_not_due" and not early.state["runners"]["0"]["done"]
    out = flow.timeout(state, flow.bar_clock(1), due(state, flow.bar_clock(1)))
    assert out.kind == "bar_empty" and out.public == {"seat": 1, "out": True, "reason": "time_up"}
    assert out.result is None and flow.bar_clock(1) not in out.state["deadlines"]
    state = out.state
    refused(state, 1, best(state, 1), code="seat_done", now=at(11))
    last = flow.timeout(state, flow.bar_clock(0), later)
    assert last.result is not None
    result = last.state["result"]
    assert result["winner"] == 0 and result["elimination_candidate"] == 1
    assert result["totals"]["0"] > 0 == result["totals"]["1"]


def test_a_pause_moves_every_bar_and_the_time_limit():
    game = get_game(flow.GAME)
    state = begin(2, mode="action")
    state = act(state, 1, best(state, 1), 5).state
    shifted = game.shift_clocks(state, timedelta(seconds=40))
    for key in (flow.RACE, flow.bar_clock(0), flow.bar_clock(1)):
        assert due(shifted, key) == due(state, key) + timedelta(seconds=40)
    for seat in "01":
        assert due(shifted["boards"][seat], levels.CLOCK) == due(
            state["boards"][seat], levels.CLOCK
        ) + timedelta(seconds=40)
        # The bar holds the same points 40 s later than it would have.
        assert levels.bar_left(shifted["boards"][seat], at(60)) == levels.bar_left(
            state["boards"][seat], at(20)
        )


def test_the_race_tells_its_limit_in_plain_words():
    def limit(**settings) -> str:
        return gate.view(begin(2, **settings), Viewer(seat=0))["race"]["limit"]

    assert limit(mode="classic_time", minutes=1) == "1 minute"
    assert limit(mode="classic_time", minutes=20) == "20 minutes"
    assert limit(mode="puzzles", puzzle_first=0, puzzle_count=1, minutes=10).startswith(
        "1 puzzle from number 1;"
    )
    assert limit(mode="puzzles", puzzle_first=4, puzzle_count=3, minutes=10).startswith(
        "3 puzzles from number 5;"
    )


def test_the_puzzle_race_is_won_by_the_first_to_solve_the_set():
    state = begin(3, mode="puzzles", puzzle_first=0, puzzle_count=2, minutes=10)
    assert board(state, 0) == engine.format_board(engine.parse_board(PUZZLES[0].board))
    refused(state, 0, {"type": "hint"}, code="not_offered")
    assert "hint" not in gate.view(state, Viewer(seat=0))["actions"]
    t = 1
    # Seat 1 solves the first puzzle; seat 0 then solves both.
    for move in PUZZLES[0].solution:
        state = act(state, 1, swap(move), t).state
        t += 1
    assert state["runners"]["1"]["solved"] == 1 and board(state, 1) == engine.format_board(
        engine.parse_board(PUZZLES[1].board)
    )
    outcome = None
    for index in (0, 1):
        for move in PUZZLES[index].solution:
            outcome = act(state, 0, swap(move), t)
            state = outcome.state
            t += 1
    assert outcome.kind == "puzzle_solved" and outcome.result is not None
    result = state["result"]
    assert result["totals"] == {"0": 2, "1": 1, "2": 0}
    assert result["winner"] == 0 and result["elimination_candidate"] == 2
    assert state["runners"]["0"]["reason"] == "solved"
    assert state["runners"]["1"]["reason"] == "race_over"


def test_puzzle_ties_go_to_the_earlier_solve_and_a_stuck_puzzle_is_restarted():
    state = begin(3, mode="puzzles", puzzle_count=3)
    t = 1
    for seat in (2, 1):  # seat 2 solves puzzle 1 before seat 1
        for move in PUZZLES[0].solution:
            state = act(state, seat, swap(move), t).state
            t += 1
    outcome = flow.timeout(state, flow.RACE, at(t))
    result = outcome.state["result"]
    assert result["places"] == {"2": 1, "1": 2, "0": 3}
    assert result["winner"] == 2 and result["elimination_candidate"] == 0
    assert result["garnets"] == {"2": 4, "1": 2, "0": 0}


def test_a_stuck_puzzle_seat_restarts_it():
    state = begin(2, mode="puzzles")
    here = board(state, 0)
    solution = PUZZLES[0].solution
    wrong = next(
        move
        for move in engine.legal_moves(here)
        if tuple(move) != tuple(solution[0])
        and not engine.has_legal_move(engine.format_board(engine.swap(here, *move, None).board))
    )
    stuck = act(state, 0, swap(wrong)).state
    view = gate.view(stuck, Viewer(seat=0))
    assert view["phase"] == "failed" and "swap" not in view["actions"]
    assert bot.decide(view, 0, "greedy", at(10)) == {"type": "restart"}
    again = act(stuck, 0, {"type": "restart"}, 2).state
    assert board(again, 0) == here


# --- the ranking, ties and the host ---------------------------------------------------------


def test_a_shared_last_place_waits_for_the_host_to_name_the_elimination_candidate():
    state = begin(4, mode="classic_time")
    state, _ = play(state, [(0, best), (1, worst)])
    game = get_game(flow.GAME)
    over = flow.timeout(state, flow.RACE, at(300)).state
    result = over["result"]
    assert result["elimination_candidate"] is None and result["ec_tied"] == [2, 3]
    assert result["places"]["2"] == result["places"]["3"] == 3
    assert result["garnets"] == {"0": 6, "1": 4, "2": 0, "3": 0}
    choices = game.award_choices(over, seats(4))
    assert [label for _, label in choices] == [
        "Seat 3: Player 3 is the Elimination Candidate",
        "Seat 4: Player 4 is the Elimination Candidate",
    ]
    flows.refused(lambda s, _seat, a, now: flow.adjudicate(s, a, now), over, 0,
                  {"elimination_candidate": 1}, code="bad_award")  # fmt: skip
    named = flow.adjudicate(over, {"elimination_candidate": 3}, at(301))
    assert named.kind == "ec_named" and named.state["result"]["elimination_candidate"] == 3
    assert named.state["result"]["ec_tied"] == []
    assert gate.view(named.state, Viewer.spectator())["result"]["elimination_candidate"] == 3


def test_a_seat_that_stops_or_drops_keeps_its_score_so_far():
    state = begin(3, mode="classic_time")
    state, _ = play(state, [(0, best), (0, best), (1, best)])
    score = state["boards"]["0"]["score"]
    stopped = act(state, 0, {"type": "end"}, 5)
    assert stopped.kind == "stopped" and stopped.public == {"seat": 0, "out": True}
    # Seat 2 never moves again (its player dropped): the race goes on to its limit.
    over = flow.timeout(stopped.state, flow.RACE, at(300)).state
    assert over["result"]["totals"]["0"] == score and over["result"]["winner"] == 0
    assert over["runners"]["0"]["reason"] == "ended"


def test_the_host_ends_the_race_now_or_names_its_winner():
    game = get_game(flow.GAME)
    state = begin(3, mode="classic_time")
    state, _ = play(state, [(0, best), (1, worst)])
    labels = [label for _, label in game.award_choices(state, seats(3))]
    assert labels[0] == "End the race now, ranked as it stands" and len(labels) == 4
    assert game.end_round_label(state) == "the race now"
    ended = game.end_round(state, at(30))
    assert ended.state["result"]["winner"] == 0
    named = flow.adjudicate(state, {"winner": 2}, at(30))
    result = named.state["result"]
    assert result["winner"] == 2 and result["places"]["2"] == 1 and result["by_host"]
    assert result["elimination_candidate"] == 1  # the lowest of the others
    ranking = gate.view(named.state, Viewer.spectator())["ranking"]
    assert [row["seat"] for row in ranking if row["place"] == 1] == [2]
    flows.refused(lambda s, _seat, a, now: flow.adjudicate(s, a, now), state, 0,
                  {"winner": 7}, code="bad_award")  # fmt: skip


# --- what each viewer sees -------------------------------------------------------------------


def test_a_seat_sees_only_its_own_board_until_the_end():
    state = begin(3, mode="classic_time", spectators="live")
    state, _ = play(state, [(0, best), (1, worst), (2, best)])
    boards = {seat: board(state, seat) for seat in range(3)}
    assert len({boards[0], boards[1]}) == 2
    for seat in range(3):
        seen = json.dumps(get_game(flow.GAME).view(state, Viewer(seat=seat)))
        for other in range(3):
            rows = boards[other].split("\n")
            if boards[other] == boards[seat]:
                continue
            assert not any(row in seen for row in rows if row not in boards[seat]), (seat, other)
        view = gate.view(state, Viewer(seat=seat))
        assert view["board"] == boards[seat] and view["boards"] is None
        assert view["ranking"] is None and view["you"]
    for viewer in (Viewer.spectator(), Viewer.host()):
        view = get_game(flow.GAME).view(state, viewer)
        assert [b["rows"] for b in view["boards"]] == [boards[s].split("\n") for s in range(3)]
        assert {row["seat"] for row in view["ranking"] if row["place"] == 1} <= {0, 2}
        assert "board" not in view and not view["you"]
    over = flow.timeout(state, flow.RACE, at(300)).state
    after = gate.view(over, Viewer(seat=1))
    assert [b["rows"] for b in after["boards"]] == [boards[s].split("\n") for s in range(3)]
    assert after["actions"] == [] and min(row["place"] for row in after["ranking"]) == 1


def test_the_host_may_show_the_ranking_but_never_the_boards():
    state = begin(3, mode="classic_time", show_ranking=True)
    state = act(state, 2, best(state, 2)).state
    view = gate.view(state, Viewer(seat=0))
    first = min(view["ranking"], key=lambda row: row["place"])
    assert first["seat"] == 2 and view["boards"] is None
    assert [row["seat"] for row in view["ranking"]] == [0, 1, 2]  # in seat order
    assert view["place"] == 2 and view["race"]["show_ranking"]
    assert not any("rows" in row or "board" in row for row in view["ranking"])


def test_a_seat_is_told_no_place_while_the_ranking_is_hidden():
    state = begin(3, mode="classic_time")
    state = act(state, 2, best(state, 2)).state
    for seat in range(3):
        view = gate.view(state, Viewer(seat=seat))
        assert "place" not in view and view["ranking"] is None
    over = flow.timeout(state, flow.RACE, at(300)).state
    assert gate.view(over, Viewer(seat=0))["place"] in (1, 2)


def test_spectators_see_by_default_what_the_players_see():
    for show_ranking in (False, True):
        state = begin(3, mode="classic_time", show_ranking=show_ranking)
        state = act(state, 2, best(state, 2)).state
        seen = gate.view(state, Viewer.spectator())
        assert seen["boards"] is None
        assert (seen["ranking"] is not None) is show_ranking
        start = board(state, 0).split("\n")  # seats 0 and 1 have not moved
        moved = [row for row in board(state, 2).split("\n") if row not in start]
        assert moved and not any(row in json.dumps(seen) for row in moved)
        host = gate.view(state, Viewer.host())
        assert [b["rows"] for b in host["boards"]][2] == board(state, 2).split("\n")


def test_spectators_may_see_the_ranking_only():
    state = begin(3, mode="classic_time", spectators="ranking")
    state = act(state, 2, best(state, 2)).state
    seen = gate.view(state, Viewer.spectator())
    assert seen["boards"] is None and min(seen["ranking"], key=lambda r: r["place"])["seat"] == 2
    assert gate.view(state, Viewer(seat=0))["ranking"] is None  # the players' setting stands


def test_held_back_boards_show_each_seat_as_it_was_that_many_moves_ago():
    state = begin(2, mode="classic_time", spectators="held_back", held_back_moves=2)
    start = board(state, 0)
    after = []
    for _ in range(3):
        state = act(state, 0, best(state, 0)).state
        after.append(board(state, 0))
    seen = gate.view(state, Viewer.spectator())
    mine = seen["boards"][0]
    assert mine["rows"] == after[0].split("\n") and mine["held_back"] and mine["bar"] is None
    assert seen["boards"][1]["rows"] == start.split("\n")  # no move yet: the start board
    assert seen["ranking"] is None and after[-1].split("\n") != mine["rows"]
    assert gate.view(state, Viewer.host())["boards"][0]["rows"] == after[-1].split("\n")


def test_the_seed_is_shown_to_no_one():
    state = begin(2)
    for viewer in (Viewer(seat=0), Viewer.spectator(), Viewer.host()):
        assert str(SEED) not in json.dumps(get_game(flow.GAME).view(state, viewer))


# --- the bot -----------------------------------------------------------------------------------


def test_bots_play_their_own_boards_to_the_end_of_a_race():
    game = get_game(flow.GAME)
    state = game.start({"mode": "classic_moves", "moves": 4}, seats(3), SEED, T0).state
    now = T0
    levels = ["greedy", "random", "relaxed"]
    for _ in range(200):
        if state["phase"] == "over":
            break
        now += timedelta(seconds=1)
        for seat in range(3):
            action = game.bot_action(game.view(state, Viewer(seat=seat)), seat, levels[seat], now)
            if action is not None:
                state = game.act(state, seat, action, now).state
    assert state["phase"] == "over"
    assert all(state["boards"][k]["moves"] == 4 for k in "012")
    assert state["result"]["totals"]["0"] >= state["result"]["totals"]["2"] > 0


def test_a_seat_page_hints_its_own_best_swap_and_spectators_get_no_hint():
    game = get_game(flow.GAME)
    state = begin(2, mode="classic_time")
    state = act(state, 1, worst(state, 1)).state
    for seat in (0, 1):
        best = list(engine.best_move(board(state, seat)))
        assert game.idle_hint(state, Viewer(seat=seat)) == best
        view = game.view(state, Viewer(seat=seat))
        assert "idle_hint" not in view  # searched when the idle page asks, not in every frame
        assert view["grid"]["rows"][0][0]["cell"] == "A1"
    assert game.idle_hint(state, Viewer.spectator()) is None
    assert game.idle_hint(state, Viewer.host()) is None
    over = flow.timeout(state, flow.RACE, at(300)).state
    assert game.idle_hint(over, Viewer(seat=0)) is None
