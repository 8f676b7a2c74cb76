"""A host's correction of a match's result, after the season read it: the season follows while
it still can (the nomination open, or no later episode begun), and says so when it cannot."""

from __future__ import annotations

import pytest

from games.core.host import console
from games.core.match import host_operations, services
from games.core.models import Match
from games.seasons import episodes, nominations, tick
from games.seasons.models import CastMember, Episode

pytestmark = pytest.mark.django_db


def test_a_corrected_main_match_names_another_elimination_candidate(nominating):
    episode = nominating
    host = episode.season.format.hosts.get()
    main = Match.objects.with_seats().get(pk=episode.main_match_id)
    first = episode.elimination_candidate
    host_operations.host_correct_result(main, host, {"winner": 1}, "seat 2 won, not seat 1")
    tick.run_clocks()
    episode.refresh_from_db()
    assert episode.phase == Episode.Phase.MAIN_MATCH and episode.elimination_candidate is None
    host_operations.host_adjudicate(main, host, {"elimination_candidate": 2, "reason": "a coin"})
    tick.run_clocks()
    episode.refresh_from_db()
    third = CastMember.objects.get(user=main.seats.get(index=2).user)
    assert episode.phase == Episode.Phase.NOMINATION
    assert episode.elimination_candidate == third != first
    assert [event.text for event in episode.events.all()][-2:] == [
        f"The host corrected the main match: {first.name} is no longer the EC.",
        f"{third.name} is the Elimination Candidate of episode 1.",
    ]


def test_a_corrected_death_match_eliminates_the_other_player(nominating):
    episode = nominating
    host = episode.season.format.hosts.get()
    candidate = episode.elimination_candidate
    opponent = nominations.nomination_state(episode)["eligible"][0]
    nominations.nominate(episode, candidate.user, opponent.pk)
    dm = episodes.create_death_match(episode, host, "fixture-tally", {"target": 2})
    services.submit_action(dm, candidate.user, {"type": "add", "amount": 2})
    tick.run_clocks()
    opponent.refresh_from_db()
    assert opponent.status == CastMember.Status.ELIMINATED and opponent.elimination_order == 1

    host_operations.host_correct_result(dm, host, {"winner": 1}, "the DMO's last add was lost")
    tick.run_clocks()
    tick.run_clocks()  # read once: nothing more happens
    episode.refresh_from_db()
    candidate.refresh_from_db()
    opponent.refresh_from_db()
    assert episode.eliminated == candidate
    assert candidate.status == CastMember.Status.ELIMINATED and candidate.elimination_order == 1
    assert candidate.eliminated_by == opponent
    assert opponent.status == CastMember.Status.IN and opponent.elimination_order is None
    texts = [event.text for event in episode.events.all()]
    assert texts[-2:] == [
        f"The host corrected the death match of episode 1: {opponent.name} won it and is back in.",
        f"{opponent.name} won the death match: {candidate.name} is eliminated (episode 1).",
    ]


def play_death_match(episode: Episode):
    """The EC names the first eligible DMO and wins the death match: (dm, candidate, opponent)."""
    host = episode.season.format.hosts.get()
    candidate = episode.elimination_candidate
    opponent = nominations.nomination_state(episode)["eligible"][0]
    nominations.nominate(episode, candidate.user, opponent.pk)
    dm = episodes.create_death_match(episode, host, "fixture-tally", {"target": 2})
    services.submit_action(dm, candidate.user, {"type": "add", "amount": 2})
    tick.run_clocks()
    return Match.objects.with_seats().get(pk=dm.pk), candidate, opponent


def test_the_correction_menu_says_who_becomes_the_elimination_candidate(nominating, make_user):
    main = Match.objects.with_seats().get(pk=nominating.main_match_id)
    names = {seat.index: seat.player_name for seat in main.seats.all()}
    labels = [choice["label"] for choice in console.correction_choices(main)]
    # Everyone scored 0: whoever the host names the winner, the other two tie for EC.
    assert labels == [
        f"{names[w]} wins; {' and '.join(names[s] for s in sorted({0, 1, 2} - {w}))} tie for "
        "Elimination Candidate (you settle it after)"
        for w in (0, 1, 2)
    ]
    assert console.correction_warning(main).startswith("The season follows")


