"""A proof of a Bejeweled death match, as players write it: the powerups (``ACTIVES``,
``PASSIVES``, ``STARTERS``), the parsed ``Proof`` with every check that does not depend on the
board, ``parse_proof`` and ``format_proof``. Pure (no Django, no IO); rules.py plays a proof on a
board."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .board import (
    CELL_NAMES,
    COLOUR_NAMES,
    COLOURS,
    COLUMNS,
    ROWS,
    Cell,
    ProofError,
    check_cell,
    parse_cell,
)

STARTERS = ("Swap", "Rotate", "Pick")
PASSIVES = ("Recolor", "Chain", "Bend")
ACTIVES = ("Column", "Plus", "Refresh")

_NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}
_KEYWORDS = {name.lower(): name for name in ACTIVES + PASSIVES + STARTERS}
_COLOUR_ARGS = {"Recolor": 2, "Chain": 1, "Bend": 0}
_COLOUR_WORDS = {name: letter for letter, name in COLOUR_NAMES.items()}


def _name(cell: Cell) -> str:
    return CELL_NAMES[cell[0] * COLUMNS + cell[1]]


def clause_text(kind: str, cells: Iterable[Cell]) -> str:
    """A clause as a proof writes it: ``clause_text("Swap", [(3, 5), (3, 6)]) == "Swap F4 G4"``."""
    return " ".join([kind, *(_name(cell) for cell in cells)])


@dataclass(frozen=True, slots=True)
class Proof:
    """A parsed proof. Cells are (row, column) from 0; ``colours`` is ``"RB"`` for Recolor R B,
    ``"Y"`` for Chain Y and ``""`` for Bend; ``second`` is the starter's second use (Refresh only).
    Building one checks everything that does not depend on the board."""

    active: str
    active_cell: Cell
    passive: str
    colours: str
    starter: str
    first: tuple[Cell, ...]
    second: tuple[Cell, ...] | None = None

    def __post_init__(self) -> None:
        if self.active not in ACTIVES:
            raise ProofError(f"unknown active powerup {self.active!r}; use Column, Plus or Refresh")
        check_cell(self.active_cell)
        if self.passive not in PASSIVES:
            raise ProofError(
                f"unknown passive powerup {self.passive!r}; use Recolor, Chain or Bend"
            )
        _check_colours(self.passive, self.colours)
        if self.starter not in STARTERS:
            raise ProofError(f"unknown starter powerup {self.starter!r}; use Swap, Rotate or Pick")
        check_starter(self.starter, self.first)
        if self.second is not None:
            if self.active != "Refresh":
                raise ProofError(
                    f"two {self.starter} clauses given, but only Refresh grants a second use; "
                    f"use exactly one starter"
                )
            check_starter(self.starter, self.second)

    def __str__(self) -> str:
        return format_proof(self)


def _check_colours(passive: str, colours: object) -> None:
    wanted = _COLOUR_ARGS[passive]
    shown = f"{passive} {' '.join(colours)}".strip() if isinstance(colours, str) else passive
    if not isinstance(colours, str) or len(colours) != wanted:
        raise ProofError(
            {
                "Recolor": f"{shown}: Recolor takes two colours, A and B (e.g. Recolor R B)",
                "Chain": f"{shown}: Chain takes one colour (e.g. Chain Y)",
                "Bend": f"{shown}: Bend takes no colour",
            }[passive]
        )
    for colour in colours:
        if colour not in COLOURS:
            raise ProofError(f"{shown}: unknown colour {colour}; use R, B, G, Y or P")
    if passive == "Recolor" and colours[0] == colours[1]:
        raise ProofError(f"{shown}: choose two different colours")


def check_starter(kind: str, cells: object) -> None:
    if not isinstance(cells, tuple):
        raise ProofError(f"{kind}: the cells must be a tuple of (row, column) pairs")
    for cell in cells:
        check_cell(cell)
    shown = clause_text(kind, cells)
    if kind == "Swap":
        if len(cells) != 2:
            raise ProofError(f"{shown}: Swap takes two cells side by side (e.g. Swap F4 F5)")
        (r1, c1), (r2, c2) = cells
        if abs(r1 - r2) + abs(c1 - c2) != 1:
            raise ProofError(f"{shown}: the two cells are not adjacent")
    elif kind == "Rotate":
        if len(cells) != 1:
            raise ProofError(
                f"{shown}: Rotate takes one cell, the top-left of the 2x2 square (e.g. Rotate C3)"
            )
        row, col = cells[0]
        if row > ROWS - 2 or col > COLUMNS - 2:
            raise ProofError(
                f"{shown}: the 2x2 square would leave the board; name its top-left cell, "
                f"in columns A-G and rows 1-6"
            )
    else:
        if len(cells) not in (1, 2):
            raise ProofError(f"{shown}: Pick takes one or two cells (e.g. Pick A1 B2)")
        if len(cells) == 2 and cells[0] == cells[1]:
            raise ProofError(f"{shown}: pick two different cells")


def parse_proof(text: str) -> Proof:
    """Read a proof such as ``"Plus F4; Bend; Swap F4 F5"``: clauses joined by ``;`` in any order,
    keywords, cells and colours in any case. A second starter clause (Refresh only) is the later
    of the two starter clauses."""
    if not isinstance(text, str):
        raise ProofError("a proof is given as text, e.g. 'Plus F4; Bend; Swap F4 F5'")
    actives: list[tuple[str, Cell]] = []
    passives: list[tuple[str, str]] = []
    starters: list[tuple[str, tuple[Cell, ...]]] = []
    for clause in (part.strip() for part in text.split(";")):
        if not clause:
            continue
        word, *args = clause.split()
        kind = _KEYWORDS.get(word.lower())
        if kind is None:
            raise ProofError(
                f"{clause}: unknown powerup {word!r}; use Column, Plus, Refresh, Recolor, Chain, "
                f"Bend, Swap, Rotate or Pick"
            )
        if kind in PASSIVES:
            passives.append(
                (kind, "".join(_COLOUR_WORDS.get(arg.lower(), arg.upper()) for arg in args))
            )
            continue
        try:
            cells = tuple(parse_cell(arg) for arg in args)
        except ProofError as error:
            raise ProofError(f"{kind} {' '.join(args).upper()}: {error}") from None
        if kind in ACTIVES:
            if len(cells) != 1:
                raise ProofError(
                    f"{clause_text(kind, cells)}: {kind} takes one cell, the gem it replaces "
                    f"(e.g. {kind} F4)"
                )
            actives.append((kind, cells[0]))
        else:
            starters.append((kind, cells))
    if not (actives or passives or starters):
        raise ProofError(
            "the proof is empty; give an active, a passive and a starter, "
            "e.g. 'Plus F4; Bend; Swap F4 F5'"
        )
    for found, what, names in (
        (actives, "active", "Column, Plus or Refresh with the gem it replaces"),
        (passives, "passive", "Recolor, Chain or Bend"),
    ):
        if not found:
            raise ProofError(f"no {what} powerup given; add one of {names}")
        if len(found) > 1:
            count = _NUMBER_WORDS.get(len(found), str(len(found)))
            raise ProofError(f"{count} {what} powerups given; use exactly one")
    if not starters:
        raise ProofError("no starter powerup given; add one of Swap, Rotate or Pick")
    if len(starters) > 2:
        count = _NUMBER_WORDS.get(len(starters), str(len(starters)))
        raise ProofError(
            f"{count} starter clauses given; use one, or two when the active powerup is Refresh"
        )
    (active, active_cell), (passive, colours) = actives[0], passives[0]
    starter, first = starters[0]
    second = None
    if len(starters) == 2:
        if starters[1][0] != starter:
            raise ProofError(
                f"{clause_text(starter, first)} then {clause_text(*starters[1])}: the second "
                f"starter use must be the same powerup as the first ({starter})"
            )
        second = starters[1][1]
    return Proof(active, active_cell, passive, colours, starter, first, second)


def format_proof(proof: Proof) -> str:
    """The canonical text of a proof: active; passive; starter[; second starter]."""
    clauses = [
        f"{proof.active} {_name(proof.active_cell)}",
        " ".join([proof.passive, *proof.colours]),
        clause_text(proof.starter, proof.first),
    ]
    if proof.second is not None:
        clauses.append(clause_text(proof.starter, proof.second))
    return "; ".join(clauses)
