// Shared grid input for every game's board (templates/core/_grid.html). It decides nothing: it
// turns clicks, drags and keys on [data-grid] [data-cell] buttons into document events that the
// game's own script reads:
//   gem:cell   {grid, cell, element, drag}  a cell chosen (click, Enter/Space, or entered while dragging)
//   gem:cancel {grid}                       Escape pressed on the grid
// Arrow keys move the focus between cells (one tab stop per grid: roving tabindex). When a live
// update redraws a board, the focused cell keeps the focus; a cell that becomes "selected" is
// announced (aria-pressed and a polite live region).
(function () {
  "use strict";
  let dragging = null; // {name, last, first, moved} while the pointer is held down on a grid

  function cellOf(target) {
    const element = target && target.closest ? target.closest("[data-cell]") : null;
    const grid = element && element.closest("[data-grid]");
    return element && grid ? { element, grid } : null;
  }

  // A touch on the board while a move is animated is an input like any other: the animation ends
  // at once (its last frame, the board as the server has it, is painted) and the touch then acts
  // on that board, as it would a moment later. Nothing the player does is dropped.
  function choose(found, drag) {
    if (window.gemSteps && window.gemSteps.playing) window.gemSteps.stop();
    const grid = found.grid.dataset.grid, cell = found.element.dataset.cell;
    // The animation's end may have drawn the board again: the cell of that name in it.
    const element = found.element.isConnected ? found.element
      : document.querySelector(`[data-grid="${grid}"] [data-cell="${cell}"]`) || found.element;
    document.dispatchEvent(new CustomEvent("gem:cell", {
      detail: { grid: grid, cell: cell, element: element, drag: drag },
    }));
  }

  function focusCell(grid, element) {
    for (const other of grid.querySelectorAll("[data-cell][tabindex='0']")) other.tabIndex = -1;
    element.tabIndex = 0;
    element.focus();
  }

  document.addEventListener("click", (event) => {
    const found = cellOf(event.target);
    if (!found) return;
    if (dragging && dragging.moved) { dragging = null; return; } // the drag already chose its cells
    dragging = null;
    focusCell(found.grid, found.element);
    choose(found, false);
  });

  document.addEventListener("pointerdown", (event) => {
    const found = cellOf(event.target);
    dragging = found
      ? { name: found.grid.dataset.grid, last: found.element.dataset.cell, first: found, moved: false }
      : null;
  });

  document.addEventListener("pointermove", (event) => {
    if (!dragging || event.buttons === 0) return;
    // Compared by name, not element: a live update may redraw the grid in the middle of a drag.
    const found = cellOf(document.elementFromPoint(event.clientX, event.clientY));
    if (!found || found.grid.dataset.grid !== dragging.name) return;
    if (found.element.dataset.cell === dragging.last) return;
    if (!dragging.moved) { dragging.moved = true; choose(dragging.first, true); }
    dragging.last = found.element.dataset.cell;
    choose(found, true);
  });

  document.addEventListener("pointerup", (event) => {
    if (!dragging) return;
    if (!dragging.moved) { dragging = null; return; }
    // A drag that ends on another cell fires its click on the table, not a cell: nothing to
    // swallow then. One that ends where it started swallows that one click.
    const found = cellOf(event.target);
    if (!found || found.element.dataset.cell !== dragging.first.element.dataset.cell) dragging = null;
  });

  document.addEventListener("keydown", (event) => {
    const found = cellOf(event.target);
    if (!found) return;
    if (event.key === "Escape") {
      document.dispatchEvent(new CustomEvent("gem:cancel", { detail: { grid: found.grid.dataset.grid } }));
      return;
    }
    const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const step = steps[event.key];
    if (!step) return;
    event.preventDefault();
    const cell = found.element.closest("td");
    const row = cell.parentElement;
    const rows = Array.from(found.grid.querySelectorAll("tbody tr"));
    const r = rows.indexOf(row) + step[0];
    const c = Array.from(row.querySelectorAll("td")).indexOf(cell) + step[1];
    const cells = r >= 0 && r < rows.length ? rows[r].querySelectorAll("td") : [];
    if (c < 0 || c >= cells.length) return;
    const next = cells[c].querySelector("[data-cell]");
    if (next) focusCell(found.grid, next);
  });

  // --- the focus stays where the player was ---------------------------------------------------
  // A live update redraws a board; the cell that had the focus (the one just played) gets it back
  // in the new board, so the next key acts there and not on A1.
  let focused = null; // the [data-cell] element that has the focus
  document.addEventListener("focusin", (event) => {
    const found = cellOf(event.target);
    focused = found ? found.element : null;
  });

  function restoreFocus() {
    if (!focused || focused.isConnected) return;
    const lost = focused;
    focused = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const grid = lost.closest("[data-grid]"); // the board it was on, now out of the page
    if (!grid) return;
    const name = grid.dataset.grid;
    const again = document.querySelector(`[data-grid="${name}"] [data-cell="${lost.dataset.cell}"]`);
    if (!again) return;
    for (const other of again.closest("[data-grid]").querySelectorAll("[data-cell][tabindex='0']")) other.tabIndex = -1;
    again.tabIndex = 0;
    again.focus({ preventScroll: true });
  }

  // --- a chosen gem is announced --------------------------------------------------------------
  let announcer = null;
  function announce(text) {
    if (!announcer) {
      announcer = document.createElement("p");
      announcer.className = "visually-hidden";
      announcer.setAttribute("aria-live", "polite");
      announcer.id = "grid-announcer";
      document.body.appendChild(announcer);
    }
    announcer.textContent = text;
  }

  function noteChoice(record) {
    const element = record.target;
    if (!element.dataset || !element.dataset.cell) return;
    const was = /(^|\s)selected(\s|$)/.test(record.oldValue || "");
    const now = element.classList.contains("selected");
    if (was === now) return;
    element.setAttribute("aria-pressed", now ? "true" : "false");
    if (now) announce(`${element.getAttribute("aria-label") || element.dataset.cell}: chosen`);
  }

  function watch() {
    new MutationObserver((records) => {
      for (const record of records) if (record.type === "attributes") noteChoice(record);
      restoreFocus();
    }).observe(document.body, {
      subtree: true, childList: true, attributes: true, attributeFilter: ["class"], attributeOldValue: true,
    });
  }
  if (document.body) watch();
  else document.addEventListener("DOMContentLoaded", watch);
})();
