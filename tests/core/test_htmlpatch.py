"""Patches of a panel's HTML (games/core/render/htmlpatch.py): applied to the HTML before, they give
the HTML after, for any pair of texts; a changed cell travels as its own tags."""

from __future__ import annotations

import json
import random

import pytest

from games.core.render import htmlpatch

PIECES = ["<td>", '<b class="gem x">', "text", "y>", ">", '"', "\n", "é😀", "</td>", "<!--c-->"]


@pytest.mark.parametrize("seed", range(40))
def test_a_patch_applied_to_the_html_before_gives_the_html_after(seed):
    rng = random.Random(seed)
    for _ in range(50):
        before = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60)))
        parts = htmlpatch.tokens(before)
        for _ in range(rng.randint(0, 6)):
            at = rng.randint(0, len(parts))
            parts[at : at + rng.randint(0, 3)] = rng.sample(PIECES, rng.randint(0, 2))
        after = "".join(parts)
        ops = htmlpatch.diff(before, after)
        assert htmlpatch.apply(before, ops) == after
        assert (ops == []) == (before == after)


def test_a_changed_cell_of_a_board_is_sent_as_its_new_class_and_gem_alone():
    cells = [
        f'<td><button class="cell gem-red" data-cell="{c}{r}" aria-label="{c}{r}, red">R</button>'
        "</td>"
        for c in "ABCDEFGH"
        for r in range(1, 9)
    ]
    before = '<table id="board">' + "".join(cells) + "</table>"
    after = before.replace(
        'gem-red" data-cell="C5" aria-label="C5, red">R',
        'gem-blue" data-cell="C5" aria-label="C5, blue">B',
    )
    ops = htmlpatch.diff(before, after)
    assert [text for _start, _count, text in ops] == ['cell gem-blue"', 'C5, blue">B</button>']
    assert htmlpatch.apply(before, ops) == after
    assert len(json.dumps(ops)) < 80
    assert htmlpatch.worth_sending(*as_sent(ops, after))


def test_only_the_changed_middle_of_a_panel_is_cut_and_its_operations_count_the_whole():
    """The tags both texts start and end with are found by comparing the texts: the middle
    alone is cut into tokens, and the operations still count tokens of the whole HTML."""
    row = '<tr><td class="a" title="x">1</td><td>2</td></tr>'
    before = "<table>" + row * 200 + '<tr><td class="old">3</td></tr>' + row * 200 + "</table>"
    after = before.replace('class="old">3', 'class="new">4')
    htmlpatch._CUTS.clear()
    ops = htmlpatch.diff(before, after)
    assert htmlpatch.apply(before, ops) == after
    assert [text for _start, _count, text in ops] == ['new">4</td>']
    # its start: every token of the 200 rows and of '<tr><td class="' before it
    assert ops[0][0] == len(htmlpatch.tokens(before[: before.index('old">3')]))
    assert all(len(html) < 100 for html in htmlpatch._CUTS._kept)


def as_sent(ops: list, after: str) -> tuple[str, str]:
    """A patch and the HTML it stands for as a frame carries them (JSON text)."""
    return json.dumps(ops, separators=(",", ":")), json.dumps(after)[1:-1]


def test_a_patch_that_does_not_fit_the_html_is_refused():
    with pytest.raises(ValueError):
        htmlpatch.apply("<a><b>", [[1, 5, "x"]])


def test_cells_changed_with_a_paragraph_added_still_send_only_what_changed():
    cells = "".join(
        f'<td><button class="cell gem-red" data-cell="{c}{r}">R</button></td>'
        for c in "ABCDEFGH"
        for r in range(1, 9)
    )
    before = f'<section id="board"><table>{cells}</table></section>'
    changed = cells.replace('gem-red" data-cell="B2">R', 'gem-blue" data-cell="B2">B')
    after = f'<section id="board"><table>{changed}</table><p>Last move: B2</p></section>'
    ops = htmlpatch.diff(before, after)
    assert htmlpatch.apply(before, ops) == after
    assert len(json.dumps(ops)) < 120


def test_a_form_appearing_in_a_small_panel_goes_as_a_patch_not_with_the_panel_again():
    before = '<section id="actions"><p>Your opponent claims 9 moves.</p></section>'
    form = "".join(
        f'<label><input type="checkbox" name="p" value="{n}"> power {n}</label>' for n in range(6)
    )
    after = before.replace("</p>", f"</p><form>{form}<button>Prove it</button></form>")
    ops = htmlpatch.diff(before, after)
    assert htmlpatch.apply(before, ops) == after
    # Most of the new panel is the form; the patch adds it where it goes and nothing else.
    assert len(json.dumps(ops, separators=(",", ":"))) > 0.7 * len(after)
    assert htmlpatch.worth_sending(*as_sent(ops, after))
    # A patch that would be as long as the panel itself is not worth sending.
    rewritten = [[0, len(htmlpatch.tokens(before)), after]]
    assert not htmlpatch.worth_sending(*as_sent(rewritten, after))


@pytest.mark.parametrize("seed", range(5))
def test_each_tag_is_the_run_of_tokens_it_is_said_to_start_at(seed):
    """A panel is cut into tokens and into tags (runs of tokens ending at ``>``): every tag is
    exactly the tokens from its start to the next tag's, whatever the quotes and brackets."""
    rng = random.Random(seed)
    for _ in range(2000):
        html = "".join(rng.choice('ab<>"= ') for _ in range(rng.randint(0, 40)))
        tokens, tags, starts = htmlpatch._cut(html)
        assert "".join(tokens) == html == "".join(tags)
        assert starts[0] == 0 and starts[-1] == len(tokens) and len(starts) == len(tags) + 1
        for tag, start, end in zip(tags, starts, starts[1:], strict=False):
            assert "".join(tokens[start:end]) == tag


def test_a_table_changed_in_every_row_with_a_tag_added_sends_the_changes_alone():
    """A round's end changes every player's score and adds a card to one row: the tags fall out
    of step once, and the walk along them finds its step again after the added card."""

    def table(scores: list[int], cards: dict[int, str]) -> str:
        rows = "".join(
            f'<tr data-seat="{seat}"><th>Player {seat}</th><td class="score">{score}</td>'
            f"<td>{cards.get(seat, '')}</td></tr>"
            for seat, score in enumerate(scores)
        )
        return f'<section id="players"><table><tbody>{rows}</tbody></table></section>'

    before = table([10 * seat for seat in range(80)], {})
    after = table([10 * seat + 3 for seat in range(80)], {5: '<i class="card">R</i>'})
    ops = htmlpatch.diff(before, after)
    assert htmlpatch.apply(before, ops) == after
    sent = [text for _start, _count, text in ops]
    assert '<i class="card">R</i>' in "".join(sent)
    assert all(len(text) < 40 for text in sent), sent  # scores and the card, no rows again
