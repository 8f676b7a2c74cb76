// Seven Gem Swap's page: the sealed bid, the sequence composer (pick a gem on the grid, add moves
// with the arrow keys, the buttons or a click on the cell beside the path's end, with a preview
// of your own path as if no one else moved), the draft kept by the server for your seat, the
// before/after grid of the last round, and for the host the step-by-step animation and the
// clock extension. It decides no rules: the server judges every submission.
(function () {
  "use strict";
  const LETTERS = "ABCDEFGHIJ";
  const SIZE = 10;
  const MAX_MOVES = 40;
  const DELTA = { U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1] };
  const KEYS = { ArrowUp: "U", ArrowDown: "D", ArrowLeft: "L", ArrowRight: "R" };
  const NAMES = { U: "up", D: "down", L: "left", R: "right" };
  const COLOURS = { R: "red", O: "orange", Y: "yellow", G: "green", B: "blue", I: "indigo", V: "violet", "#": "rock" };
  const REASONS = {
    off_grid: "off the grid", locked: "into a locked cell", controlled: "into a controlled gem",
    same_target: "same target as another move",
  };

  let compose = null; // {round, gem, moves, card, premove} while a round is being composed
  let saveTimer = null;
  let showingBefore = false;

  function lastRound(g) { return g && g.history && g.history.length ? g.history[g.history.length - 1] : null; }

  function currentView() {
    if (window.gemArena) return window.gemArena.view();
    const data = document.getElementById("match-view");
    return data ? JSON.parse(data.textContent) : null;
  }
  function game() { const v = currentView(); return v ? v.game : null; }

  function at(cell) { return [parseInt(cell.slice(1), 10) - 1, LETTERS.indexOf(cell[0])]; }
  function nameOf(r, c) { return LETTERS[c] + (r + 1); }
  function rowsOf(text) { return text.split("\n").map((line) => line.split("")); }

  // Your own path on the grid as the round starts, as if no one else moved.
  function preview(board, gem, moves) {
    const cells = rowsOf(board);
    let [r, c] = at(gem);
    const locked = new Set();
    const path = [gem];
    let failed = null;
    for (let i = 0; i < moves.length; i++) {
      const [dr, dc] = DELTA[moves[i]];
      const nr = r + dr, nc = c + dc;
      if (nr < 0 || nr >= SIZE || nc < 0 || nc >= SIZE) {
        failed = { index: i + 1, move: moves[i], cell: null, reason: "it would leave the grid" };
        break;
      }
      const target = nameOf(nr, nc);
      if (locked.has(target)) {
        failed = { index: i + 1, move: moves[i], cell: target, reason: target + " is locked (your gem left it)" };
        break;
      }
      const held = cells[nr][nc];
      cells[nr][nc] = cells[r][c];
      cells[r][c] = held;
      locked.add(nameOf(r, c));
      r = nr; c = nc;
      path.push(target);
    }
    return { path: path, failed: failed, end: nameOf(r, c), cells: cells };
  }

  function largestGroup(cells, colours) {
    const seen = new Set();
    let best = 0;
    for (let r = 0; r < SIZE; r++) {
      for (let c = 0; c < SIZE; c++) {
        if (seen.has(r * SIZE + c) || !colours.includes(cells[r][c])) continue;
        let size = 0;
        const stack = [[r, c]];
        seen.add(r * SIZE + c);
        while (stack.length) {
          const [y, x] = stack.pop();
          size += 1;
          for (const [dy, dx] of Object.values(DELTA)) {
            const ny = y + dy, nx = x + dx;
            if (ny < 0 || ny >= SIZE || nx < 0 || nx >= SIZE) continue;
            if (seen.has(ny * SIZE + nx) || !colours.includes(cells[ny][nx])) continue;
            seen.add(ny * SIZE + nx);
            stack.push([ny, nx]);
          }
        }
        best = Math.max(best, size);
      }
    }
    return best;
  }

  // --- the composer's state ---------------------------------------------------------------

  function syncCompose() {
    const v = currentView();
    const g = v && v.game;
    if (!g || !g.me || g.phase !== "round" || (v.match && v.match.status !== "live")) {
      compose = null;
      return;
    }
    if (compose && compose.round === g.round) return;
    const draft = v.draft && (v.draft.round === undefined || v.draft.round === g.round) ? v.draft : null;
    const base = draft || g.me.submission || {};
    compose = {
      round: g.round,
      gem: base.gem || "",
      moves: base.moves || "",
      card: base.card || "",
      premove: Boolean(base.premove),
    };
  }

  function saveSoon() {
    clearTimeout(saveTimer);
    const state = document.querySelector("#sgs-play .sgs-draft-state");
    if (state) state.textContent = "Not submitted yet: submit to make it count.";
    saveTimer = setTimeout(() => {
      if (!compose || !window.gemArena) return;
      const draft = { round: compose.round, gem: compose.gem, moves: compose.moves, premove: compose.premove };
      if (compose.card) draft.card = compose.card;
      window.gemArena.saveDraft(draft);
    }, 400);
  }

  function change(update) {
    if (!compose) return;
    Object.assign(compose, update);
    render();
    saveSoon();
  }

  function addMove(move) {
    if (!compose || !compose.gem) { tell("Pick your gem on the grid first."); return; }
    if (compose.moves.length >= MAX_MOVES) { tell("A sequence has at most 40 moves."); return; }
    change({ moves: compose.moves + move });
  }

  function tell(text) {
    const line = document.querySelector("#sgs-play .sgs-preview-text");
    if (line) line.textContent = text;
  }

  // --- drawing ------------------------------------------------------------------------------

  function gridButtons(name) {
    return document.querySelectorAll(`[data-grid="${name || "sgs"}"] [data-cell]`);
  }

  function paintCells(cells, marks) {
    for (const button of gridButtons()) {
      const [r, c] = at(button.dataset.cell);
      const gem = cells[r][c];
      const base = ["cell", gem === "#" ? "sgs-rock" : "sgs-" + gem];
      const extra = marks(button.dataset.cell) || [];
      button.className = base.concat(extra).join(" ");
      button.querySelector(".gem").textContent = gem === "#" ? "" : gem;
      button.setAttribute("aria-label", button.dataset.cell + ", " + COLOURS[gem] + (gem === "#" ? "" : " gem"));
    }
  }

  function clearPath() {
    for (const button of gridButtons()) {
      button.classList.remove("sgs-path", "sgs-path-end", "sgs-picked", "sgs-fail");
      delete button.dataset.step;
    }
  }

  function ownMarks(g, board) {
    const last = lastRound(g);
    const changed = new Set(last && g.phase !== "bidding" ? last.changed : []);
    const rows = rowsOf(board);
    return (cell) => {
      const [r, c] = at(cell);
      const marks = changed.has(cell) ? ["sgs-changed"] : [];
      if (g.me && rows[r][c] === g.me.colour) marks.push("sgs-own");
      return marks;
    };
  }

  function render() {
    const g = game();
    if (!g || showingBefore || (window.gemSteps && window.gemSteps.playing)) return;
    clearPath();
    const form = document.querySelector("#sgs-play .sgs-compose");
    const caption = document.querySelector('[data-grid="sgs"] caption');
    if (!compose || !form) return;
    const name = form.querySelector(".sgs-gem-name");
    name.textContent = compose.gem || "none yet";
    form.querySelector(".sgs-moves").textContent = compose.moves ? compose.moves.split("").join(" ") : "(none)";
    form.querySelector(".sgs-count").textContent = compose.moves.length + "/" + MAX_MOVES;
    const typed = form.querySelector('input[name="moves"]');
    if (document.activeElement !== typed) typed.value = compose.moves;
    for (const radio of form.querySelectorAll('input[name="card"]')) radio.checked = radio.value === compose.card;
    const premove = form.querySelector('input[name="premove"]');
    if (premove) premove.checked = compose.premove;
    form.querySelector(".sgs-submit").disabled = !compose.gem;
    if (!compose.gem) {
      paintCells(rowsOf(g.board), ownMarks(g, g.board));
      if (caption) caption.textContent = `The grid as round ${g.round} starts`;
      tell("Click one of your " + (g.me.colour_name || "") + " gems on the grid.");
      return;
    }
    const seen = preview(g.board, compose.gem, compose.moves);
    // The grid drawn as your moves would leave it if no one else moved.
    paintCells(seen.cells, ownMarks(g, g.board));
    if (caption) {
      caption.textContent = compose.moves
        ? "Preview: the grid after your moves, as if no one else moved"
        : `The grid as round ${g.round} starts`;
    }
    seen.path.forEach((cell, index) => {
      const button = document.querySelector(`[data-grid="sgs"] [data-cell="${cell}"]`);
      if (!button) return;
      button.classList.add(index === 0 ? "sgs-picked" : "sgs-path");
      if (index > 0) button.dataset.step = String(index);
      if (index === seen.path.length - 1) button.classList.add("sgs-path-end");
    });
    let text = "Path: " + seen.path.join(" → ") + ".";
    if (seen.failed) {
      text += ` Move ${seen.failed.index} (${NAMES[seen.failed.move]}) would fail: ${seen.failed.reason}; the sequence stops there and costs 1 point.`;
      if (seen.failed.cell) {
        const bad = document.querySelector(`[data-grid="sgs"] [data-cell="${seen.failed.cell}"]`);
        if (bad) bad.classList.add("sgs-fail");
      }
    }
    const colours = g.me.colour + (compose.card && compose.card !== g.me.colour ? compose.card : "");
    const group = largestGroup(seen.cells, colours);
    if (g.round >= 2) {
      const times = g.round * (compose.card === g.me.colour ? 3 : 1);
      text += ` If no one else moved: largest ${colours.split("").join("+")} group ${group}` +
        (compose.card ? ` x${times} = ${group * times} points.` : " (pick a card).");
    } else {
      text += ` If no one else moved: your largest group ${group} (round 1 scores no group).`;
    }
    tell(text);
  }

  // --- events ---------------------------------------------------------------------------------

  document.addEventListener("gem:cell", (event) => {
    if (event.detail.grid !== "sgs" || !compose) return;
    const g = game();
    const cell = event.detail.cell;
    if (compose.gem) {
      const end = preview(g.board, compose.gem, compose.moves).end;
      const [er, ec] = at(end);
      const [r, c] = at(cell);
      for (const [move, [dr, dc]] of Object.entries(DELTA)) {
        if (er + dr === r && ec + dc === c) { addMove(move); return; }
      }
      if (cell === end) return;
    }
    const [r, c] = at(cell);
    if (rowsOf(g.board)[r][c] !== g.me.colour) {
      if (!event.detail.drag) tell(`${cell} is not one of your ${g.me.colour_name} gems; click one of yours, or a cell next to your path's end.`);
      return;
    }
    if (cell === compose.gem) return;
    change({ gem: cell, moves: "" });
    const pad = document.querySelector("#sgs-play .sgs-pad");
    if (pad && !event.detail.drag) pad.focus();
  });

  document.addEventListener("keydown", (event) => {
    const pad = event.target.closest && event.target.closest(".sgs-pad");
    if (!pad || !compose) return;
    if (KEYS[event.key]) { event.preventDefault(); addMove(KEYS[event.key]); }
    else if (event.key === "Backspace") { event.preventDefault(); change({ moves: compose.moves.slice(0, -1) }); }
    else if (/^[udlrUDLR]$/.test(event.key)) { event.preventDefault(); addMove(event.key.toUpperCase()); }
  });

  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-move]");
    if (button && compose) {
      const move = button.dataset.move;
      if (move === "undo") change({ moves: compose.moves.slice(0, -1) });
      else if (move === "clear") change({ moves: "" });
      else addMove(move);
      return;
    }
    if (event.target.closest && event.target.closest(".sgs-toggle-before")) toggleBefore();
    if (event.target.closest && event.target.closest(".sgs-host-play")) playHostRound();
  });

  document.addEventListener("input", (event) => {
    if (!compose || !event.target.closest("#sgs-play .sgs-compose")) return;
    if (event.target.name === "moves") {
      const clean = event.target.value.toUpperCase().replace(/[^UDLR]/g, "").slice(0, MAX_MOVES);
      if (clean !== event.target.value) event.target.value = clean;
      change({ moves: clean });
    }
  });

  document.addEventListener("change", (event) => {
    if (!compose || !event.target.closest("#sgs-play .sgs-compose")) return;
    if (event.target.name === "card") change({ card: event.target.value });
    if (event.target.name === "premove") change({ premove: event.target.checked });
  });

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.matches(".sgs-compose")) {
      event.preventDefault();
      if (!compose) return;
      clearTimeout(saveTimer);
      window.gemArena.send({
        type: "submit", round: compose.round, gem: compose.gem, moves: compose.moves,
        card: compose.card || null, premove: compose.premove,
      });
      const state = form.querySelector(".sgs-draft-state");
      if (state) state.textContent = "Sending…";
    } else if (form.matches(".sgs-bid-form")) {
      event.preventDefault();
      const data = new FormData(form);
      window.gemArena.send({
        type: "bid", bid: parseInt(data.get("bid"), 10),
        colours: String(data.get("colour1")) + data.get("colour2") + data.get("colour3"),
      });
    }
  });

  document.addEventListener("gem:swapped", (event) => {
    const id = event.detail.id;
    if (id === "sgs-board") showingBefore = false;
    if (id === "sgs-play" || id === "sgs-board") { syncCompose(); render(); }
  });

  document.addEventListener("gem:update", () => { syncCompose(); render(); });

  // --- the last round's grid before, for everyone ---------------------------------------------

  function toggleBefore() {
    const g = game();
    const last = lastRound(g);
    if (!g || !last) return;
    showingBefore = !showingBefore;
    const changed = new Set(last.changed);
    if (showingBefore) paintCells(rowsOf(last.board_before), (cell) => (changed.has(cell) ? ["sgs-changed"] : []));
    else paintCells(rowsOf(g.board), ownMarks(g, g.board));
    const caption = document.querySelector('[data-grid="sgs"] caption');
    if (caption) {
      caption.textContent = showingBefore
        ? `The grid before round ${last.round} (changed cells outlined)`
        : `The grid as round ${g.round} starts`;
    }
    const button = document.querySelector(".sgs-toggle-before");
    if (button) {
      button.setAttribute("aria-pressed", String(showingBefore));
      button.textContent = showingBefore ? `Show the grid now` : `Show the grid before round ${last.round}`;
    }
    if (!showingBefore) render();
  }

  // --- the host: a round step by step ---------------------------------------------------------

  // The latest round's steps come compact: each move [player, from, direction, reason], the
  // reason null for a move that succeeded. A success locks the cell the gem left.
  function hostFrames(g) {
    const round = g.host.last_round;
    const index = g.history.length - 1;
    const before = g.history[index].board_before;
    const cells = rowsOf(before);
    const names = g.names || {};
    const locked = new Set();
    const frames = [{ cells: rowsOf(before), marks: {}, text: `Round ${round.round}: the grid before any move`, ms: 900 }];
    (round.steps || []).forEach((step, number) => {
      const marks = {};
      const parts = [];
      for (const [player, from, direction, reason] of step) {
        const who = names[player] || "seat " + player;
        const [fr, fc] = at(from);
        const [dr, dc] = DELTA[direction];
        const inside = fr + dr >= 0 && fr + dr < SIZE && fc + dc >= 0 && fc + dc < SIZE;
        const to = inside ? nameOf(fr + dr, fc + dc) : null;
        if (!reason) {
          const held = cells[fr + dr][fc + dc];
          cells[fr + dr][fc + dc] = cells[fr][fc];
          cells[fr][fc] = held;
          locked.add(from);
          marks[to] = (marks[to] || []).concat(["sgs-moved"]);
          parts.push(`${who} ${from}→${to}`);
        } else {
          if (to) marks[to] = (marks[to] || []).concat(["sgs-fail"]);
          marks[from] = (marks[from] || []).concat(["sgs-fail"]);
          parts.push(`${who} ${from} ${NAMES[direction]} failed (${REASONS[reason] || reason})`);
        }
      }
      for (const cell of locked) marks[cell] = (marks[cell] || []).concat(["sgs-locked"]);
      frames.push({ cells: cells.map((row) => row.slice()), marks: marks, text: `Step ${number + 1}: ` + parts.join("; "), ms: 900 });
    });
    frames.push({ cells: rowsOf(g.history[index].board_after), marks: {}, text: `Round ${round.round}: the grid after`, ms: 900 });
    return frames;
  }

  function playHostRound() {
    const g = game();
    if (!g || !g.host || !g.host.last_round || !window.gemSteps) return;
    const line = document.querySelector("#sgs-board .sgs-step-text");
    window.gemSteps.play(hostFrames(g), (frame) => {
      paintCells(frame.cells, (cell) => frame.marks[cell]);
      if (line) line.textContent = frame.text;
    }, {
      done: () => {
        const now = game();
        paintCells(rowsOf(now.board), ownMarks(now, now.board));
      },
    });
  }

  function start() { syncCompose(); render(); }
  // After match.js (deferred below this script) has set up window.gemArena.
  if (document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
