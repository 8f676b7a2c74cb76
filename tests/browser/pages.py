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
