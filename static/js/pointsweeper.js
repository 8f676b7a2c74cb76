// Pointsweeper's page script. It decides nothing: the view (window.gemArena.view()) says where a
// claim may go, the server's deadlines say when a bank runs out.
// - Clicking a board square fills the square field the player was in, else the next empty field
//   of the form they are using (a full form starts again from its first field); the forms
//   themselves are sent by match.js (data-action).
// - Once a claim's piece and start are chosen, the squares it may end on are outlined
//   (view.game.legal.destinations, by the piece's letter: "R2" -> "R").
// - "show" on a scout (notebook or log) outlines the squares it covered, until shown again.
// - The bank of the player to move counts down once their free move time is over (a warning
//   sound as it turns urgent).
// - A move is played on the board by the shared step player (static/js/steps.js): a claim's
//   piece slides square by square along its path, then the covers of the squares it claimed
//   burst off (points or mines rising from them); a scout's piece drops on its square and the
//   squares it covers light up, with a ping (a thud when the scouting player's own count found
//   mines). The board panel already shows the move's result: the script draws the board before
//   it from the move's event and puts the result back when the animation ends (at once with
//   reduced motion or the "instant" speed).
// - The board square a move was played on keeps the keyboard's focus after the move.
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
      const urgent = left < full && seconds <= 10 && left > 0;
      if (urgent && !bank.classList.contains("urgent") && window.gemSound) window.gemSound.play("warning");
      bank.classList.toggle("urgent", urgent);
    }
  }

  // --- a move, played on the board -------------------------------------------------------------

  const GLYPHS = { K: "♚", Q: "♛", R: "♜", B: "♝", N: "♞", P: "♟" };
  let playedCell = null; // the square of the move this page sent, to focus once it is played

  // A square's look on ``table`` (the board a move plays on: a board panel swapped in meanwhile is
  // another table, which a move still playing never paints).
  function squareOn(table, square) {
    return table.querySelector(`[data-cell="${square}"]`);
  }

  function lookOf(table, square) {
    const c = squareOn(table, square);
    if (!c) return null;
    const gem = c.querySelector(".gem");
    return { css: c.className, text: gem ? gem.textContent : "", label: c.getAttribute("aria-label") };
  }

  function setLook(table, square, look) {
    const c = squareOn(table, square);
    if (!c || !look) return;
    c.className = look.css;
    const gem = c.querySelector(".gem");
    if (gem) gem.textContent = look.text;
    c.setAttribute("aria-label", look.label);
  }

  // Squares a claim before this one proved to be tiles (they were marked before it).
  function provenBefore(log, entry) {
    const proven = new Set();
    for (const e of log) {
      if (e === entry || e.n >= entry.n) break;
      if (e.type === "claim" && e.mines) for (const s of e.path) if (!e.squares.includes(s)) proven.add(s);
    }
    return proven;
  }

  // The frames of a claim or a scout from its event (``entry``: the log entry, with the mover's
  // own scout result when this page is theirs). Each frame says which squares show their look
  // before the move (``before``) and where the moving piece stands (``token``).
  function framesOf(entry, note) {
    const letter = (entry.piece || "?").charAt(0);
    const base = { grid: "board", glyph: GLYPHS[letter] || letter, seat: entry.seat };
    if (entry.type === "claim") {
      const path = entry.path || [entry.start, entry.end];
      const each = Math.max(80, Math.min(160, Math.round(600 / path.length)));
      const frames = path.map((square, i) => Object.assign({}, base, {
        before: true, token: square, ms: each,
        moves: i ? [[path[i - 1], square]] : [], drops: i ? [] : [square], sound: i ? null : "swap",
      }));
      const text = entry.mines ? `${entry.mines} mine${entry.mines === 1 ? "" : "s"}!` : `+${entry.points}`;
      frames.push(Object.assign({}, base, {
        before: false, token: null, ms: 480, bursts: entry.squares, reveal: entry.squares,
        floats: [{ cells: entry.squares.length ? entry.squares : [entry.end], text: text }],
        sound: entry.mines ? "mine" : "match", depth: Math.max(1, Math.min(8, entry.points || 1)),
      }));
      return frames;
    }
    const found = note ? `sum ${note.sum} · ${note.mines} mine${note.mines === 1 ? "" : "s"}` : "scouted";
    return [
      Object.assign({}, base, { before: false, token: entry.square, drops: [entry.square], ms: 220 }),
      Object.assign({}, base, {
        before: false, token: entry.square, scan: entry.squares || [], ms: 650,
        floats: [{ cells: [entry.square], text: found }],
        sound: note && note.mines ? "mine" : "scout",
      }),
    ];
  }

  // A claim's new total waits for the burst that scores it (hidden in the css while <html> has
  // data-score-held); Skip, instant, reduced motion and the run's end show it at once.
  function holdScore(seat) {
    if (seat === null || seat === undefined) delete document.documentElement.dataset.scoreHeld;
    else document.documentElement.dataset.scoreHeld = seat;
  }

  function playMove(entry, note, log, seat) {
    if (!window.gemSteps) return;
    window.gemSteps.stop(); // a move still playing ends first: its board is put back
    const table = document.querySelector('#ps-board [data-grid="board"]');
    if (!table) return;
    const squares = [...table.querySelectorAll("[data-cell]")].map((c) => c.dataset.cell);
    const after = {};
    for (const square of squares) after[square] = lookOf(table, square);
    const before = {};
    if (entry.type === "claim") {
      const proven = provenBefore(log || [], entry);
      const path = entry.path || [];
      const covered = entry.mines ? path.filter((s) => !entry.squares.includes(s) && !proven.has(s)) : [];
      for (const square of entry.squares.concat(covered)) {
        before[square] = { css: "cell ps-hidden", text: "", label: `${square}, hidden` };
      }
    }
    const mark = (square, ...classes) => { const c = squareOn(table, square); if (c) c.classList.add(...classes); };
    table.classList.add("animating");
    if (entry.type === "claim") holdScore(entry.seat !== undefined ? entry.seat : seat);
    window.gemSteps.play(framesOf(entry, note), (frame) => {
      if (frame.bursts) holdScore(null);
      for (const square of squares) setLook(table, square, frame.before && before[square] ? before[square] : after[square]);
      for (const square of frame.reveal || []) mark(square, "ps-revealed");
      for (const square of frame.scan || []) mark(square, "ps-scan");
      if (frame.token) {
        mark(frame.token, "ps-token", `ps-token-${frame.seat}`);
        const gem = squareOn(table, frame.token) && squareOn(table, frame.token).querySelector(".gem");
        if (gem) gem.textContent = frame.glyph;
      }
    }, {
      done: () => {
        holdScore(null);
        for (const square of squares) setLook(table, square, after[square]);
        table.classList.remove("animating");
        markScout();
        markDestinations();
      },
    });
  }

  function focusPlayed() {
    const square = playedCell;
    playedCell = null;
    const target = square && cell(square);
    const active = document.activeElement;
    if (!target || (active && active !== document.body && document.contains(active))) return;
    for (const other of document.querySelectorAll('#ps-board [data-grid="board"] [tabindex="0"]')) other.tabIndex = -1;
    target.tabIndex = 0;
    target.focus({ preventScroll: true });
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!form.matches || !form.matches("form.ps-scout, form.ps-claim")) return;
    const field = form.elements.square || form.elements.end;
    playedCell = field ? (field.value || "").trim().toLowerCase() : null;
  }, true);

  // --- events ---------------------------------------------------------------------------------

  // Which square field a click on the board fills: the one the player was in (they went from it
  // straight to the board), else the next one of the form they last chose something in (its
  // piece, or a field a click filled), else the first empty field of a form on show. A form whose
  // fields are all filled starts again: its first field, the others emptied (a new claim after a
  // refused one). Anything else focused (a button, the piece's menu, the page) ends "the field
  // the player was in".
  function shownForm(form) {
    return Boolean(form && form.isConnected && !form.closest("[hidden]"));
  }

  function squareFields(form) {
    return [...form.querySelectorAll("input.ps-square")];
  }

  function formOf(element) {
    return element && element.closest ? element.closest("form.ps-scout, form.ps-claim") : null;
  }

  document.addEventListener("focusin", (event) => {
    const target = event.target;
    if (target.matches && target.matches("input.ps-square")) focused = target;
    else if (!(target.closest && target.closest('#ps-board [data-grid="board"]'))) {
      focused = formOf(target) || null; // the form stays chosen, not the field
    }
  });
  document.addEventListener("change", (event) => {
    if (event.target.matches && event.target.matches("form.ps-claim select, form.ps-scout select")) {
      focused = formOf(event.target);
    }
  });

  function fieldToFill() {
    const field = focused && focused.matches("input.ps-square") ? focused : null;
    if (field && shownForm(field.form)) return field;
    let form = focused && focused.matches("form") ? focused : formOf(field);
    if (form && !form.isConnected) { // its panel was drawn again: the same form in the new one
      form = document.querySelector(form.classList.contains("ps-claim") ? "form.ps-claim" : "form.ps-scout");
    }
    const forms = shownForm(form) ? [form]
      : [...document.querySelectorAll("form.ps-scout, form.ps-claim")].filter(shownForm);
    for (const candidate of forms) {
      const empty = squareFields(candidate).find((input) => !input.value);
      if (empty) return empty;
    }
    if (!forms.length) return null;
    const fields = squareFields(forms[0]);
    for (const later of fields.slice(1)) later.value = "";
    return fields[0] || null;
  }

  document.addEventListener("gem:cell", (event) => {
    const detail = event.detail || {};
    if (detail.grid !== "board" || detail.drag) return;
    const field = fieldToFill();
    if (!field) return;
    field.value = detail.cell;
    const fields = squareFields(field.form);
    const next = fields.slice(fields.indexOf(field) + 1).find((input) => !input.value);
    focused = next || field.form; // the form's next empty field, else the form starts again
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
    const happened = frame.event;
    const view = frame.view && frame.view.game;
    if (happened && (happened.kind === "scouted" || happened.kind === "claimed") && happened.data) {
      const data = happened.data;
      // The last move of a board: the panel already shows the next board (or the match's end).
      if (!data.board_over && view && view.play) playMove(data, data.scout || null, view.play.log, happened.seat);
      focusPlayed();
    }
  });
  setInterval(tickBanks, 250);
  tickBanks();
})();
