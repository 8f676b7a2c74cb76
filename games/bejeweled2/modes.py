"""The modes of Bejeweled 2: what each one is made of (the Action bar, puzzles, reshuffles,
special gems), which are hidden, and what opens each hidden one for a player. Pure data and
the small class that describes a mode; the flow (flow.py) plays by it."""

from __future__ import annotations

from dataclasses import dataclass

from games.bejeweled2.puzzles import PUZZLES


@dataclass(frozen=True)
class Mode:
    """What a mode is made of."""

    title: str
    help: str
    bar: bool = False
    """The Action bar ends the game (else no clock)."""
    puzzles: bool = False
    """A puzzle: no new gems, cleared board = solved, Undo and Restart."""
    reshuffle: bool = False
    """A stuck board is reshuffled (else the game, or the puzzle, is over)."""
    hidden: bool = False
    """Opened by play (``UNLOCKS``) or by a host for a match."""
    specials: bool = True
    """Lines of 4 or 5, Ls and Ts make power gems and hypercubes (else they are removed whole)."""
    secret: bool = False
    """Open to everyone from the start but not on the menu: the play page shows it once the
    player has hovered (or focused) the four menu modes in turn, eight rounds, as the original
    hid it."""


MODES: dict[str, Mode] = {
    "classic": Mode("Classic", "Classic: no clock; the game ends when no move is left."),
    "action": Mode(
        "Action",
        "Action: gems fill the bar, time drains it; a full bar is a level, an empty one the end.",
        bar=True,
        reshuffle=True,
    ),
    "endless": Mode(
        "Endless", "Endless: no clock, and a stuck board is reshuffled.", reshuffle=True
    ),
    "puzzle": Mode("Puzzle", "Puzzle: clear the board with no new gems falling.", puzzles=True),
    "twilight": Mode(
        "Twilight",
        "Twilight: Classic, with gravity pulling down and up in turn, move after move.",
        hidden=True,
    ),
    "hyper": Mode(
        "Hyper",
        "Hyper: Action with a faster bar and a bonus for quick moves one after another.",
        bar=True,
        reshuffle=True,
        hidden=True,
    ),
    "cognito": Mode(
        "Cognito",
        "Cognito: the puzzles again, scored; a hint makes that puzzle score 0.",
        puzzles=True,
        hidden=True,
    ),
    "finity": Mode(
        "Finity",
        "Finity: Action with rocks and bombs falling in; only blasts score.",
        bar=True,
        reshuffle=True,
        hidden=True,
    ),
    "original": Mode(
        "Original",
        "Original: the first Bejeweled's play: Classic with no power gems or hypercubes.",
        specials=False,
        secret=True,
    ),
}
MODE_TITLES = {key: mode.title for key, mode in MODES.items()}
MODE_HELP = {key: mode.help for key, mode in MODES.items()}
UNLOCKS: dict[str, tuple[str, int]] = {
    "twilight": ("classic", 17),
    "hyper": ("action", 8),
    "finity": ("endless", 280),
    "cognito": ("puzzle", len(PUZZLES)),
}
"""What opens each hidden mode for a player: reaching a level in a mode, or (Cognito) solving
every puzzle. ``standings.open_modes`` reads it against the player's recorded results."""
