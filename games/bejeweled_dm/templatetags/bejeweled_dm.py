"""The death match's status and actions panels, written out here rather than in the template:
both differ for every audience (each seat sees "you", its own forms and pick), so both are drawn
again for every audience after every action, and Python draws them far quicker than the
template did.

Each tag draws exactly what the template drew (bejeweled_dm/_panels.html at the time), reading
the view as the template did: a missing value reads as an empty text, a condition on a missing
value as false."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.defaultfilters import add, pluralize
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from games.core.templatetags.arena import escaped as escape
from games.core.templatetags.arena import hidden, is_in, oob_attribute, role

register = template.Library()


def _at(value: Any, *keys: str) -> Any:
    """``value.key1.key2...`` as a template reads it from the view's dicts: "" when a key is
    missing (what the template prints for it), the value itself (even None) otherwise."""
    for key in keys:
        if type(value) is not dict or key not in value:
            return ""
        value = value[key]
    return value


def _not_in(item: Any, container: Any) -> bool:
    """``{% if item not in container %}``: false too when the test cannot be made."""
    try:
        return item not in container
    except TypeError:
        return False


def _length(value: Any) -> int:
    """Django's ``|length``: the length of ``value``, 0 when it has none."""
    try:
        return len(value)
    except (ValueError, TypeError):
        return 0


def _status(context: Any) -> Any:
    """The match's status (``view.match.status``): "live", "paused", "aborted"..."""
    return _at(context.get("view"), "match", "status")


# --- the status panel: each seat's round wins and turn, the phase, the round, the clock ---------


def _seat_line(seat: Any, to_move: Any) -> str:
    """One seat of the scores: role, name (with "(you)" for the viewer's own), round wins and
    whether the match waits for it."""
    moving = is_in(_at(seat, "index"), to_move)
    you = _at(seat, "is_you")
    turn = '<span class="turn-tag">to move</span>' if moving else ""
    return (
        f'\n    <div class="bjdm-seat{" to-move" if moving else ""}{" is-you" if you else ""}">'
        f'\n      <span class="role">{role(_at(seat, "role"))}</span>'
        f'\n      <span class="name">{escape(_at(seat, "name"))}{" (you)" if you else ""}</span>'
        f'\n      <span class="wins" title="round wins">{escape(_at(seat, "wins"))}</span>'
        f"\n      {turn}\n    </div>\n    "
    )


def _clock_line(gv: dict[str, Any], status: Any) -> str:
    """The running clock of the phase, or that it is stopped while the match is paused."""
    clock = gv.get("clock")
    if not clock:
        return ""
    key, label = escape(_at(clock, "key")), escape(_at(clock, "label"))
    if status == "paused":
        return (
            f'\n  <p class="clock bjdm-clock stopped" data-clock="{key}">{label}: stopped while '
            "the match is paused</p>\n  "
        )
    return (
        f'\n  <p class="clock bjdm-clock" data-deadline="{escape(_at(clock, "due"))}" '
        f'data-clock="{key}">{label}: <span class="left">…</span></p>\n  '
    )


@register.simple_tag(takes_context=True)
def bjdm_status_panel(context: Any) -> SafeString:
    """The status panel: each seat's role, name, round wins and turn, the phase, the round and
    its clock; before the match starts, that the board comes once both seats are taken."""
    gv = context.get("game_view") or {}
    oob = oob_attribute(context)
    if not gv.get("phase"):
        return mark_safe(
            f'<section id="bjdm-status" class="panel bjdm-status"{oob}>\n  <p class="bjdm-prompt">'
            "The match has not started yet: the board appears once both seats are taken.</p>"
            "\n</section>"
        )
    phase = gv["phase"]
    to_move = gv.get("to_move")
    seats = "".join(_seat_line(seat, to_move) for seat in gv.get("seats") or ())
    if phase == "over":
        played = _length(_at(gv, "history"))
        round_text = f"match over after {played} round{pluralize(played)}"
    else:
        round_text = f"round {escape(_at(gv, 'round'))} of at most {escape(_at(gv, 'max_rounds'))}"
    return mark_safe(  # every value escaped above
        f'<section id="bjdm-status" class="panel bjdm-status" data-phase="{escape(phase)}"{oob}>'
        f'\n  <div class="bjdm-scores">\n    {seats}\n  </div>\n  <div class="bjdm-phase-line">'
        f'\n    <p class="bjdm-phase"><b class="phase-label">{escape(_at(gv, "phase_label"))}</b>'
        f'\n    <span class="bjdm-round">· {round_text} · first to '
        f"{escape(_at(gv, 'wins_needed'))} round wins</span></p>\n  "
        f"{_clock_line(gv, _status(context))}\n  </div>\n</section>"
    )


