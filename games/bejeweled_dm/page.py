"""What the death match page draws from a view (``view.view``'s answer, never the state):
``page(shown)`` adds the board's caption, the offer with each powerup's help, the pick form,
labels, the final score and the prompt; ``board_grid`` draws a board as rows of cells (the rules'
example and the practice page). Everything added is derived from the view alone."""

from __future__ import annotations

from typing import Any

from games.bejeweled_dm import engine
from games.bejeweled_dm.powerups import CHOICES, TYPE_LABELS, TYPES
from games.bejeweled_dm.rounds import GARNETS

# --- the page: what it draws from the view (the gate's answer, never the state) ----------------


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
LOOKS = {gem: {"css": css, "name": GEM_LABELS[gem]} for gem, css in GEM_CLASSES.items()}
"""Each board character's look, as the board's table carries it (``data-looks``) for the
page's script, which paints every board the round plays (static/js/bejeweled_dm.js)."""
PHASE_LABELS = {
    "claim": "Claim",
    "counterclaim": "Counterclaim window",
    "proof": "Proof",
    "second_starter": "Proof: second starter",
    "pick": "Picks for the next round",
    "over": "Match over",
}
# What ``page`` adds that the page's script reads, so frames carry it: nothing it adds. The
# script (static/js/bejeweled_dm.js) reads the board's text (``board.text``: the view's board,
# which the page turns into an object with its caption) and the view's own facts (the phase, the
# round, the open actions, the steps); everything ``page`` adds only the panels draw, and the
# game's ``page_only`` lists it (tests/core/test_page_only.py).
SCRIPT_READS: tuple[str, ...] = ()
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


def page(shown: dict[str, Any]) -> dict[str, Any]:
    """``shown`` (what ``view`` lets this viewer see) with what the page draws from it."""
    phase = shown["phase"]
    clock = shown["clock"]
    return {
        **shown,
        "phase_label": PHASE_LABELS[phase],
        # The cells are painted by the page's script from the board's text (the template
        # draws the same empty cells for every board, so a new board costs a frame nothing).
        "board": {"text": shown["board"], "caption": board_caption(shown)},
        "looks": LOOKS,
        "offer": offer_list(shown["offer"]),
        "clock": {**clock, "label": CLOCK_LABELS[clock["key"]]} if clock else None,
        "pick_form": pick_form(shown),
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
            "label": TYPE_LABELS[kind],
            "options": [{"name": name, "help": POWERUP_HELP[name]} for name in offer[kind]],
        }
        for kind in TYPES
    ]


def pick_form(shown: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A player's pick form (None for anyone else and once the match is over): every powerup of
    each type, those not allowed greyed, the viewer's own pick (if view.view showed one) ticked.
    Outside the pick phase the form waits hidden in the page with every powerup allowed and none
    ticked, so the round's end sends only what changes in it, not the whole form."""
    if not shown["is_player"] or shown["phase"] == "over":
        return None
    picks = shown["picks"] or {"allowed": CHOICES, "mine": None}
    mine = picks["mine"]
    return [
        {
            "type": kind,
            "label": TYPE_LABELS[kind],
            "choices": [
                {
                    "name": name,
                    "help": POWERUP_HELP[name],
                    "allowed": name in picks["allowed"][kind],
                    "chosen": bool(mine) and mine[kind] == name,
                }
                for name in CHOICES[kind]
            ],
        }
        for kind in TYPES
    ]


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
            f"earns {GARNETS} garnets."
        )
    won, lost = shown["score"][winner], shown["score"][1 - winner]
    return f"{name} wins the match by {won} round wins to {lost} and earns {GARNETS} garnets."


_PROMPTS = {
    "claim": _claim_prompt,
    "counterclaim": _counterclaim_prompt,
    "proof": _proof_prompt,
    "second_starter": _second_starter_prompt,
    "pick": _pick_prompt,
    "over": _over_prompt,
}
