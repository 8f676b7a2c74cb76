"""Glittering Paths' status, board and drawing panels, written out here rather than in the
template: all three differ for every audience (each seat sees "you", its own buttons and the
path it is drawing, the host every seat's path), so each is drawn again for every audience after
every action, and from the template each took some 0.45 ms.

Each tag draws exactly what the template drew (glittering_paths/_panels.html at the time),
reading the view as the template did: a value is looked up as a dict's key first, else as Django
looks it up (an attribute, a list index, a method called); a missing value shows as nothing and
counts as None in a condition; every value shown is escaped."""

from __future__ import annotations

import html
from types import SimpleNamespace
from typing import Any

from django import template
from django.template.base import Variable, VariableDoesNotExist
from django.template.defaultfilters import default_if_none, join, stringformat
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import template_localtime

from games.core.templatetags.arena import grid_table, hidden, is_in, oob_attribute, role

register = template.Library()


# --- how the template read and showed the view -------------------------------------------------

_MISSING: Any = object()
"""What a lookup finds where the view has no such value."""

_LOOKUPS: dict[str, Variable] = {}


class _Scope(dict):
    """The one-name context Django's own lookup reads a value from, for what is not a plain
    dict's key. ``template.engine`` answers the lookup's question for the text an invalid method
    call shows: the site's engine leaves ``string_if_invalid`` empty."""

    template = SimpleNamespace(engine=SimpleNamespace(string_if_invalid=""))


def _get(value: Any, *keys: str) -> Any:
    """``value.key1.key2...`` as the template looked it up, or _MISSING when there is none. A
    dict's key is read here; anything else is left to Django's own lookup."""
    for key in keys:
        if type(value) is dict and key in value and not callable(value[key]):
            value = value[key]
            continue
        if value is None or value is _MISSING:
            return _MISSING  # None has nothing to look up
        lookup = _LOOKUPS.get(key)
        if lookup is None:
            lookup = _LOOKUPS[key] = Variable(f"value.{key}")
        try:
            value = lookup.resolve(_Scope(value=value))
        except VariableDoesNotExist:
            return _MISSING
    return value


def _if(value: Any, *keys: str) -> Any:
    """A looked-up value as an ``{% if %}`` reads it: None when it is missing."""
    found = _get(value, *keys)
    return None if found is _MISSING else found


def _val(value: Any, *keys: str) -> Any:
    """A looked-up value as a filter or a ``{% with %}`` gets it: "" when it is missing."""
    found = _get(value, *keys)
    return "" if found is _MISSING else found


def _show(value: Any) -> str:
    """``{{ value }}``: the value as text, escaped (unless it is already safe HTML); nothing
    when it is missing."""
    if type(value) is str:
        return html.escape(value)
    if type(value) is int:
        return str(value)
    if value is _MISSING:
        return ""
    value = localize(template_localtime(value))
    if not isinstance(value, str):
        value = str(value)
    return conditional_escape(value)


def _text(value: Any, *keys: str) -> str:
    """``{{ value.key1.key2... }}``."""
    return _show(_get(value, *keys))


def _joined(value: Any, separator: str) -> str:
    """``{{ value|join:separator }}``: Django's own filter, its answer shown as the template
    showed it."""
    return _show(join(value, separator))


def _items(value: Any) -> list[Any]:
    """What ``{% for ... in value %}`` goes through: nothing for a missing value."""
    if value is None or value is _MISSING:
        return []
    return value if hasattr(value, "__len__") else list(value)


def _game_view(context: Any) -> Any:
    """The view the panels read (the template's ``gv``): "" when there is none."""
    return context.get("game_view", "")


# --- the status panel: the seats, their totals and turns, the round, the prompt, the clock -----


def _seat_line(seat: Any, gv: Any) -> str:
    """One seat: its colour, name (with "(you)" for the viewer's own), role, total, whether it
    is racing or to move and whether it agrees to end the round."""
    index = _if(seat, "index")
    moving = is_in(index, _if(gv, "to_move"))
    you = _if(seat, "is_you")
    colour = _text(seat, "colour")
    tag = "racing" if _if(gv, "phase") == "race" else "to move" if moving else ""
    agreed = (
        ' <span class="tag agreed">agrees to end</span>'
        if is_in(index, _if(gv, "agreed_seats"))
        else ""
    )
    return (
        f'\n<div class="gp-seat gp-{colour}{" to-move" if moving else ""}'
        f'{" is-you" if you else ""}" data-seat="{_text(seat, "index")}">'
        '<span class="gp-swatch" aria-hidden="true"></span><span class="who"><span class="name">'
        f'{_text(seat, "name")}{" (you)" if you else ""}</span> <span class="role">'
        f"{role(_val(seat, 'role'))} · {colour}</span></span>"
        f'\n<span class="total" title="total score">{_text(seat, "total")}</span> '
        f'<span class="tag">{tag}</span>{agreed}</div>'
    )