# --- the actions panel: the prompt, the viewer's forms, the proof builder, the pick form ------


def _claim_form(gv: dict[str, Any]) -> str:
    """A player's claim form while no claim stands."""
    timers = _at(gv, "timers")
    return (
        '\n    <h2>Claim</h2>\n    <form data-action="claim" class="bjdm-form">'
        f'\n      <input type="hidden" name="round" value="{escape(_at(gv, "round"))}">'
        '\n      <label for="bjdm-claim-count">Gems I can remove in one turn</label>'
        '\n      <input id="bjdm-claim-count" type="text" inputmode="numeric" name="count" '
        'size="4" maxlength="3" autocomplete="off" required>'
        '\n      <button type="submit">Claim</button>\n    </form>'
        '\n    <p class="hint">After your claim your opponent has '
        f"{escape(_at(timers, 'claim_window'))} s to counterclaim a higher number. Whoever "
        f"claims higher must then prove it within {escape(_at(timers, 'proof'))} s.</p>\n  "
    )


def _counterclaim_forms(gv: dict[str, Any]) -> str:
    """The counterclaim and pass forms of the player a standing claim is put to."""
    name, count = escape(_at(gv, "claim", "name")), escape(_at(gv, "claim", "count"))
    round_field = f'\n      <input type="hidden" name="round" value="{escape(_at(gv, "round"))}">'
    return (
        f'\n    <h2>{name} claimed {count}</h2>\n    <form data-action="counterclaim" '
        f'class="bjdm-form">{round_field}'
        '\n      <label for="bjdm-counter-count">My higher number</label>'
        '\n      <input id="bjdm-counter-count" type="text" inputmode="numeric" name="count" '
        'size="4" maxlength="3" autocomplete="off" required>'
        '\n      <button type="submit">Counterclaim</button>\n    </form>'
        f'\n    <form data-action="pass" class="bjdm-form">{round_field}'
        f'\n      <button type="submit" class="secondary">Pass: {name} must prove {count}</button>'
        '\n    </form>\n    <p class="hint">You may counterclaim once; then you must prove your '
        f"number. {name} cannot answer a counterclaim.</p>\n  "
    )


def _second_starter_forms(gv: dict[str, Any]) -> str:
    """The prover's forms after Refresh went off: a second starter use, or the turn's end."""
    starter = escape(_at(gv, "pending", "starter"))
    removed = _at(gv, "pending", "removed")
    return (
        f"\n    <h2>Refresh went off: one more {starter}</h2>"
        f"\n    <p>{escape(removed)} gem{pluralize(removed)} removed so far; you need "
        f"{escape(_at(gv, 'target', 'count'))}. Click cells on the board (it shows the board "
        "now) or type them.</p>"
        '\n    <form data-action="second_starter" class="bjdm-form bjdm-second-form" '
        f'data-starter="{starter}">\n      <label for="bjdm-second">Second {starter}</label>'
        '\n      <input id="bjdm-second" name="clause" size="24" autocomplete="off" required '
        f'placeholder="e.g. {starter} A6 A7">\n      <button type="submit">Use it</button>'
        '\n    </form>\n    <form data-action="skip_second_starter" class="bjdm-form">'
        '\n      <button type="submit" class="secondary">End the turn with '
        f"{escape(removed)} removed</button>\n    </form>\n  "
    )


