// Shared grid input for every game's board (templates/core/_grid.html). It decides nothing: it
// turns clicks, drags and keys on [data-grid] [data-cell] buttons into document events that the
// game's own script reads:
//   gem:cell   {grid, cell, element, drag}  a cell chosen (click, Enter/Space, or entered while dragging)
//   gem:cancel {grid}                       Escape pressed on the grid
// Arrow keys move the focus between cells (one tab stop per grid: roving tabindex).
(function () {
  "use strict";
  let dragging = null; // {name, last, first, moved} while the pointer is held down on a grid

  function cellOf(target) {
    const element = target && target.closest ? target.closest("[data-cell]") : null;
    const grid = element && element.closest("[data-grid]");
    return element && grid ? { element, grid } : null;
  }

  function choose(found, drag) {
    document.dispatchEvent(new CustomEvent("gem:cell", {
      detail: { grid: found.grid.dataset.grid, cell: found.element.dataset.cell, element: found.element, drag: drag },
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
    const rows = Array.from(found.grid.querySelectorAll("tr"));
    const r = rows.indexOf(row) + step[0];
    const c = Array.from(row.children).indexOf(cell) + step[1];
    if (r < 0 || r >= rows.length || c < 0 || c >= rows[r].children.length) return;
    const next = rows[r].children[c].querySelector("[data-cell]");
    if (next) focusCell(found.grid, next);
  });
})();
