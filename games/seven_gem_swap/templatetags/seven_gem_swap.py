"""Seven Gem Swap's status and play panels, written out here rather than in the template: both
differ for every audience (each seat sees "you" and its own bid or sequence), so up to nine
audiences draw them after every action: from the template they cost some 1.7 ms an action.

Each function draws what its panel's template drew, value for value: a value shows as the
template showed it (escaped, ``None`` as "None", a missing one as nothing), and a condition
reads a missing value as None, as the template's ``{% if %}`` did."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.defaultfilters import pluralize
from django.utils.safestring import SafeString, mark_safe

from games.core.templatetags.arena import escaped as escape

register = template.Library()

Data = dict[str, Any]


# --- what Django's filters did ---------------------------------------------------------------


def _show(data: Data | None, key: str) -> str:
    """``{{ data.key }}``: the value escaped, nothing when ``data`` has no such key."""
    if not isinstance(data, dict) or key not in data:
        return ""
    return escape(data[key])


def _or(value: Any, default: str) -> str:
    """Django's ``default``: ``value`` escaped, or ``default`` when it is empty or false."""
    return escape(value) if value else default


def _add(value: Any, number: int) -> Any:
    """Django's ``add``: ``value`` plus ``number`` as whole numbers, else as they are, else ""."""
    try:
        return int(value) + number
    except (ValueError, TypeError):
        try:
            return value + number
        except Exception:  # the filter fails silently, as Django's did
            return ""


def _at_least(value: Any, bound: int) -> bool:
    """``{% if value >= bound %}``: false when the two cannot be compared."""
    try:
        return value >= bound
    except Exception:  # an {% if %} comparison that fails is false
        return False


def _ranked(colours: Any, place: int) -> Any:
    """``colours|slice:place|last``: the colour ranked ``place`` (counting from 1) in a bid."""
    try:
        first = colours[:place]
    except (ValueError, TypeError, KeyError):
        first = colours
    try:
        return first[-1]
    except IndexError:
        return ""


# --- the status panel ------------------------------------------------------------------------


def _phase_line(gv: Data, status: Any) -> str:
    """The status panel's first paragraph: the phase or round, and its clock (stopped while the
    match is paused)."""
    phase = gv.get("phase")
    if phase == "bidding":
        title = "Bidding for colours"
    elif phase == "round":
        title = f"Round {_show(gv, 'round')} of {_show(gv, 'rounds')}"
    elif phase == "over" and len(gv.get("rounds_played") or ()) < (gv.get("rounds") or 0):
        # The host ended it early (an award, an abort): say how far it went.
        played = len(gv.get("rounds_played") or ())
        title = (
            f"The match ended after round {played} of {_show(gv, 'rounds')}"
            if played
            else "The match ended before round 1"
        )
    else:
        title = f"All {_show(gv, 'rounds')} rounds played"
    clock = gv.get("clock")
    if clock and status == "paused":
        shown = '<span class="clock stopped">· clock stopped while the match is paused</span>\n  '
    elif clock:
        shown = (
            f'<span class="clock sgs-clock" data-deadline="{_show(clock, "due")}" '
            f'data-clock="{_show(clock, "key")}">· {_show(clock, "label")} '
            '<span class="left">…</span></span>'
        )
    else:
        shown = ""
    return f'<p class="sgs-phase"><b>{title}</b>\n  {shown}</p>'


def _css(chip: Data) -> str:
    """A progress chip's class attribute, when it has classes."""
    return f' class="{escape(chip["css"])}"' if chip.get("css") else ""


@register.simple_tag(takes_context=True)
def sgs_status_panel(context: Any) -> SafeString:
    """The status panel (``sgs-status``): the phase or round, its clock, the prompt for this
    viewer and each player's chip (who has bid or submitted, "you" on the viewer's own)."""
    gv = context["game_view"]
    status = ((context.get("view") or {}).get("match") or {}).get("status")
    oob = ' hx-swap-oob="true"' if context.get("oob") else ""
    chips = "".join(
        f"<li{_css(chip)}>{_show(chip, 'text')}</li>" for chip in gv.get("progress") or ()
    )
    return mark_safe(  # every value escaped above
        f'<section id="sgs-status" class="panel sgs-status" data-phase="{_show(gv, "phase")}"'
        f"{oob}>\n  {_phase_line(gv, status)}"
        f'\n  <p class="sgs-prompt">{_show(gv, "prompt")}</p>'
        f'\n  <ul class="sgs-progress">{chips}</ul>\n</section>'
    )


# --- the play panel --------------------------------------------------------------------------

