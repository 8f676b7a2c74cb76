"""Bejeweled death match as a game definition: the match flow (flow.py, whose ``view`` is the one
gate deciding what each viewer sees) wired into the core, and the page drawn from that view:
the board as a grid, the powerups with their help, labels, the prompt, replay words and help."""

from __future__ import annotations

from typing import Any

from games.bejeweled_dm import bot, engine, flow, solver
from games.core.gamedef import FlowGame, SeatInfo, State, Viewer
from games.core.registry import register
from games.core.words import generic_description, round_marks, seat_name

POWERUP_HELP = {
    "Swap": "Swap any 2 side-by-side gems.",
    "Rotate": "Turn a 2x2 square of gems clockwise; name its top-left cell.",
    "Pick": "Remove 1 gem, or 2 gems of different colours.",
    "Recolor": "Choose colours A and B: after the first removal, every A gem becomes B.",
    "Chain": "Choose a colour C: when a C gem is removed, the gem directly above it goes too.",
    "Bend": "Any 2x2 square with 3 or 4 gems of one colour: those gems are removed.",
    "Column": "Replaces a gem; when removed, it removes every gem in its column.",
    "Plus": "Replaces a gem; when removed, it removes up to 2 gems in each of the 4 directions.",
    "Refresh": "Replaces a gem; when removed, you get one more use of your starter.",
}
GEM_CLASSES = {
    "R": "gem-red",
    "B": "gem-blue",
    "G": "gem-green",
    "Y": "gem-yellow",
    "P": "gem-purple",
    "#": "rock",
    ".": "hole",
}
GEM_LABELS = {**engine.COLOUR_NAMES, "#": "rock", ".": "empty"}
PHASE_LABELS = {
    "claim": "Claim",
    "counterclaim": "Counterclaim window",
    "proof": "Proof",
    "second_starter": "Proof: second starter",
    "pick": "Picks for the next round",
    "over": "Match over",
}
CLOCK_LABELS = {
    "round": "Round clock",
    "claim_window": "Counterclaim window",
    "proof": "Proof time",
    "pick": "Picking time",
}


def gems(count: int) -> str:
    return f"{count} gem" if count == 1 else f"{count} gems"


def board_grid(text: str) -> dict[str, Any]:
    """A board's text as rows of cells ready for the grid template."""
    rows = [line.strip() for line in text.strip().splitlines()]
    return {
        "text": "\n".join(rows),
        "rows": [
            [
                {
                    "cell": f"{engine.COLUMN_LETTERS[c]}{r + 1}",
                    "gem": gem,
                    "css": GEM_CLASSES[gem],
                    "label": GEM_LABELS[gem],
                }
                for c, gem in enumerate(row)
            ]
            for r, row in enumerate(rows)
        ],
    }


class DeathMatch(FlowGame):
    flow = flow
    bot = bot
    key = "bejeweled-dm"
    title = "Bejeweled death match"
    roles = ("EC", "DMO")
    template_dir = "bejeweled_dm"
    stylesheets = ("css/bejeweled_dm.css",)
    scripts = ("js/grid.js", "js/steps.js", "js/bejeweled_dm.js")
    rules_summary = (
        "Claim how many gems you can remove with one starter, one passive and one active "
        "powerup; the higher claimant must prove it. First to 4 rounds."
    )

    # --- the rules -----------------------------------------------------------------------------

    def warm_up(self) -> None:
        solver.warm_up()

    # --- what a viewer sees --------------------------------------------------------------------

    def view(self, state: State, viewer: Viewer) -> dict[str, Any]:
        """``flow.view`` (the one gate) as the page draws it: the board as a grid, the offer and
        the pick choices with their help, labels and the prompt."""
        shown = flow.view(state, viewer)
        return drawn(shown) if shown else shown

    def award_choices(self, state: State, seats: list[SeatInfo]) -> list[tuple[str, str]]:
        """The match to either seat at any time; the round being played to either seat while
        one is (not while the players pick powerups)."""
        from games.core.gamedef import award_value, seat_label

        if not state or state.get("phase") == "over":
            return []
        choices = []
        if state["phase"] in flow.ROUND_PHASES:
            for seat in seats:
                award = {"scope": "round", "winner": seat.index}
                label = f"{seat_label(seat)} wins round {state['round']} (the match goes on)"
                choices.append((award_value(award), label))
        return choices + super().award_choices(state, seats)

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
        data = event.get("data") or {}
        kind = event.get("kind")

        def who(key: str = "seat") -> str:
            return seat_name(state, data.get(key, event.get("seat")))

        def offer(shown: dict[str, list[str]]) -> str:
            return ", ".join(" or ".join(shown.get(kind_, [])) for kind_ in flow.TYPES)

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
            reason = flow.REASONS.get(data.get("reason", ""), "")
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


# --- the page, drawn from flow.view's answer (never from the state) ---------------------------


def drawn(shown: dict[str, Any]) -> dict[str, Any]:
    """``shown`` (what flow.view lets this viewer see) with what the page draws from it."""
    phase = shown["phase"]
    clock = shown["clock"]
    return {
        **shown,
        "phase_label": PHASE_LABELS[phase],
        "board": {**board_grid(shown["board"]), "caption": board_caption(shown)},
        "offer": offer_list(shown["offer"]),
        "clock": {**clock, "label": CLOCK_LABELS[clock["key"]]} if clock else None,
        "picks": pick_choices(shown["picks"]) if shown["picks"] else None,
        "colours": [{"letter": k, "name": v} for k, v in engine.COLOUR_NAMES.items()],
        "final_score": final_score(shown),
        "prompt": prompt(shown),
    }