def _round_line(gv: Any) -> str:
    """The round (and turn) in play, or that the match is over, and the phase's name."""
    phase = _if(gv, "phase")
    if phase == "over":
        said = f"Match over after {_text(gv, 'rounds')} rounds"
    else:
        turn = f" · turn {_text(gv, 'turn_number')}" if phase == "turns" else ""
        said = f"Round {_text(gv, 'round')} of {_text(gv, 'rounds')}{turn}"
    return f'<p class="gp-round">{said} · <b class="phase-label">{_text(gv, "phase_label")}</b></p>'


def _start_line(gv: Any) -> str:
    """During the turns, how the first mover was found: the race, or a random draw."""
    if _if(gv, "first") is None or _if(gv, "phase") != "turns":
        return ""
    name = _text(gv, "first_name")
    if _if(gv, "start_kind") == "race":
        said = f"{name} won the race and moved first."
    else:
        said = f"No path in the race: a random draw gave {name} the first move."
    return f'<p class="gp-start hint">{said}</p>\n'


def _clock_line(gv: Any, context: Any) -> str:
    """The phase's running clock, or that it is stopped while the match is paused."""
    clock = _if(gv, "clock")
    if not clock:
        return ""
    key, label = _text(clock, "key"), _text(gv, "clock_label")
    if _if(context.get("view"), "match", "status") == "paused":
        return (
            f'<p class="clock gp-clock stopped" data-clock="{key}">{label}: stopped while the '
            "match is paused</p>\n"
        )
    return (
        f'<p class="clock gp-clock" data-deadline="{_text(clock, "due")}" data-clock="{key}">'
        f'{label}: <span class="left">…</span></p>\n'
    )


@register.simple_tag(takes_context=True)
def gp_status_panel(context: Any) -> SafeString:
    """The status panel (``gp-status``): each seat's name, role, colour, total and turn, the
    round and phase, the prompt for this viewer, how the first mover was found and the clock;
    before the match starts, that the board comes once both seats are taken."""
    gv = _game_view(context)
    oob = oob_attribute(context)
    if not _if(gv, "phase"):
        return mark_safe(
            f'<section id="gp-status" class="panel gp-status"{oob}>\n<p class="gp-prompt">The '
            "match has not started yet: the first board appears once both seats are taken.</p>"
            "\n</section>"
        )
    seats = "".join(_seat_line(seat, gv) for seat in _items(_if(gv, "seats")))
    return mark_safe(  # every value escaped above
        f'<section id="gp-status" class="panel gp-status" data-phase="{_text(gv, "phase")}" '
        f'data-round="{_text(gv, "round")}" data-turn="{_text(gv, "turn_number")}"{oob}>'
        f'\n<div class="gp-seats">{seats}\n</div>\n{_round_line(gv)}'
        f'\n<p class="gp-prompt">{_text(gv, "prompt")}</p>\n{_start_line(gv)}'
        f"{_clock_line(gv, context)}</section>"
    )


# --- the board panel: the board, the last move's words, the legend ----------------------------

LEGEND = (
    '<p class="gp-legend">Red plays <span class="gem-chip gem-red" role="img" aria-label="ruby">'
    '</span><span class="gp-gem-name"> ruby,</span> <span class="gem-chip gem-garnet" '
    'role="img" aria-label="garnet"></span><span class="gp-gem-name"> garnet,</span> '
    '<span class="gem-chip gem-orange" role="img" aria-label="jasper"></span>'
    '<span class="gp-gem-name"> jasper</span>;\nblue plays <span class="gem-chip gem-blue" '
    'role="img" aria-label="sapphire"></span><span class="gp-gem-name"> sapphire,</span> '
    '<span class="gem-chip gem-indigo" role="img" aria-label="lapis"></span>'
    '<span class="gp-gem-name"> lapis,</span> <span class="gem-chip gem-aqua" role="img" '
    'aria-label="aquamarine"></span><span class="gp-gem-name"> aquamarine</span>.'
    "\nA1 is the top-left cell.</p>"
)
"""Which gems each colour plays, the same for every audience."""

ANIMATION_BUTTONS = (
    '<button type="button" class="secondary" data-gp="replay-last">Show the path again</button> '
    '<button type="button" class="link" data-steps-skip>skip</button>'
)


