"""The practice bot's decisions, on real states from the match flow (no database)."""

from __future__ import annotations

import pytest

from games.bejeweled_dm import bot, claims, engine, flow
from games.bejeweled_dm.game import DEATH_MATCH
from games.core.game.gamedef import SeatInfo, Viewer
from tests.flows import T0, at

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
    return flow.start(SETTINGS, SEATS, seed=7, now=T0).state


def seen(state) -> dict:
    """What the bot's seat (1) may see of ``state``: all a bot decides from."""
    return DEATH_MATCH.view(state, Viewer(seat=1))


def best(state) -> int:
    return engine.best_claim(state["board"], {"Swap"}, {"Bend"}, {"Plus"})[0]


@pytest.mark.parametrize("level", bot.LEVELS)
def test_every_level_is_described_for_the_host(level):
    assert DEATH_MATCH.bot_levels == bot.LEVELS
    assert DEATH_MATCH.bot_level_help[level].lower().startswith(level[:4])


def test_an_expert_thinks_like_a_human_before_claiming_the_optimum(state):
    thought = bot.thinking_seconds(seen(state), 1, bot.EXPERT, "claim")
    assert 45 <= thought <= 120
    assert bot.decide(seen(state), 1, bot.EXPERT, at(44)) is None
    assert bot.decide(seen(state), 1, bot.EXPERT, at(thought - 1)) is None
    action = bot.decide(seen(state), 1, bot.EXPERT, at(thought))
    assert action == {"type": "claim", "count": best(state)}


def test_the_thinking_time_is_the_same_on_every_tick_and_differs_between_rounds(state):
    once = bot.thinking_seconds(seen(state), 1, bot.EXPERT, "claim")
    assert bot.thinking_seconds(seen(state), 1, bot.EXPERT, "claim") == once
    other = flow.start(SETTINGS, SEATS, seed=8, now=T0).state
    assert bot.thinking_seconds(seen(other), 1, bot.EXPERT, "claim") != once


def test_a_club_player_claims_four_fifths_of_the_optimum_after_a_minute_or_more(state):
    assert bot.decide(seen(state), 1, bot.CLUB, at(59)) is None
    action = bot.decide(seen(state), 1, bot.CLUB, at(150))
    assert action == {"type": "claim", "count": max(1, best(state) * 4 // 5)}


def test_a_beginner_claims_half_the_optimum_after_a_minute_and_a_half_or_more(state):
    assert bot.decide(seen(state), 1, bot.BEGINNER, at(89)) is None
    action = bot.decide(seen(state), 1, bot.BEGINNER, at(180))
    assert action == {"type": "claim", "count": max(1, best(state) // 2)}


def test_a_short_round_clock_shortens_the_thinking(state):
    short = flow.start({**SETTINGS, "round_seconds": 30}, SEATS, seed=7, now=T0).state
    assert bot.thinking_seconds(seen(short), 1, bot.BEGINNER, "claim") <= 24


def test_an_expert_counterclaims_the_optimum_after_a_few_seconds(state):
    claimed = claims.claim(state, 0, {"type": "claim", "count": 1}, T0).state
    assert bot.decide(seen(claimed), 1, bot.EXPERT, at(3)) is None
    action = bot.decide(seen(claimed), 1, bot.EXPERT, at(12))
    assert action == {"type": "counterclaim", "count": best(state)}


def test_a_beginner_never_counterclaims(state):
    claimed = claims.claim(state, 0, {"type": "claim", "count": 1}, T0).state
    assert bot.decide(seen(claimed), 1, bot.BEGINNER, at(12)) == {"type": "pass"}


def test_a_bot_passes_on_a_claim_it_cannot_beat(state):
    claimed = claims.claim(state, 0, {"type": "claim", "count": 56}, T0).state
    assert bot.decide(seen(claimed), 1, bot.EXPERT, at(12)) == {"type": "pass"}


def test_a_bot_proves_its_claim_with_a_proof_that_reaches_it(state):
    claimed = claims.claim(state, 1, {"type": "claim", "count": best(state)}, T0).state
    to_prove = claims.pass_(claimed, 0, {"type": "pass"}, T0).state
    assert bot.decide(seen(to_prove), 1, bot.EXPERT, at(7)) is None
    action = bot.decide(seen(to_prove), 1, bot.EXPERT, at(25))
    assert action["type"] == "proof"
    assert engine.resolve(state["board"], action["proof"]).removed == best(state)


def test_a_match_seated_with_a_former_level_name_plays_at_the_nearest_level(state):
    action = bot.decide(seen(state), 1, "fast", at(120))
    assert action == {"type": "claim", "count": best(state)}


def test_the_analysis_of_a_round_animates_the_optimum(state):
    result = bot.analysed_round(state["board"], state["offer"])
    assert result["count"] == best(state)
    assert result["steps"][-1]["count"] == result["count"]
