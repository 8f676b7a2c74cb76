"""Tally: the tiny game that proves the match core in tests. Never listed, never shown to users.

Two seats take turns adding 1-3 to a shared total; whoever reaches the target wins. Each seat
holds a private secret word (the private information a view must never leak), and a turn clock
skips a seat that does not move in time.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from games.core.game.contract import Setting
from games.core.game.flowkit import Seed, derived_seed
from games.core.game.gamedef import (
    ActionError,
    FlowGame,
    GameDefinition,
    Outcome,
    SeatInfo,
    State,
    Viewer,
)
from games.core.game.registry import register
from tests import fixture_flow

SECRET_WORDS = ("amber", "beryl", "coral", "dravite", "emerald", "fluorite", "garnet", "heliodor")


class Tally(GameDefinition):
    key = "fixture-tally"
    title = "Tally (test fixture)"
    listed = False
    roles = ("EC", "DMO")
    bot_levels = ("peek",)
    # Every view a bot was shown, so a test can prove it never saw another seat's secret.
    bot_views: list[dict[str, Any]] = []  # noqa: RUF012

    settings = (
        Setting("target", "Target", 10, low=1, high=10**9),
        Setting("turn_seconds", "Turn clock (seconds)", 30, low=1, high=86400),
    )

    def start(self, settings: dict[str, Any], seats: list[SeatInfo], seed: Seed, now: datetime):
        rng = random.Random(derived_seed(seed, "words"))
        words = rng.sample(SECRET_WORDS, len(seats))
        number = derived_seed(seed, "secret") % 997
        state = {
            "total": 0,
            "target": settings["target"],
            "turn_seconds": settings["turn_seconds"],
            "turn": 0,
            "secrets": {str(seat.index): f"{words[seat.index]}-{number}" for seat in seats},
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
            # Both seats are paid: the winner in garnets, the other a Token of Life.
            prizes = {seat: {"garnets": 3}, 1 - seat: {"tokens": 1}}
            return Outcome(
                state=new_state, kind="added", public=public, result={"winner": seat}, prizes=prizes
            )
        return Outcome(
            state=self._with_clock(new_state, now),
            kind="added",
            public=public,
            private={seat: {"note": f"your secret is still {state['secrets'][str(seat)]}"}},
        )

    def timeout(self, state: State, key: str, now: datetime, drafts: dict) -> Outcome:
        """A seat that does not move in time is skipped, unless its draft holds an amount: then
        the deadline adds that amount for it (the draft is sealed)."""
        skipped = state["turn"]
        drafted = (drafts or {}).get(skipped, {}).get("amount")
        if drafted:
            outcome = self.act(state, skipped, {"type": "add", "amount": drafted}, now)
            outcome.kind = "draft_sealed"
            outcome.drafts_sealed = (skipped,)
            return outcome
        new_state = self._with_clock({**state, "turn": 1 - skipped}, now)
        return Outcome(state=new_state, kind="turn_skipped", public={"skipped": skipped})

    def clean_draft(self, state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
        amount = draft.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool) or not 1 <= amount <= 3:
            raise ActionError("a drafted amount is 1, 2 or 3", code="bad_draft")
        return {"amount": amount}

    def bot_action(self, view: dict[str, Any], seat: int, level: str, now: datetime):
        self.bot_views.append(view)
        return {"type": "add", "amount": 1} if view["turn"] == seat else None

    def adjudicate(self, state: State, award: dict[str, Any], now: datetime) -> Outcome:
        winner = award["winner"]
        new_state = {**state, "winner": winner, "deadlines": {}}
        return Outcome(state=new_state, kind="adjudicated", result={"winner": winner})

    def analysis_job(self, state: State) -> dict[str, Any] | None:
        if state.get("winner") is None or "analysis" in state:
            return None
        return {"total": state["total"]}

    def run_analysis(self, job: dict[str, Any]) -> dict[str, Any]:
        return {"overshoot": job["total"] - 10}

    def record_analysis(self, state: State, job: dict[str, Any], result: dict[str, Any]):
        return Outcome(state={**state, "analysis": result}, kind="analysed", public=result)

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


class SealedBids(GameDefinition):
    """2-7 seats each submit a sealed number; all are revealed together when everyone has
    submitted or the deadline passes. Proves the core fits sealed simultaneous submissions."""

    key = "fixture-sealed"
    title = "Sealed bids (test fixture)"
    listed = False
    min_seats = 2
    max_seats = 7
    unversioned_actions = frozenset({"bid"})

    settings = (Setting("seconds", "Bidding clock (seconds)", 60, low=1, high=86400),)

    def start(self, settings: dict[str, Any], seats: list[SeatInfo], seed: int, now: datetime):
        due = now + timedelta(seconds=settings["seconds"])
        state = {"seats": len(seats), "sealed": {}, "revealed": None, "deadlines": {}}
        state["deadlines"] = {"reveal": due.isoformat()}
        return Outcome(state=state, kind="started")

    def act(self, state: State, seat: int, action: dict[str, Any], now: datetime) -> Outcome:
        if state["revealed"] is not None:
            raise ActionError("the bids are already revealed", code="wrong_phase")
        if str(seat) in state["sealed"]:
            raise ActionError("you have already submitted", code="already_submitted")
        bid = action.get("bid")
        if not isinstance(bid, int) or isinstance(bid, bool):
            raise ActionError("a bid is a whole number")
        sealed = {**state["sealed"], str(seat): bid}
        new_state = {**state, "sealed": sealed}
        if len(sealed) == state["seats"]:
            return self._reveal(new_state, kind="submitted", seat=seat)
        return Outcome(
            state=new_state, kind="submitted", public={"seat": seat}, private={seat: {"bid": bid}}
        )

    def _reveal(self, state: State, kind: str, seat: int | None = None) -> Outcome:
        revealed = dict(state["sealed"])
        new_state = {**state, "revealed": revealed, "deadlines": {}}
        public = {"revealed": revealed} if seat is None else {"seat": seat, "revealed": revealed}
        return Outcome(state=new_state, kind=kind, public=public, result={"bids": revealed})

    def timeout(self, state: State, key: str, now: datetime, drafts: dict) -> Outcome:
        return self._reveal(state, kind="revealed")

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        if not state:
            return {}
        view: dict[str, Any] = {
            "submitted": sorted(int(seat) for seat in state["sealed"]),
            "revealed": state["revealed"],
            "deadlines": state["deadlines"],
        }
        if viewer.is_host:
            view["sealed"] = state["sealed"]
        elif viewer.seat is not None and str(viewer.seat) in state["sealed"]:
            view["my_bid"] = state["sealed"][str(viewer.seat)]
        return view


SEALED = register(SealedBids())


class CountToTen(FlowGame):
    """The contract's own fixture: a game that is only a flow module (tests/fixture_flow.py)."""

    flow = fixture_flow
    key = "fixture-count"
    title = "Count to Ten (test fixture)"
    listed = False
    roles = ("EC", "DMO")


COUNT = register(CountToTen())
