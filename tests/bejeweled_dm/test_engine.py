"""The Bejeweled death match rules engine: one behaviour per test, boards built by hand.

Most hand-built boards keep their gems in the bottom rows under rocks, so that every count can be
checked on paper. Rows are listed top (row 1) to bottom (row 7), columns A to H.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from games.bejeweled_dm.engine import (
    ACTIVES,
    COLOURS,
    PASSIVES,
    STARTERS,
    Board,
    BoardError,
    Proof,
    ProofError,
    Resolution,
    cell_name,
    format_board,
    format_proof,
    generate_board,
    has_match,
    parse_board,
    parse_cell,
    parse_proof,
    refill_rocks,
    resolve,
    resolve_count,
    resolve_first_use,
    resolve_second_use,
)

ROCKS = "########"


def board(*rows: str) -> Board:
    """A board from its bottom rows; the rows above them are rocks."""
    return parse_board("\n".join([ROCKS] * (7 - len(rows)) + list(rows)))


def text(*rows: str) -> str:
    return "\n".join([ROCKS] * (7 - len(rows)) + list(rows))


def removals(steps: list[dict]) -> list[dict[str, str]]:
    return [step["cells"] for step in steps if step["kind"] == "remove"]


def kinds(steps: list[dict]) -> list[str]:
    return [step["kind"] for step in steps]


# --- boards and cells ----------------------------------------------------------------------


def test_cell_names_count_columns_from_a_and_rows_from_the_top() -> None:
    assert cell_name(0, 0) == "A1"
    assert cell_name(3, 5) == "F4"
    assert cell_name(6, 7) == "H7"
    assert parse_cell("F4") == (3, 5)
    assert parse_cell(" h7 ") == (6, 7)


def test_a_board_reads_back_as_the_same_text() -> None:
    t = "BBYPGPPY\nPYGYGRYP\nGRBGRGBG\nBPYPPRGR\nPBGRRBBY\nYYGRBGPB\nPRPGRBYR"
    b = parse_board(f"\n  {t.replace(chr(10), '  ' + chr(10))}  \n\n")
    assert format_board(b) == t
    assert b["F4"] == "R"
    assert b[6, 0] == "P"
    assert b.rows[0] == "BBYPGPPY"


def test_boards_are_values() -> None:
    a = board("RGB#####")
    b = board("RGB#####")
    assert a == b
    assert hash(a) == hash(b)
    assert len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.cells = "x"  # type: ignore[misc]


def test_has_match_sees_lines_and_with_bend_squares() -> None:
    assert has_match(board("RRR#####"))
    assert has_match(board("R#######", "R#######", "R#######"))
    assert not has_match(board("RR######", "RB######"))
    assert has_match(board("RR######", "RB######"), bend=True)
    assert not has_match(board("RG######", "GR######"), bend=True)


# --- starters ------------------------------------------------------------------------------


def test_swap_makes_a_three_in_a_row_removed() -> None:
    result = resolve(board("RRBR###G"), "Plus H7; Chain P; Swap C7 D7")
    assert result.removed == 3
    assert format_board(result.board) == text("###B###G")
    assert removals(result.steps) == [{"A7": "match", "B7": "match", "C7": "match"}]


def test_swap_needs_no_match() -> None:
    result = resolve(board("RGBY###P"), "Plus H7; Bend; Swap A7 B7")
    assert result.removed == 0
    assert format_board(result.board) == text("GRBY###P")
    assert kinds(result.steps) == ["place", "starter"]


def test_rotate_turns_the_square_clockwise() -> None:
    result = resolve(board("RB######", "GY#####P"), "Plus H7; Bend; Rotate A6")
    assert result.removed == 0
    # Top-left to top-right, top-right to bottom-right, bottom-right to bottom-left, bottom-left
    # to top-left.
    assert format_board(result.board) == text("GR######", "YB#####P")


def test_rotate_makes_a_line_that_is_removed() -> None:
    start = board("R#######", "GB######", "RRY####P")
    result = resolve(start, "Plus H7; Chain P; Rotate A6")
    # A6 takes A7's red, A7 takes B7's red: A5 A6 A7 are red.
    assert removals(result.steps) == [{"A5": "match", "A6": "match", "A7": "match"}]
    assert result.removed == 3
    assert format_board(result.board) == text("########", "#G######", "#BY####P")


def test_pick_removes_one_gem_and_the_gems_above_fall() -> None:
    result = resolve(board("G#######", "B#######", "R######P"), "Plus H7; Bend; Pick A7")
    assert result.removed == 1
    assert format_board(result.board) == text("########", "G#######", "B######P")
    assert removals(result.steps) == [{"A7": "pick"}]
    fall = result.steps[-1]
    assert fall["kind"] == "fall"
    assert fall["moves"] == [["A5", "A6"], ["A6", "A7"]]
    assert fall["rocks"] == ["A5"]


def test_pick_removes_two_gems_of_different_colours() -> None:
    result = resolve(board("RG#####P"), "Plus H7; Bend; Pick A7 B7")
    assert result.removed == 2
    assert format_board(result.board) == text("#######P")


def test_a_pick_can_start_a_cascade_after_gravity() -> None:
    result = resolve(board("R#######", "GRR####P"), "Plus H7; Bend; Pick A7")
    # A6's red falls into A7 and lines up with B7 and C7.
    assert result.removed == 4
    assert removals(result.steps) == [{"A7": "pick"}, {"A7": "match", "B7": "match", "C7": "match"}]
    assert kinds(result.steps) == ["place", "starter", "remove", "fall", "remove", "fall"]
    assert format_board(result.board) == text("#######P")


# --- passives ------------------------------------------------------------------------------


def test_recolor_rematches_before_gravity() -> None:
    start = board("#YYG####", "RRBR###P")
    result = resolve(start, "Plus H7; Recolor G Y; Swap C7 D7")
    # A7 B7 C7 go; then D6 turns yellow while B6 and C6 still hang over holes: a second line.
    assert kinds(result.steps) == ["place", "starter", "remove", "recolor", "remove", "fall"]
    recolor = result.steps[3]
    assert (recolor["from"], recolor["to"], recolor["cells"]) == ("G", "Y", ["D6"])
    assert removals(result.steps)[1] == {"B6": "match", "C6": "match", "D6": "match"}
    assert result.removed == 6
    assert format_board(result.board) == text("###B###P")


def test_recolor_waits_for_a_removal() -> None:
    result = resolve(board("YYGRB##P"), "Plus H7; Recolor G Y; Swap D7 E7")
    assert result.removed == 0
    assert format_board(result.board) == text("YYGBR##P")


def test_recolor_after_pick_comes_before_the_first_match_check() -> None:
    result = resolve(board("RYYG###P"), "Plus H7; Recolor G Y; Pick A7")
    assert kinds(result.steps) == ["place", "starter", "remove", "recolor", "remove", "fall"]
    assert removals(result.steps) == [{"A7": "pick"}, {"B7": "match", "C7": "match", "D7": "match"}]
    assert result.removed == 4


def test_recolor_turns_the_active_too() -> None:
    start = board("GG#G###R")
    result = resolve(start, "Plus D7; Recolor G R; Pick H7")
    # H7 goes, then every green turns red, the Plus's gem on D7 too; C7 is a rock, so no line.
    recolor = [step for step in result.steps if step["kind"] == "recolor"]
    assert recolor[0]["cells"] == ["A7", "B7", "D7"]
    assert result.removed == 1
    assert result.active_cell == "D7"
    assert format_board(result.board) == text("RR#R####")


def test_holes_break_lines_before_gravity() -> None:
    start = board("##R#####", "YGRYG###", "BPBRP##P")
    result = resolve(start, "Plus H7; Recolor G Y; Swap C7 D7")
    # C5 C6 C7 go; B6 and E6 turn yellow: Y Y . Y Y is no line, and C6 becomes a rock.
    assert result.removed == 3
    assert format_board(result.board) == text("YY#YY###", "BP#BP##P")


def test_chain_removes_the_gem_above_and_climbs_while_it_is_the_chain_colour() -> None:
    start = board("#G######", "#R######", "GY######", "YYRY###P")
    result = resolve(start, "Plus H7; Chain Y; Swap C7 D7")
    # A7 B7 C7 (yellow) go; above A7 the green A6 goes and stops; above B7 the yellow B6 goes and
    # climbs to the red B5, which goes and stops; above C7 is a rock.
    assert removals(result.steps) == [
        {"A7": "match", "B7": "match", "C7": "match"},
        {"A6": "chain", "B6": "chain"},
        {"B5": "chain"},
    ]
    assert result.removed == 6
    assert format_board(result.board) == text("#G#R###P")


def test_chain_follows_a_pick() -> None:
    result = resolve(board("B#######", "Y######P"), "Plus H7; Chain Y; Pick A7")
    assert removals(result.steps) == [{"A7": "pick"}, {"A6": "chain"}]
    assert result.removed == 2


def test_chain_removing_the_active_sets_it_off() -> None:
    start = board("##B#####", "R#G#####", "B#Y####P")
    result = resolve(start, "Column C6; Chain Y; Pick C7")
    assert kinds(result.steps) == [
        "place", "starter", "remove", "remove", "activate", "remove", "fall",
    ]  # fmt: skip
    assert removals(result.steps) == [{"C7": "pick"}, {"C6": "chain"}, {"C5": "column"}]
    assert result.removed == 3


def test_bend_removes_three_of_a_colour_in_a_square() -> None:
    result = resolve(board("RR######", "RB####GP"), "Plus H7; Bend; Swap G7 H7")
    assert removals(result.steps) == [{"A6": "bend", "B6": "bend", "A7": "bend"}]
    assert result.removed == 3
    assert format_board(result.board) == text("#B####PG")


def test_bend_removes_a_whole_square_of_one_colour() -> None:
    result = resolve(board("RR######", "RR####GP"), "Plus H7; Bend; Swap G7 H7")
    assert result.removed == 4


# --- actives -------------------------------------------------------------------------------


def test_column_removes_every_gem_of_its_column_after_moving_with_its_gem() -> None:
    start = board("##G#####", "##B#####", "##R#####", "##Y#####", "RRBR###P")
    result = resolve(start, "Column D7; Bend; Swap C7 D7")
    # The Column's red moves to C7 and lines up with A7 B7; then C3-C6 go with it.
    assert result.steps[1]["active_cell"] == "C7"
    assert removals(result.steps) == [
        {"A7": "match", "B7": "match", "C7": "match"},
        {"C3": "column", "C4": "column", "C5": "column", "C6": "column"},
    ]
    activate = result.steps[3]
    assert (activate["kind"], activate["cell"], activate["active"]) == ("activate", "C7", "Column")
    assert result.removed == 7
    assert format_board(result.board) == text("###B###P")


def test_plus_is_clipped_at_the_edges_and_skips_rocks() -> None:
    start = board("#P######", "YRGB###P")
    result = resolve(start, "Plus B7; Bend; Pick B7")
    # Reach from B7: B6 and B5 (a rock) above, nothing below, A7 to the left, C7 and D7 right.
    assert removals(result.steps) == [
        {"B7": "pick"},
        {"A7": "plus", "B6": "plus", "C7": "plus", "D7": "plus"},
    ]
    assert result.removed == 5
    assert format_board(result.board) == text("#######P")


def test_the_active_moves_with_its_gem_when_it_falls() -> None:
    result = resolve(board("G#######", "R#######", "Y######P"), "Plus A5; Bend; Pick A7")
    assert result.removed == 1
    assert result.active_cell == "A6"
    assert result.steps[-1]["active_cell"] == "A6"


def test_the_active_goes_off_where_gravity_took_it() -> None:
    start = board("G#######", "RGG#####", "YBY####P")
    result = resolve(start, "Plus A5; Bend; Pick A7")
    # The Plus falls to A6 and lines up with B6 C6; from A6 it reaches A7 (the rest are holes or
    # rocks).
    assert removals(result.steps) == [
        {"A7": "pick"},
        {"A6": "match", "B6": "match", "C6": "match"},
        {"A7": "plus"},
    ]
    assert result.removed == 5
    assert result.active_cell is None
    assert format_board(result.board) == text("#BY####P")


def test_refresh_grants_a_second_use_of_the_starter() -> None:
    start = board("RRBRGGYG")
    result = resolve(start, "Refresh A7; Bend; Swap C7 D7; Swap G7 H7")
    refresh = [step for step in result.steps if step["kind"] == "refresh"]
    assert refresh and refresh[0]["used"] is True
    assert removals(result.steps) == [
        {"A7": "match", "B7": "match", "C7": "match"},
        {"E7": "match", "F7": "match", "G7": "match"},
    ]
    assert result.removed == 6
    assert format_board(result.board) == text("###B###Y")


def test_refresh_without_a_second_clause_ends_the_turn() -> None:
    result = resolve(board("RRBRGGYG"), "Refresh A7; Bend; Swap C7 D7")
    assert result.removed == 3
    assert result.steps[-1]["kind"] == "refresh"
    assert result.steps[-1]["used"] is False


def test_refresh_second_pick_picks_from_the_settled_board() -> None:
    result = resolve(board("R#######", "RGB####P"), "Refresh A7; Bend; Pick A7; Pick A7 H7")
    assert removals(result.steps) == [{"A7": "pick"}, {"A7": "pick", "H7": "pick"}]
    assert result.removed == 3


# --- rocks ---------------------------------------------------------------------------------


def test_rocks_appear_at_the_top_of_a_column() -> None:
    start = generate_board(7)
    result = resolve(start, "Plus H7; Chain " + start["A7"] + "; Pick A7")
    column = result.board.cells[0::8]
    assert column[0] == "#"
    assert "#" not in column.lstrip("#")


def test_rocks_are_never_removed() -> None:
    start = board("##P#####", "##B#####", "#RGY####", "RBRG###P")
    result = resolve(start, "Column C7; Bend; Pick C7")
    # Column C holds rocks in C1-C3: only its four gems go.
    assert removals(result.steps) == [
        {"C7": "pick"},
        {"C4": "column", "C5": "column", "C6": "column"},
    ]
    assert result.removed == 4
    assert result.board.count("#") == start.count("#") + 4


# --- the seed's worked example ------------------------------------------------------------

EXAMPLE = """
BBYPGPPY
PYGYGRYP
GRBGRGBG
BPYPPRGR
PBGRRBBY
YYGRBGPB
PRPGRBYR
"""


def test_the_seed_example_removes_sixteen() -> None:
    result = resolve(parse_board(EXAMPLE), "Plus F4; Swap F4 F5; Bend")
    assert removals(result.steps) == [
        {"D5": "match", "E5": "match", "F5": "match", "D6": "bend"},
        {"F3": "plus", "F4": "plus", "G5": "plus", "H5": "plus", "F6": "plus", "F7": "plus"},
        {"C5": "bend", "D5": "bend", "C6": "bend"},
        {"A6": "match", "B6": "match", "C6": "match"},
    ]
    boards = [step["board"] for step in result.steps]
    assert kinds(result.steps) == [
        "place", "starter", "remove", "activate", "remove", "fall", "remove", "fall", "remove",
        "fall",
    ]  # fmt: skip
    # Step 2 of the seed: the board after the swap, the lines and Bend, and the Plus.
    assert boards[4] == "BBYPGPPY\nPYGYGRYP\nGRBGR.BG\nBPYPP.GR\nPBG.....\nYYG.B.PB\nPRPGR.YR"
    # Step 3: gravity; rocks fill the tops.
    assert boards[5] == "BBY#####\nPYG#G#PY\nGRBPG#YP\nBPYYR#BG\nPBGGP#GR\nYYGPBPPB\nPRPGRRYR"
    # Step 4-5: Bend takes C5 D5 C6; after gravity C4's yellow sits in C6 beside A6 and B6.
    assert boards[7] == "BB######\nPY##G#PY\nGRY#G#YP\nBPGPR#BG\nPBBYP#GR\nYYYPBPPB\nPRPGRRYR"
    # Step 6-7: A6 B6 C6 go and the board settles.
    assert format_board(result.board) == (
        "########\nBB##G#PY\nPY##G#YP\nGRYPR#BG\nBPGYP#GR\nPBBPBPPB\nPRPGRRYR"
    )
    assert result.removed == 16


# --- proofs --------------------------------------------------------------------------------


def test_a_proof_reads_in_any_order_and_case() -> None:
    proof = parse_proof("  swap f4 f5 ;plus F4;  BEND ;")
    assert proof == Proof("Plus", (3, 5), "Bend", "", "Swap", ((3, 5), (4, 5)))
    assert format_proof(proof) == "Plus F4; Bend; Swap F4 F5"
    assert format_proof(parse_proof("Recolor red blue; Refresh A1; Pick A1 B2; Pick C3")) == (
        "Refresh A1; Recolor R B; Pick A1 B2; Pick C3"
    )


def test_the_refresh_uses_can_be_resolved_one_at_a_time() -> None:
    start = board("RRBRGGYG")
    proof = parse_proof("Refresh A7; Bend; Swap C7 D7")
    first, settled, refreshed = resolve_first_use(start, proof)
    assert (first, settled, refreshed) == (3, board("###BGGYG"), True)
    assert resolve_second_use(settled, proof, (parse_cell("G7"), parse_cell("H7"))) == (
        3,
        board("###B###Y"),
    )


def test_resolve_count_agrees_with_resolve() -> None:
    start = parse_board(EXAMPLE)
    count, end = resolve_count(start, parse_proof("Plus F4; Bend; Swap F4 F5"))
    assert (count, end) == (16, resolve(start, "Plus F4; Bend; Swap F4 F5").board)


@pytest.mark.parametrize(
    ("proof", "message"),
    [
        ("Plus H7; Bend; Swap F4 F6", "Swap F4 F6: the two cells are not adjacent"),
        ("Plus H7; Bend; Swap F4", "Swap F4: Swap takes two cells side by side"),
        ("Plus H7; Bend; Rotate H3", "Rotate H3: the 2x2 square would leave the board"),
        ("Plus H7; Bend; Rotate A7", "Rotate A7: the 2x2 square would leave the board"),
        ("Plus H7; Bend; Pick A1 A1", "Pick A1 A1: pick two different cells"),
        ("Plus H7; Bend; Pick A1 B1 C1", "Pick A1 B1 C1: Pick takes one or two cells"),
        ("Plus H7; Recolor R R; Pick A7", "Recolor R R: choose two different colours"),
        ("Plus H7; Recolor R; Pick A7", "Recolor R: Recolor takes two colours"),
        ("Plus H7; Recolor R X; Pick A7", "Recolor R X: unknown colour X"),
        ("Plus H7; Chain; Pick A7", "Chain: Chain takes one colour"),
        ("Plus H7; Bend R; Pick A7", "Bend R: Bend takes no colour"),
        ("Plus Z9; Bend; Pick A7", "Plus Z9: unknown cell Z9"),
        ("Plus H7; Bend; Swap Z9 A1", "Swap Z9 A1: unknown cell Z9"),
        ("Plus H7 G7; Bend; Pick A7", "Plus H7 G7: Plus takes one cell"),
        ("Plus H7; Bend; Chain R; Pick A7", "two passive powerups given; use exactly one"),
        ("Plus H7; Column A7; Bend; Pick A7", "two active powerups given; use exactly one"),
        ("Bend; Pick A7", "no active powerup given"),
        ("Plus H7; Pick A7", "no passive powerup given"),
        ("Plus H7; Bend", "no starter powerup given"),
        ("", "the proof is empty"),
        ("Plus H7; Bend; Jump A7", "Jump A7: unknown powerup 'Jump'"),
        (
            "Plus H7; Bend; Pick A7; Pick B7",
            "two Pick clauses given, but only Refresh grants a second use",
        ),
        (
            "Refresh H7; Bend; Pick A7; Swap A7 B7",
            "Pick A7 then Swap A7 B7: the second starter use must be the same powerup",
        ),
        ("Refresh H7; Bend; Pick A7; Pick B7; Pick C7", "three starter clauses given"),
    ],
)
def test_a_malformed_proof_is_refused_with_a_reason(proof: str, message: str) -> None:
    with pytest.raises(ProofError, match=re.escape(message)):
        parse_proof(proof)
    with pytest.raises(ValueError, match=re.escape(message)):
        resolve(board("RGB####P"), proof)


@pytest.mark.parametrize(
    ("rows", "proof", "message"),
    [
        (("RGB####P",), "Column C1; Bend; Pick A7", "Column C1: C1 is a rock"),
        (("RGB####P",), "Plus H7; Bend; Swap D7 E7", "Swap D7 E7: D7 is a rock"),
        (("RGB####P",), "Plus H7; Bend; Rotate A6", "Rotate A6: A6 is a rock"),
        (("RGB####P",), "Plus H7; Bend; Pick A1", "Pick A1: A1 is a rock"),
        (
            ("RGBR###P",),
            "Plus H7; Bend; Pick A7 D7",
            "Pick A7 D7: both gems are red; Pick takes gems of different colours",
        ),
        (
            ("RRBRGGYG",),
            "Refresh H7; Bend; Swap C7 D7; Swap E7 F7",
            "the second Swap is never used: Refresh did not activate",
        ),
        (
            ("RRBRGGYG",),
            "Refresh A7; Bend; Swap C7 D7; Swap A7 B7",
            "second Swap A7 B7: A7 is a rock",
        ),
        (
            ("R######P", "RGB####P"),
            "Refresh A7; Bend; Pick A7; Pick A6 H7",
            "second Pick A6 H7: A6 is a rock",
        ),
    ],
)
def test_an_illegal_proof_is_refused_with_a_reason(
    rows: tuple[str, ...], proof: str, message: str
) -> None:
    with pytest.raises(ProofError, match=re.escape(message)):
        resolve(board(*rows), proof)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("RRGGBBYY\n" * 6, "the board has 6 rows; it needs 7 rows of 8 cells"),
        ("RRGGBBYY\n" * 6 + "RRGGBBYYP", "row 7 has 9 cells; every row needs 8"),
        ("RRGGBBYY\n" * 6 + "RRGGBBYX", "H7: unknown character 'X'"),
        ("RRGGBBYY\n" * 6 + "RRGG.BYY", "E7: unknown character '.'"),
        ("RRGGBBYY\n" * 5 + "RR#GBBYY\nRRGGBBYY", "C6 is a rock under a gem"),
    ],
)
def test_a_malformed_board_is_refused_with_a_reason(text: str, message: str) -> None:
    with pytest.raises(BoardError, match=re.escape(message)):
        parse_board(text)


def test_an_unknown_cell_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown cell Z9"):
        parse_cell("Z9")
    with pytest.raises(ValueError):
        cell_name(7, 0)


# --- properties ----------------------------------------------------------------------------


@st.composite
def boards(draw: st.DrawFn) -> Board:
    """A board with no line of three, some columns topped with rocks."""
    cells = list(generate_board(draw(st.integers(0, 2**32))).cells)
    for col in range(8):
        for row in range(draw(st.sampled_from([0, 0, 0, 1, 2, 4, 7]))):
            cells[row * 8 + col] = "#"
    return Board("".join(cells))


def gems(b: Board) -> list[tuple[int, int]]:
    return [divmod(i, 8) for i, ch in enumerate(b.cells) if ch != "#"]


@st.composite
def starter_use(draw: st.DrawFn, b: Board, kind: str) -> tuple[tuple[int, int], ...]:
    if kind == "Swap":
        pairs = [
            (a, (a[0] + dr, a[1] + dc))
            for a in gems(b)
            for dr, dc in ((0, 1), (1, 0))
            if a[0] + dr < 7 and a[1] + dc < 8 and b[a[0] + dr, a[1] + dc] != "#"
        ]
        assume(pairs)
        return draw(st.sampled_from(pairs))
    if kind == "Rotate":
        corners = [
            (r, c)
            for r, c in gems(b)
            if r < 6 and c < 7 and "#" not in b[r, c + 1] + b[r + 1, c] + b[r + 1, c + 1]
        ]
        assume(corners)
        return (draw(st.sampled_from(corners)),)
    first = draw(st.sampled_from(gems(b)))
    others = [cell for cell in gems(b) if b[cell] != b[first]]
    if others and draw(st.booleans()):
        return (first, draw(st.sampled_from(others)))
    return (first,)


@st.composite
def turns(draw: st.DrawFn) -> tuple[Board, Proof]:
    b = draw(boards())
    assume(len(gems(b)) >= 2)
    active = draw(st.sampled_from(ACTIVES))
    passive = draw(st.sampled_from(PASSIVES))
    colours = {
        "Recolor": "".join(draw(st.permutations(COLOURS))[:2]),
        "Chain": draw(st.sampled_from(COLOURS)),
        "Bend": "",
    }[passive]
    starter = draw(st.sampled_from(STARTERS))
    first = draw(starter_use(b, starter))
    second = None
    if active == "Refresh" and draw(st.booleans()):
        second = draw(starter_use(b, starter))
    cell = draw(st.sampled_from(gems(b)))
    return b, Proof(active, cell, passive, colours, starter, first, second)


def play(b: Board, proof: Proof) -> Resolution | None:
    """Resolve; a second starter use may be illegal once the board has changed, and only that."""
    try:
        return resolve(b, proof)
    except ProofError:
        assert proof.second is not None
        return None


@settings(max_examples=300, deadline=None)
@given(turns())
def test_every_cell_is_a_gem_a_rock_or_counted_as_removed(turn: tuple[Board, Proof]) -> None:
    b, proof = turn
    result = play(b, proof)
    assume(result is not None)
    assert result.board.count("#") - b.count("#") == result.removed
    assert result.steps[-1]["count"] == result.removed


@settings(max_examples=300, deadline=None)
@given(turns())
def test_after_a_turn_rocks_are_only_above_gems_and_nothing_matches(
    turn: tuple[Board, Proof],
) -> None:
    b, proof = turn
    result = play(b, proof)
    assume(result is not None)
    for col in range(8):
        column = result.board.cells[col::8]
        assert "#" not in column.lstrip("#")
    assert not has_match(result.board, bend=proof.passive == "Bend")
    assert Board(result.board.cells) == result.board


@settings(max_examples=200, deadline=None)
@given(turns())
def test_resolve_is_deterministic_and_leaves_its_input_alone(turn: tuple[Board, Proof]) -> None:
    b, proof = turn
    before = (b.cells, proof)
    first, second = play(b, proof), play(b, proof)
    assert (b.cells, proof) == before
    assume(first is not None)
    assert second is not None
    assert (first.removed, first.board, first.steps) == (second.removed, second.board, second.steps)
    assert resolve_count(b, proof) == (first.removed, first.board)


@st.composite
def refreshed_turns(draw: st.DrawFn) -> tuple[Board, Proof]:
    """A turn whose Refresh goes off: placed on a gem that the first starter use removes."""
    b, proof = draw(turns())
    second = draw(starter_use(b, proof.starter))
    placements = [
        cell
        for cell in gems(b)
        if resolve_first_use(b, replace(proof, active="Refresh", active_cell=cell, second=None))[2]
    ]
    assume(placements)
    cell = draw(st.sampled_from(placements))
    return b, replace(proof, active="Refresh", active_cell=cell, second=second)


@settings(max_examples=150, deadline=None)
@given(refreshed_turns())
def test_the_two_starter_uses_add_up_to_the_whole_turn(turn: tuple[Board, Proof]) -> None:
    b, proof = turn
    assert proof.second is not None
    first, settled, refreshed = resolve_first_use(b, proof)
    assert refreshed
    try:
        second, end = resolve_second_use(settled, proof, proof.second)
    except ProofError as error:
        with pytest.raises(ProofError, match=re.escape(str(error))):
            resolve(b, proof)
        return
    result = resolve(b, proof)
    assert (first + second, end) == (result.removed, result.board)
    assert result.board.count("#") - b.count("#") == result.removed


@settings(max_examples=200, deadline=None)
@given(turns())
def test_steps_are_json_and_end_on_the_final_board(turn: tuple[Board, Proof]) -> None:
    b, proof = turn
    result = play(b, proof)
    assume(result is not None)
    json.dumps(result.steps)
    assert result.steps[0]["kind"] == "place"
    assert result.steps[-1]["board"] == format_board(result.board)
    counts = [step["count"] for step in result.steps]
    assert counts == sorted(counts)
    for step in result.steps:
        assert {"kind", "board", "count", "active_cell"} <= step.keys()


@settings(max_examples=200, deadline=None)
@given(turns())
def test_a_proof_round_trips_through_its_text(turn: tuple[Board, Proof]) -> None:
    b, proof = turn
    assert parse_proof(format_proof(proof)) == proof
    assert parse_proof(format_proof(proof).lower()) == proof


@given(boards())
def test_format_board_reads_back(b: Board) -> None:
    assert format_board(parse_board(format_board(b))) == format_board(b)
    assert parse_board(format_board(b)) == b


@given(st.integers(0, 2**64))
def test_generate_board_has_no_line_of_three(seed: int) -> None:
    b = generate_board(seed)
    assert b.count("#") == 0
    assert not has_match(b)
    assert generate_board(seed) == b


@settings(max_examples=300, deadline=None)
@given(turns(), st.integers(0, 2**32))
def test_refill_rocks_changes_only_rocks_and_leaves_no_line(
    turn: tuple[Board, Proof], seed: int
) -> None:
    b, proof = turn
    result = play(b, proof)
    assume(result is not None)
    refilled = refill_rocks(result.board, seed)
    assert refilled.count("#") == 0
    assert not has_match(refilled)
    for before, after in zip(result.board.cells, refilled.cells, strict=True):
        assert before == "#" or before == after
    assert refill_rocks(result.board, seed) == refilled


def test_refill_rocks_fills_an_all_rock_board() -> None:
    refilled = refill_rocks(board(), 3)
    assert refilled.count("#") == 0
    assert not has_match(refilled)
