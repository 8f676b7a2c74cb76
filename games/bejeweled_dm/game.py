"""Bejeweled death match as a game definition: its flow (flow.py: the rules), its gate (view.py:
``view``, what each viewer sees) and its page (page.py: what the page draws from a view) wired
into the core, with what the host may award, replay words and help."""

from __future__ import annotations

from typing import Any

from games.bejeweled_dm import bot, engine, flow, page, powerups, rounds, solver, view
from games.bejeweled_dm.page import board_grid, gems
from games.core.game.gamedef import FlowGame, SeatInfo, State, seat_awards
from games.core.game.registry import register
from games.core.game.words import event_parts, generic_description, round_marks, seat_name


class DeathMatch(FlowGame):
    flow = flow
    view_module = view
    page_module = page
    # What only the templates draw (the page's script reads the board's text, the phase, the
    # open actions, the steps: static/js/bejeweled_dm.js): left out of every frame's view and the
    # page's JSON view.
    page_only = (
        "pick_form",
        "last_round",
        "history",
        "prompt",
        "phase_label",
        "colours",
        "clock.label",
        "final_score",
        "looks",
    )
    bot = bot
    key = "bejeweled-dm"
    title = "Bejeweled death match"
    roles = ("EC", "DMO")
    rules_summary = (
        "Claim how many gems you can remove with one starter, one passive and one active "
        "powerup; the higher claimant must prove it. First to 4 rounds."
    )

    # --- the rules -----------------------------------------------------------------------------

    def warm_up(self) -> None:
        solver.warm_up()

    # --- the host ---------------------------------------------------------------------------

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """The match to either seat at any time; the round being played to either seat while
        one is (not while the players pick powerups)."""
        if not state or state.get("phase") == "over":
            return []
        rounds = []
        if state["phase"] in flow.ROUND_PHASES:
            says = f"{{seat}} wins round {state['round']} (the match goes on)"
            rounds = seat_awards(seats, says, scope="round")
        return rounds + super().award_choices(state, seats)

    # --- replay and help -------------------------------------------------------------------------
    controls_help = (
        "Read the board and the powerups offered; type how many gems you can remove and press "
        "Claim. The first claim holds.",
        "After a claim, your opponent has 30 seconds to counterclaim a higher number or pass.",
        "The prover builds the proof by clicking the board (the active's gem, then the "
        "starter's cells) or types it, e.g. 'Plus F4; Bend; Swap F4 F5', and submits it.",
        "Between rounds, tick one powerup of each type for the next round and send your picks.",
        "Board cells take the keyboard: Tab to the board, arrow keys to move, Enter to choose.",
    )

    def describe_event(self, event: dict[str, Any], state: State) -> str:
        kind, data, _ = event_parts(event, state)

        def who(key: str = "seat") -> str:
            return seat_name(state, data.get(key, event.get("seat")))

        def offer(shown: dict[str, list[str]]) -> str:
            return ", ".join(" or ".join(shown.get(kind_, [])) for kind_ in powerups.TYPES)

        if kind == "started":
            return f"Round 1 begins. Powerups offered: {offer(data.get('offer', {}))}."
        if kind == "claimed":
            return f"{who()} claims {gems(data['count'])}."
        if kind == "counterclaimed":
            return f"{who()} counterclaims {gems(data['count'])} and must prove it."
        if kind == "passed":
            return f"{who()} passes; {who('prover')} must prove the claim."
        if kind == "claim_window_closed":
            return f"No counterclaim in time; {who('prover')} must prove the claim."
        if kind == "refresh_activated":
            return f"Refresh went off: {who('prover')} may use the starter once more."
        if kind in ("round_over", "adjudicated") and "winner" in data and "round" in data:
            reason = rounds.REASONS.get(data.get("reason", ""), "")
            removed = data.get("removed")
            detail = f" ({gems(removed)} removed, {reason})" if removed is not None else ""
            if not detail and reason:
                detail = f" ({reason})"
            text = f"{who('winner')} wins round {data['round']}{detail}."
            score = data.get("score")
            if isinstance(score, list) and len(score) == 2:
                text += f" Score {score[0]}-{score[1]}."
            if data.get("match_winner") is not None:
                text += f" {who('match_winner')} wins the match."
            return text
        if kind == "optimum_found":
            return (
                f"The best claim of round {data['round']} was {gems(data['count'])}: "
                f"{data['proof']}."
            )
        if kind == "picked":
            return f"{who()} has picked powerups for the next round."
        if kind == "draft_sealed":
            return (
                f"{who()} has ticked a whole pick: if the picking time ends first, it is "
                f"{who()}'s pick (receipt {str(data.get('receipt', ''))[:8]}…)."
            )
        if kind == "draft_unsealed":
            return f"{who()}'s ticked pick is no longer whole: its receipt is replaced."
        if kind in ("round_started", "pick_time_up"):
            late = (
                " (picks not made in time were drawn at random)" if kind == "pick_time_up" else ""
            )
            return (
                f"Round {data['round']} begins{late}. Powerups offered: "
                f"{offer(data.get('offer', {}))}."
            )
        if kind == "clock_ignored":
            return "A clock that was no longer running ended; nothing changed."
        return generic_description(event, state)

    def replay_marks(self, events: list[dict[str, Any]]) -> list[tuple[int, str]]:
        return round_marks(events, {"started", "round_started", "pick_time_up"}, label="Round")

    def rules_examples(self) -> list[dict[str, Any]]:
        board = engine.generate_board(3)
        proof = "Plus D4; Bend; Pick D4"
        turn = engine.resolve(board, proof)
        before = {**board_grid(engine.format_board(board)), "name": "example-before"}
        after = {**board_grid(engine.format_board(turn.board)), "name": "example-after"}
        before["caption"] = "Before: the round's board"
        after["caption"] = (
            f"After the proof: {gems(turn.removed)} removed, rocks (#) where nothing fell"
        )
        return [
            {
                "title": "A proof",
                "text": (
                    f"With Plus, Bend and Pick offered, the proof '{proof}' places the Plus on D4, "
                    f"turns Bend on and picks D4: the Plus goes off, lines and 2x2 squares fall "
                    f"in, and {gems(turn.removed)} are removed. A claim of {turn.removed} or less "
                    "would be proved."
                ),
                "grids": [before, after],
            }
        ]


DEATH_MATCH = register(DeathMatch())