def _last_move(last: Any) -> str:
    """The last move's words (hidden before the first move) and the buttons that show its path
    again (hidden unless it was a path)."""
    kind = _if(last, "kind")
    path = kind == "path"
    if path:
        made = " won the race with" if _if(last, "race") else " made"
        said = f" ({_text(last, 'player')}){made} the path "
    elif kind == "pass":
        said = " passed."
    elif last:
        said = " was skipped: no move in time."
    else:
        said = ""
    score = _text(last, "score") if path else ""
    total = f" points, total {_text(last, 'total')}." if path else ""
    return (
        f"<p{hidden(not last)}><b>{_text(last, 'name')}</b>{said}"
        f'<span class="cells">{_joined(_val(last, "cells"), " ")}</span>'
        f'{": " if path else ""}<b class="score">{score}</b>{total}</p>'
        f'\n<p class="gp-anim-controls"{hidden(kind != "path")}>{ANIMATION_BUTTONS}</p>'
    )


@register.simple_tag(takes_context=True)
def gp_board_panel(context: Any) -> SafeString:
    """The board panel (``gp-board``): the board (the shared grid, arena's ``grid_table``), the
    last move's words and the legend; "drawing" while the viewer may draw a path."""
    gv = _game_view(context)
    drawing = " drawing" if is_in("path", _if(gv, "actions")) else ""
    last_path = (
        f' data-last-path="{_joined(_val(gv, "last_move", "cells"), " ")}"'
        if _if(gv, "last_move", "cells")
        else ""
    )
    size = f"--cols: {_text(gv, 'grid', 'width')}; --rows: {_text(gv, 'grid', 'height')}"
    return mark_safe(  # every value escaped above; the grid by grid_table
        f'<section id="gp-board" class="panel gp-board-panel{drawing}" '
        f'data-phase="{_text(gv, "phase")}" data-round="{_text(gv, "round")}" '
        f'data-turn="{_text(gv, "turn_number")}"{last_path}{oob_attribute(context)}>'
        f'\n<div class="gp-board-wrap" style="{size}">{grid_table(_val(gv, "grid"))}\n</div>'
        f'\n<div class="gp-last" aria-live="polite">{_last_move(_val(gv, "last_move"))}</div>'
        f"\n{LEGEND}\n</section>"
    )


# --- the drawing panel: a seat's path and buttons, or what a spectator or the host watches ----

DRAWING_HINT = (
    "Click your cells in order (or drag across them): start on one of your gems ({gems}), then "
    "alternate another gem and your start's gem, turning a right angle at every cell. Click the "
    "last cell again to take it back."
)
DRAWING_BUTTONS = (
    '<div class="gp-buttons"><button type="button" data-gp="submit">Submit path</button> '
    '<button type="button" class="secondary" data-gp="undo">Undo last cell</button> '
    '<button type="button" class="secondary" data-gp="clear">Clear</button></div>'
)
ROUND_OVER_HINT = (
    '<p class="hint">The next board appears when the pause ends; the race starts at once.</p>\n'
)


def _verdict(draft: Any, gv: Any) -> str:
    """What the server said of the seat's path being drawn: its verdict once checked on this
    turn's board, "checking…" while a newer path waits for it."""
    cells = _if(draft, "cells")
    if (
        cells
        and _if(draft, "round") == _if(gv, "round")
        and _if(draft, "turn") == _if(gv, "turn_number")
    ):
        if _if(draft, "problem"):
            state, mark = "broken", "✗"
        else:
            state, mark = ("complete" if _if(draft, "complete") else "so-far"), "✓"
        return (
            f'<p class="gp-problem {state}" aria-live="polite">{mark} {_text(draft, "verdict")}</p>'
        )
    return (
        f'<p class="gp-problem{" pending" if cells else ""}" aria-live="polite">'
        f"{'checking…' if cells else ''}</p>"
    )


