"""The practice bot's decisions, on real states from the match flow (no database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games.bejeweled_dm import bot, engine, flow
from games.core.gamedef import SeatInfo

START = datetime(2026, 1, 1, tzinfo=UTC)
SEATS = [SeatInfo(0, "EC", "Erin"), SeatInfo(1, "DMO", "Bot", is_bot=True)]
SETTINGS = {
    "first_offer": "chosen",
    "offered_starters": ["Swap"],
    "offered_passives": ["Bend"],
    "offered_actives": ["Plus"],
    "claim_window_seconds": 30,
    "proof_seconds": 120,
    "round_seconds": 600,
    "pick_seconds": 60,
    "no_claim_round_to": "DMO",
    "auto_start": True,
}


@pytest.fixture
def state():
    return flow.start(SETTINGS, SEATS, seed=7, now=START).state


def best(state) -> int:
    return engine.best_claim(state["board"], {"Swap"}, {"Bend"}, {"Plus"})[0]


def test_a_fast_bot_waits_a_moment_then_claims_the_optimum(state):
    assert bot.decide(state, 1, bot.FAST, START + timedelta(seconds=1)) is None
    action = bot.decide(state, 1, bot.FAST, START + timedelta(seconds=4))
    assert action == {"type": "claim", "count": best(state)}


def test_a_weaker_bot_claims_two_thirds_of_the_optimum_later(state):
    assert bot.decide(state, 1, bot.WEAKER, START + timedelta(seconds=10)) is None
    action = bot.decide(state, 1, bot.WEAKER, START + timedelta(seconds=21))
    assert action == {"type": "claim", "count": max(1, best(state) * 2 // 3)}


def test_a_waiting_bot_never_claims_first(state):
    assert bot.decide(state, 1, bot.WAITS, START + timedelta(seconds=500)) is None


def test_a_bot_counterclaims_the_optimum_when_it_beats_the_claim(state):
    claimed = flow.claim(state, 0, {"type": "claim", "count": 1}, START).state
    action = bot.decide(claimed, 1, bot.WAITS, START + timedelta(seconds=1))
    assert action == {"type": "counterclaim", "count": best(state)}


def test_a_bot_passes_on_a_claim_it_cannot_beat(state):
    claimed = flow.claim(state, 0, {"type": "claim", "count": 56}, START).state
    assert bot.decide(claimed, 1, bot.FAST, START) == {"type": "pass"}


def test_a_bot_proves_its_claim_with_a_proof_that_reaches_it(state):
    claimed = flow.claim(state, 1, {"type": "claim", "count": best(state)}, START).state
    to_prove = flow.pass_(claimed, 0, {"type": "pass"}, START).state
    action = bot.decide(to_prove, 1, bot.FAST, START)
    assert action["type"] == "proof"
    assert engine.resolve(state["board"], action["proof"]).removed == best(state)


def test_the_analysis_of_a_round_animates_the_optimum(state):
    result = bot.analysed_round(state["board"], state["offer"])
    assert result["count"] == best(state)
    assert result["steps"][-1]["count"] == result["count"]
