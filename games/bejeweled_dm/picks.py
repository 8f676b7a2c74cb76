"""The pick phase of a death match: between rounds each player picks one powerup of each type
for the next round, sealed until both are in (a draft is kept while a player ticks, and sealed
as sent if the picking time ends); the picks make the next round's offer, and the next round
starts on the carried-over board with its rocks refilled."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from games.bejeweled_dm import engine
from games.bejeweled_dm.powerups import CHOICES, TYPES
from games.bejeweled_dm.rounds import start_clock
from games.bejeweled_dm.whose_move import check_open
from games.core.game.flowkit import check_clock, copy_json, derived_seed, draw
from games.core.game.gamedef import ActionError, Outcome, State


def pick(state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
    check_open(state, seat, "pick")
    check_clock(state, "pick", now, "the picking time is over")
    chosen: dict[str, str] = {}
    for kind in TYPES:
        name = action.get(kind)
        allowed = state["allowed"][kind]
        if not isinstance(name, str) or name not in allowed:
            shown = "nothing" if name in (None, "") else repr(name)
            raise ActionError(
                f"pick a {kind} powerup from {', '.join(allowed)} (you sent {shown})",
                code="bad_pick",
            )
        chosen[kind] = name
    new = copy_json(state)
    # A changed pick is its seat's and the host's to know (games/core: Event.kept_from).
    replaced = bool(new["picks"].get(str(seat)))
    new["picks"][str(seat)] = chosen
    if all(new["picks"].values()):
        return start_next_round(new, now, kind="round_started", seat=seat)
    return Outcome(
        state=new,
        kind="picked",
        public={"seat": seat, "picked": True},
        private={seat: {"pick": chosen, "replaced": replaced}},
    )


def complete_pick(state: State, chosen: Any) -> dict[str, str] | None:
    """``chosen`` as a pick if it names an allowed powerup of every type, else None."""
    if not isinstance(chosen, dict):
        return None
    if all(chosen.get(kind) in state["allowed"][kind] for kind in TYPES):
        return {kind: chosen[kind] for kind in TYPES}
    return None


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    """The powerups a seat has ticked but not sent, ``{"pick": {type: name}}`` (any types so
    far), kept as ``{"round": n, "pick": {...}}``; a draft naming another round is refused (it
    would be sealed as this round's pick). Only the pick phase has drafts."""
    if state.get("phase") != "pick":
        raise ActionError("only powerup picks are kept as drafts", code="no_draft")
    if set(draft) - {"round", "pick"} or not isinstance(draft.get("pick"), dict):
        raise ActionError("a draft is {'pick': {type: powerup}}", code="bad_draft")
    if "round" in draft:
        meant = draft["round"]
        if not isinstance(meant, int) or isinstance(meant, bool):
            raise ActionError("a draft's round is a round number", code="bad_draft")
        if meant != state["round"]:
            raise ActionError(
                f"that pick was for round {meant}; round {state['round']} is being picked",
                code="wrong_round",
            )
    ticked = draft["pick"]
    if set(ticked) - set(TYPES):
        raise ActionError(f"the powerup types are {', '.join(TYPES)}", code="bad_draft")
    for kind, name in ticked.items():
        if name not in state["allowed"][kind]:
            raise ActionError(
                f"pick a {kind} powerup from {', '.join(state['allowed'][kind])}",
                code="bad_pick",
            )
    return {"round": state["round"], "pick": {k: ticked[k] for k in TYPES if k in ticked}}


def draft_move(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any] | None:
    """The pick the end of the picking time would seal ``seat``'s kept draft as: while it is
    picking and has not picked, a draft of this round naming a powerup of every type, sent as
    the pick action would be (``{"type": "pick", type: powerup, ...}``); else None."""
    if state.get("phase") != "pick" or state["picks"].get(str(seat)) is not None:
        return None
    if not isinstance(draft, dict) or draft.get("round") != state["round"]:
        return None
    drafted = complete_pick(state, draft.get("pick"))
    return {"type": "pick", **drafted} if drafted is not None else None


def seal_picks(
    state: State, drafts: dict[int, dict[str, Any]]
) -> tuple[State, dict[str, dict[str, str]], list[int]]:
    """At the end of the picking time, every missing pick is the seat's draft when the draft
    names a powerup of every type for this round (sealed as sent: ``draft_move``), else a
    random allowed one. Returns the new state, the random picks drawn and the seats whose
    drafts were sealed."""
    new = copy_json(state)
    drawn: dict[str, dict[str, str]] = {}
    sealed: list[int] = []
    for key, chosen in new["picks"].items():
        if chosen is not None:
            continue
        drafted = draft_move(new, int(key), drafts.get(int(key)) or {})
        if drafted is not None:
            new["picks"][key] = {kind: drafted[kind] for kind in TYPES}
            sealed.append(int(key))
        else:
            new["picks"][key] = {kind: draw(new, new["allowed"][kind]) for kind in TYPES}
            drawn[key] = new["picks"][key]
    return new, drawn, sealed


def start_next_round(
    state: State,
    now: datetime,
    *,
    kind: str,
    seat: int | None = None,
    drawn: dict[str, dict[str, str]] | None = None,
) -> Outcome:
    """Both picks are in (``state`` is already a private copy): make the offer, refill the
    rocks of the carried-over board, start the round clock."""
    picks = state["picks"]
    offer = {
        kind_: [name for name in CHOICES[kind_] if name in {p[kind_] for p in picks.values()}]
        for kind_ in TYPES
    }
    state["history"][-1]["picks"] = picks
    if drawn:
        state["history"][-1]["random_picks"] = sorted(drawn)
    state["round"] += 1
    carried = engine.parse_board(state["carry"])
    refilled = engine.refill_rocks(carried, derived_seed(state["seed"], "refill", state["round"]))
    state.update(
        board=engine.format_board(refilled),
        offer=offer,
        phase="claim",
        claim=None,
        counterclaim=None,
        prover=None,
        pending=None,
        picks=None,
        allowed=None,
        carry=None,
    )
    start_clock(state, "round", now)
    public: dict[str, Any] = {
        "round": state["round"],
        "picks": picks,
        "offer": offer,
        "board": state["board"],
    }
    if seat is not None:
        public["seat"] = seat
    if drawn:
        public["random_picks"] = {key: value for key, value in drawn.items()}
    return Outcome(state=state, kind=kind, public=public)
