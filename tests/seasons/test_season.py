"""A whole small season through the service layer, on a fake clock: five players, three
episodes. Main matches of Seven Gem Swap played by the practice bot for each player, the
Elimination Candidate's nomination (on time, then left to the clock), death matches,
eliminations and a Token of Life spent; the standings and the export checked at each step."""

from __future__ import annotations

import csv
import io
import json

import pytest

from games.core.game.gamedef import ActionError, Viewer
from games.core.match import deadlines, host_operations, ledger, services
from games.core.models import LedgerEntry, Match
from games.notifications import kinds
from games.notifications.models import Notification
from games.seasons import cast, episodes, hosts, nominations, standings, tick
from games.seasons.models import CastMember, Episode
from games.seven_gem_swap import bot

pytestmark = pytest.mark.django_db

CAST = ("ada", "bob", "cy", "dee", "eve")
QUICK_MAIN = {"bid_seconds": 60, "round_seconds": 60}


def told(season) -> tuple[str, set[str], str]:
    """The season's latest notification: its kind, who got it and its words."""
    latest = Notification.objects.filter(season=season).order_by("-pk").first()
    kind, text = latest.kind, latest.text
    users = Notification.objects.filter(season=season, kind=kind, text=text)
    return kind, {note.user.username for note in users}, text


@pytest.fixture
def cast_season(make_user, clock):
    host = make_user("hostess", is_staff=True)
    users = {name: make_user(name) for name in CAST}
    season = hosts.create_season(name="ORG 1", host=host, settings={"nomination_minutes": 60})
    token = season.format.invite_token
    for name, user in users.items():
        member = cast.ask_to_join(season, user, token, name.title())
        cast.admit(season, host, member.pk)
    return season, host, users


def play_main_match(match: Match, clock) -> Match:
    """Each player's seat is played by the practice bot (deciding from that seat's view);
    the clock moves on half a minute whenever no one is ready."""
    for _ in range(400):
        match = Match.objects.with_seats().get(pk=match.pk)
        if match.is_over:
            return match
        acted = False
        for seat in match.seats.all():
            view = match.game.view(match.state, Viewer(seat=seat.index))
            action = bot.decide(view, seat.index, "beginner", clock())
            if action is not None:
                services.submit_action(match, seat.user, action)
                acted = True
                break
        if not acted:
            clock.advance(30)
            deadlines.fire_due_deadlines()
    raise AssertionError("the main match never ended")


def settle_main_match(match: Match, host) -> None:
    """A tie for the lowest total is settled by the host, through the match's host operation."""
    result = episodes.main_match_result(match)
    if result["elimination_candidate"] is None:
        host_operations.host_adjudicate(
            match, host, {"elimination_candidate": result["ec_tied"][0], "reason": "a coin"}
        )


def play_death_match(match: Match, winner_role: str) -> None:
    """A fixture death match (count to 2, EC first): the EC wins by adding 2, else the DMO."""
    match = Match.objects.with_seats().get(pk=match.pk)
    ec, dmo = (seat.user for seat in match.seats.all())
    if winner_role == "EC":
        services.submit_action(match, ec, {"type": "add", "amount": 2})
    else:
        services.submit_action(match, ec, {"type": "add", "amount": 1})
        services.submit_action(match, dmo, {"type": "add", "amount": 1})


def table(season):
    return standings.season_table(season)


def cast_row(season, name):
    return next(row for row in table(season)["cast"] if row["name"] == name)


def exported(season) -> tuple[dict, list[dict]]:
    data = table(season)
    json.dumps(data)  # the JSON export is this table
    rows = list(csv.DictReader(io.StringIO(standings.season_csv(data))))
    return data, rows


