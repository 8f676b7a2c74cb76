"""Grid text is read and written once (games/core/game/gridtext.py) for the engines, which stay
pure: importing any engine loads no Django and nothing of the project but the grid text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games.core.game import gridtext

ROOT = Path(__file__).resolve().parents[2]
ENGINES = sorted(f"games.{path.parent.name}.engine" for path in ROOT.glob("games/*/engine.py"))


def test_a_grid_is_read_from_its_lines_with_spaces_and_surrounding_blank_lines_ignored():
    assert gridtext.fixed_cells("\n R G \n B Y\n\n", 2, 2, ValueError) == "RGBY"
    assert gridtext.fixed_cells("RG\n\nBY", 2, 2, ValueError, blank_lines=True) == "RGBY"


def test_a_grid_of_the_wrong_shape_is_refused_naming_the_row():
    with pytest.raises(ValueError, match=r"^the grid has 3 rows; it needs 2 rows of 2 cells$"):
        gridtext.fixed_cells("RG\n\nBY", 2, 2, ValueError, noun="grid")
    with pytest.raises(ValueError, match=r"^row 2 has 3 cells; every row needs 2$"):
        gridtext.fixed_cells("RG\nBYR", 2, 2, ValueError)


def test_rows_and_text_round_trip():
    rows = gridtext.rows_of("RGBYPO", 3)
    assert rows == ("RGB", "YPO")
    assert gridtext.text_of(rows) == "RGB\nYPO"
    assert gridtext.lines("\n  a b  \n c \n\n") == ["a b", "c"]


def test_cells_are_named_by_column_letter_and_row_in_reading_order():
    assert gridtext.cell_names(2, 3) == ("A1", "B1", "C1", "A2", "B2", "C2")
    assert gridtext.cell_name(11, 2) == "C12"
    assert gridtext.cell_names(1, 2, "ab") == ("a1", "b1")
    assert gridtext.shown_name("  c4 ") == "C4" and gridtext.shown_name(7) == "7"


def test_an_engine_loads_no_django_and_nothing_of_the_project_but_grid_text():
    probe = (
        "import importlib, sys\n"
        f"for name in {ENGINES!r}:\n"
        "    importlib.import_module(name)\n"
        "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'games'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert not [name for name in loaded if name.startswith("django")]
    project = {name for name in loaded if name.startswith("games.")}
    core = {name for name in project if name.startswith("games.core")}
    # The packages on the way (games/core/game/__init__.py is its docstring) and grid text.
    assert core <= {"games.core", "games.core.game", "games.core.game.gridtext"}, core
    assert len(ENGINES) >= 5