def test_a_main_match_corrected_after_the_nomination_warns_and_keeps_the_candidate(nominating):
    episode = nominating
    host = episode.season.format.hosts.get()
    candidate = episode.elimination_candidate
    opponent = nominations.nomination_state(episode)["eligible"][0]
    nominations.nominate(episode, candidate.user, opponent.pk)
    main = Match.objects.with_seats().get(pk=episode.main_match_id)
    assert console.correction_warning(main) == (
        "The season has moved on: a correction fixes this match and the ledger only; "
        f"{candidate.name} stays the Elimination Candidate of episode 1."
    )
    host_operations.host_correct_result(main, host, {"winner": 2}, "seat 3 won")
    tick.run_clocks()
    tick.run_clocks()  # read once
    episode.refresh_from_db()
    assert episode.elimination_candidate == candidate and episode.opponent == opponent
    texts = [event.text for event in episode.events.all()]
    assert texts[-1] == (
        "The host corrected the main match of episode 1 after the season moved on: "
        f"{candidate.name} stays its Elimination Candidate."
    )
    assert texts.count(texts[-1]) == 1


def test_a_death_match_corrected_after_the_season_moved_on_tells_who_stays_out(nominating):
    from games.notifications import kinds
    from games.notifications.models import Notification

    episode = nominating
    season = episode.season
    host = season.format.hosts.get()
    dm, candidate, opponent = play_death_match(episode)
    assert "The season follows" in console.correction_warning(dm)
    episodes.start_final(season, host, "fixture-tally", {"target": 2}, candidate.pk)
    assert console.correction_warning(dm) == (
        "The season has moved on: a correction fixes this match and the ledger only; "
        f"{opponent.name}'s elimination stands."
    )
    assert "elimination stands" in " ".join(c["confirm"] for c in console.correction_choices(dm))
    host_operations.host_correct_result(dm, host, {"winner": 1}, "the DMO's last add was lost")
    tick.run_clocks()

    opponent.refresh_from_db()
    assert opponent.status == CastMember.Status.ELIMINATED
    told = Notification.objects.filter(kind=kinds.ELIMINATED_OR_SAVED, text__contains="corrected")
    assert {note.user: note.text for note in told} == {
        opponent.user: "The host corrected the death match of episode 1: you won it, but the "
        "season had moved on: your elimination stands.",
        candidate.user: "The host corrected the death match of episode 1 after the season "
        f"moved on: {opponent.name}'s elimination stands, and you stay in.",
    }


def test_the_host_log_names_people_shows_a_corrections_credits_and_times_in_utc(nominating, client):
    episode = nominating
    season = episode.season
    host = season.format.hosts.get()
    main = Match.objects.with_seats().get(pk=episode.main_match_id)
    candidate = episode.elimination_candidate
    host_operations.host_correct_result(main, host, {"winner": 1}, "seat 2 won, not seat 1")
    client.force_login(host)
    page = client.get(f"/seasons/{season.pk}/audit/").content.decode()

    assert f"{candidate.name} the Elimination Candidate" in page and "Seat " not in page
    assert "The host reversed an entry" in page  # the old result's payments
    assert "The correction credited" in page  # and the new ones
    assert " UTC</time>" in page


def test_the_last_placed_candidates_ledger_row_names_the_match_once(nominating, client):
    from games.core.match import ledger

    candidate = nominating.elimination_candidate
    main = Match.objects.with_seats().get(pk=nominating.main_match_id)
    seat = main.seats.get(user=candidate.user).index
    ledger.credit_prizes(main, {seat: {"garnets": 1}}, version=main.version)  # last, yet paid
    client.force_login(candidate.user)
    page = client.get(f"/seasons/{nominating.season.pk}/").content.decode()
    rows = page[page.index("Your ledger this season") :]
    assert rows.count(main.title) == 1 and "won in" not in rows
    assert "Paid for the result of" in rows
