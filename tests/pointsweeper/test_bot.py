"""The Pointsweeper bot and the judgement it shares with the after-board analysis.

The posterior (games/pointsweeper/analysis.py) is checked by hand on small scouts, and against a
rejection sampler over whole random boards; the bot plays whole matches through flow.act and
flow.timeout, and is shown to decide the same whatever the hidden tiles are.
"""

from __future__ import annotations

import json
import math
import random
from datetime import datetime, timedelta

import numpy as np
import pytest

from games.core.game.flowkit import derived_seed
from games.core.game.gamedef import SeatInfo, Viewer
from games.pointsweeper import analysis, bot, engine, flow
from games.pointsweeper import view as gate
from tests.flows import T0
from tests.pointsweeper.test_flow import RANK_1_AND_CORNERS, board_text, pasted, scrambled

SEATS = [SeatInfo(0, "EC", "Ann", True), SeatInfo(1, "DMO", "Bob", True)]


def known(scouts=(), revealed=None, safe=()) -> analysis.Knowledge:
    return analysis.Knowledge(
        revealed=dict(revealed or {}),
        safe=set(safe),
        scouts=[(tuple(a), b, c) for a, b, c in scouts],
    )


def value(know: analysis.Knowledge, piece: str, start: str, end: str, before: int = 0) -> dict:
    post = analysis.posterior(know)
    return analysis.claim_value(post, know.revealed, piece, start, end, True, before)


# --- the posterior, by hand ----------------------------------------------------------------------


def test_it_values_a_claim_with_no_scout_from_the_board_alone():
    got = value(known(), "N", "a1", "b3")
    clear = (54 * 53) / (64 * 63)
    mean = 2 * 10 / 64
    variance = 2 * (10 / 64) * (54 / 64) * (62 / 63)
    expected = clear * 3.0 - (variance + mean**2 + mean) / 2
    assert got["ev"] == pytest.approx(expected, abs=1e-3)
    assert got["mine_chance"] == pytest.approx(1 - clear, abs=1e-3)


def test_it_knows_the_tiles_of_a_scout_with_no_mine():
    knight = ("a1", "b3", "c2")
    assert value(known([(knight, 9, 0)]), "N", "a1", "b3")["ev"] == pytest.approx(6.0)


def test_it_weighs_one_mine_among_three_squares():
    knight = ("a1", "b3", "c2")
    got = value(known([(knight, 7, 1)]), "N", "a1", "b3")
    assert got["mine_chance"] == pytest.approx(2 / 3, abs=1e-3)
    assert got["ev"] == pytest.approx(7 / 3 - 2 / 3, abs=1e-3)


def test_it_charges_the_next_mines_on_top_of_those_already_claimed():
    knight = ("a1", "b3", "c2")
    got = value(known([(knight, 0, 3)]), "N", "a1", "b3", before=4)
    assert got["mine_chance"] == 1.0
    assert got["ev"] == pytest.approx(-(5 + 6))


def test_it_counts_only_the_unclaimed_part_of_an_old_scout():
    knight = ("a1", "b3", "c2")
    know = known([(knight, 9, 0)], revealed={"c2": 5})
    assert value(know, "N", "a1", "b3")["ev"] == pytest.approx(4.0)


def test_it_knows_the_rest_of_a_path_that_hit_a_mine_is_tiles():
    know = known(revealed={"a2": "M"}, safe={"a1", "a3"})
    chance = analysis.posterior(know).mine_chance()
    assert chance["a1"] == 0.0 and chance["a3"] == 0.0
    assert chance["h8"] == pytest.approx(9 / 61)


def test_it_reads_knowledge_from_the_log_and_only_its_own_notebook():
    log = [
        {"n": 1, "seat": 0, "type": "scout", "piece": "Q", "square": "d4"},
        {
            "n": 2,
            "seat": 1,
            "type": "claim",
            "path": ["a1", "a2", "a3"],
            "values": {"a2": "M"},
            "mines": 1,
        },
    ]
    notebook = [{"n": 1, "counted": ["d4", "d5"], "sum": 3, "mines": 0}]
    know = analysis.knowledge(log, notebook)
    assert know.revealed == {"a2": "M"}
    assert know.safe == {"a1", "a3"}
    assert know.scouts == [(("d4", "d5"), 3, 0)]
    assert analysis.knowledge(log, notebook, before=2).revealed == {}


def test_it_gives_no_weight_to_sums_the_tiles_cannot_make():
    king = ("a1", "a2", "b1", "b2")
    post = analysis.posterior(known([(king, 20, 1)]))
    assert post.vectors == 0 or all(post.mines[:, post.region_of["a1"]] == 0)


def _sampled(scouts: list[tuple[tuple[str, ...], int, int]], samples: int, seed: int):
    """Random match boards that agree with ``scouts``: (cells with mines as 9, accepted mask)."""
    rng = np.random.default_rng(seed)
    mines = np.argsort(rng.random((samples, 64)), axis=1)[:, :10]
    cells = rng.integers(-2, 6, size=(samples, 64))
    np.put_along_axis(cells, mines, 9, axis=1)
    ok = np.ones(samples, dtype=bool)
    for squares, total, count in scouts:
        idx = [engine.square_index(s) for s in squares]
        part = cells[:, idx]
        ok &= ((part == 9).sum(axis=1) == count) & (
            np.where(part == 9, 0, part).sum(axis=1) == total
        )
    return cells, ok


