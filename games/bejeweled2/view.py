"""What each viewer of a Bejeweled 2 match may see: ``view(state, viewer)``, pure, the only
place that decides it (the privacy gate). A solo game has no hidden information between
viewers: the player, the host and spectators see the same, and what is kept back from everyone is
the match seed (it would foretell the new gems)."""

from __future__ import annotations

from typing import Any

from games.bejeweled2.ending import REASONS
from games.bejeweled2.flow import HINT_POINTS, IDLE_DEFAULT_MINUTES, available_actions
from games.bejeweled2.levels import CLOCK, bar_drain, bar_size, level_progress
from games.bejeweled2.modes import MODE_TITLES, MODES
from games.bejeweled2.puzzles import PUZZLES, WORLD_SIZE
from games.core.game.flowkit import copy_json
from games.core.game.gamedef import State, Viewer

# --- what everyone sees ------------------------------------------------------------------------


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """Everything on the table: a solo game has no hidden information, so the player, the host
    and spectators all see the same (the match seed, which would foretell the new gems, is kept
    back from everyone)."""
    mode = state["mode"]
    puzzle = None
    if MODES[mode].puzzles:
        index = state["puzzle"]
        puzzle = {
            "index": index,
            "number": index + 1,
            "world": index // WORLD_SIZE + 1,
            "title": PUZZLES[index].title,
            "par": PUZZLES[index].par,
            "count": len(PUZZLES),
        }
    bar = None
    if MODES[mode].bar and state["bar"]:
        num, den = bar_drain(mode, state["bar"]["level"])
        bar = {
            "points": state["bar"]["points"],
            "at": state["bar"]["at"],
            "size": bar_size(state["bar"]["level"]),
            "drain_per_second": f"{num / den:g}",
        }
    last = state["last"]
    levels = not MODES[mode].puzzles and not MODES[mode].bar
    return {
        "game": "bejeweled2",
        "mode": mode,
        "mode_title": MODE_TITLES[mode],
        "player": state["seats"][0]["name"],
        "phase": state["phase"],
        "board": state["board"],
        "rows": state["board"].split("\n"),
        "score": state["score"],
        "level": state["level"],
        "level_progress": level_progress(state["score"], state["level"]) if levels else None,
        "moves": state["moves"],
        "hints": state["hints"],
        "hint": copy_json(state["hint"]),
        "hint_cost": _hint_cost_text(state),
        "undos": state["undos"],
        "gravity": state["gravity"],
        "streak": state["streak"],
        "last": copy_json(last),
        "deadline": state["deadlines"].get(CLOCK),
        "bar": bar,
        "turn_started": state["turn_started"],
        "puzzle": puzzle,
        "failures": state["failures"],
        "solution": copy_json(state["solution"]),
        "assisted": state["assisted"],
        "reshuffles": state["reshuffles"],
        "actions": available_actions(state),
        "over": state["phase"] == "over",
        "reason": state["reason"],
        "reason_text": REASONS.get(state["reason"]) if state["reason"] else None,
        "result": copy_json(state["result"]),
        "you": viewer.seat == 0,
        "idle_minutes": state.get("idle_minutes", IDLE_DEFAULT_MINUTES),
    }


def _hint_cost_text(state: State) -> str:
    """What the Hint button costs, in the player's words."""
    mode = state["mode"]
    if mode == "puzzle":
        return "free"
    if mode == "cognito":
        return "this puzzle then scores 0"
    if MODES[mode].bar:
        return "a tenth of the bar"
    return f"up to {HINT_POINTS} points"
