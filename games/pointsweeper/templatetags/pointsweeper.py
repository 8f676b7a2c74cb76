"""Pointsweeper's move log, written out here rather than in the template: the log panel is drawn
again after every move of a board, and by then holds every earlier move (a template took some
25 microseconds an entry, this takes a tenth of that)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from games.core.templatetags.arena import escaped as escape
from games.core.templatetags.arena import hidden, left_at, role
from games.core.words import counted
from games.pointsweeper.flow import minutes

register = template.Library()


def _plural(count: Any, word: str) -> str:
    return escape(counted(count, word))


def entry_text(entry: dict[str, Any]) -> str:
    """What a logged move says after its player's name (HTML)."""
    kind = entry.get("type")
    piece = escape(entry.get("piece", ""))
    if kind == "scout":
        square = escape(entry.get("square", ""))
        squares = escape(" ".join(entry.get("squares") or ()))
        return (
            f"scouted with {piece} on {square} "
            f'<button type="button" class="link ps-show" data-squares="{squares}" '
            f'data-origin="{square}" aria-pressed="false">show</button>'
        )
    if kind == "claim":
        mines = entry.get("mines")
        found = _plural(mines, "mine") if mines else _plural(entry.get("points"), "point")
        start, end = escape(entry.get("start", "")), escape(entry.get("end", ""))
        return f"claimed with {piece} {start}–{end}: {found}"
    return "ran out of time (passed)" if entry.get("reason") == "time" else "passed"


@register.simple_tag
def log_entries(log: list[dict[str, Any]], names: list[str]) -> SafeString:
    """The items of a board's move log, oldest first: who moved (the name the move was made
    under; a log kept before names were recorded says the seat's holder now) and what the move
    did."""
    items = []
    for entry in log:
        seat = entry.get("seat")
        name = escape(names[seat]) if isinstance(seat, int) and 0 <= seat < len(names) else ""
        if entry.get("name"):
            name = escape(entry["name"])
        items.append(
            f'\n    <li class="ps-entry ps-{escape(entry.get("type", ""))}">{name}'
            f"\n      {entry_text(entry)}</li>\n  "
        )
    return mark_safe("".join(items))  # every value escaped above


def _bank_left_when_paused(p: dict[str, Any], turn_due: str, paused_at: str | None) -> str:
    """The mover's bank as it stood when the match paused: what was left of it then (the turn
    clock runs out when the bank does), not the bank the move started with."""
    if not paused_at:
        return p.get("bank_text", "")
    due = datetime.fromisoformat(turn_due) - datetime.fromisoformat(paused_at)
    return minutes(min(float(p["bank"]), due.total_seconds()))


def _player_line(p: dict[str, Any], gv: dict[str, Any], match: dict[str, Any]) -> str:
    """One seat's line of the status panel: role, name, turn and pass tags, scores, bank."""
    to_move, is_you = p.get("to_move"), p.get("is_you")
    status = match.get("status")
    bank = ""
    if p.get("bank") is not None:
        turn_due = (gv.get("deadlines") or {}).get("turn")
        running = to_move and turn_due
        runs_out = f' data-runs-out="{escape(turn_due)}"' if running and status != "paused" else ""
        left = p.get("bank_text", "")
        if running and status == "paused":
            left = _bank_left_when_paused(p, turn_due, match.get("paused_at"))
        bank = (
            f'\n      <span class="ps-bank{" in-use" if to_move else ""}" '
            f'data-bank="{escape(p["bank"])}"{runs_out}>bank '
            f'<span class="ps-bank-left">{escape(left)}</span></span>'
        )
    return (
        f'\n    <div class="ps-player{" to-move" if to_move else ""}'
        f'{" is-you" if is_you else ""}" data-seat="{escape(p["index"])}">'
        f'\n      <span class="role">{role(p.get("role", ""))}</span> '
        f'<span class="name">{escape(p.get("name", ""))}{" (you)" if is_you else ""}</span>'
        f'\n      <span class="turn-tag"{hidden(not to_move or status == "aborted")}>'
        "to move</span>"
        f'\n      <span class="passed-tag"{hidden(not p.get("passed"))}>passed</span>'
        f'\n      <span class="ps-score">total <b>{escape(p["total"])}</b> '
        f"({_plural(p['points'], 'point')}, {_plural(p['mines'], 'mine')}, "
        f"penalty {escape(p['penalty'])})</span>{bank}\n    </div>"
    )


