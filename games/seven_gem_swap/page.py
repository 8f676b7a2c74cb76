"""What the Seven Gem Swap page draws from a view (``view.view``'s answer, never the state):
``page(shown)`` adds the grid, the players' table and status chips, the rounds played, the host's
table and latest round step by step, the clock's label and the prompt; ``worded_preview`` words a
draft's preview. Everything added is derived from the view alone."""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games.seven_gem_swap import engine
from games.seven_gem_swap.flow import CLOCK_OF_PHASE
from games.seven_gem_swap.preview import STEP_FAILURES

# --- the page: what it draws from the view (the gate's answer, never the state) ----------------


# What ``page`` adds that the page's script reads (static/js/seven_gem_swap.js), so frames carry
# it: the grid (the script paints every grid it shows with the grid's ``looks``), the last round
# (the grid before it and the cells it changed, for the "before" toggle and a round's replay),
# the host's step words and a seat's colour name (the composer's hints). The parts of these the
# script does not read (the grid's board, marks and caption, the last round's caption) and
# everything else it adds only the panels draw: the game's ``page_only`` lists them
# (tests/core/test_page_only.py).
SCRIPT_READS = ("grid", "last_round", "host.step_words", "me.colour_name")
CLOCK_LABELS = {"bidding": "Bidding closes in", "round": "Round closes in"}
WON_BY = {
    "first": "your first choice",
    "second": "your second choice (half the bid)",
    "third": "your third choice (a quarter of the bid)",
    "random": "a random free colour (no bid counted)",
}

GEM_CSS = {
    "R": "gem-red",
    "O": "gem-orange",
    "Y": "gem-yellow",
    "G": "gem-green",
    "B": "gem-blue",
    "I": "gem-indigo",
    "V": "gem-purple",
}
"""Each colour's gem in the site's one gem set (static/css/gems.css); violet is the purple
triangle."""

GEM_LOOKS: dict[str, dict[str, str]] = {
    **{
        gem: {"css": f"{GEM_CSS[gem]} sgs-{gem}", "text": gem, "name": f"{name} gem"}
        for gem, name in engine.COLOUR_NAMES.items()
    },
    engine.ROCK: {"css": "rock sgs-rock", "text": "", "name": "rock"},
}
"""How each cell's content is drawn: its css class, the letter shown and the words read out
("C4, red gem"). The page's script draws any other grid (a preview, a step of a round) with the
same looks, from the grid in the view."""


def board_grid(
    text: str, *, name: str, caption: str, own: str | None = None, changed: Sequence[str] = ()
) -> dict[str, Any]:
    """A grid's text for templates/core/_grid.html, as the board with the looks of its cells
    (games/core/templatetags/arena.py ``grid_cells``): the player's own gems and the changed
    cells are marked."""
    marks: dict[str, list[str]] = {}
    if own:
        for index, gem in enumerate(text.replace("\n", "")):
            if gem == own:
                marks.setdefault(engine.cell_name(index), []).append("sgs-own")
    for cell in changed:
        marks.setdefault(cell, []).append("sgs-changed")
    return {
        "name": name,
        "caption": caption,
        "board": text,
        "columns": engine.COLUMN_LETTERS,
        "looks": GEM_LOOKS,
        "marks": {cell: " ".join(classes) for cell, classes in marks.items()},
    }


