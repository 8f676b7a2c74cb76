"""The season as everyone may read it, the spreadsheet replaced: who is in and who left (in
order), garnets and Tokens of Life, and each episode's main match places, Elimination
Candidate, Death Match Opponent, death match and result, with links to every match and replay.
The season page, the JSON export and the CSV export are all drawn from ``season_table``.

Nothing sealed in a live match shows here: a match being played is its link and its status
only; places come from a finished match's public result; the ledger counts are the public
standings (a live match's entries count once it has ended).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from django.urls import reverse

from games.core.models import Match, Season
from games.seasons import rules
from games.seasons.episodes import main_match_result
from games.seasons.hosts import format_of
from games.seasons.models import CastMember, Episode, SeasonEvent

STANDING_ORDER = {
    CastMember.Status.WINNER: 0,
    CastMember.Status.IN: 1,
    CastMember.Status.ELIMINATED: 2,
}


def _match_row(match: Match | None) -> dict[str, Any] | None:
    if match is None:
        return None
    over = match.is_over
    return {
        "title": match.title,
        "game": match.game.title,
        "status": match.status,
        "status_label": match.get_status_display(),
        "url": match.get_absolute_url(),
        "replay_url": reverse("replay", args=[match.public_id]) if over else None,
    }


def _placings(episode: Episode, names: dict[int, str]) -> list[dict[str, Any]]:
    """The main match's places, once it is over (from its public result)."""
    match = episode.main_match
    if match is None:
        return []
    result = main_match_result(match)
    totals = result.get("totals") or {}
    users = {seat.index: seat.user_id for seat in match.seats.all()}
    candidate = result.get("elimination_candidate")
    rows = []
    places = result.get("places") if isinstance(result.get("places"), dict) else None
    for row in rules.placings(totals, result.get("winner"), candidate, places):
        rows.append(
            {
                "place": row.place,
                "place_label": rules.ordinal(row.place) + (" (shared)" if row.shared else ""),
                "name": names.get(users.get(row.seat), "?"),
                "total": row.total,
                "elimination_candidate": row.seat == candidate,
                "by_host": row.by_host,
                "shared": row.shared,
            }
        )
    return rows


def _name(member: CastMember | None) -> str | None:
    return member.name if member is not None else None


def _death_match_winner(episode: Episode) -> str | None:
    match = episode.death_match
    if match is None or match.status != Match.Status.FINISHED:
        return None
    winner = (match.result or {}).get("winner")
    if winner == 0:
        return _name(episode.elimination_candidate)
    if winner == 1:
        return _name(episode.opponent)
    return None


def _episode_row(episode: Episode, names: dict[int, str]) -> dict[str, Any]:
    return {
        "number": episode.number,
        "phase": episode.phase,
        "phase_label": episode.get_phase_display(),
        "url": episode.get_absolute_url(),
        "final": episode.main_match_id is None,
        "main_match": _match_row(episode.main_match),
        "placings": _placings(episode, names),
        "elimination_candidate": _name(episode.elimination_candidate),
        "nomination_due": (
            episode.nomination_due.isoformat()
            if episode.phase == Episode.Phase.NOMINATION and episode.nomination_due
            else None
        ),
        "death_match_opponent": _name(episode.opponent),
        "nominated_by": (
            None
            if episode.opponent_id is None or episode.main_match_id is None
            else "host"
            if episode.nominated_by_host
            else "EC"
        ),
        "token_spent": episode.token_spent,
        "death_match": _match_row(episode.death_match),
        "death_match_winner": _death_match_winner(episode),
        "eliminated": _name(episode.eliminated),
        "saved": _name(episode.saved),
    }


def season_table(season: Season) -> dict[str, Any]:
    """Everything the season's page and exports show, in one dict of plain data."""
    season_format = format_of(season)
    members = list(
        CastMember.objects.filter(season=season)
        .exclude(status__in=[CastMember.Status.ASKED, CastMember.Status.DECLINED])
        .select_related("eliminated_in", "eliminated_by")
    )
    names = {member.user_id: member.name for member in members}
    ledger = {row["user_id"]: row for row in season.standings()}
    members.sort(
        key=lambda m: (STANDING_ORDER[m.status], -(m.elimination_order or 0), m.name.lower())
    )
    cast = [
        {
            "name": member.name,
            "status": member.status,
            "status_label": member.get_status_display(),
            "elimination_order": member.elimination_order,
            "elimination_label": (
                f"{rules.ordinal(member.elimination_order)} out" if member.elimination_order else ""
            ),
            "eliminated_in": member.eliminated_in.number if member.eliminated_in else None,
            "eliminated_by": _name(member.eliminated_by),
            "garnets": ledger.get(member.user_id, {}).get("garnets", 0),
            "tokens_of_life": ledger.get(member.user_id, {}).get("tokens_of_life", 0),
        }
        for member in members
    ]
    episodes = (
        Episode.objects.filter(season=season)
        .select_related(
            "elimination_candidate", "opponent", "eliminated", "saved", "main_match", "death_match"
        )
        .prefetch_related("main_match__seats")
        .order_by("number")
    )
    log = SeasonEvent.objects.filter(season=season).order_by("created_at", "pk")
    return {
        "season": {"id": season.pk, "name": season.name},
        "settings": dict(season_format.settings),
        "cast": cast,
        "episodes": [_episode_row(episode, names) for episode in episodes],
        "log": [event.as_json() for event in log],
    }


CSV_COLUMNS = (
    "player",
    "status",
    "elimination order",
    "eliminated in episode",
    "eliminated by",
    "garnets",
    "tokens of life",
)


def _episode_cell(episode: dict[str, Any], name: str) -> str:
    """What one player did in one episode, as a spreadsheet cell: "3rd, EC, eliminated"."""
    parts = [row["place_label"] for row in episode["placings"] if row["name"] == name]
    if episode["elimination_candidate"] == name:
        parts.append("EC" + (", spent a Token of Life" if episode["token_spent"] else ""))
    if episode["death_match_opponent"] == name:
        parts.append("DMO")
    if episode["death_match_winner"] == name:
        parts.append("won the death match")
    if episode["eliminated"] == name:
        parts.append("eliminated")
    elif episode["saved"] == name and not episode["token_spent"]:
        parts.append("saved by a Token of Life")
    return ", ".join(parts)


def season_csv(table: dict[str, Any]) -> str:
    """The cast as a spreadsheet: one row a player, one column an episode."""
    out = io.StringIO()
    writer = csv.writer(out)
    episodes = table["episodes"]
    writer.writerow([*CSV_COLUMNS, *(f"episode {e['number']}" for e in episodes)])
    for player in table["cast"]:
        writer.writerow(
            [
                player["name"],
                player["status_label"],
                player["elimination_order"] or "",
                player["eliminated_in"] or "",
                player["eliminated_by"] or "",
                player["garnets"],
                player["tokens_of_life"],
                *(_episode_cell(episode, player["name"]) for episode in episodes),
            ]
        )
    return out.getvalue()


def with_why(entry: Any) -> Any:
    """A ledger entry with ``why``, its reason as its row says it before the match's link: a
    match's own payment ("won in <title>", even for the last place) says what it was without
    the title the link gives ("Paid for the result of" <title>), any other reason as it is."""
    match = entry.match
    reason = entry.reason
    if match is not None and reason == f"won in {match.title}":
        entry.why = "Paid for the result of"
    elif match is not None and reason == f"spent in {match.title}":
        entry.why = "Spent in"
    else:
        entry.why = f"{reason} ·" if match is not None else reason
    return entry
