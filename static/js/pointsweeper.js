// Pointsweeper's page script. It decides nothing: the view (window.gemArena.view()) says where a
// claim may go, the server's deadlines say when a bank runs out.
// - Clicking a board square fills the square field last focused (or the first empty one) of the
//   move forms; the forms themselves are sent by match.js (data-action).
// - Once a claim's piece and start are chosen, the squares it may end on are outlined
//   (view.game.legal.destinations, by the piece's letter: "R2" -> "R").
// - "show" on a scout (notebook or log) outlines the squares it covered, until shown again.
// - The bank of the player to move counts down once their free move time is over.
(function () {
  "use strict";
  let focused = null;
  let shown = null; // {squares, origin} of the scout outlined on the board
  let offset = 0; // server time minus local time, from the frames (match.js keeps its own)

  function boardCells() {
    return document.querySelectorAll('#ps-board [data-grid="board"] [data-cell]');
  }

  function cell(square) {
    return document.querySelector(`#ps-board [data-grid="board"] [data-cell="${square}"]`);
  }

  // --- claims: the legal destinations of the chosen piece from the chosen start --------------

  function destinations() {
    const form = document.querySelector("form.ps-claim");
    const view = window.gemArena && window.gemArena.view();
    const legal = view && view.game && view.game.legal;
    if (!form || !legal || !legal.destinations) return null;
    const piece = form.elements.piece.value || "";
    const start = (form.elements.start.value || "").trim().toLowerCase();
    const ends = (legal.destinations[piece.charAt(0)] || {})[start];
    return { start: start, ends: ends ? ends.split(" ") : [] };
  }

  function markDestinations() {
    for (const c of boardCells()) c.classList.remove("ps-dest", "ps-start");
    const found = destinations();
    if (!found || !found.start) return;
    const start = cell(found.start);
    if (start) start.classList.add("ps-start");
    for (const square of found.ends) {
      const end = cell(square);
      if (end) end.classList.add("ps-dest");
    }
  }

  // --- scouts: the squares one covered --------------------------------------------------------

  function markScout() {
    for (const c of boardCells()) c.classList.remove("ps-scouted", "ps-scout-origin");
    for (const button of document.querySelectorAll("button.ps-show")) {
      const on = Boolean(shown) && button.dataset.squares === shown.squares &&
        button.dataset.origin === shown.origin;
      button.setAttribute("aria-pressed", on ? "true" : "false");
    }
    if (!shown) return;
    for (const square of shown.squares.split(" ")) {
      const c = cell(square);
      if (c) c.classList.add("ps-scouted");
    }
    const origin = cell(shown.origin);
    if (origin) origin.classList.add("ps-scout-origin");
  }

  // --- the bank of the player to move ---------------------------------------------------------

  function now() {
    if (window.gemArena && typeof window.gemArena.now === "function") return window.gemArena.now();
    return Date.now() + offset;
  }

  function tickBanks() {
    for (const bank of document.querySelectorAll(".ps-bank[data-runs-out]")) {
      const full = parseFloat(bank.dataset.bank) * 1000;
      const left = Math.max(0, Math.min(full, Date.parse(bank.dataset.runsOut) - now()));
      const seconds = Math.ceil(left / 1000 - 1e-6);
      const text = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
      const target = bank.querySelector(".ps-bank-left");
      if (target && target.textContent !== text) target.textContent = text;
      bank.classList.toggle("running", left < full);
      bank.classList.toggle("urgent", left < full && seconds <= 10);
    }
  }

  // --- events ---------------------------------------------------------------------------------

  document.addEventListener("focusin", (event) => {
    if (event.target.matches && event.target.matches("input.ps-square")) focused = event.target;
  });
  document.addEventListener("gem:cell", (event) => {
    const detail = event.detail || {};
    if (detail.grid !== "board" || detail.drag) return;
    let field = focused && document.contains(focused) ? focused : null;
    if (!field) field = [...document.querySelectorAll("input.ps-square")].find((i) => !i.value);
    if (!field) return;
    field.value = detail.cell;
    const fields = [...field.form.querySelectorAll("input.ps-square")];
    const next = fields[fields.indexOf(field) + 1];
    focused = next || field;
    markDestinations();
  });
  document.addEventListener("input", (event) => {
    if (event.target.closest && event.target.closest("form.ps-claim")) markDestinations();
  });
  document.addEventListener("change", (event) => {
    if (event.target.closest && event.target.closest("form.ps-claim")) markDestinations();
  });
  document.addEventListener("click", (event) => {
    const order = event.target.closest && event.target.closest("button.ps-first");
    if (order && window.gemArena) {
      window.gemArena.send({ type: "choose_order", first: order.dataset.first === "true" });
      return;
    }
    const show = event.target.closest && event.target.closest("button.ps-show");
    if (show) {
      const same = shown && shown.squares === show.dataset.squares &&
        shown.origin === show.dataset.origin;
      shown = same ? null : { squares: show.dataset.squares, origin: show.dataset.origin };
      markScout();
      const board = document.getElementById("ps-board");
      if (shown && board) board.scrollIntoView({ behavior: "smooth", block: "nearest" });
    }
  });
  // A new board panel (every frame that changes it): draw the marks again. A scout no longer
  // listed (a new board began) is forgotten.
  document.addEventListener("gem:swapped", (event) => {
    const id = event.detail && event.detail.id;
    if (id === "ps-notebook" || id === "ps-log") {
      const listed = [...document.querySelectorAll("button.ps-show")].some((b) =>
        shown && b.dataset.squares === shown.squares && b.dataset.origin === shown.origin);
      if (!listed) shown = null;
    }
    if (id === "ps-board" || id === "ps-notebook" || id === "ps-log") markScout();
    if (id === "ps-board" || id === "ps-moves") markDestinations();
  });
  document.addEventListener("gem:update", (event) => {
    const frame = event.detail || {};
    if (frame.server_time) offset = frame.server_time - Date.now();
  });
  setInterval(tickBanks, 250);
  tickBanks();
})();
