"""A Glittering Paths match's three rounds: each round's board (the host's, checked as a setting,
or drawn from the match seed), revealed as the round starts; the round closed and recorded; and
after the third, the match's result (pure, like the flow). The flow calls these as its actions,
clocks and the host end a round."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from games.core.game.flowkit import derived_seed, iso, set_clock
from games.core.game.gamedef import Outcome, State
from games.glittering_paths import engine
from games.glittering_paths.players import seat_named

ROUNDS = 3
GARNETS = 5


def clean_boards(value: object) -> list[str]:
    """The host's three boards as board texts ([] when the boards are drawn at random)."""
    if value in ("", None, []):
        return []
    if isinstance(value, str):
        blocks = [block for block in value.strip().split("\n\n") if block.strip()]
        texts = [block.strip() for block in blocks]
    elif isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        texts = list(value)
    else:
        raise ValueError("boards: paste the three boards' text, one blank line between boards")
    if len(texts) != ROUNDS:
        raise ValueError(
            f"boards: give exactly {ROUNDS} boards, one blank line between them "
            f"(found {len(texts)})"
        )
    cleaned = []
    for round_no, text in enumerate(texts, start=1):
        try:
            board = engine.check_round_board(text, round_no)
        except engine.BoardError as error:
            message = str(error)
            if not message.startswith(f"round {round_no}"):
                message = f"round {round_no}'s board: {message}"
            raise ValueError(f"boards: {message}") from None
        cleaned.append(engine.format_board(board))
    areas = [len(text.replace("\n", "")) for text in cleaned]
    if max(areas) > 1.25 * min(areas):
        raise ValueError(
            f"boards: the three boards should have about equal area (they have {areas} cells)"
        )
    return cleaned


def round_board(state: State, round_no: int) -> engine.Board:
    """Round ``round_no``'s board: the host's, or drawn from the match seed."""
    if state["pasted"]:
        return engine.parse_board(state["pasted"][round_no - 1])
    shapes = engine.board_shapes(state["board_area"])
    shape_rng = derived_seed(state["seed"], "shape", round_no)
    rows, cols = shapes[shape_rng % len(shapes)]
    return engine.generate_board(
        derived_seed(state["seed"], "board", round_no), round_no, rows, cols
    )


def begin_round(state: State, round_no: int, now: datetime) -> None:
    """Reveal round ``round_no``'s board and open the race (``state`` is a private copy)."""
    board = engine.format_board(round_board(state, round_no))
    state.update(
        round=round_no,
        phase="race",
        board=board,
        start_board=board,
        turn=None,
        turn_number=1,
        turn_started=iso(now),
        first=None,
        start_kind=None,
        moves=[],
        streak=[0, 0],
        agreed=[False, False],
        last_move=None,
    )
    state["deadlines"] = {}
    set_clock(state, "race", now, state["timers"]["race"])


def round_public(state: State) -> dict[str, Any]:
    """What everyone is told of the round as its board is revealed."""
    board = engine.parse_board(state["board"])
    return {"round": state["round"], "board": state["board"], "shape": board.shape}


def end_round(
    new: State, reason: str, now: datetime, *, kind: str, public: dict[str, Any] | None = None
) -> Outcome:
    """Close the round (``new`` is a private copy): record it, then pause or finish the match."""
    record = {
        "round": new["round"],
        "shape": engine.parse_board(new["start_board"]).shape,
        "start_board": new["start_board"],
        "end_board": new["board"],
        "first": new["first"],
        "start_kind": new["start_kind"],
        "moves": new["moves"],
        "reason": reason,
        "totals": list(new["totals"]),
        "analysis": None,
    }
    new["history"].append(record)
    new["agreed"] = [False, False]
    new["turn"] = None
    new["deadlines"] = {}
    public = {**(public or {}), "round_over": new["round"], "reason": reason}
    public["totals"] = list(new["totals"])
    if new["round"] >= ROUNDS:
        return finish_match(new, public, kind=kind)
    wait = new["timers"]["next_round"]
    if wait <= 0:
        begin_round(new, new["round"] + 1, now)
        public["next_round"] = round_public(new)
        return Outcome(new, kind, public)
    new["phase"] = "interval"
    set_clock(new, "next_round", now, wait)
    return Outcome(new, kind, public)


def finish_match(
    new: State, public: dict[str, Any], *, kind: str, awarded: bool = False
) -> Outcome:
    """End the match (``new`` is a private copy): the higher total wins, equal totals go to the
    seat the tie setting names, a host's award stands; the winner's garnets are its prize."""
    totals = [Decimal(t) for t in new["totals"]]
    if awarded:
        winner = new["winner"]
        how = "the host awarded the match"
    elif totals[0] == totals[1]:
        winner = new["tie_to"]
        role = new["seats"][winner]["role"] or "tie-breaker"
        how = f"the totals are level, and a tie goes to the {role}"
    else:
        winner = 0 if totals[0] > totals[1] else 1
        how = "the higher total wins"
    loser = 1 - winner
    summary = (
        f"{seat_named(new, winner)} wins the death match, {new['totals'][winner]} to "
        f"{new['totals'][loser]}: {how}."
    )
    prizes = {winner: {"garnets": GARNETS, "tokens": 0}, loser: {"garnets": 0, "tokens": 0}}
    result = {
        "winner": winner,
        "summary": summary,
        "totals": list(new["totals"]),
        "garnets": GARNETS,
    }
    new["phase"] = "over"
    new["winner"] = winner
    new["result"] = result
    new["turn"] = None
    new["deadlines"] = {}
    public = {**public, "winner": winner, "summary": summary}
    return Outcome(new, kind, public, result=result, prizes=prizes)
