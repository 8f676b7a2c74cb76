"""Tally: the tiny game that proves the match core in tests. Never listed, never shown to users.

Two seats take turns adding 1-3 to a shared total; whoever reaches the target wins. Each seat
holds a private secret word (the private information a view must never leak), and a turn clock
skips a seat that does not move in time.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from games.core.gamedef import ActionError, GameDefinition, Outcome, SeatInfo, State, Viewer
from games.core.registry import register

SECRET_WORDS = ("amber", "beryl", "coral", "dravite", "emerald", "fluorite", "garnet", "heliodor")


class Tally(GameDefinition):
    key = "fixture-tally"
    title = "Tally (test fixture)"
    listed = False
    roles = ("EC", "DMO")

    def default_settings(self) -> dict[str, Any]:
        return {"target": 10, "turn_seconds": 30}

    def start(self, settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime):
        rng = random.Random(seed)
        words = rng.sample(SECRET_WORDS, len(seats))
        state = {
            "total": 0,
            "target": settings["target"],
            "turn_seconds": settings["turn_seconds"],
            "turn": 0,
            "secrets": {str(seat.index): f"{words[seat.index]}-{seed % 997}" for seat in seats},
            "winner": None,
        }
        return Outcome(state=self._with_clock(state, now), kind="started")

    def _with_clock(self, state: State, now: datetime) -> State:
        due = now + timedelta(seconds=state["turn_seconds"])
        return {**state, "deadlines": {"turn": due.isoformat()}}

    def act(self, state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
        if action.get("type") != "add":
            raise ActionError(f"unknown action {action.get('type')!r}", code="unknown_action")
        if seat != state["turn"]:
            raise ActionError("it is not your turn", code="not_your_turn")
        amount = action.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool) or not 1 <= amount <= 3:
            raise ActionError("add 1, 2 or 3")
        total = state["total"] + amount
        new_state = {**state, "total": total, "turn": 1 - seat}
        public = {"added": amount, "total": total}
        if total >= state["target"]:
            new_state.update(winner=seat, deadlines={})
            return Outcome(state=new_state, kind="added", public=public, result={"winner": seat})
        return Outcome(
            state=self._with_clock(new_state, now),
            kind="added",
            public=public,
            private={seat: {"note": f"your secret is still {state['secrets'][str(seat)]}"}},
        )

    def timeout(self, state: State, key: str, now: datetime) -> Outcome:
        skipped = state["turn"]
        new_state = self._with_clock({**state, "turn": 1 - skipped}, now)
        return Outcome(state=new_state, kind="turn_skipped", public={"skipped": skipped})

    def adjudicate(self, state: State, award: dict[str, Any], now: datetime) -> Outcome:
        winner = award["winner_seat"]
        new_state = {**state, "winner": winner, "deadlines": {}}
        return Outcome(state=new_state, kind="adjudicated", result={"winner": winner})

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        if not state:
            return {}
        view = {
            "total": state["total"],
            "target": state["target"],
            "turn": state["turn"],
            "winner": state["winner"],
            "deadlines": state.get("deadlines", {}),
        }
        if viewer.is_host:
            view["secrets"] = state["secrets"]
        elif viewer.seat is not None:
            view["my_secret"] = state["secrets"][str(viewer.seat)]
        return view


TALLY = register(Tally())
