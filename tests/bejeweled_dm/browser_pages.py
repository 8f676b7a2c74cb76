"""Helpers for the death match's browser tests (tests/browser/test_death_match_*.py): layout and
accessibility checks (axe-core, vendored), screenshots into test-artifacts/ (a seated match comes
from the seated_match fixture)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.pages import ARTIFACTS, DESKTOP, PHONE
from tests.browser.pages import serious_axe_violations as axe_violations

SIZES = {"375x812": PHONE, "1280x800": DESKTOP}


def layout(page: Any) -> dict[str, Any]:
    """Where the page puts things: horizontal overflow and the boxes of the board, the action
    panel, the clock and the claim box."""
    return page.evaluate(
        """() => {
          const box = (selector) => {
            const element = document.querySelector(selector);
            if (!element) return null;
            const r = element.getBoundingClientRect();
            return {top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right};
          };
          return {
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
            height: innerHeight,
            board: box('#bjdm-board .bjdm-grid'),
            actions: box('#bjdm-actions'),
            clock: box('#bjdm-status .bjdm-clock'),
            claim: box('#bjdm-actions form[data-action=claim]'),
          };
        }"""
    )


def assert_playable_layout(page: Any, where: str, *, board: bool = True) -> dict[str, Any]:
    """No sideways scroll; the whole board and the top of the action panel on the first screen
    (the page scrolled to its top)."""
    page.evaluate("window.scrollTo(0, 0)")
    found = layout(page)
    assert found["scrollWidth"] <= found["clientWidth"], f"{where}: sideways scroll {found}"
    if board:
        assert found["board"]["bottom"] <= found["height"], f"{where}: board below the fold {found}"
    assert found["actions"]["top"] < found["height"], (
        f"{where}: the action panel starts below the fold {found}"
    )
    return found


def serious_axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core over the game's panels: the serious and critical violations."""
    return axe_violations(page, within="#match-root")


def shoot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path))
    return path
