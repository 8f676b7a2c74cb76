"""The season's pure rules: who may be named Death Match Opponent, what a Token of Life does,
the main match's places and the settings."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from games.core.game.gamedef import ActionError
from games.seasons import rules

DEFAULTS = rules.default_settings()
T0 = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def test_a_token_holder_cannot_be_named():
    eligible = rules.eligible_opponents([1, 2, 3, 4], 1, {2: 1}, DEFAULTS)
    assert eligible == [3, 4]
    with pytest.raises(ActionError) as refused:
        rules.check_nominee(2, [1, 2, 3, 4], 1, {2: 1}, DEFAULTS)
    assert refused.value.code == "shielded"


def test_when_every_other_player_holds_a_token_anyone_may_be_named():
    assert rules.eligible_opponents([1, 2, 3], 1, {2: 1, 3: 2}, DEFAULTS) == [2, 3]


def test_without_the_shield_setting_token_holders_may_be_named():
    settings = rules.settled({"token_shields": False})
    assert rules.eligible_opponents([1, 2, 3], 1, {2: 1}, settings) == [2, 3]


def test_the_candidate_and_players_out_cannot_be_named():
    for nominee in (1, 9):
        with pytest.raises(ActionError) as refused:
            rules.check_nominee(nominee, [1, 2, 3], 1, {}, DEFAULTS)
        assert refused.value.code == "bad_nominee"


def test_a_token_skips_the_death_match_only_when_held_and_allowed():
    rules.check_token_skip(1, DEFAULTS)
    with pytest.raises(ActionError, match="no Token of Life"):
        rules.check_token_skip(0, DEFAULTS)
    with pytest.raises(ActionError, match="does not skip"):
        rules.check_token_skip(2, rules.settled({"token_skips_death_match": False}))


def test_a_loser_is_saved_only_by_the_setting_and_a_token():
    assert not rules.loser_is_saved(1, DEFAULTS)
    saving = rules.settled({"token_saves_loser": True})
    assert rules.loser_is_saved(1, saving) and not rules.loser_is_saved(0, saving)


def test_the_nomination_clock():
    due = rules.nomination_due(T0, rules.settled({"nomination_minutes": 90}))
    assert due == datetime(2026, 11, 26, 13, 30, tzinfo=UTC)
    assert not rules.nomination_missed(due, T0)
    assert rules.nomination_missed(due, due)


def test_equal_totals_share_a_place():
    assert rules.placings({"0": 40, "1": 75, "2": 40, "3": 10}) == [
        (1, 1, 75, False, False),
        (0, 2, 40, True, False),
        (2, 2, 40, True, False),
        (3, 4, 10, False, False),
    ]


def test_a_tie_the_host_settled_stays_a_shared_place_settled_by_the_host():
    # The host's winner comes first; the Elimination Candidate the host named among equal
    # totals shares their place (listed last in it), each marked as the host's decision.
    assert rules.placings({"0": 0, "1": 0, "2": 0}, winner=2, candidate=0) == [
        (2, 1, 0, False, True),
        (1, 2, 0, True, False),
        (0, 2, 0, True, True),
    ]


def test_a_games_own_places_are_the_order():
    # A race ranks by more than points: its places stand, listed in place order.
    places = {"0": 2, "1": 1, "2": 3}
    rows = rules.placings({"0": 420, "1": 60, "2": 180}, winner=1, candidate=2, places=places)
    assert [(row.seat, row.place, row.by_host) for row in rows] == [
        (1, 1, True),
        (0, 2, False),
        (2, 3, False),
    ]


def test_ordinals():
    assert [rules.ordinal(n) for n in (1, 2, 3, 4, 11, 22)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "22nd",
    ]


def test_the_last_player_in_wins():
    assert rules.season_winner([7]) == 7 and rules.season_winner([7, 8]) is None


def test_a_main_match_seats_three_or_more():
    with pytest.raises(ActionError, match="at least 3"):
        rules.check_main_match_size(2, 2, 7, "Seven Gem Swap")
    with pytest.raises(ActionError, match="seats 2-7"):
        rules.check_main_match_size(8, 2, 7, "Seven Gem Swap")


def test_settings_are_checked():
    with pytest.raises(ValueError, match="nomination_minutes"):
        rules.settled({"nomination_minutes": 0})
    with pytest.raises(ValueError, match="at least one death match"):
        rules.settled({"death_match_picker": "ec", "death_match_games": []})
    with pytest.raises(ValueError, match="unknown setting"):
        rules.settled({"tokens": 3})