def _happening(gv: dict[str, Any], status: Any) -> str:
    """What is going on, for a viewer with nothing to do now (a spectator, the host, a player
    waiting): who is picking, who won, who proves, the standing claim."""
    phase = gv.get("phase")
    if phase == "pick":
        to_move = gv.get("to_move")
        picking = " · ".join(
            f"{escape(_at(seat, 'name'))}: "
            + ("still picking" if is_in(_at(seat, "index"), to_move) else "has picked")
            for seat in gv.get("seats") or ()
        )
        now = f"\n      <h2>Picking powerups</h2>\n      <p>{picking}</p>\n    "
    elif phase == "over":
        winner = escape(_at(gv, "winner_name"))
        now = (
            f'\n      <h2>{winner} wins the match</h2>\n      <p class="bjdm-final">Final '
            f"score: {escape(_at(gv, 'final_score'))}. {winner} earns "
            f"{escape(_at(gv, 'garnets'))} garnets.</p>\n    "
        )
    elif phase in ("proof", "second_starter"):
        prover = escape(_at(gv, "prover_name"))
        count = _at(gv, "target", "count")
        now = (
            f"\n      <h2>{prover} is showing proof</h2>\n      <p>{prover} must remove at least "
            f"{escape(count)} gem{pluralize(count)}.</p>\n    "
        )
    elif phase == "counterclaim":
        waiting = (
            "Waiting for your opponent to counterclaim or pass."
            if gv.get("is_player")
            else "Waiting for a counterclaim or a pass."
        )
        now = (
            f"\n      <h2>{escape(_at(gv, 'claim', 'name'))} claimed "
            f"{escape(_at(gv, 'claim', 'count'))}</h2>\n      <p>{waiting}</p>\n    "
        )
    else:
        now = "\n      <h2>Waiting for a claim</h2>\n    "
    watching = (
        '<p class="hint live-only">You are watching; everything public appears here live.</p>'
        if not gv.get("is_player") and status == "live"
        else ""
    )
    return f"\n    {now}\n    {watching}\n  "


_LEGENDS = {"active": "1. Active powerup", "passive": "2. Passive powerup"}


def _colour_options(gv: dict[str, Any]) -> str:
    return "".join(
        f'<option value="{escape(_at(colour, "letter"))}">{escape(_at(colour, "name"))}</option>'
        for colour in gv.get("colours") or ()
    )


def _builder_group(group: Any, gv: dict[str, Any]) -> str:
    """One powerup type of the proof builder: its offered powerups, and what it asks for next
    (the active's gem, the passive's colours, the starter's cells)."""
    kind = _at(group, "type")
    options = _at(group, "options")
    checked = " checked" if _length(options) == 1 else ""
    kind_text = escape(kind)
    choices = "".join(
        f'<label title="{escape(_at(option, "help"))}"><input type="radio" name="b-{kind_text}" '
        f'value="{escape(_at(option, "name"))}"{checked}> {escape(_at(option, "name"))}</label> '
        for option in options or ()
    )
    if kind == "active":
        asks = (
            '\n          <span class="b-note">on <b class="b-active-cell">(choose a gem on the '
            "board)</b></span>\n        "
        )
    elif kind == "passive":
        colours = _colour_options(gv)
        asks = (
            '\n          <span class="b-colours">\n            <label class="b-colour-a">colour '
            f'<select name="b-colour-a"><option value="">choose…</option>{colours}</select>'
            '</label>\n            <label class="b-colour-b">becomes <select name="b-colour-b">'
            f'<option value="">choose…</option>{colours}</select></label>\n          </span>'
            "\n        "
        )
    else:
        asks = (
            '\n          <span class="b-note">cells <b class="b-starter-cells">(choose on the '
            'board)</b></span>\n          <button type="button" class="link b-clear">clear '
            "cells</button>\n        "
        )
    legend = _LEGENDS.get(kind, "3. Starter powerup")
    return (
        f'\n      <fieldset class="b-group" data-type="{kind_text}">'
        f"\n        <legend>{legend}</legend>\n        {choices}\n        {asks}"
        "\n      </fieldset>\n      "
    )


def _proof_box(gv: dict[str, Any]) -> str:
    """A player's proof builder and proof form: hidden until the player comes to prove."""
    count = _at(gv, "target", "count") or 0
    groups = "".join(_builder_group(group, gv) for group in reversed(gv.get("offer") or ()))
    return (
        f'<div class="bjdm-proof-box"{hidden(_not_in("proof", gv.get("actions")))}>'
        f"\n    <h2>Your proof: at least {escape(count)} gem{pluralize(count)}</h2>"
        f'\n    <div class="bjdm-builder" data-key="{escape(_at(gv, "round"))}:proof">'
        f"\n      {groups}"
        '\n      <p class="b-target">Choosing a cell on the board sets'
        '\n        <label><input type="radio" name="b-target" value="active" checked> the '
        "active's gem</label>"
        '\n        <label><input type="radio" name="b-target" value="starter"> the starter\'s '
        "cells</label>"
        '\n        <span class="hint">(Swap: two side-by-side cells; Rotate: the top-left cell '
        "of the 2x2; Pick: one or two gems of different colours)</span>\n      </p>\n    </div>"
        '\n    <form data-action="proof" class="bjdm-form bjdm-proof-form">'
        '\n      <label for="bjdm-proof">Proof</label>'
        '\n      <input id="bjdm-proof" name="proof" size="42" autocomplete="off" required '
        'placeholder="e.g. Plus F4; Bend; Swap F4 F5">'
        '\n      <button type="submit">Submit proof</button>\n    </form>'
        '\n    <p class="hint">The builder writes the proof as you choose; or type it yourself '
        "(choosing again on the board replaces what you typed). On the board: arrow keys move, "
        "Enter chooses, Escape takes the last choice back. If Refresh goes off you choose the "
        "second starter use afterwards.</p>\n  </div>"
    )