def test_a_whole_season(cast_season, clock):
    season, host, users = cast_season
    assert [row["status"] for row in table(season)["cast"]] == ["in"] * 5

    # Episode 1: the main match seats all five; nothing of it shows while it is played.
    episode = episodes.start_episode(season, host, "seven-gem-swap", QUICK_MAIN)
    assert told(season)[:2] == (kinds.EPISODE_STARTS, set(CAST))
    main = Match.objects.with_seats().get(pk=episode.main_match_id)
    assert main.season == season and main.status == Match.Status.LIVE
    assert {seat.user.username for seat in main.seats.all()} == set(CAST)
    data, rows = exported(season)
    assert data["episodes"][0]["placings"] == []
    assert data["episodes"][0]["main_match"]["status"] == "live"
    assert data["episodes"][0]["main_match"]["replay_url"] is None
    main = play_main_match(main, clock)
    settle_main_match(main, host)
    tick.run_clocks()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.NOMINATION
    ec = episode.elimination_candidate
    result = episodes.main_match_result(Match.objects.with_seats().get(pk=main.pk))
    ec_seat = next(s for s in main.seats.all() if s.user_id == ec.user_id).index
    assert result["elimination_candidate"] == ec_seat
    assert told(season)[:2] == (kinds.ELIMINATION_CANDIDATE, {ec.user.username})
    assert "name your Death Match Opponent" in told(season)[2]
    data, rows = exported(season)
    placings = data["episodes"][0]["placings"]
    assert len(placings) == 5 and placings[-1]["elimination_candidate"] is True
    assert placings[-1]["name"] == ec.name
    assert data["episodes"][0]["elimination_candidate"] == ec.name
    assert data["episodes"][0]["main_match"]["replay_url"].endswith("/replay/")
    ec_row = next(row for row in rows if row["player"] == ec.name)
    assert "EC" in ec_row["episode 1"]
    # The main match's winner won Tokens of Life: they are shielded from the nomination.
    holders = [row["name"] for row in data["cast"] if row["tokens_of_life"] > 0]
    assert holders and ec.name not in holders
    shielded = CastMember.objects.get(season=season, name=holders[0])
    with pytest.raises(ActionError) as refused:
        nominations.nominate(episode, ec.user, shielded.pk)
    assert refused.value.code == "shielded"
    with pytest.raises(ActionError) as refused:
        nominations.nominate(episode, users[next(n for n in CAST if n != ec.user.username)], ec.pk)
    assert refused.value.code == "not_candidate"
    # On time: the EC names an unshielded opponent.
    state = nominations.nomination_state(episode)
    opponent = state["eligible"][0]
    assert opponent.name not in holders
    nominations.nominate(episode, ec.user, opponent.pk)
    assert told(season)[:2] == (kinds.NOMINATED, {opponent.user.username})
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.DEATH_MATCH_SETUP and not episode.nominated_by_host
    dm = episodes.create_death_match(episode, host, "fixture-tally", {"target": 2})
    assert [(s.role, s.user_id) for s in dm.seats.all()] == [
        ("EC", ec.user_id),
        ("DMO", opponent.user_id),
    ]
    data, _ = exported(season)
    assert data["episodes"][0]["death_match_opponent"] == opponent.name
    assert data["episodes"][0]["nominated_by"] == "EC"
    assert data["episodes"][0]["death_match"]["status"] == "live"
    play_death_match(dm, winner_role="DMO")
    tick.run_clocks()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.OVER and episode.eliminated == ec
    assert told(season)[:2] == (kinds.ELIMINATED_OR_SAVED, {ec.user.username})
    data, rows = exported(season)
    out = cast_row(season, ec.name)
    assert out["status"] == "eliminated" and out["elimination_order"] == 1
    assert out["eliminated_in"] == 1 and out["eliminated_by"] == opponent.name
    assert data["cast"][-1]["name"] == ec.name  # the eliminated are listed after those in
    assert data["episodes"][0]["death_match_winner"] == opponent.name
    ec_row = next(row for row in rows if row["player"] == ec.name)
    assert ec_row["status"] == "Eliminated" and "eliminated" in ec_row["episode 1"]
    first_out = ec

    # Episode 2: four players; the EC lets the nomination clock run out; the host names one.
    episode = episodes.start_episode(season, host, "seven-gem-swap", QUICK_MAIN)
    main = play_main_match(episode.main_match, clock)
    assert first_out.user_id not in {s.user_id for s in main.seats.all()}
    settle_main_match(main, host)
    tick.run_clocks()
    episode.refresh_from_db()
    ec = episode.elimination_candidate
    assert episode.phase == Episode.Phase.NOMINATION
    clock.advance(59 * 60)
    tick.run_clocks()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.NOMINATION
    clock.advance(61)
    state = nominations.nomination_state(episode)
    late = state["eligible"][0]
    with pytest.raises(ActionError) as refused:
        nominations.nominate(episode, ec.user, late.pk)
    assert refused.value.code == "clock_ran_out"
    episode.refresh_from_db()
    assert episode.opponent is None
    tick.run_clocks()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.HOST_NOMINATION
    assert told(season)[:2] == (kinds.NOMINATION_NOT_MADE, {"hostess"})
    with pytest.raises(ActionError) as refused:
        nominations.nominate(episode, ec.user, late.pk)
    assert refused.value.code == "clock_ran_out"
    nominations.nominate(episode, host, late.pk)
    episode.refresh_from_db()
    assert episode.opponent == late and episode.nominated_by_host
    dm = episodes.create_death_match(episode, host, "fixture-tally", {"target": 2})
    play_death_match(dm, winner_role="EC")
    tick.run_clocks()
    episode.refresh_from_db()
    assert episode.eliminated == late
    data, rows = exported(season)
    assert data["episodes"][1]["nominated_by"] == "host"
    assert cast_row(season, late.name)["elimination_order"] == 2
    assert [row["name"] for row in data["cast"][-2:]] == [late.name, first_out.name]

    # Episode 3: three players; the EC spends a Token of Life and no one leaves.
    episode = episodes.start_episode(season, host, "seven-gem-swap", QUICK_MAIN)
    main = play_main_match(episode.main_match, clock)
    settle_main_match(main, host)
    tick.run_clocks()
    episode.refresh_from_db()
    ec = episode.elimination_candidate
    if ledger.held([ec.user_id], season)[ec.user_id]["tokens"] == 0:
        ledger.adjust(ec.user, season, 0, 1, "a Token of Life from a side game", host)
    tokens_before = cast_row(season, ec.name)["tokens_of_life"]
    nominations.spend_token(episode, ec.user)
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.OVER and episode.token_spent
    assert episode.eliminated is None and episode.opponent is None
    spent = LedgerEntry.objects.filter(user=ec.user, season=season).first()
    assert spent.tokens_of_life == -1 and "episode 3" in spent.reason
    assert cast_row(season, ec.name)["tokens_of_life"] == tokens_before - 1
    assert told(season)[:2] == (kinds.ELIMINATED_OR_SAVED, {ec.user.username})
    data, rows = exported(season)
    assert data["episodes"][2]["token_spent"] is True
    assert any("spent a Token of Life" in line["text"] for line in data["log"])
    assert [row["status"] for row in data["cast"]] == ["in", "in", "in", "eliminated", "eliminated"]
    ec_row = next(row for row in rows if row["player"] == ec.name)
    assert "EC, spent a Token of Life" in ec_row["episode 3"]
    with pytest.raises(ActionError):
        nominations.spend_token(episode, ec.user)  # the episode is over: nothing changes
    assert LedgerEntry.objects.filter(user=ec.user, season=season, tokens_of_life=-1).count() == 1


