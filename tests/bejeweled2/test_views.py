"""Bejeweled 2's pages: starting a game of any mode by yourself, the match page for the player,
a spectator and the host's new-match form, and the high scores built from recorded results."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from games.bejeweled2 import bot, solver, standings
from games.bejeweled2.puzzles import PUZZLES
from games.bejeweled2.standings import puzzle_bests, puzzle_progress
from games.core.game.gamedef import Viewer
from games.core.match import deadlines, services
from games.core.models import Match, Seat

pytestmark = pytest.mark.django_db


def start(client, user, **fields) -> Match:
    client.force_login(user)
    response = client.post("/play/bejeweled-2/", fields)
    assert response.status_code == 302
    match = Match.objects.filter(game_key="bejeweled-2", host=user).latest("created_at")
    assert response["Location"] == match.get_absolute_url()
    return match


def finished_games(user, results: list[dict]) -> list[Match]:
    """Finished games of ``user`` with these recorded results, the first the oldest (written
    straight to the database: a high-score table reads only the results)."""
    first = timezone.now() - timedelta(days=1)
    matches = Match.objects.bulk_create(
        Match(
            game_key="bejeweled-2",
            title="Bejeweled 2",
            host=user,
            status=Match.Status.FINISHED,
            result={"winner": 0, "summary": "Game over.", "moves": 1, "level": 1, **result},
            finished_at=first + timedelta(seconds=n),
        )
        for n, result in enumerate(results)
    )
    Seat.objects.bulk_create(Seat(match=match, index=0, user=user) for match in matches)
    return matches


SCORE_ROW = r'<td>(\d+)</td><td>\d+</td><td class="bj2-hints">'
"""A high-score row's score, then its level (a swap's cascade may reach level 2), up to its hints
cell."""


def table(page: str, mode: str) -> str:
    return page.split(f'data-mode="{mode}"')[1].split("</table>")[0]


def cells(html: str) -> list[str]:
    return re.findall(r'class="cell gem-[a-z]+[^"]*" data-cell="(\w\d)"', html)


def test_the_play_page_offers_a_form_per_mode(client, make_user):
    client.force_login(make_user("ada"))
    html = client.get("/play/bejeweled-2/").content.decode()
    for mode in ("classic", "action", "endless", "puzzle"):
        assert f'name="mode" value="{mode}"' in html
    assert "Play Bejeweled 2 · Action" in html and 'name="puzzle"' in html


def test_a_visitor_is_asked_to_sign_in(client):
    html = client.get("/play/bejeweled-2/").content.decode()
    assert "Sign in to play" in html and 'name="mode"' not in html
    assert client.post("/play/bejeweled-2/", {"mode": "classic"}).status_code == 302
    assert not Match.objects.exists()


@pytest.mark.parametrize("mode", ["classic", "action", "endless", "puzzle"])
def test_anyone_signed_in_starts_a_game_by_themselves(client, make_user, mode):
    ada = make_user("ada")
    match = start(client, ada, mode=mode, puzzle="2")
    assert match.status == Match.Status.LIVE and match.host == ada
    assert match.seats.get().user == ada
    assert match.state["mode"] == mode
    assert match.state["puzzle"] == (2 if mode == "puzzle" else None)


def test_the_hidden_modes_are_closed_until_play_opens_them(client, make_user):
    ada = make_user("ada")
    client.force_login(ada)
    html = client.get("/play/bejeweled-2/").content.decode()
    assert 'name="mode" value="twilight"' not in html
    assert 'data-locked="twilight"' in html and "reach level 17 in Classic" in html
    refused = client.post("/play/bejeweled-2/", {"mode": "twilight"})
    assert refused.status_code == 403 and b"not open to you yet" in refused.content
    finished_games(ada, [{"mode": "classic", "level": 16}, {"mode": "action", "level": 17}])
    # Level 17 in Action opens Hyper (level 8), not Twilight.
    assert client.post("/play/bejeweled-2/", {"mode": "twilight"}).status_code == 403
    finished_games(ada, [{"mode": "classic", "level": 17, "score": 136_000}])
    html = client.get("/play/bejeweled-2/").content.decode()
    assert 'name="mode" value="twilight"' in html and 'data-locked="twilight"' not in html
    assert 'name="mode" value="hyper"' in html and 'data-locked="finity"' in html
    assert client.post("/play/bejeweled-2/", {"mode": "twilight"}).status_code == 302


def test_original_is_open_to_everyone_but_kept_off_the_menu_until_found(client, make_user):
    client.force_login(make_user("ada"))
    html = client.get("/play/bejeweled-2/").content.decode()
    secret = re.search(r'<form[^>]*data-secret="original"[^>]*>', html)
    assert secret and " hidden" in secret.group(0)  # shown by the page once found
    assert 'data-locked="original"' not in html and "js/bejeweled2_menu.js" in html
    response = client.post("/play/bejeweled-2/", {"mode": "original"})
    assert response.status_code == 302
    match = Match.objects.get(game_key="bejeweled-2")
    assert match.state["mode"] == "original" and match.title == "Original game"


def test_a_bad_mode_is_refused(client, make_user):
    client.force_login(make_user("ada"))
    assert client.post("/play/bejeweled-2/", {"mode": "blitz"}).status_code == 400
    assert not Match.objects.exists()


def test_the_player_sees_the_board_and_the_controls(client, make_user):
    match = start(client, make_user("ada"), mode="action")
    html = client.get(match.get_absolute_url()).content.decode()
    assert len(cells(html)) == 64 and cells(html)[:2] == ["A1", "B1"]
    assert 'data-grid="board"' in html and 'data-action="hint"' in html
    assert 'data-action="end"' in html
    assert "bj2-action-bar" in html and 'data-drain="5"' in html
    assert "js/bejeweled2.js" in html and "js/grid.js" in html and "css/bejeweled2.css" in html
    assert "Ada (you)" in html


def test_the_player_is_told_the_idle_limit_before_and_during_a_game(client, make_user):
    match = start(client, make_user("ada"), mode="classic")
    assert "left without a move for 30 minutes ends as abandoned" in (
        client.get("/play/bejeweled-2/").content.decode()
    )
    html = client.get(match.get_absolute_url()).content.decode()
    assert "Left without a move for 30 minutes, the game ends as abandoned." in html


def test_a_spectator_sees_the_board_without_controls(client, make_user):
    match = start(client, make_user("ada"), mode="classic")
    client.force_login(make_user("eve"))
    html = client.get(match.get_absolute_url()).content.decode()
    assert len(cells(html)) == 64
    assert "data-action=" not in html
    assert "You are watching Ada play" in html
    client.logout()
    assert len(cells(client.get(match.get_absolute_url()).content.decode())) == 64


def test_the_host_new_match_page_creates_a_bejeweled_2_game(client, make_user):
    client.force_login(make_user("hostess"))
    assert "Mode" in client.get("/matches/new/bejeweled-2/").content.decode()
    response = client.post(
        "/matches/new/bejeweled-2/",
        {
            "title": "Puzzle night",
            "seat_count": "1",
            "mode": "puzzle",
            "puzzle": "4",
            "idle_minutes": "30",
        },
    )
    assert response.status_code == 302
    match = Match.objects.get(title="Puzzle night")
    assert match.settings["mode"] == "puzzle" and match.settings["puzzle"] == 4
    assert match.seats.count() == 1


def test_a_host_may_open_a_hidden_mode_for_a_match_whatever_they_have_played(client, make_user):
    client.force_login(make_user("hostess"))
    form = client.get("/matches/new/bejeweled-2/").content.decode()
    for mode in ("twilight", "hyper", "cognito", "finity"):
        assert f'value="{mode}"' in form
    response = client.post(
        "/matches/new/bejeweled-2/",
        {
            "title": "Finity night",
            "seat_count": "1",
            "mode": "finity",
            "puzzle": "0",
            "idle_minutes": "30",
        },
    )
    assert response.status_code == 302
    assert Match.objects.get(title="Finity night").settings["mode"] == "finity"


def test_a_finished_game_shows_the_game_over_panel_and_enters_the_high_scores(
    client, make_user, clock
):
    ada = make_user("ada")
    match = start(client, ada, mode="classic")
    Match.objects.filter(pk=match.pk).update(seed=2)
    match.refresh_from_db()
    services.submit_action(match, ada, {"type": "end"})
    html = client.get(match.get_absolute_url()).content.decode()
    assert html.count("Game over") == 1 and "Play again" in html
    assert f"/m/{match.public_id}/replay/" in html
    page = client.get("/play/bejeweled-2/").content.decode()
    assert "Your games" in page and "the player ended the game" in page
    assert page.count(f"/m/{match.public_id}/replay/") == 2  # high scores and history


def test_high_scores_come_from_the_recorded_results(client, make_user, clock):
    ada, bob = make_user("ada"), make_user("bob")
    for user in (ada, bob):
        match = start(client, user, mode="endless")
        view = match.game.view(match.state, Viewer(0))
        a, b = bot.choose_move(view, "greedy")
        services.submit_action(match, user, {"type": "swap", "a": a, "b": b})
        services.submit_action(match, user, {"type": "end"})
    client.logout()
    page = client.get("/play/bejeweled-2/").content.decode()
    table = page.split('data-mode="endless"')[1].split("</table>")[0]
    scores = [int(s) for s in re.findall(SCORE_ROW, table)]
    assert scores == sorted(scores, reverse=True) and len(scores) == 2, table


def test_the_seed_that_foretells_new_gems_is_shown_only_once_the_game_is_over(
    client, make_user, clock
):
    ada = make_user("ada")
    match = start(client, ada, mode="endless")
    view = match.game.view(match.state, Viewer(0))
    a, b = bot.choose_move(view, "greedy")
    services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})
    match.refresh_from_db()
    seed = match.server_seed
    for path in ("", "export.json"):  # the player's own page, while playing
        response = client.get(f"{match.get_absolute_url()}{path}")
        assert response.status_code == 200
        assert seed not in response.content.decode(), path
    services.submit_action(match, ada, {"type": "end"})
    client.logout()
    for path in ("", "replay/", "export.json"):  # over: anyone may check it (docs/fairness.md)
        response = client.get(f"{match.get_absolute_url()}{path}")
        assert response.status_code == 200
        assert seed in response.content.decode(), path
        assert str(match.seed) not in response.content.decode(), path


def solve_puzzle(client, user, index: int) -> Match:
    match = start(client, user, mode="puzzle", puzzle=str(index))
    for a, b in solver.solve(PUZZLES[index].board).moves:
        services.submit_action(match, user, {"type": "swap", "a": a, "b": b})
    match.refresh_from_db()
    assert match.result["solved"] is True
    return match


def chosen_puzzle(html: str) -> str:
    select = html.split('id="bj2-puzzle"')[1].split("</select>")[0]
    return re.search(r'<option value="(\d+)" selected>', select).group(1)


def test_puzzle_progress_counts_each_solved_puzzle_once_with_its_fewest_moves(make_user):
    ada, bob = make_user("ada"), make_user("bob")
    finished_games(
        ada,
        [
            {"mode": "puzzle", "puzzle": 0, "solved": True, "moves": 3},
            {"mode": "puzzle", "puzzle": 0, "solved": True, "moves": 2},
            {"mode": "puzzle", "puzzle": 1, "solved": False, "moves": 5},
            {"mode": "puzzle", "puzzle": 2, "solved": True, "moves": 4},
            {"mode": "classic", "score": 900},
        ],
    )
    finished_games(bob, [{"mode": "puzzle", "puzzle": 1, "solved": True, "moves": 1}])
    progress = puzzle_progress(puzzle_bests(ada), 12)
    assert progress == {"best": {0: 2, 2: 4}, "solved": 2, "worlds": 1, "playable": 5, "next": 1}


def test_puzzle_progress_has_no_next_puzzle_once_all_are_solved():
    assert puzzle_progress({0: 1, 1: 1, 2: 1}, 3)["next"] is None


def test_the_play_page_shows_my_solved_puzzles_and_offers_the_next_unsolved(
    client, make_user, clock
):
    ada = make_user("ada")
    solved = solve_puzzle(client, ada, 0)
    html = client.get("/play/bejeweled-2/").content.decode()
    assert f"You have solved 1 of {len(PUZZLES)} puzzles." in html
    assert f"Next unsolved: puzzle 2, “{PUZZLES[1].title}”" in html
    first = PUZZLES[0]
    assert (
        f"1. World 1: {first.title} (par {first.par}) ✓ solved in {solved.result['moves']}" in html
    )
    assert chosen_puzzle(html) == "1"


def test_another_players_solved_puzzles_are_not_mine(client, make_user, clock):
    solve_puzzle(client, make_user("bob"), 0)
    client.force_login(make_user("ada"))
    html = client.get("/play/bejeweled-2/").content.decode()
    assert "You have not solved a puzzle yet." in html and "✓ solved" not in html
    assert chosen_puzzle(html) == "0"


def test_a_failed_puzzle_is_not_counted_as_solved(client, make_user, clock):
    ada = make_user("ada")
    match = start(client, ada, mode="puzzle", puzzle="0")
    services.submit_action(match, ada, {"type": "end"})
    html = client.get("/play/bejeweled-2/").content.decode()
    assert "You have not solved a puzzle yet." in html


def test_a_solved_puzzle_links_to_the_next_one_which_the_page_then_offers(client, make_user, clock):
    ada = make_user("ada")
    match = solve_puzzle(client, ada, 0)
    html = client.get(match.get_absolute_url()).content.decode()
    assert "solved in" in html and "Next puzzle: 2" in html
    assert """hx-vals='{"mode": "puzzle", "puzzle": "1"}'""" in html
    assert chosen_puzzle(client.get("/play/bejeweled-2/?puzzle=5").content.decode()) == "4"


def test_the_puzzle_high_scores_rank_players_by_puzzles_solved(client, make_user, clock):
    ada, bob = make_user("ada"), make_user("bob")
    solve_puzzle(client, ada, 0)
    solve_puzzle(client, bob, 0)
    solve_puzzle(client, bob, 1)
    latest = solve_puzzle(client, bob, 1)  # the same puzzle again counts once
    client.logout()
    page = client.get("/play/bejeweled-2/").content.decode()
    table = page.split('data-mode="puzzle"')[1].split("</table>")[0]
    rows = re.findall(
        r"<td>\d+</td><td><a href=\"([^\"]+)\">(\w+)</a></td>\s*<td>(\d+)</td>", table
    )
    assert [(name, solved) for _, name, solved in rows] == [("Bob", "2"), ("Ada", "1")]
    assert rows[0][0] == f"/m/{latest.public_id}/replay/"  # Bob's entry replays his latest solve


def test_a_live_game_is_listed_in_the_lobbys_live_now_with_a_watch_link(client, make_user):
    match = start(client, make_user("ada"), mode="classic")
    assert match.title == "Classic game"  # the page names the game beside it: said once
    client.logout()
    lobby = client.get("/").content.decode()
    live_now = lobby.split("Live now")[1].split("</section>")[0]
    assert match.title in live_now and f'href="{match.get_absolute_url()}">Watch' in live_now
    watched = client.get(match.get_absolute_url()).content.decode()
    assert "You are watching Ada play" in watched and len(cells(watched)) == 64


def test_the_play_page_lists_the_games_being_played_with_a_watch_link(client, make_user):
    ada = make_user("ada")
    match = start(client, ada, mode="endless")
    view = match.game.view(match.state, Viewer(0))
    a, b = bot.choose_move(view, "greedy")
    services.submit_action(match, ada, {"type": "swap", "a": a, "b": b})
    match.refresh_from_db()
    client.logout()
    page = client.get("/play/bejeweled-2/").content.decode()
    playing = page.split("Playing now")[1].split("</section>")[0]
    assert "Ada" in playing and f"<td>{match.state['score']}</td>" in playing
    assert f'href="{match.get_absolute_url()}">Watch' in playing


def test_a_high_score_entry_opens_its_replay_for_anyone(client, make_user, clock):
    ada = make_user("ada")
    match = start(client, ada, mode="classic")
    services.submit_action(match, ada, {"type": "end"})
    client.logout()
    page = client.get("/play/bejeweled-2/").content.decode()
    table = page.split('data-mode="classic"')[1].split("</table>")[0]
    link = re.search(r'<a href="([^"]+)">Ada</a>', table).group(1)
    assert link == f"/m/{match.public_id}/replay/"
    assert client.get(link).status_code == 200


def test_a_high_score_older_than_the_latest_500_games_still_leads_its_table(client, make_user):
    ada = make_user("ada")
    best, *_ = finished_games(
        ada,
        [{"mode": "classic", "score": 99_000}]
        + [{"mode": "endless", "score": n} for n in range(500)]
        + [{"mode": "classic", "score": 500}],
    )
    page = client.get("/play/bejeweled-2/").content.decode()
    scores = re.findall(SCORE_ROW, table(page, "classic"))
    assert scores == ["99000", "500"]
    assert f"/m/{best.public_id}/replay/" in table(page, "classic")
    assert re.findall(SCORE_ROW, table(page, "endless"))[:3] == [
        "499",
        "498",
        "497",
    ]


def test_the_high_scores_show_each_modes_ten_best_newest_first_among_equals(client, make_user):
    ada = make_user("ada")
    games = finished_games(ada, [{"mode": "action", "score": 100 * (n % 6)} for n in range(14)])
    page = client.get("/play/bejeweled-2/").content.decode()
    rows = re.findall(
        r'<a href="/m/([^/]+)/replay/">Ada</a></td>\s*<td>(\d+)</td>', table(page, "action")
    )
    assert [int(score) for _, score in rows] == [500, 500, 400, 400, 300, 300, 200, 200, 100, 100]
    assert rows[0][0] == games[11].public_id and rows[1][0] == games[5].public_id


def test_the_play_page_takes_as_many_queries_with_600_finished_games_as_with_one(
    client, make_user, django_assert_max_num_queries
):
    ada = make_user("ada")
    finished_games(ada, [{"mode": mode, "score": 1} for mode in ("classic", "action", "endless")])
    finished_games(ada, [{"mode": "puzzle", "puzzle": 0, "solved": True, "moves": 3}])
    client.force_login(ada)
    with django_assert_max_num_queries(40) as few:
        client.get("/play/bejeweled-2/")
    modes = ("classic", "action", "endless")
    finished_games(ada, [{"mode": modes[n % 3], "score": n} for n in range(600)])
    finished_games(
        make_user("bob"),
        [{"mode": "puzzle", "puzzle": n % 12, "solved": True, "moves": 3} for n in range(60)],
    )
    with django_assert_max_num_queries(len(few.captured_queries)):  # none per game
        client.get("/play/bejeweled-2/")


def test_the_games_being_played_are_listed_best_score_first(client, make_user):
    ada, bob = make_user("ada"), make_user("bob")
    quiet = start(client, ada, mode="classic")
    busy = start(client, bob, mode="endless")
    view = busy.game.view(busy.state, Viewer(0))
    a, b = bot.choose_move(view, "greedy")
    services.submit_action(busy, bob, {"type": "swap", "a": a, "b": b})
    busy.refresh_from_db()
    client.logout()
    playing = client.get("/play/bejeweled-2/").content.decode().split("Playing now")[1]
    rows = re.findall(r"<tr><td>(\w+)</td><td>(\w+)</td><td>(\d+)</td>", playing)
    assert rows == [("Bob", "Endless", str(busy.state["score"])), ("Ada", "Classic", "0")]
    assert f'href="{quiet.get_absolute_url()}">Watch' in playing


def test_the_high_scores_have_tables_for_today_this_week_and_all_time(client, make_user, clock):
    ada = make_user("ada")
    # A Wednesday at noon: today, the rest of this week and before it are three periods.
    clock.current = now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    old, week, today = finished_games(
        ada,
        [
            {"mode": "classic", "score": 9_000},
            {"mode": "classic", "score": 5_000},
            {"mode": "classic", "score": 1_000},
        ],
    )
    monday = (now - timedelta(days=now.weekday())).replace(hour=0, minute=0, second=0)
    Match.objects.filter(pk=old.pk).update(finished_at=monday - timedelta(days=1))
    Match.objects.filter(pk=week.pk).update(finished_at=monday + timedelta(seconds=1))
    Match.objects.filter(pk=today.pk).update(finished_at=now)

    def scores(period: str) -> list[str]:
        page = client.get(f"/play/bejeweled-2/?scores={period}").content.decode()
        return re.findall(SCORE_ROW, table(page, "classic"))

    assert scores("all") == ["9000", "5000", "1000"]
    assert scores("week") == ["5000", "1000"]
    assert scores("today") == ["1000"]
    assert scores("never") == scores("all")  # an unknown period shows all time


def test_each_score_shows_its_hints_and_how_the_game_ended(client, make_user):
    ada = make_user("ada")
    finished_games(
        ada,
        [
            {"mode": "endless", "score": 3_000, "hints": 4, "ended_early": True},
            {"mode": "endless", "score": 2_000, "hints": 0, "reason": "no_moves"},
            {"mode": "endless", "score": 1_000, "abandoned": True, "ended_early": True},
        ],
    )
    rows = re.findall(
        r'<td class="bj2-hints">(\d+)(?: <span class="bj2-mark">([a-z ]+)</span>)?</td>',
        table(client.get("/play/bejeweled-2/").content.decode(), "endless"),
    )
    assert rows == [("4", "ended early"), ("0", ""), ("0", "abandoned")]


def test_the_puzzle_ranking_shows_the_hints_beside_every_score(client, make_user):
    ada = make_user("ada")
    finished_games(
        ada,
        [
            {"mode": "puzzle", "puzzle": 0, "solved": True, "moves": 3, "hints": 2},
            {"mode": "puzzle", "puzzle": 0, "solved": True, "moves": 4, "hints": 1},
            {"mode": "puzzle", "puzzle": 1, "solved": True, "moves": 3, "hints": 3},
        ],
    )
    puzzles = table(client.get("/play/bejeweled-2/").content.decode(), "puzzle")
    assert "<th>Hints</th>" in puzzles
    # Each puzzle counts once with its fewest hints: 1 for the first, 3 for the second.
    assert re.findall(r'<td class="bj2-hints">(\d+)</td>', puzzles) == ["4"]


def test_cognitos_high_scores_name_the_puzzle_where_the_others_name_the_level(client, make_user):
    ada = make_user("ada")
    finished_games(
        ada,
        [{"mode": "cognito", "puzzle": 2, "solved": True, "score": 620, "hints": 0, "level": None}],
    )
    cognito = table(client.get("/play/bejeweled-2/").content.decode(), "cognito")
    assert "None" not in cognito
    assert "<th>Puzzle</th>" in cognito and "<td>620</td><td>3</td>" in cognito


def test_a_puzzle_solved_after_the_solution_was_shown_counts_nowhere(make_user):
    ada = make_user("ada")
    finished_games(
        ada,
        [
            {"mode": "puzzle", "puzzle": 0, "solved": True, "moves": 3, "assisted": True},
            {"mode": "puzzle", "puzzle": 1, "solved": True, "moves": 3, "assisted": False},
        ],
    )
    assert puzzle_bests(ada) == {1: 3}
    assert [row["puzzles"] for row in standings.puzzle_ranking()] == [1]


def test_solving_four_of_a_worlds_five_puzzles_opens_the_next_world():
    assert standings.open_worlds({}, 80) == 1
    assert standings.open_worlds({0: 3, 1: 3, 2: 3}, 80) == 1
    assert standings.open_worlds({0: 3, 1: 3, 2: 3, 4: 3}, 80) == 2
    ten = {index: 3 for index in range(10)}
    assert standings.open_worlds(ten, 80) == 3
    assert standings.open_worlds({index: 3 for index in range(80)}, 80) == 16
    assert puzzle_progress({0: 3, 1: 3, 2: 3, 4: 3}, 80)["playable"] == 10


def test_a_puzzle_of_a_closed_world_is_neither_offered_nor_started(client, make_user):
    ada = make_user("ada")
    client.force_login(ada)
    html = client.get("/play/bejeweled-2/").content.decode()
    assert '<option value="4"' in html and '<option value="5"' not in html
    refused = client.post("/play/bejeweled-2/", {"mode": "puzzle", "puzzle": "5"})
    assert refused.status_code == 403 and b"world 2, which is not open" in refused.content
    finished_games(
        ada, [{"mode": "puzzle", "puzzle": n, "solved": True, "moves": 3} for n in range(4)]
    )
    assert client.post("/play/bejeweled-2/", {"mode": "puzzle", "puzzle": "5"}).status_code == 302


def test_a_game_whose_bar_ran_empty_names_no_winner_and_no_host_reason(client, make_user, clock):
    ada = make_user("ada")
    match = start(client, ada, mode="action")
    clock.advance(600)
    deadlines.fire_due_deadlines(now=clock())
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["reason"] == "time_up"
    page = re.sub(
        r"<script.*?</script>",
        "",
        client.get(match.get_absolute_url()).content.decode(),
        flags=re.S,
    )
    assert "Game over" in page and page.count(match.result["summary"]) == 1
    assert "wins" not in page and "host's reason" not in page and "time_up" not in page
    replay = client.get(f"{match.get_absolute_url()}replay/?v={match.version}").content.decode()
    assert "host's reason" not in replay and "time_up" not in re.sub(
        r"<script.*?</script>", "", replay, flags=re.S
    )