def board_caption(shown: dict[str, Any]) -> str:
    phase = shown["phase"]
    if phase == "second_starter":
        return "The board after Refresh (rocks fill emptied cells)"
    if phase == "pick":
        return "The board this round left (its rocks refill next round)"
    if phase == "over":
        return "The final board"
    return f"Round {shown['round']}'s board"


def offer_list(offer: dict[str, list[str]]) -> list[dict[str, Any]]:
    """The round's offer by type, each powerup with what it does."""
    return [
        {
            "type": kind,
            "label": flow.TYPE_LABELS[kind],
            "options": [{"name": name, "help": POWERUP_HELP[name]} for name in offer[kind]],
        }
        for kind in flow.TYPES
    ]


def pick_choices(picks: dict[str, Any]) -> dict[str, Any]:
    """The pick form: every powerup of each type, those not allowed greyed, the viewer's own
    pick (if flow.view showed one) ticked."""
    mine = picks["mine"]
    options = [
        {
            "type": kind,
            "label": flow.TYPE_LABELS[kind],
            "choices": [
                {
                    "name": name,
                    "help": POWERUP_HELP[name],
                    "allowed": name in picks["allowed"][kind],
                    "chosen": bool(mine) and mine[kind] == name,
                }
                for name in flow.CHOICES[kind]
            ],
        }
        for kind in flow.TYPES
    ]
    return {**picks, "options": options}


def final_score(shown: dict[str, Any]) -> str | None:
    """The round wins once the match is over, the winner's first: "Bob 4, Ada 2", so the prompt
    and the result panel read the same."""
    winner = shown["winner"]
    if winner is None:
        return None
    names = [seat["name"] for seat in shown["seats"]]
    score = shown["score"]
    loser = 1 - winner
    return f"{names[winner]} {score[winner]}, {names[loser]} {score[loser]}"


def prompt(shown: dict[str, Any]) -> str:
    """What the viewer reads above the controls: what to do now, or what is happening."""
    return _PROMPTS[shown["phase"]](shown, shown["you"])


def _claim_prompt(shown: dict[str, Any], you: int | None) -> str:
    if you is None:
        return "Both players study the board. Waiting for a claim."
    no_claim = shown["seats"][shown["no_claim_to"]]["name"]
    return (
        "Find how many gems you can remove with one offered powerup of each type, then "
        f"claim that number. If no one claims before the round clock ends, {no_claim} "
        "wins the round."
    )


def _counterclaim_prompt(shown: dict[str, Any], you: int | None) -> str:
    standing = shown["claim"]
    who, count = standing["name"], standing["count"]
    if you is None:
        opponent = shown["seats"][1 - standing["seat"]]["name"]
        return f"{who} claimed {count}. {opponent} may counterclaim higher."
    if you == standing["seat"]:
        return (
            f"You claimed {count}. Your opponent may counterclaim a higher number; if not, you "
            "show the proof."
        )
    return (
        f"{who} claimed {count}. Counterclaim a higher number to steal the round (then you "
        "must prove it), or pass."
    )


def _proof_prompt(shown: dict[str, Any], you: int | None) -> str:
    needed = gems(shown["target"]["count"])
    if you == shown["prover"]:
        return (
            f"Show your proof: remove at least {needed}. Build it on the board, or type it, "
            "then submit. An illegal proof is refused with the reason and you may correct it "
            "before the clock ends."
        )
    return f"{shown['prover_name']} must prove {needed}."


def _second_starter_prompt(shown: dict[str, Any], you: int | None) -> str:
    pending = shown["pending"]
    if you == shown["prover"]:
        return (
            f"Refresh went off after {gems(pending['removed'])}: use your "
            f"{pending['starter']} once more on the board as it is now, or end the turn."
        )
    return f"Refresh went off; {shown['prover_name']} is choosing a second {pending['starter']}."


def _pick_prompt(shown: dict[str, Any], you: int | None) -> str:
    if you is None:
        return "The players are picking powerups for the next round."
    if shown["picks"]["mine"] is None:
        return (
            "Pick one powerup of each type for the next round (not one used in the proof just "
            "made). Same picks: that one is offered; different: both are."
        )
    return "You have picked; waiting for your opponent. You may change your pick."


def _over_prompt(shown: dict[str, Any], you: int | None) -> str:
    winner, name = shown["winner"], shown["winner_name"]
    if shown["awarded"]:
        return (
            f"The host awarded the match to {name} (round wins {final_score(shown)}); {name} "
            f"earns {flow.GARNETS} garnets."
        )
    won, lost = shown["score"][winner], shown["score"][1 - winner]
    return f"{name} wins the match by {won} round wins to {lost} and earns {flow.GARNETS} garnets."


_PROMPTS = {
    "claim": _claim_prompt,
    "counterclaim": _counterclaim_prompt,
    "proof": _proof_prompt,
    "second_starter": _second_starter_prompt,
    "pick": _pick_prompt,
    "over": _over_prompt,
}


DEATH_MATCH = register(DeathMatch())
