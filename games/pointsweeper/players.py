"""The two players of a Pointsweeper match and what each one's 16 pieces may still do on the
board in play: which may scout, which may claim, whether the player still takes turns (pure, like
the flow). The flow checks a move with these; the view offers a seat exactly these."""

from __future__ import annotations

from typing import Any

from games.core.game.gamedef import State
from games.pointsweeper import engine


def other(seat: int) -> int:
    """The other player's seat."""
    return 1 - seat


def player_name(state: State, seat: int) -> str:
    """The name of the player in ``seat``, as the state keeps it."""
    return state["seats"][seat]["name"]


def first_player(state: State, seat: int) -> bool:
    """Whether ``seat`` moves first on the board in play (their pawns move toward rank 8)."""
    return state["first"] == seat


def used_pieces(state: State, seat: int) -> dict[str, list[str]]:
    """The pieces ``seat`` has used on the board in play: ``"scouted"`` and ``"claimed"``."""
    return state["play"]["used"][str(seat)]


def can_scout(state: State, seat: int, piece: str) -> bool:
    used = used_pieces(state, seat)
    return piece not in used["scouted"] and piece not in used["claimed"]


def can_claim(state: State, seat: int, piece: str) -> bool:
    return piece not in used_pieces(state, seat)["claimed"]


def may_claim_now(state: State, seat: int) -> bool:
    """Past the first scout-only turns of this board."""
    return state["play"]["turns"][seat] >= state["settings"]["scout_turns"]


def out_of_pieces(state: State, seat: int) -> bool:
    """Whether every one of ``seat``'s pieces has claimed on this board."""
    return len(used_pieces(state, seat)["claimed"]) == len(engine.PIECE_IDS)


def can_move(state: State, seat: int) -> bool:
    """Whether ``seat`` still takes turns on this board."""
    play = state["play"]
    if play["passed"][seat] or out_of_pieces(state, seat):
        return False
    if may_claim_now(state, seat):
        return True
    return any(can_scout(state, seat, p) for p in engine.PIECE_IDS)


def legal_for(state: State, seat: int) -> dict[str, Any]:
    """What ``seat`` may do now: the pieces that may scout and claim, and whether it may pass.
    The page offers exactly this; the rules check the same functions."""
    if state["phase"] != "play" or state["turn"] != seat:
        return {"scout": [], "claim": [], "pass": False}
    claiming = may_claim_now(state, seat)
    return {
        "scout": [p for p in engine.PIECE_IDS if can_scout(state, seat, p)],
        "claim": [p for p in engine.PIECE_IDS if claiming and can_claim(state, seat, p)],
        "pass": True,
    }