def test_it_agrees_with_a_rejection_sampler_on_overlapping_scouts():
    board = engine.parse_board(board_text(RANK_1_AND_CORNERS[2:] + ["b2", "h2"], default=2))
    scouts = []
    for piece, square in (("K", "a1"), ("N", "a1")):
        squares = engine.scout_squares(piece, square, True)
        scouts.append((squares, *engine.scout(board, piece, square, True)))
    cells, ok = _sampled(scouts, 400_000, seed=7)
    accepted = cells[ok]
    assert len(accepted) > 300
    post = analysis.posterior(known(scouts))
    chance = post.mine_chance()
    for square in ("a1", "a2", "b2", "b3", "h8"):
        sampled = float(np.mean(accepted[:, engine.square_index(square)] == 9))
        spread = 3 * math.sqrt(max(sampled * (1 - sampled), 0.01) / len(accepted))
        assert chance[square] == pytest.approx(sampled, abs=spread + 0.03)
    for piece, start, end in (("K", "a1", "a2"), ("N", "a1", "b3"), ("R", "a1", "a3")):
        path = [engine.square_index(s) for s in engine.move_path(piece, start, end, True)]
        part = accepted[:, path]
        hit = (part == 9).sum(axis=1)
        worth = np.where(hit > 0, 0, part.sum(axis=1)) - hit * (hit + 1) / 2
        got = analysis.claim_value(post, {}, piece, start, end, True, 0)
        assert got["ev"] == pytest.approx(float(worth.mean()), abs=0.35)


# --- the bot -------------------------------------------------------------------------------------


def run_match(levels: dict[int, str], seed: int, settings: dict | None = None) -> dict:
    """Two bots play a whole match, the clock ticking two seconds at a time."""
    now = T0
    state = flow.start(settings or {}, SEATS, seed, now).state
    for _ in range(5000):
        if state["phase"] == "over":
            return state
        now += timedelta(seconds=2)
        late = [k for k, due in state["deadlines"].items() if datetime.fromisoformat(due) <= now]
        if late:
            state = flow.timeout(state, late[0], now).state
            continue
        for seat in (0, 1):
            action = bot.decide(gate.view(state, Viewer(seat=seat)), seat, levels[seat], now)
            if action is not None:
                state = flow.act(state, seat, action, now).state
                break
    raise AssertionError("the match did not end")


def test_two_club_bots_play_a_whole_match():
    state = run_match({0: bot.CLUB, 1: bot.CLUB}, seed=4)
    assert state["winner"] in (0, 1)
    assert len(state["history"]) == 3
    claims = [e for r in state["history"] for e in r["log"] if e["type"] == "claim"]
    assert len(claims) > 10
    assert not [e for r in state["history"] for e in r["log"] if e.get("reason") == "time"]


def test_a_club_bot_and_a_beginner_play_a_whole_match():
    state = run_match({0: bot.BEGINNER, 1: bot.CLUB}, seed=2)
    final = state["final"]
    assert final["total"] == [
        p - engine.triangular(m) for p, m in zip(final["points"], final["mines"], strict=True)
    ]
    assert state["winner"] == (0 if final["total"][0] > final["total"][1] else 1)


def _in_play(seed: int = 3) -> dict:
    state = flow.start({}, SEATS, seed, T0).state
    state = flow.act(state, 1, {"type": "choose_order", "first": False}, T0).state
    for seat, piece, square in ((0, "Q", "d4"), (1, "Q", "e5"), (0, "R1", "a8"), (1, "N1", "c3")):
        state = flow.act(state, seat, {"type": "scout", "piece": piece, "square": square}, T0).state
    return state


def test_it_waits_a_human_moment_before_moving():
    state = _in_play()
    view = gate.view(state, Viewer(seat=0))
    assert bot.decide(view, 0, bot.CLUB, T0 + timedelta(seconds=1)) is None
    assert bot.decide(view, 0, bot.CLUB, T0 + timedelta(seconds=10)) is not None
    assert bot.decide(view, 0, bot.BEGINNER, T0 + timedelta(seconds=5)) is None
    assert bot.decide(view, 1, bot.CLUB, T0 + timedelta(seconds=30)) is None


def test_its_human_moment_is_drawn_from_the_turn_it_sees():
    view = gate.view(_in_play(), Viewer(seat=0))
    draws = random.Random(derived_seed(view["board_no"], view["turn_started"], 0, "delay"))
    moves_at = datetime.fromisoformat(view["turn_started"]) + timedelta(
        seconds=draws.uniform(*bot.DELAY[bot.CLUB])
    )
    assert bot.decide(view, 0, bot.CLUB, moves_at - timedelta(milliseconds=1)) is None
    assert bot.decide(view, 0, bot.CLUB, moves_at) is not None