def test_the_final_crowns_the_last_player(make_user, client):
    host = make_user("hostess", is_staff=True)
    season = hosts.create_season(name="ORG 9", host=host, settings={})
    finalists = []
    for name in ("ada", "bob", "cy"):
        member = cast.ask_to_join(season, make_user(name), season.format.invite_token, name)
        cast.admit(season, host, member.pk, admitted=name != "cy")
        finalists.append(member)
    ada, bob, _ = finalists
    with pytest.raises(ActionError) as refused:
        episodes.start_episode(season, host, "seven-gem-swap", {})
    assert refused.value.code == "too_few_players"
    client.force_login(host)
    page = client.get(f"/seasons/{season.pk}/").content.decode()
    assert f"/seasons/{season.pk}/final/glittering-paths/" in page
    episode = episodes.start_final(season, host, "fixture-tally", {"target": 2}, ada.pk)
    dm = Match.objects.with_seats().get(pk=episode.death_match_id)
    assert [(s.role, s.user_id) for s in dm.seats.all()] == [
        ("EC", ada.user_id),
        ("DMO", bob.user_id),
    ]
    page = client.get(episode.get_absolute_url()).content.decode()
    assert "ada (EC) against bob (DMO): the winner wins the season" in page
    play_death_match(dm, winner_role="EC")
    tick.run_clocks()
    data, rows = exported(season)
    assert [(row["name"], row["status"]) for row in data["cast"]] == [
        ("ada", "winner"),
        ("bob", "eliminated"),
    ]
    assert data["log"][-1]["text"] == "ada wins ORG 9."
    assert rows[0]["status"] == "Winner" and "won the death match" in rows[0]["episode 1"]
    with pytest.raises(ActionError) as refused:
        episodes.start_final(season, host, "fixture-tally", {}, ada.pk)
    assert refused.value.code == "not_final"


