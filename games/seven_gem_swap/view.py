"""What each viewer of a Seven Gem Swap match may see: ``view(state, viewer)``, pure, the only
place that decides it (the privacy gate). Secrets live in the state's bids, submissions, premoves
and each round's ``secret`` part: a seat sees its own, the host sees all, no one else any. Pages,
frames, replays, exports and the bots all read a match through it."""

from __future__ import annotations

from typing import Any

from games.core.game.flowkit import copy_json
from games.core.game.gamedef import State, Viewer
from games.seven_gem_swap import engine
from games.seven_gem_swap.flow import GAME, ROUNDS
from games.seven_gem_swap.premoves import PREMOVE_FIRST_PRICE, premove_price
from games.seven_gem_swap.preview import sequence_preview
from games.seven_gem_swap.seats import seat_key, seat_keys
from games.seven_gem_swap.submissions import cards_left

# --- what a viewer sees --------------------------------------------------------------------------


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    """Everything ``viewer`` may see of ``state``: the one gate.

    Everyone: the grid, the seats, who has bid or submitted, the colours and starting scores once
    allocated, the cards played, the scores, each round's grid before and after and the cells
    that changed, and the result. A seat also sees its own bid, its own submissions (past and
    present), its cards left and its premove price. The host sees every bid, every submission and
    every round step by step. No one else's bid, gem, sequence or premove is ever shown.
    """
    if not state or "phase" not in state:
        return {}
    phase = state["phase"]
    out: dict[str, Any] = {
        "game": GAME,
        "phase": phase,
        "round": state["round"],
        "rounds": ROUNDS,
        "board": state["board"],
        "starting_board": state["starting_board"],
        "board_source": state["board_source"],
        "seats": copy_json(state["seats"]),
        "phase_started": state["phase_started"],
        "deadlines": dict(state.get("deadlines", {})),
        "timers": dict(state["timers"]),
        "no_card_scores": state["no_card_scores"],
        "bids_in": sorted(int(k) for k in state["bids"]) if phase == "bidding" else [],
        "colours": dict(state["colours"]),
        "starting_scores": dict(state.get("starting_scores", {})),
        "no_bid": list(state.get("no_bid", [])),
        "scores": dict(state["scores"]),
        "played": {k: list(v) for k, v in state["played"].items()},
        "submitted": sorted(int(k) for k in state["submissions"]) if phase == "round" else [],
        # Each round's public part as the state holds it, not copied (nine views an event, a
        # copy each of every round): a view is read, never changed (page() draws from it).
        "history": [entry["public"] for entry in state["history"]],
        "result": copy_json(state["result"]),
        "premove_first_price": PREMOVE_FIRST_PRICE,
        "max_moves": engine.MAX_MOVES,
    }
    out["last"] = out["history"][-1] if out["history"] else None
    seat = viewer.seat
    if seat is not None and seat_key(seat) in seat_keys(state):
        out["me"] = _own_view(state, seat_key(seat))
    elif viewer.is_host:
        out["host"] = {
            "bids": copy_json(state["bids"]),
            "allocation": copy_json(state["allocation"]),
            "submissions": copy_json(state["submissions"]),
            "premoves": dict(state["premoves"]),
            # The latest round only: a frame must stay small (Daphne sends at most 64 KiB); the
            # earlier rounds are in the log (the host's export, the replay at each version).
            "last_round": _host_round(state["history"][-1]) if state["history"] else None,
        }
    return out


def _host_round(entry: dict[str, Any]) -> dict[str, Any]:
    """A played round as the host sees it: every submission and its fate, and its steps as the
    engine played them: each step's ``board`` after it, the cells it newly ``locks``, and its
    moves as ``[player, from cell, to cell (None off the grid), direction, reason]``, the reason
    None for a move that succeeded."""
    secret = entry["secret"]
    steps = []
    locked: set[str] = set()
    for step in _steps_with_boards(entry):
        steps.append(
            {
                "board": step["board"],
                "locks": [cell for cell in step["locked"] if cell not in locked],
                "moves": [
                    [m["player"], m["from"], m["to"], m["direction"], m["reason"]]
                    for m in step["moves"]
                ],
            }
        )
        locked.update(step["locked"])
    return {
        "round": entry["round"],
        "submissions": copy_json(secret["submissions"]),
        "failed": dict(secret["failed"]),
        "made": dict(secret["made"]),
        "positions": dict(secret["positions"]),
        "premove_prices": dict(secret["premove_prices"]),
        "steps": steps,
    }


def _steps_with_boards(entry: dict[str, Any]) -> list[engine.Step]:
    """A played round's steps, each with the grid after it. A round kept before steps carried
    their grid is played again by the engine from its grid and submissions (the same round)."""
    secret = entry["secret"]
    if all("board" in step for step in secret["steps"]):
        return secret["steps"]
    plays = {k: (s["gem"], s["moves"], s["premove"]) for k, s in secret["submissions"].items()}
    return engine.resolve_round(entry["public"]["board_before"], plays).steps


def _own_view(state: State, key: str) -> dict[str, Any]:
    allocation = state["allocation"] or {}
    used = state["premoves"].get(key, 0)
    rounds = []
    for entry in state["history"]:
        secret = entry["secret"]
        if key in secret["submissions"]:
            rounds.append(
                {
                    "round": entry["round"],
                    "submission": copy_json(secret["submissions"][key]),
                    "failed": secret["failed"][key],
                    "made": secret["made"][key],
                    "premove_price": secret["premove_prices"].get(key, 0),
                }
            )
    submission = state["submissions"].get(key) if state["phase"] == "round" else None
    return {
        "seat": int(key),
        "colour": state["colours"].get(key),
        "bid": copy_json(state["bids"].get(key)),
        "won_by": allocation.get(key, {}).get("by"),
        "submission": copy_json(state["submissions"].get(key)),
        "cards_left": cards_left(state, key) if state["colours"] else [],
        "premoves_used": used,
        "premove_price": premove_price(used),
        "rounds": rounds,
        # What the sent sequence would do if no one else moved (as a draft's preview).
        "preview": sequence_preview(
            state, key, submission["gem"], submission["moves"], submission["card"]
        )
        if submission
        else None,
    }
