"""The season ledger is append-only and never negative: entries are never changed or deleted (in
code or in the dashboard), a correction is a new entry that names the one it reverses, the host's
adjustments are checked and signed, and the public standings count a live match's entries only
once it has ended while each player sees their own at once."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from games.core.game.gamedef import ActionError
from games.core.match import host_operations, ledger, seating, services
from games.core.models import AppendOnlyError, LedgerEntry, Match, Season

pytestmark = pytest.mark.django_db


@pytest.fixture
def season():
    return Season.objects.create(name="Season 2", is_current=True)


@pytest.fixture
def players(make_user, season):
    """The host (staff) and the players Ada and Bob, in a current season."""
    host = make_user("hostess", is_staff=True, is_superuser=True)
    return host, make_user("ada"), make_user("bob")


def new_tally(host, ada, bob) -> Match:
    match = seating.create_match(
        host=host, game_key="fixture-tally", title="Tally", settings={}, roles=["EC", "DMO"]
    )
    seats = list(match.seats.order_by("index"))
    seating.take_seat(match, ada, seats[0].invite_token)
    seating.take_seat(match, bob, seats[1].invite_token)
    return Match.objects.get(pk=match.pk)


def play_to_the_end(match: Match, ada, bob) -> Match:
    """Bob reaches the target: Bob is paid 3 garnets, Ada a Token of Life."""
    for player, amount in [(ada, 3), (bob, 3), (ada, 3), (bob, 1)]:
        services.submit_action(match, player, {"type": "add", "amount": amount})
    return Match.objects.get(pk=match.pk)


@pytest.fixture
def finished(players):
    host, ada, bob = players
    return play_to_the_end(new_tally(host, ada, bob), ada, bob)


def held(user, season) -> dict[str, int]:
    return LedgerEntry.balance(user, season)


# --- append-only, in code -----------------------------------------------------------------------


def test_an_entry_cannot_be_changed_once_written(players, season):
    _, ada, _ = players
    entry = LedgerEntry.objects.create(user=ada, season=season, garnets=5, reason="won")
    entry.garnets = 50
    with pytest.raises(AppendOnlyError):
        entry.save()
    with pytest.raises(AppendOnlyError):
        LedgerEntry.objects.filter(pk=entry.pk).update(garnets=50)
    assert LedgerEntry.objects.get(pk=entry.pk).garnets == 5


def test_an_entry_cannot_be_deleted(players, season):
    _, ada, _ = players
    entry = LedgerEntry.objects.create(user=ada, season=season, garnets=5, reason="won")
    with pytest.raises(AppendOnlyError):
        entry.delete()
    with pytest.raises(AppendOnlyError):
        LedgerEntry.objects.filter(pk=entry.pk).delete()
    assert LedgerEntry.objects.filter(pk=entry.pk).exists()


def test_a_player_or_match_with_entries_cannot_be_deleted_from_under_them(finished):
    from django.db.models import ProtectedError

    bob = LedgerEntry.objects.get(match=finished, garnets=3).user
    with pytest.raises(ProtectedError), transaction.atomic():
        bob.delete()
    with pytest.raises(ProtectedError), transaction.atomic():
        finished.delete()
    assert LedgerEntry.objects.filter(match=finished).count() == 2


def test_an_entry_is_reversed_at_most_once_by_the_database_itself(players, season):
    host, ada, _ = players
    entry = LedgerEntry.objects.create(user=ada, season=season, garnets=5, reason="won")
    LedgerEntry.objects.create(user=ada, season=season, garnets=-5, reason="x", reverses=entry)
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerEntry.objects.create(user=ada, season=season, garnets=-5, reason="y", reverses=entry)


# --- host adjustments ---------------------------------------------------------------------------


def test_an_adjustment_is_written_with_its_reason_and_the_host_who_made_it(players, season):
    host, ada, _ = players
    entry = ledger.adjust(ada, season, garnets=4, tokens=1, reason="won the quiz", actor=host)
    assert (entry.garnets, entry.tokens_of_life, entry.made_by, entry.match) == (4, 1, host, None)
    assert entry.reason == "won the quiz"
    assert held(ada, season) == {"garnets": 4, "tokens_of_life": 1}


def test_an_adjustment_needs_a_reason(players, season):
    host, ada, _ = players
    with pytest.raises(ActionError) as refused:
        ledger.adjust(ada, season, garnets=4, tokens=0, reason="  ", actor=host)
    assert refused.value.code == "reason_needed"
    assert not LedgerEntry.objects.exists()


def test_a_deduction_below_zero_is_refused_with_the_balance(players, season):
    host, ada, _ = players
    ledger.adjust(ada, season, garnets=1, tokens=0, reason="a start", actor=host)
    with pytest.raises(ActionError) as refused:
        ledger.adjust(ada, season, garnets=-2, tokens=0, reason="fine", actor=host)
    assert refused.value.code == "below_zero"
    assert refused.value.message == (
        "Ada holds 1 garnet in Season 2: taking 2 would leave -1; a balance never goes below 0"
    )
    with pytest.raises(ActionError) as refused:
        ledger.adjust(ada, season, garnets=0, tokens=-1, reason="fine", actor=host)
    assert "Ada holds 0 Tokens of Life in Season 2" in refused.value.message
    assert held(ada, season) == {"garnets": 1, "tokens_of_life": 0}
    ledger.adjust(ada, season, garnets=-1, tokens=0, reason="fine", actor=host)
    assert held(ada, season)["garnets"] == 0


def test_a_deduction_is_checked_in_its_own_season(players, season):
    host, ada, _ = players
    other = Season.objects.create(name="Season 1")
    ledger.adjust(ada, other, garnets=9, tokens=0, reason="last season", actor=host)
    with pytest.raises(ActionError):
        ledger.adjust(ada, season, garnets=-1, tokens=0, reason="fine", actor=host)


# --- reversals ----------------------------------------------------------------------------------


def test_reversing_a_match_names_every_entry_it_reverses(finished, players, season):
    host, ada, bob = players
    originals = list(LedgerEntry.objects.filter(match=finished).order_by("pk"))
    made = ledger.reverse_match_entries(finished, host, "Bob's last add was a misclick")
    assert sorted(e.reverses_id for e in made) == [e.pk for e in originals]
    for entry in made:
        assert entry.match == finished and entry.made_by == host and entry.season == season
        assert entry.garnets == -entry.reverses.garnets
        assert entry.tokens_of_life == -entry.reverses.tokens_of_life
        assert entry.reason == "Bob's last add was a misclick"
    assert held(bob, season) == held(ada, season) == {"garnets": 0, "tokens_of_life": 0}


def test_a_second_correction_reverses_only_what_the_first_one_wrote(finished, players, season):
    host, ada, bob = players
    ledger.reverse_match_entries(finished, host, "wrong winner")
    corrected = ledger.credit_prizes(finished, {0: {"garnets": 3}, 1: {"tokens": 1}})
    again = ledger.reverse_match_entries(finished, host, "the first result stood after all")
    assert sorted(e.reverses_id for e in again) == sorted(e.pk for e in corrected)
    ledger.credit_prizes(finished, {1: {"garnets": 3}, 0: {"tokens": 1}})
    assert held(bob, season) == {"garnets": 3, "tokens_of_life": 0}
    assert held(ada, season) == {"garnets": 0, "tokens_of_life": 1}
    assert ledger.reverse_match_entries(finished, host, "no") != []
    assert ledger.reverse_match_entries(finished, host, "nothing left") == []


def test_a_reversal_that_would_leave_a_player_below_zero_is_refused(finished, players, season):
    host, _, bob = players
    ledger.adjust(bob, season, garnets=-2, tokens=0, reason="bought a hint", actor=host)
    with pytest.raises(ActionError) as refused:
        ledger.reverse_match_entries(finished, host, "wrong winner")
    assert refused.value.code == "below_zero"
    assert refused.value.message.startswith("Bob holds 1 garnet in Season 2: taking 3")
    assert not LedgerEntry.objects.filter(reverses__isnull=False).exists()


def test_the_entries_of_a_live_match_are_reversed_only_once_it_has_ended(players, season):
    host, ada, bob = players
    match = new_tally(host, ada, bob)
    with pytest.raises(ActionError) as refused:
        ledger.reverse_match_entries(match, host, "too soon")
    assert refused.value.code == "match_live"


def test_one_entry_is_reversed_once_and_a_reversal_is_not_reversed(players, season):
    host, ada, _ = players
    entry = ledger.adjust(ada, season, garnets=4, tokens=0, reason="typo: meant 1", actor=host)
    undone = ledger.reverse_entry(entry, host, "typo")
    assert (undone.reverses, undone.garnets, undone.made_by) == (entry, -4, host)
    with pytest.raises(ActionError) as refused:
        ledger.reverse_entry(entry, host, "again")
    assert refused.value.code == "already_reversed"
    with pytest.raises(ActionError) as refused:
        ledger.reverse_entry(undone, host, "undo the undo")
    assert refused.value.code == "is_a_reversal"
    assert held(ada, season)["garnets"] == 0


# --- what the public sees, and what a player sees of their own ----------------------------------


def standings_by_name(season: Season) -> dict[str, tuple[int, int]]:
    return {row["name"]: (row["garnets"], row["tokens_of_life"]) for row in season.standings()}


def test_the_standings_count_a_live_matchs_entries_only_once_it_has_ended(players, season):
    host, ada, bob = players
    match = new_tally(host, ada, bob)
    ledger.adjust(ada, season, garnets=2, tokens=0, reason="a start", actor=host)
    with transaction.atomic():
        ledger.credit_prizes(match, {0: {"garnets": -2, "reason": "premove in round 1"}})
    assert standings_by_name(season) == {"Ada": (2, 0)}  # the adjustment at once, not the charge
    host_operations.host_abort(match, host)
    assert standings_by_name(season) == {"Ada": (0, 0)}


def test_the_standings_count_a_finished_match(finished, season):
    assert standings_by_name(season) == {"Ada": (0, 1), "Bob": (3, 0)}


def live_match_with_a_charge(players, season) -> Match:
    host, ada, bob = players
    ledger.adjust(ada, season, garnets=5, tokens=0, reason="a start", actor=host)
    match = new_tally(host, ada, bob)
    with transaction.atomic():
        ledger.credit_prizes(match, {0: {"garnets": -2, "reason": "premove in round 4"}})
    return match


def test_a_spectator_does_not_see_a_live_matchs_charge_on_the_season_page(client, players, season):
    live_match_with_a_charge(players, season)
    page = client.get(season.get_absolute_url()).content.decode()
    assert "<td>Ada</td><td>0</td><td>5</td>" in page
    assert "premove" not in page and ">3<" not in page


def test_another_player_does_not_see_a_live_matchs_charge(client, players, season):
    live_match_with_a_charge(players, season)
    client.force_login(players[2])
    page = client.get(season.get_absolute_url()).content.decode()
    assert "<td>Ada</td><td>0</td><td>5</td>" in page
    assert "premove" not in page


def test_a_player_sees_their_own_live_charge_at_once(client, players, season):
    live_match_with_a_charge(players, season)
    client.force_login(players[1])
    page = client.get(season.get_absolute_url()).content.decode()
    assert "premove in round 4" in page
    assert 'You hold <b class="garnets">3</b> garnets' in page


# --- the dashboard ------------------------------------------------------------------------------


@pytest.fixture
def host_client(client, players):
    client.force_login(players[0])
    return client


def test_the_dashboard_shows_a_match_entry_but_offers_no_change(host_client, finished):
    entry = LedgerEntry.objects.get(match=finished, garnets=3)
    url = reverse("admin:core_ledgerentry_change", args=[entry.pk])
    page = host_client.get(url).content.decode()
    for field in ("user", "match", "season", "garnets", "tokens_of_life", "reason"):
        assert f'name="{field}"' not in page, field
    response = host_client.post(url, {"garnets": 300, "reason": "edited"})
    assert response.status_code == 403
    assert LedgerEntry.objects.get(pk=entry.pk).garnets == 3


def test_the_dashboard_offers_no_delete(host_client, finished):
    entry = LedgerEntry.objects.get(match=finished, garnets=3)
    changelist = host_client.get(reverse("admin:core_ledgerentry_changelist")).content.decode()
    assert "delete_selected" not in changelist
    response = host_client.post(reverse("admin:core_ledgerentry_delete", args=[entry.pk]))
    assert response.status_code == 403
    response = host_client.post(
        reverse("admin:core_ledgerentry_changelist"),
        {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"},
    )
    assert LedgerEntry.objects.filter(pk=entry.pk).exists()


def test_the_dashboard_adds_an_adjustment_signed_by_the_host(host_client, players, season):
    host, ada, _ = players
    add = reverse("admin:core_ledgerentry_add")
    page = host_client.get(add).content.decode()
    assert "Add an adjustment" in page and 'name="match"' not in page
    form = {"user": ada.pk, "season": season.pk, "garnets": 2, "tokens_of_life": 0}
    response = host_client.post(add, {**form, "reason": ""})
    assert response.status_code == 200 and not LedgerEntry.objects.exists()
    response = host_client.post(add, {**form, "reason": "won the quiz"})
    assert response.status_code == 302
    entry = LedgerEntry.objects.get()
    assert (entry.user, entry.garnets, entry.made_by, entry.reason) == (
        ada,
        2,
        host,
        "won the quiz",
    )


def test_the_dashboard_refuses_a_deduction_below_zero(host_client, players, season):
    _, ada, _ = players
    response = host_client.post(
        reverse("admin:core_ledgerentry_add"),
        {"user": ada.pk, "season": season.pk, "garnets": -1, "tokens_of_life": 0, "reason": "x"},
    )
    assert response.status_code == 200
    assert "Ada holds 0 garnets in Season 2: taking 1 would leave -1" in response.content.decode()
    assert not LedgerEntry.objects.exists()


def test_the_dashboard_reverses_selected_entries_with_a_reason(host_client, finished, players):
    host = players[0]
    entries = list(LedgerEntry.objects.filter(match=finished))
    response = host_client.post(
        reverse("admin:core_ledgerentry_changelist"),
        {"action": "reverse_entries", "_selected_action": [e.pk for e in entries]},
    )
    assert response.status_code == 302
    form_url = response["Location"]
    page = host_client.get(form_url).content.decode()
    assert "Reverse 2 entries" in page and 'name="reason"' in page
    response = host_client.post(form_url, {"reason": ""})
    assert response.status_code == 200 and not LedgerEntry.objects.filter(made_by=host).exists()
    response = host_client.post(form_url, {"reason": "the match was replayed"})
    assert response.status_code == 302
    made = LedgerEntry.objects.filter(made_by=host)
    assert sorted(made.values_list("reverses_id", flat=True)) == sorted(e.pk for e in entries)
    changelist = host_client.get(reverse("admin:core_ledgerentry_changelist")).content.decode()
    assert "reverses #" in changelist


def test_the_dashboard_explains_a_refused_reversal(host_client, finished, players):
    host = players[0]
    entry = LedgerEntry.objects.get(match=finished, garnets=3)
    ledger.reverse_entry(entry, host, "first")
    url = reverse("admin:core_ledgerentry_reverse") + f"?ids={entry.pk}"
    response = host_client.post(url, {"reason": "second"})
    assert response.status_code == 200
    assert "already reversed" in response.content.decode()
    assert LedgerEntry.objects.filter(reverses=entry).count() == 1