PLACE_WORDS = {1: "First", 2: "Second", 3: "Third"}
BID_HINT = (
    '\n    <p class="hint">A first choice starts you at the whole bid, a second at half, a third '
    "at a quarter (rounded toward zero). Ties take no one; the tied players move on to their "
    "next choice.</p>"
)
MOVE_BUTTONS = (
    '\n      <div class="sgs-move-buttons" role="group" aria-label="Add a move">'
    '\n        <button type="button" data-move="U" aria-label="U: up">↑ U</button>'
    '<button type="button" data-move="L" aria-label="L: left">← L</button>'
    '<button type="button" data-move="D" aria-label="D: down">↓ D</button>'
    '<button type="button" data-move="R" aria-label="R: right">→ R</button>'
    '\n        <button type="button" class="secondary" data-move="undo">Undo</button>'
    '<button type="button" class="secondary" data-move="clear">Clear</button>'
    "\n      </div>"
)


def _bid_choice(gv: Data, bid: Data | None, place: int) -> str:
    """One of the bid form's three ranked colour choices: the colour of the sent bid selected,
    else the colour listed at that place."""
    ranked = _ranked(bid.get("colours"), place) if bid else None
    options = []
    for counter, c in enumerate(gv.get("colour_list") or (), start=1):
        chosen = ranked == c.get("letter") if bid else counter == place
        options.append(
            f'<option value="{_show(c, "letter")}"{" selected" if chosen else ""}>'
            f"{_show(c, 'name')}</option>"
        )
    return (
        f'\n      <label for="sgs-bid-colour-{place}">{PLACE_WORDS[place]} choice</label>'
        f'\n      <select id="sgs-bid-colour-{place}" name="colour{place}" required>'
        f"\n        {''.join(options)}\n      </select>\n      "
    )


def _bidding(gv: Data, me: Data) -> str:
    """The play panel while the colours are bid for: the seat's sent bid and the bid form."""
    bid = me.get("bid")
    sent = (
        f'<p class="sgs-sent">Your bid: <b>{_show(bid, "bid")}</b> for {_show(bid, "colours")} '
        "(only you and the host see it). You may replace it.</p>"
        if bid
        else ""
    )
    choices = "".join(_bid_choice(gv, bid, place) for place in PLACE_WORDS)
    return (
        f"\n    <h2>Your sealed bid</h2>\n    {sent}"
        '\n    <form class="sgs-bid-form">'
        '\n      <label for="sgs-bid-points">Points (0 or less)</label>'
        '\n      <input id="sgs-bid-points" name="bid" type="number" max="0" step="1" '
        f'value="{_show(bid, "bid") if bid else "0"}" required>\n      {choices}'
        f'\n      <button type="submit">{"Replace my bid" if bid else "Send my bid"}</button>'
        f"\n    </form>{BID_HINT}\n  "
    )


def _missed(gv: Data, me: Data) -> str:
    """The rounds that closed without the seat's sequence: the one just closed, or every one."""
    missed = me.get("missed")
    if not missed:
        return ""
    last = missed[-1]
    if last == _add(gv.get("round"), -1):
        words = (
            f"Round {escape(last)} closed without your sequence: none of your gems moved and "
            "you played no card."
        )
    else:
        rounds = ", ".join(escape(r) for r in missed)
        words = f"You sent no sequence in round{pluralize(len(missed))} {rounds}."
    return f'<p class="sgs-missed" role="status">{words}</p>'


def _cards(gv: Data, me: Data) -> str:
    """The colour cards to choose from (from round 2; a played one disabled)."""
    if not _at_least(gv.get("round"), 2):
        return '<p class="hint">No colour card is played in round 1.</p>'
    cards = []
    for c in me.get("cards") or ():
        left = c.get("left")
        letter = _show(c, "letter")
        cards.append(
            f'<label class="sgs-card{"" if left else " used"}"><input type="radio" name="card" '
            f'value="{letter}"{"" if left else " disabled"}> <span class="sgs-key sgs-{letter}">'
            f"{letter}</span> {_show(c, 'name')}"
            f"{' (x3)' if c.get('letter') == me.get('colour') else ''}"
            f"{'' if left else ' <small>played</small>'}</label>"
        )
    return (
        '\n      <fieldset class="sgs-cards"><legend>Colour card (each plays once)</legend>'
        f"\n        {''.join(cards)}\n      </fieldset>\n      "
    )