def host_steps(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The host's latest round step by step, as the page plays it: each step's ``board`` after
    it (the engine's, so that the page draws every grid the server played rather than making it
    again) and its ``moves`` as ``[seat, from cell, to cell, direction]`` for a move that swapped
    its gem with its neighbour that way (and locked ``from``, the cell it left), ``[seat, from
    cell, to cell or None off the grid, direction, reason]`` for one that failed (a key of
    ``STEP_FAILURES``). The page names the players and words each step from the host's
    ``step_words``."""
    steps = []
    for step in shown["host"]["last_round"]["steps"]:
        moves: list[list[Any]] = []
        for player, start, to, direction, reason in step["moves"]:
            moves.append([int(player), start, to, direction] + ([] if reason is None else [reason]))
        steps.append({"board": step["board"], "moves": moves})
    return steps


def players(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The players' table (and the status line's chips) of a view."""
    me = shown.get("me")
    you = str(me["seat"]) if me else None
    colours = shown["colours"]
    return [
        {
            "index": s["index"],
            "name": s["name"],
            "is_bot": s["is_bot"],
            "is_you": str(s["index"]) == you,
            "colour": colours.get(str(s["index"])),
            "colour_name": engine.COLOUR_NAMES.get(colours.get(str(s["index"]), ""), ""),
            "starting": shown["starting_scores"].get(str(s["index"])),
            "score": shown["scores"].get(str(s["index"])),
            "played": shown["played"].get(str(s["index"]), []),
            "has_bid": s["index"] in shown["bids_in"],
            "submitted": s["index"] in shown["submitted"],
            "no_bid": str(s["index"]) in shown["no_bid"],
        }
        for s in shown["seats"]
    ]


# What the players' table shows of each player (``players``).
TABLE_KEYS = (
    "name",
    "index",
    "is_bot",
    "no_bid",
    "colour",
    "colour_name",
    "starting",
    "score",
    "played",
)
PROGRESS_WORDS = {"bidding": ("has bid", "bidding"), "round": ("submitted", "composing")}


def progress(phase: str, rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The status line's chip per player: its words ("Ada (you): submitted") and classes
    (``is-you``, ``done`` once the player's bid or sequence is in)."""
    chips = []
    for p in rows:
        done = p["has_bid"] if phase == "bidding" else p["submitted"] if phase == "round" else False
        text = f"{p['name']} (you)" if p["is_you"] else p["name"]
        words = PROGRESS_WORDS.get(phase)
        if words:
            text += f": {words[0] if done else words[1]}"
        css = " ".join(c for c, on in (("is-you", p["is_you"]), ("done", done)) if on)
        chips.append({"text": text, "css": css})
    return chips


def host_rows(shown: dict[str, Any]) -> list[dict[str, Any]]:
    """The host's table of every seat's secrets; empty for anyone but the host (whose view
    alone has a ``host`` part)."""
    host = shown.get("host")
    if host is None:
        return []
    allocation = host["allocation"] or {}
    played = (host["last_round"] or {}).get("submissions", {})
    return [
        {
            "index": s["index"],
            "name": s["name"],
            "bid": host["bids"].get(str(s["index"])),
            "by": allocation.get(str(s["index"]), {}).get("by"),
            "submission": host["submissions"].get(str(s["index"])),
            "premoves": host["premoves"].get(str(s["index"]), 0),
            # The sequence it played in the latest round: beside its row, a round's frame
            # changes only the cells that differ from the round before.
            "played": played.get(str(s["index"])),
        }
        for s in shown["seats"]
    ]


def round_lines(shown: dict[str, Any], entry: dict[str, Any]) -> list[dict[str, Any]]:
    """A played round's line per player for the rounds panel: the name, the card played (when
    one was), the points signed and how they came (``(5x6 -1)``: group 5 times 6, a failed
    move; omitted when nothing scored). A round's lines are made once for what they show (every
    audience's page draws every round so far, at every version) and shared: read only."""
    try:
        shows = marshal.dumps((shown["names"], entry["points"], entry["cards"]))
    except ValueError:  # not plain data: made here
        return _round_lines(shown["names"], entry["points"], entry["cards"])
    return _kept_round_lines(shows)


@lru_cache(maxsize=512)
def _kept_round_lines(shows: bytes) -> list[dict[str, Any]]:
    return _round_lines(*marshal.loads(shows))


def _round_lines(
    names: dict[str, str], points: dict[str, Any], cards: dict[str, Any]
) -> list[dict[str, Any]]:
    lines = []
    for key, scored in points.items():
        line = {"name": names.get(key, key), "points": f"{scored['points']:+d}"}
        if cards.get(key):
            line["card"] = cards[key]
        failed = " -1" if scored["penalty"] else ""
        if scored["multiplier"]:
            line["detail"] = f"({scored['group']}x{scored['multiplier']}{failed})"
        elif failed:
            line["detail"] = "(-1)"
        lines.append(line)
    return lines


def main_grid(shown: dict[str, Any]) -> dict[str, Any]:
    """The grid of a view: the player's own gems and the cells the last round changed are
    marked."""
    phase = shown["phase"]
    me = shown.get("me")
    last = shown["history"][-1] if shown["history"] else None
    if phase == "bidding":
        caption = "The grid: colours are bid for before round 1"
    elif phase == "over":
        caption = "The final grid"
    else:
        caption = f"The grid as round {shown['round']} starts"
    return board_grid(
        shown["board"],
        name="sgs",
        caption=caption,
        own=me["colour"] if me else None,
        changed=last["changed"] if last and phase != "bidding" else [],
    )


def last_round(shown: dict[str, Any]) -> dict[str, Any] | None:
    """The round played last, for the grid's "before" toggle: the grid before it, the cells it
    changed and the caption of that grid. Where its points came from (its scoring groups) is
    in the round's event alone: the page lights them up as the round plays."""
    if not shown["history"]:
        return None
    entry = shown["history"][-1]
    return {
        "round": entry["round"],
        "board_before": entry["board_before"],
        "changed": entry["changed"],
        "caption": f"The grid before round {entry['round']} (changed cells outlined)",
    }


def host_round(shown: dict[str, Any]) -> dict[str, Any]:
    """The host's latest round as the host panel draws it (each seat's sequence is in its row
    of the host's table): its number and the steps to play one by one."""
    last = shown["host"]["last_round"]
    return {
        "round": last["round"],
        "step_count": len(last["steps"]),
        "steps": host_steps(shown),
    }


def page(shown: dict[str, Any]) -> dict[str, Any]:
    """What the page draws, derived only from ``shown`` (view's answer for this viewer).
    The parts a drawing replaces (the rounds' history, the host's bids and steps) are left out:
    the view travels in every frame, which must stay small."""
    phase = shown["phase"]
    me = shown.get("me")
    own = me["colour"] if me else None
    names = {str(s["index"]): s["name"] for s in shown["seats"]}
    clock_key = CLOCK_OF_PHASE.get(phase)
    due = shown["deadlines"].get(clock_key) if clock_key else None
    shown["clock"] = (
        {"key": clock_key, "label": CLOCK_LABELS[clock_key], "due": due}
        if clock_key and due
        else None
    )
    shown["colour_list"] = [{"letter": k, "name": v} for k, v in engine.COLOUR_NAMES.items()]
    if me:
        me["colour_name"] = engine.COLOUR_NAMES.get(own or "", "")
        me["won_by_text"] = WON_BY.get(me["won_by"] or "", "")
        me["cards"] = [
            {"letter": c, "name": engine.COLOUR_NAMES[c], "left": c in me["cards_left"]}
            for c in engine.COLOURS
        ]
        me["gems"] = [
            engine.cell_name(index)
            for index, gem in enumerate(shown["board"].replace("\n", ""))
            if gem == own
        ]
        # The rounds that closed without this player's sequence (a deadline missed): told to them.
        me["missed"] = [e["round"] for e in shown["history"] if me["seat"] not in e["submitted"]]
    shown["prompt"] = _prompt(shown)
    shown["names"] = names
    shown["grid"] = main_grid(shown)
    shown["players"] = players(shown)
    # What the status chips and the players' table each read, and nothing else: a panel is
    # drawn again only when what it shows changed (games/core/render/panelmemo.py keys it by its
    # inputs).
    shown["progress"] = progress(shown["phase"], shown["players"])
    shown["table"] = [{key: p[key] for key in TABLE_KEYS} for p in shown["players"]]
    shown["composing"] = bool(me) and phase == "round"
    shown["rounds_played"] = [
        {"round": e["round"], "changed": len(e["changed"]), "lines": round_lines(shown, e)}
        for e in shown["history"]
    ]
    shown["last_round"] = last_round(shown)
    host = shown.get("host")
    if host is not None:
        host["rows"] = host_rows(shown)
        host["last_round"] = host_round(shown) if host["last_round"] else None
        # The words of the steps' moves: the same all match long, so no update carries them.
        host["step_words"] = {"moves": engine.MOVE_NAMES, "failures": STEP_FAILURES}
        for drawn in ("bids", "allocation", "premoves"):
            del host[drawn]
    del shown["history"], shown["last"]
    return shown


def _prompt(shown: dict[str, Any]) -> str:
    phase = shown["phase"]
    me = shown.get("me")
    if phase == "bidding":
        if me is None:
            return "The players are bidding for their colours. Bids stay secret."
        if me["bid"]:
            return "Your bid is in. You may replace it until every bid is in or the clock ends."
        return (
            "Bid for your colour: a number of points (0 or less) and three colours ranked. "
            "The most negative bid takes the colour; you start with that many points."
        )
    if phase == "round":
        if me is None:
            return "The players are composing their sealed sequences."
        if me["submission"]:
            return (
                "Your sequence is in. You may change it and submit again until everyone has "
                "submitted or the clock ends."
            )
        return (
            f"Now pick one of your {me['colour_name']} gems on the grid, then add moves: the "
            "arrow keys, or a click on the cell beside your path's end."
        )
    # The result itself is the match's result panel, said once.
    return "The final totals are in the Players table."