def _status_lines(gv: dict[str, Any], match: dict[str, Any]) -> str:
    """What the status panel says under the players: whose choice or move it is, its clock."""
    status, phase = match.get("status"), gv["phase"]
    players = gv.get("players") or []
    if phase == "order":
        chooser = "".join(escape(p["name"]) for p in players if p["index"] == gv.get("chooser"))
        lines = [
            f'\n  <p class="ps-prompt">{chooser} chooses who moves first on board '
            f"{escape(gv.get('board_no'))}.</p>"
        ]
        order_due = (gv.get("deadlines") or {}).get("order")
        if order_due and status != "paused":
            lines.append(
                f'\n  <p class="clock ps-clock" data-deadline="{escape(order_due)}" '
                'data-clock="order">Time to choose: <span class="left">…</span></p>'
            )
        if gv.get("you") == gv.get("chooser"):
            lines.append(
                '\n  <p class="ps-order"><button type="button" class="ps-first" '
                'data-first="true">I move first</button>\n    <button type="button" '
                'class="ps-first" data-first="false">My opponent moves first</button></p>'
            )
        return "".join(lines)
    if phase == "play":
        lines = []
        if gv.get("order_text"):
            lines.append(f'\n  <p class="ps-order-text">{escape(gv["order_text"])}</p>')
        if status == "aborted":
            lines.append(
                '\n  <p class="ps-prompt">The host aborted the match: no one moves again.</p>'
            )
            return "".join(lines)
        mover = "".join(
            "Your move" if p.get("is_you") else f"{escape(p['name'])} to move"
            for p in players
            if p.get("to_move")
        )
        lines.append(f'\n  <p class="ps-prompt">{mover}: scout, claim or pass.</p>')
        due = gv.get("move_deadline")
        if due and status == "paused":
            lines.append(
                '\n  <p class="ps-clock-line stopped">Move time '
                f"{escape(left_at(due, match.get('paused_at')))} left, stopped while the match "
                "is paused</p>"
            )
        elif due:
            lines.append(
                f'\n  <p class="ps-clock-line"><span class="clock ps-clock" '
                f'data-deadline="{escape(due)}" data-clock="move">Move time '
                '<span class="left">…</span></span> <span class="hint">then the bank of the '
                "player to move counts down</span></p>"
            )
        return "".join(lines)
    if phase == "over":
        summary = (match.get("result") or {}).get("summary", "")
        return f'\n  <p class="ps-prompt ps-result">{escape(summary)}</p>'
    return ""


@register.simple_tag(takes_context=True)
def status_panel(context: Any) -> SafeString:
    """The status panel: the board in play, each seat's scores, bank and turn, and whose choice
    or move it is. Drawn for every audience after every move (each sees "you" on its own
    line), so written out here: a template took ten times as long."""
    gv, match = context["game_view"], context["view"]["match"]
    oob = ' hx-swap-oob="true"' if context.get("oob") else ""
    if not gv.get("phase"):
        return mark_safe(
            f'<section id="ps-status" class="panel ps-status"{oob}>\n  <p>The match has not '
            "started yet: the board appears once both seats are taken.</p>\n</section>"
        )
    phase = gv["phase"]
    board_no = (
        "Match over"
        if phase == "over"
        else f"Board {escape(gv.get('board_no'))} of {escape(gv.get('boards_total'))}"
    )
    players = "".join(_player_line(p, gv, match) for p in gv.get("players") or [])
    return mark_safe(  # every value escaped above
        f'<section id="ps-status" class="panel ps-status" data-phase="{escape(phase)}"{oob}>'
        f'\n  <p class="ps-board-no">{board_no}</p>\n  <div class="ps-players">{players}\n  </div>'
        f"{_status_lines(gv, match)}\n</section>"
    )
