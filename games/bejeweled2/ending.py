"""The end of a Bejeweled 2 game: why it ended, what a solved Cognito puzzle scores, the
summary, and the result that says how the score was made (hints asked, the solution shown,
ended early or abandoned). Pure."""

from __future__ import annotations

from typing import Any

from games.bejeweled2.modes import MODE_TITLES, MODES
from games.bejeweled2.puzzles import PUZZLES
from games.core.game.gamedef import State
from games.core.game.words import counted

PAR_BONUS = 500
"""Cognito: a puzzle solved in par moves or fewer earns 500 points more."""
REASONS = {
    "no_moves": "no legal move is left",
    "time_up": "the bar ran empty",
    "solved": "the puzzle is solved",
    "ended": "the player ended the game",
    "adjudicated": "the host ended the game",
    "abandoned": "no one played it for too long",
}
EARLY_REASONS = frozenset({"ended", "adjudicated", "abandoned"})
"""A game that ended this way is marked in the high scores as ended early."""


def puzzle_score(state: State) -> int:
    """What a solved Cognito puzzle scores: its moves' points, +``PAR_BONUS`` at par or better;
    0 once a hint or the solution was shown, or when it is not solved."""
    if not state["solved"] or state["hints"] or state["assisted"]:
        return 0
    par = PUZZLES[state["puzzle"]].par
    return state["score"] + (PAR_BONUS if state["moves"] <= par else 0)


def _summary(state: State, reason: str) -> str:
    mode = state["mode"]
    if MODES[mode].puzzles:
        title = PUZZLES[state["puzzle"]].title
        if state["solved"]:
            moves = state["moves"]
            text = f"Puzzle {state['puzzle'] + 1}, {title}, solved in {counted(moves, 'move')}"
            if state["assisted"]:
                text += " after the solution was shown"
            if mode == "cognito":  # the score ``_finish`` has made the puzzle's, bonus and all
                text += f": {state['score']:,} points"
            return text + "."
        return f"Puzzle {state['puzzle'] + 1}, {title}, not solved: {REASONS[reason]}."
    return (
        f"{MODE_TITLES[mode]} game over, {REASONS[reason]}: {state['score']:,} points, "
        f"level {state['level']}, {counted(state['moves'], 'move')}."
    )


def finish(new: State, reason: str, winner: int | None = None) -> dict[str, Any]:
    """End the game in ``new`` (a private copy); return the match result. The result says how
    the score was made: hints asked, the solution shown (assisted), ended early or abandoned."""
    new["phase"] = "over"
    new["reason"] = reason
    new["deadlines"] = {}
    puzzles = MODES[new["mode"]].puzzles
    ended_by_play = reason not in ("adjudicated", "abandoned")
    if winner is None and (not puzzles or new["solved"]) and ended_by_play:
        winner = 0
    if new["mode"] == "cognito":
        new["score"] = puzzle_score(new)
    result: dict[str, Any] = {
        "winner": winner,
        "summary": _summary(new, reason),
        "score": new["score"],
        "level": new["level"],
        "mode": new["mode"],
        "moves": new["moves"],
        "reason": reason,
        "hints": new["hints"],
        "ended_early": reason in EARLY_REASONS,
        "abandoned": reason == "abandoned",
    }
    if puzzles:
        par = PUZZLES[new["puzzle"]].par
        result["solved"] = new["solved"]
        result["assisted"] = new["assisted"]
        result["at_par"] = new["solved"] and not new["assisted"] and new["moves"] <= par
        result["undos"] = new["undos"]
        result["puzzle"] = new["puzzle"]
        following = new["puzzle"] + 1
        result["next_puzzle"] = following if following < len(PUZZLES) and new["solved"] else None
    new["result"] = dict(result)
    return result