def _pick_choice(kind: str, choice: Any) -> str:
    """One powerup of the pick form: greyed if the proof used it, ticked if the player chose it."""
    allowed, name = _at(choice, "allowed"), escape(_at(choice, "name"))
    greyed = "" if allowed else ' class="disabled"'
    return (
        f'\n        <label{greyed}><input type="radio" '
        f'name="{kind}" value="{name}"{"" if allowed else " disabled"}'
        f"{' checked' if _at(choice, 'chosen') else ''} required> {name}"
        f"{'' if allowed else ' <small>(used in the proof)</small>'}</label>"
    )


def _pick_form(gv: dict[str, Any]) -> str:
    """A player's pick form for the next round: hidden until the round ends, the powerups the
    proof used greyed, the player's own pick (once made) ticked."""
    closed = hidden(_not_in("pick", gv.get("actions")))
    mine = _at(gv, "picks", "mine")
    picked = ""
    if mine:
        waiting = (
            "; waiting for your opponent" if is_in(False, _at(gv, "picks").get("picked")) else ""
        )
        picked = (
            f'<p class="bjdm-picked">You picked {escape(_at(mine, "starter"))}, '
            f"{escape(_at(mine, 'passive'))} and {escape(_at(mine, 'active'))}{waiting}. Only "
            "you see your pick until both have picked.</p>"
        )
    groups = "".join(
        f"\n      <fieldset><legend>{escape(_at(group, 'label'))}</legend>"
        + "".join(
            _pick_choice(escape(_at(group, "type")), choice)
            for choice in _at(group, "choices") or ()
        )
        + "\n      </fieldset>"
        for group in gv["pick_form"]
    )
    rules = escape(reverse("rules", args=["bejeweled-dm"]))
    return (
        f"\n    <h2{closed}>Your powerups for round {escape(add(_at(gv, 'round'), 1))}</h2>"
        f'\n    {picked}\n    <form data-action="pick" class="bjdm-form bjdm-pick-form"{closed}>'
        f'{groups}\n      <button type="submit">{"Change my pick" if mine else "Pick these"}'
        f'</button>\n    </form>\n    <p class="hint"{closed}>Same pick as your opponent: that '
        "one alone is offered; different: both are, and the prover chooses. No pick in time: a "
        f'random allowed one. <a href="{rules}" target="_blank">What each powerup does</a>.</p>'
        "\n  "
    )


@register.simple_tag(takes_context=True)
def bjdm_actions_panel(context: Any) -> SafeString:
    """The actions panel: the viewer's prompt and what the viewer may do now (claim,
    counterclaim or pass, a second starter use), or what is going on; for a player also the
    proof builder and the pick form, waiting hidden until they are needed."""
    gv = context.get("game_view") or {}
    status = _status(context)
    actions = gv.get("actions")
    if is_in("claim", actions):
        doing = _claim_form(gv)
    elif is_in("counterclaim", actions):
        doing = _counterclaim_forms(gv)
    elif is_in("proof", actions):
        doing = "\n  "  # the proof builder below
    elif is_in("second_starter", actions):
        doing = _second_starter_forms(gv)
    elif is_in("pick", actions):
        doing = "\n  "  # the pick form below
    else:
        doing = _happening(gv, status)
    proof_box = _proof_box(gv) if gv.get("is_player") and gv.get("phase") != "over" else ""
    pick_form = _pick_form(gv) if gv.get("pick_form") else ""
    return mark_safe(  # every value escaped above
        f'<section id="bjdm-actions" class="panel bjdm-actions" '
        f'data-phase="{escape(_at(gv, "phase"))}" data-round="{escape(_at(gv, "round"))}"'
        f'{oob_attribute(context)}>\n  <p class="bjdm-prompt">{escape(_at(gv, "prompt"))}</p>\n  '
        f"{doing}\n  \n  {proof_box}\n  \n  {pick_form}\n</section>"
    )