def _sent(me: Data) -> str:
    """The seat's submission of this round, as it was sent."""
    sub = me.get("submission")
    if not sub:
        return ""
    card = f", card <b>{_show(sub, 'card')}</b>" if sub.get("card") else ""
    premove = f", premove ({_show(me, 'premove_price')} garnets)" if sub.get("premove") else ""
    return (
        f'<p class="sgs-sent" data-gem="{_show(sub, "gem")}">Submitted: gem '
        f"<b>{_show(sub, 'gem')}</b>, moves <b>{_or(sub.get('moves'), '(none)')}</b>{card}"
        f"{premove}. Only you and the host see it.</p>"
    )


def _round(gv: Data, me: Data) -> str:
    """The play panel during a round: missed rounds, the sequence composer and what was sent."""
    colour, colour_name = _show(me, "colour"), _show(me, "colour_name")
    most = _show(gv, "max_moves")
    submit = "Replace my submission" if me.get("submission") else "Submit"
    return (
        f"\n    <h2>Your sequence</h2>\n    {_missed(gv, me)}"
        f'\n    <p class="sgs-you">You play <span class="sgs-key sgs-{colour}">{colour}</span> '
        f"{colour_name}.</p>"
        f'\n    <form class="sgs-compose" data-colour="{colour}">'
        '\n      <p class="sgs-gem-line">Gem: <b class="sgs-gem-name">none yet</b> '
        f'<span class="hint">(click one of your {colour_name} gems)</span></p>'
        '\n      <div class="sgs-pad" tabindex="0" role="group" aria-label="Your sequence: arrow '
        'keys add a move, Backspace takes the last one back">'
        '\n        <span class="sgs-pad-label">Moves</span> <output class="sgs-moves" '
        f'aria-live="polite"></output> <span class="sgs-count">0/{most}</span>'
        f"\n      </div>{MOVE_BUTTONS}"
        '\n      <label class="sgs-typed">or type them <input name="moves" autocomplete="off" '
        f'maxlength="{most}" spellcheck="false" placeholder="e.g. UURD"></label>'
        '\n      <p class="sgs-preview-text hint" aria-live="polite"></p>'
        f"\n      {_cards(gv, me)}"
        '\n      <label class="sgs-premove"><input type="checkbox" name="premove"> Premove: my '
        "moves run one step ahead of everyone else's — costs "
        f"<b>{_show(me, 'premove_price')} garnets</b> from my season ledger</label>"
        f'\n      <button type="submit" class="sgs-submit">{submit}</button>'
        '\n      <p class="sgs-draft-state hint" aria-live="polite"></p>'
        f"\n    </form>\n    {_sent(me)}\n  "
    )


def _past(me: Data) -> str:
    """The seat's own sequences of the rounds played, with how each went."""
    rounds = me.get("rounds")
    if not rounds:
        return ""
    items = []
    for r in rounds:
        sub = r.get("submission") or {}
        card = f", card {_show(sub, 'card')}" if sub.get("card") else ""
        failed = ", failed (-1)" if r.get("failed") else ""
        price = f", premove {_show(r, 'premove_price')} garnets" if r.get("premove_price") else ""
        items.append(
            f"<li>Round {_show(r, 'round')}: {_show(sub, 'gem')} "
            f"{_or(sub.get('moves'), '(no moves)')}{card} — {_show(r, 'made')} "
            f"move{pluralize(r.get('made'))} made{failed}{price}</li>"
        )
    return (
        '<details class="sgs-mine"><summary>Your past sequences</summary><ul>'
        f"\n    {''.join(items)}\n  </ul></details>"
    )


@register.simple_tag(takes_context=True)
def sgs_play_panel(context: Any) -> SafeString:
    """The play panel (``sgs-play``) of a seat: its bid form while bidding, its sequence
    composer during a round, its colour once the match is over, and its past sequences. Only
    a seat has one (the template draws it when the view has ``me``)."""
    gv = context["game_view"]
    me = gv.get("me")
    if not me:
        return mark_safe("")
    oob = ' hx-swap-oob="true"' if context.get("oob") else ""
    phase = gv.get("phase")
    if phase == "bidding":
        body = _bidding(gv, me)
    elif phase == "round":
        body = _round(gv, me)
    else:
        body = (
            f"\n    <h2>Your match</h2>\n    <p>You played {_show(me, 'colour_name')}; you won it "
            f"by {_show(me, 'won_by_text')}.</p>\n  "
        )
    source = (
        f'<p class="hint">Your colour came from {_show(me, "won_by_text")}.</p>'
        if me.get("won_by_text") and phase != "over"
        else ""
    )
    return mark_safe(  # every value escaped above
        f'<section id="sgs-play" class="panel sgs-play" data-phase="{_show(gv, "phase")}"{oob}>'
        f"\n  {body}\n  {_past(me)}\n  {source}\n</section>"
    )