def test_it_decides_the_same_whatever_the_hidden_tiles_are():
    state = _in_play()
    state = flow.act(state, 0, {"type": "scout", "piece": "B1", "square": "c1"}, T0).state
    state = flow.act(state, 1, {"type": "scout", "piece": "B1", "square": "f1"}, T0).state
    rng = random.Random(5)
    later = T0 + timedelta(seconds=30)
    for _ in range(5):
        twin = scrambled(state, 0, rng)
        assert twin["boards"] != state["boards"]
        view, twin_view = gate.view(state, Viewer(seat=0)), gate.view(twin, Viewer(seat=0))
        assert twin_view == view
        assert bot.decide(twin_view, 0, bot.CLUB, later) == bot.decide(view, 0, bot.CLUB, later)


def test_it_chooses_the_order_when_it_is_the_chooser():
    state = flow.start({}, SEATS, 1, T0).state
    view = gate.view(state, Viewer(seat=1))
    assert bot.decide(view, 1, bot.CLUB, T0 + timedelta(seconds=20)) == {
        "type": "choose_order",
        "first": True,
    }
    assert bot.decide(gate.view(state, Viewer(seat=0)), 0, bot.CLUB, T0 + timedelta(20)) is None


def test_it_passes_when_no_claim_pays():
    text = board_text(RANK_1_AND_CORNERS, default=-2)
    state = flow.start(pasted(text, scout_turns=16), SEATS, 1, T0).state
    state = flow.act(state, 1, {"type": "choose_order", "first": False}, T0).state
    state = flow.act(state, 0, {"type": "pass"}, T0).state
    for _ in range(16):
        view = gate.view(state, Viewer(seat=1))
        action = bot.choose_move(view, 1, bot.CLUB)
        assert action["type"] == "scout"
        state = flow.act(state, 1, action, T0).state
    assert bot.choose_move(gate.view(state, Viewer(seat=1)), 1, bot.CLUB) == {"type": "pass"}


def test_it_claims_a_scouted_sure_thing():
    text = board_text(RANK_1_AND_CORNERS, {"d4": 5, "d5": 5, "e4": 5, "e5": 5}, default=0)
    state = flow.start(pasted(text, scout_turns=1), SEATS, 1, T0).state
    state = flow.act(state, 1, {"type": "choose_order", "first": False}, T0).state
    state = flow.act(state, 0, {"type": "scout", "piece": "K", "square": "d4"}, T0).state
    state = flow.act(state, 1, {"type": "pass"}, T0).state
    action = bot.choose_move(gate.view(state, Viewer(seat=0)), 0, bot.CLUB)
    assert action["type"] == "claim"
    path = engine.move_path(action["piece"], action["start"], action["end"], True)
    assert set(path) <= {"d4", "d5", "e4", "e5", "c3", "c4", "c5", "d3", "e3"}
    assert len(path) == 3


# --- the after-board analysis --------------------------------------------------------------------


def _finished_board() -> dict:
    text = board_text(RANK_1_AND_CORNERS, {"d4": 5, "d5": 5, "e4": 5, "e5": 5}, default=0)
    state = flow.start(pasted(text, scout_turns=1), SEATS, 1, T0).state
    state = flow.act(state, 1, {"type": "choose_order", "first": False}, T0).state
    moves = [
        (0, {"type": "scout", "piece": "K", "square": "d4"}),
        (1, {"type": "scout", "piece": "Q", "square": "a1"}),
        (0, {"type": "claim", "piece": "N1", "start": "g5", "end": "h7"}),
        (1, {"type": "claim", "piece": "R1", "start": "a2", "end": "a1"}),
        (0, {"type": "pass"}),
        (1, {"type": "pass"}),
    ]
    for seat, action in moves:
        state = flow.act(state, seat, action, T0).state
    return state


def test_it_values_each_claim_made_beside_the_best_ones():
    state = _finished_board()
    job = flow.analysis_job(state)
    result = flow.run_analysis(job)
    mine = result["seats"]["0"]
    assert [d["type"] for d in mine] == ["claim", "pass"]
    made = mine[0]
    assert made["piece"] == "N1" and made["start"] == "g5"
    assert made["ev"] <= made["best"][0]["ev"]
    assert made["rank"] > 1
    assert {"d4", "e5"} <= set(made["best"][0]["squares"]) or {"d4", "d5"} <= set(
        made["best"][0]["squares"]
    )
    assert mine[1]["ev"] == 0.0
    theirs = result["seats"]["1"][0]
    assert theirs["mines"] == 1 and theirs["mine_chance"] > 0


def test_it_analyses_a_player_only_from_their_own_scouts():
    state = _finished_board()
    job = flow.analysis_job(state)
    changed = json.loads(json.dumps(job))
    changed["notebooks"]["1"][0]["sum"] += 7
    changed["notebooks"]["1"][0]["mines"] = 0
    a, b = flow.run_analysis(job), flow.run_analysis(changed)
    assert a["seats"]["0"] == b["seats"]["0"]
    assert a["seats"]["1"] != b["seats"]["1"]


def test_it_gives_the_same_analysis_every_time():
    job = flow.analysis_job(_finished_board())
    assert flow.run_analysis(job) == flow.run_analysis(json.loads(json.dumps(job)))
