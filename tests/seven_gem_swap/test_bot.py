"""Seven Gem Swap practice bots: they decide from their own seat's view alone and play whole
matches through flow.act and flow.timeout."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from games.core.game.gamedef import SeatInfo, Viewer
from games.seven_gem_swap import bot, engine, flow, submissions
from games.seven_gem_swap import view as gate
from tests.flows import T0
from tests.seven_gem_swap.test_flow import secret_keys_outside


def start(n: int, seed: int = 3) -> dict:
    seats = [SeatInfo(index=i, role="player", name=f"Bot {i}", is_bot=True) for i in range(n)]
    return flow.start({"round_seconds": 300, "bid_seconds": 120}, seats, seed, T0).state


def run_match(state: dict, levels: dict[int, str], scripted=None, step: int = 15) -> dict:
    """Advance the clock ``step`` seconds at a time; every bot looks at its own view and acts;
    a clock that runs out fires timeout. ``scripted(state, seat, now)`` plays the other seats."""
    now = T0
    for _ in range(2000):
        if state["phase"] == "over":
            return state
        now += timedelta(seconds=step)
        for seat in range(len(state["seats"])):
            if state["phase"] == "over":
                break
            if seat in levels:
                shown = gate.view(state, Viewer(seat=seat))
                action = bot.decide(json.loads(json.dumps(shown)), seat, levels[seat], now)
            else:
                action = scripted(state, seat, now) if scripted else None
            if action is not None:
                state = flow.act(state, seat, action, now).state
        for key, when in list(state["deadlines"].items()):
            if datetime.fromisoformat(when) <= now:
                state = flow.timeout(state, key, now).state
    raise AssertionError("the match never ended")


def test_seven_bots_play_a_whole_match() -> None:
    levels = dict(enumerate(["beginner", "club", "expert", "club", "expert", "beginner", "club"]))
    state = run_match(start(7), levels)
    assert state["phase"] == "over"
    assert len(state["history"]) == flow.ROUNDS
    assert sorted(state["colours"].values()) == sorted(engine.COLOURS)
    # Every bot played all seven cards, one a round from round 2, and never missed a round.
    assert all(sorted(cards) == sorted(engine.COLOURS) for cards in state["played"].values())
    assert all(len(entry["public"]["submitted"]) == 7 for entry in state["history"])
    assert state["result"]["summary"]


def test_every_bot_view_stays_free_of_other_seats_secrets() -> None:
    state = start(7, seed=5)
    levels = dict.fromkeys(range(7), "club")
    now = T0
    while state["phase"] != "over":
        now += timedelta(seconds=15)
        for seat in range(7):
            shown = gate.view(state, Viewer(seat=seat))
            assert not secret_keys_outside(shown, "me")
            action = bot.decide(shown, seat, levels[seat], now)
            if action is not None and state["phase"] != "over":
                state = flow.act(state, seat, action, now).state
    assert state["result"] is not None


def test_two_bots_and_a_scripted_player_finish_a_match() -> None:
    def scripted(state: dict, seat: int, now: datetime) -> dict | None:
        if state["phase"] == "bidding" and str(seat) not in state["bids"]:
            return {"type": "bid", "bid": -10, "colours": "RGB"}
        if state["phase"] == "round" and str(seat) not in state["submissions"]:
            board = engine.parse_board(state["board"])
            colour = state["colours"][str(seat)]
            gem = next(engine.cell_name(i) for i, c in enumerate(board.cells) if c == colour)
            cards = submissions.cards_left(state, str(seat))
            card = None if state["round"] == 1 else cards[0]
            return {"type": "submit", "gem": gem, "moves": "", "card": card}
        return None

    state = run_match(start(3), {1: "expert", 2: "beginner"}, scripted)
    assert state["colours"]["0"] == "R" and state["starting_scores"]["0"] == -10
    assert state["phase"] == "over"


def test_a_bot_waits_like_a_person_before_bidding() -> None:
    state = start(2)
    shown = gate.view(state, Viewer(seat=0))
    assert bot.decide(shown, 0, "club", T0 + timedelta(seconds=5)) is None
    action = bot.decide(shown, 0, "club", T0 + timedelta(seconds=11))
    assert action is not None and action["type"] == "bid"
    engine.parse_bid(action["bid"], action["colours"])


def test_a_bot_acts_when_the_deadline_is_near() -> None:
    state = start(2)
    state["deadlines"]["bidding"] = (T0 + timedelta(seconds=3)).isoformat()
    assert bot.decide(gate.view(state, Viewer(seat=0)), 0, "beginner", T0) is not None


def test_a_bot_does_nothing_once_it_has_submitted() -> None:
    state = start(2)
    action = bot.decide(gate.view(state, Viewer(seat=0)), 0, "club", T0 + timedelta(seconds=60))
    state = flow.act(state, 0, action, T0 + timedelta(seconds=60)).state
    assert (
        bot.decide(gate.view(state, Viewer(seat=0)), 0, "club", T0 + timedelta(seconds=61)) is None
    )


def test_a_bot_only_acts_for_the_seat_whose_view_it_holds() -> None:
    state = start(2)
    assert bot.decide(gate.view(state, Viewer(seat=1)), 0, "club", T0 + timedelta(hours=1)) is None
    assert (
        bot.decide(gate.view(state, Viewer.spectator()), 0, "club", T0 + timedelta(hours=1)) is None
    )


@pytest.mark.parametrize("level", list(bot.BOT_LEVELS))
def test_a_planned_sequence_never_shrinks_the_group(level: str) -> None:
    settings = bot.LEVELS[level]
    for seed in range(10):
        board = engine.format_board(engine.generate_board(seed))
        gem, moves = bot.plan(board, "R", frozenset("RB"), settings.depth, settings.width)
        assert engine.parse_board(board)[gem] == "R"
        result = engine.resolve_round(board, {"me": (gem, moves, False)})
        assert result.failed == {"me": False}
        assert engine.largest_group(result.board, "RB") >= engine.largest_group(board, "RB")


def test_a_deeper_plan_grows_the_group_at_least_as_much() -> None:
    gains = {}
    for level in ("beginner", "expert"):
        settings = bot.LEVELS[level]
        total = 0
        for seed in range(10):
            board = engine.format_board(engine.generate_board(seed))
            gem, moves = bot.plan(board, "G", frozenset("GV"), settings.depth, settings.width)
            after = engine.resolve_round(board, {"me": (gem, moves, False)}).board
            total += engine.largest_group(after, "GV") - engine.largest_group(board, "GV")
        gains[level] = total
    assert gains["expert"] > gains["beginner"] > 0


def test_the_expert_keeps_its_own_card_for_the_last_round() -> None:
    state = run_match(start(2, seed=9), {0: "expert", 1: "expert"})
    for seat in ("0", "1"):
        assert state["played"][seat][-1] == state["colours"][seat]


def test_every_level_has_a_description() -> None:
    assert set(bot.BOT_LEVELS) == set(bot.LEVELS)
    assert all(isinstance(text, str) and text for text in bot.BOT_LEVELS.values())