def with_settings(season, **changes) -> None:
    season.format.settings = {**season.format.settings, **changes}
    season.format.save()


def test_the_candidate_picks_the_death_match_when_the_season_says_so(nominating):
    episode = nominating
    with_settings(episode.season, death_match_picker="ec", death_match_games=["pointsweeper"])
    candidate = episode.elimination_candidate
    opponent = nominations.nomination_state(episode)["eligible"][0]
    with pytest.raises(ActionError) as refused:
        nominations.nominate(episode, candidate.user, opponent.pk, "glittering-paths")
    assert refused.value.code == "bad_game"
    episode.refresh_from_db()
    assert episode.opponent is None and episode.death_match is None
    nominations.nominate(episode, candidate.user, opponent.pk, "pointsweeper")
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.DEATH_MATCH
    dm = Match.objects.with_seats().get(pk=episode.death_match_id)
    assert dm.game_key == "pointsweeper" and dm.status == Match.Status.LIVE
    assert [(s.role, s.user_id) for s in dm.seats.all()] == [
        ("EC", candidate.user_id),
        ("DMO", opponent.user_id),
    ]


def test_a_season_rule_saves_a_loser_who_holds_a_token(nominating):
    episode = nominating
    season = episode.season
    host = season.format.hosts.get()
    with_settings(season, token_saves_loser=True)
    candidate = episode.elimination_candidate
    opponent = nominations.nomination_state(episode)["eligible"][0]
    ledger.adjust(candidate.user, season, 0, 1, "won at cards", host)
    nominations.nominate(episode, candidate.user, opponent.pk)
    dm = episodes.create_death_match(episode, host, "fixture-tally", {"target": 2})
    play_death_match(dm, winner_role="DMO")  # the fixture pays its loser a Token of Life too
    tokens_before = ledger.held([candidate.user_id], season)[candidate.user_id]["tokens"]
    tick.run_clocks()
    episode.refresh_from_db()
    candidate.refresh_from_db()
    assert episode.saved == candidate and episode.eliminated is None
    assert candidate.status == CastMember.Status.IN
    assert ledger.held([candidate.user_id], season)[candidate.user_id]["tokens"] == (
        tokens_before - 1
    )
    assert told(season)[:2] == (kinds.ELIMINATED_OR_SAVED, {candidate.user.username})
    row = standings.season_table(season)["episodes"][0]
    assert row["saved"] == candidate.name and row["death_match_winner"] == opponent.name
