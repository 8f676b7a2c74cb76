"""What every game's browser tests check on a page, in one place: screenshots into test-artifacts/
(the folder CI keeps), the two screen sizes, and axe-core (vendored) for accessibility."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
AXE = ROOT / "static" / "vendor" / "axe-core-4.14.1.min.js"
PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 800}
PATIENCE_MS = 30_000  # how long a page, a click or an expectation may take before it fails


def settled(page: Any, promise: str, seconds: float = PATIENCE_MS / 1000) -> Any:
    """The value ``promise`` (a page expression) resolves to, or a failure after ``seconds``
    that says where the page was: its version, connection and step player."""
    return page.evaluate(
        f"""() => Promise.race([{promise}, new Promise((_, fail) => setTimeout(() => {{
             const root = document.getElementById('match-root');
             const where = JSON.stringify({{
               version: root && root.dataset.version,
               connection: (document.getElementById('connection') || {{}}).textContent,
               playing: window.gemSteps && gemSteps.playing,
               last: window.gemSteps && gemSteps.last,
               speed: window.gemSteps && gemSteps.speedName}});
             fail(new Error('not settled: {promise} ' + where)); }}, {seconds * 1000}))])"""
    )


def shoot_both_sizes(page: Any, name: str) -> None:
    """The whole page at a phone's and a desktop's size (test-artifacts/<name>-phone.png and
    -desktop.png); the page is left at the desktop size."""
    ARTIFACTS.mkdir(exist_ok=True)
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        page.set_viewport_size(size)
        page.screenshot(path=str(ARTIFACTS / f"{name}-{label}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)


def serious_axe_violations(page: Any, within: str | None = None) -> list[dict[str, Any]]:
    """axe-core over the page (or the element ``within`` selects): the serious and critical
    violations, each with the first few elements it names."""
    if not page.evaluate("Boolean(window.axe)"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(
        """async (within) => {
          const context = within ? {include: [[within]]} : document;
          const result = await axe.run(context, {resultTypes: ['violations']});
          return result.violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => ({id: v.id, impact: v.impact, help: v.help,
                          nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}));
        }""",
        within,
    )


def board_coordinates(page: Any) -> list[dict[str, Any]]:
    """Every board on the page (a table of [data-cell] cells): the column letters and row
    numbers drawn round it, the ones its cells' names call for (A1 is column A, row 1), and the
    size of its first cell in px."""
    return page.evaluate(
        """() => [...document.querySelectorAll('table')]
          .filter((table) => table.querySelector('[data-cell]'))
          .map((table) => {
            const rows = [...table.querySelectorAll('tbody tr')];
            const name = (el) => el.dataset.cell.match(/^([A-Za-z]+)(\\d+)$/);
            const box = rows[0].querySelector('[data-cell]').getBoundingClientRect();
            return {
              board: table.dataset.grid || table.className,
              letters: [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim())
                .filter((text) => text),
              numbers: rows.map((row) => row.querySelector('th').textContent.trim()),
              named_letters: [...rows[0].querySelectorAll('[data-cell]')].map((el) => name(el)[1]),
              named_numbers: rows.map((row) => name(row.querySelector('[data-cell]'))[2]),
              cell: Math.round(Math.min(box.width, box.height)),
            };
          })"""
    )


def assert_coordinates_on_every_board(page: Any) -> list[dict[str, Any]]:
    """Each board shows its column letters and row numbers; returns the boards found."""
    boards = board_coordinates(page)
    assert boards, "no board on the page"
    for board in boards:
        assert board["letters"] == board["named_letters"], board
        assert board["numbers"] == board["named_numbers"], board
    return boards
