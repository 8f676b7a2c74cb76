"""What a seat may send in a round of Seven Gem Swap, checked the same way for a sent submission
and for a draft being composed: one of the seat's own gems, the moves, the colour card (from
round 2, each card once) and the premove. Pure; raises ActionError with a message a player can
read."""

from __future__ import annotations

from typing import Any

from games.core.game.gamedef import ActionError, State
from games.seven_gem_swap import engine
from games.seven_gem_swap.preview import sequence_preview
from games.seven_gem_swap.seats import check_seat


def _own_gem(state: State, key: str, gem_text: object) -> str:
    """The cell of one of the seat's own gems on the grid as the round starts, or ActionError."""
    own = state["colours"][key]
    try:
        gem = engine.parse_cell(gem_text)
    except ValueError as error:
        raise ActionError(str(error), code="bad_gem") from None
    name = engine.cell_name(gem)
    held = engine.parse_board(state["board"]).cells[gem]
    if held != own:
        what = "a rock" if held == engine.ROCK else f"a {engine.COLOUR_NAMES[held]} gem"
        raise ActionError(
            f"{name} holds {what}; control one of your {engine.COLOUR_NAMES[own]} gems",
            code="not_your_gem",
        )
    return name


def clean_submission(state: State, key: str, action: dict[str, Any]) -> dict[str, Any]:
    """Check a submission against the rules; the cleaned one or ActionError."""
    name = _own_gem(state, key, action.get("gem"))
    try:
        moves = engine.parse_moves(action.get("moves", ""))
    except ValueError as error:
        raise ActionError(str(error), code="bad_moves") from None
    premove = action.get("premove", False)
    if premove is None:
        premove = False
    if not isinstance(premove, bool):
        raise ActionError("premove is true or false", code="bad_premove")
    card = action.get("card")
    if isinstance(card, str):
        card = card.strip().upper() or None
    if state["round"] == 1:
        if card is not None:
            raise ActionError("no colour card is played in round 1", code="no_card_yet")
    else:
        if card is None:
            raise ActionError(
                f"play a colour card this round (one of {' '.join(cards_left(state, key))})",
                code="card_needed",
            )
        if not isinstance(card, str) or card not in engine.COLOURS or len(card) != 1:
            raise ActionError(f"{card!r} is not a colour card; use R O Y G B I V", code="bad_card")
        if card in state["played"][key]:
            raise ActionError(
                f"you already played your {engine.COLOUR_NAMES[card]} card", code="card_played"
            )
    return {"gem": name, "moves": moves, "card": card, "premove": premove}


def cards_left(state: State, key: str) -> list[str]:
    return [c for c in engine.COLOURS if c not in state["played"].get(key, [])]


DRAFT_FIELDS = ("round", "gem", "moves", "card", "premove")


def clean_draft(state: State, seat: int, draft: dict[str, Any]) -> dict[str, Any]:
    """A submission being composed, kept only for its seat: ``gem``, ``moves``, ``card``,
    ``premove`` and ``round`` (so that a page never restores last round's draft), at least one
    of them, each checked as the submission checks it (an empty ``gem``, ``moves`` or ``card``
    is one not chosen yet); anything else refuses the draft, and a refused draft changes
    nothing. Once a round's gem is chosen the draft also keeps its ``preview``
    (``sequence_preview``): what the sequence would do if no one else moved, for its seat's
    page (and the host, who sees every draft). A deadline never plays a draft: only a sent
    submission counts."""
    key = check_seat(state, seat)
    if not isinstance(draft, dict):
        raise ActionError("a draft is an object", code="bad_draft")
    unknown = sorted(str(field) for field in set(draft) - set(DRAFT_FIELDS))
    if unknown or not draft:
        said = f"{unknown[0]!r} is not part of one" if unknown else "this one holds nothing"
        raise ActionError(f"a draft holds {', '.join(DRAFT_FIELDS)}; {said}", code="bad_draft")
    composing = state.get("phase") == "round"
    cleaned: dict[str, Any] = {}
    meant = draft.get("round")
    if "round" in draft:
        if not isinstance(meant, int) or isinstance(meant, bool):
            raise ActionError("a draft's round is a round number", code="bad_draft")
        if meant != state.get("round"):
            raise ActionError(
                f"that draft was for round {meant}; round {state.get('round')} is being played",
                code="wrong_round",
            )
        cleaned["round"] = meant
    gem = _chosen(draft, "gem", "a gem is a cell name like C4")
    if gem:
        if composing:
            cleaned["gem"] = _own_gem(state, key, gem)
        else:
            try:
                cleaned["gem"] = engine.cell_name(engine.parse_cell(gem))
            except ValueError as error:
                raise ActionError(str(error), code="bad_gem") from None
    if "moves" in draft:
        try:
            moves = engine.parse_moves(draft["moves"])
        except ValueError as error:
            raise ActionError(str(error), code="bad_moves") from None
        if moves:
            cleaned["moves"] = moves
    card = _chosen(draft, "card", "a colour card is one of R O Y G B I V")
    if card:
        card = card.upper()
        if composing and state.get("round") == 1:
            raise ActionError("no colour card is played in round 1", code="no_card_yet")
        if card not in engine.COLOURS or len(card) != 1:
            raise ActionError(f"{card!r} is not a colour card; use R O Y G B I V", code="bad_card")
        if state.get("played") and card in state["played"].get(key, []):
            raise ActionError("that card is already played", code="card_played")
        cleaned["card"] = card
    if "premove" in draft:
        premove = draft["premove"]
        if premove is not None and not isinstance(premove, bool):
            raise ActionError("premove is true or false", code="bad_premove")
        cleaned["premove"] = bool(premove)
    if composing and "gem" in cleaned:
        cleaned["preview"] = sequence_preview(
            state, key, cleaned["gem"], cleaned.get("moves", ""), cleaned.get("card")
        )
    return cleaned


def _chosen(draft: dict[str, Any], field: str, what: str) -> str:
    """A draft's text field, stripped ("" when absent, empty or None: not chosen yet)."""
    value = draft.get(field)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ActionError(f"{what}, not {value!r}", code="bad_draft")
    return value.strip()