def _seat_drawing(gv: Any, context: Any) -> str:
    """A seat's heading, hints and path being drawn while paths are made; the round's end
    between rounds; the result once the match is over."""
    phase = _if(gv, "phase")
    drawing = _val(gv, "can_draw")
    if phase == "race" or phase == "turns":
        if not drawing:
            heading = f"{_text(gv, 'mover_name')} is moving"
        elif phase == "race":
            heading = "Race: draw your path"
        else:
            heading = "Your turn: draw your path"
        draft_cells = _if(context.get("view"), "draft", "cells")
        if draft_cells:
            path = _joined(_val(context.get("view"), "draft", "cells"), " → ")
        else:
            path = "no cell yet"
        hint = DRAWING_HINT.format(gems=_text(gv, "your_gems"))
        return (
            f'<h2>{heading}</h2>\n<p class="hint"{hidden(not drawing)}>{hint}</p>'
            f'\n<p class="hint"{hidden(drawing)}>You draw on your turn; the board may change '
            f'before then.</p>\n<div class="gp-drawing"{hidden(not drawing)} '
            f'data-turn="{_text(gv, "turn_number")}"><p class="gp-path-line">Path: '
            f'<span class="gp-path-cells">{path}</span></p>'
            f"\n{_verdict(_val(context.get('view'), 'draft'), gv)}\n{DRAWING_BUTTONS}</div>\n"
        )
    if phase == "interval":
        return f"<h2>Round {_text(gv, 'round')} is over</h2>\n{ROUND_OVER_HINT}"
    if phase == "over":
        return f"<h2>{_text(gv, 'result', 'summary')}</h2>\n"
    return ""


def _other_actions(gv: Any) -> str:
    """A seat's other moves: pass, offer (or agree) to end the round, withdraw the offer."""
    actions = _if(gv, "actions")
    passing, agreeing = is_in("pass", actions), is_in("agree_end", actions)
    withdrawing = is_in("withdraw_end", actions)
    if not (passing or agreeing or withdrawing):
        return ""
    forms = []
    if passing:
        forms.append(
            '<form data-action="pass" class="inline"><input type="hidden" name="turn" '
            f'value="{_text(gv, "turn_number")}" data-int><button type="submit" '
            'class="secondary">Pass</button></form> '
        )
    offered = _if(gv, "opponent_agreed")
    if agreeing:
        offer = "Agree to end the round too" if offered else "Offer to end the round"
        forms.append(
            '<form data-action="agree_end" class="inline"><button type="submit" '
            f'class="secondary">{offer}</button></form>'
        )
    elif withdrawing:
        forms.append(
            '<form data-action="withdraw_end" class="inline"><button type="submit" '
            'class="secondary">Withdraw my offer to end</button></form>'
        )
    offer_line = (
        '<p class="hint gp-offer">Your opponent offers to end the round now.</p>' if offered else ""
    )
    return f'<div class="gp-other-actions">{"".join(forms)}\n{offer_line}</div>\n'


def _host_drafts(gv: Any, context: Any) -> str:
    """For the host, the path each seat is drawing and what is wrong with it."""
    items = []
    for seat in _items(_if(gv, "seats")):
        key = stringformat(_val(seat, "index"), "d")
        drafts = _items(_if(context.get("view"), "drafts", "items"))
        if drafts:
            held_paths = "".join(
                f'<span class="cells">{_joined(_val(draft, "cells"), " ")}</span> '
                f'<small class="problem">{_show(default_if_none(_val(draft, "problem"), ""))}'
                "</small>"
                for held, draft in drafts
                if held == key
            )
        else:
            held_paths = "–"
        items.append(
            f'<li data-seat="{_text(seat, "index")}">{_text(seat, "name")}: {held_paths}</li>'
        )
    return (
        '<div class="gp-host-drafts"><h3>Paths being drawn (only you see them)</h3>'
        f"\n<ul>{''.join(items)}</ul></div>\n"
    )


def _watching(gv: Any, context: Any) -> str:
    """A spectator's or the host's heading, the host's view of the paths being drawn, and that
    every path appears here as it is made."""
    phase = _if(gv, "phase")
    if phase == "race":
        heading = "Race for the first move"
    elif phase == "turns":
        heading = f"{_text(gv, 'mover_name')} is moving"
    elif phase == "interval":
        heading = f"Round {_text(gv, 'round')} is over"
    else:
        heading = _text(gv, "result", "summary")
    drafts = _host_drafts(gv, context) if _if(gv, "is_host") else ""
    return (
        f'<h2>{heading}</h2>\n{drafts}<p class="hint">You are watching: every path appears here '
        "as it is made, with the totals and the clocks.</p>\n"
    )


@register.simple_tag(takes_context=True)
def gp_draw_panel(context: Any) -> SafeString:
    """The drawing panel (``gp-draw``): for a seat, its path being drawn, its verdict and its
    buttons, and its other moves; for a spectator, who is moving; for the host, also the path
    each seat is drawing."""
    gv = _game_view(context)
    if _if(gv, "you") is not None:
        body = _seat_drawing(gv, context) + _other_actions(gv)
    else:
        body = _watching(gv, context)
    return mark_safe(  # every value escaped above
        f'<section id="gp-draw" class="panel gp-draw" data-phase="{_text(gv, "phase")}" '
        f'data-turn="{_text(gv, "turn_number")}"{oob_attribute(context)}>\n{body}</section>'
    )
