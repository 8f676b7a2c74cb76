// Glittering Paths page: the path being drawn, the paths made and the analysis animations.
// It decides nothing about the rules: cells chosen on the board (grid.js's gem:cell events) are
// kept as the seat's draft (gemArena.saveDraft), and the server answers with the rule the path
// breaks so far (the draft's "problem"); a submitted path is judged by the server alone.
// Animations go through the shared step player (steps.js).
(function () {
  "use strict";

  const MADE = new Set(["race_won", "path_made"]);
  const DRAFT_DELAY_MS = 150;
  const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const NAMES = {
    R: "ruby (red)", G: "garnet (red)", J: "jasper (red)",
    S: "sapphire (blue)", L: "lapis (blue)", A: "aquamarine (blue)",
  };

  let cells = []; // the path this seat is drawing
  let checked = null; // the draft as the server last checked it: {cells, problem, complete}
  let saveTimer = null;
  let seen = { round: null, board: null };

  // --- reading the view ----------------------------------------------------------------------

  function whole() {
    const data = document.getElementById("match-view");
    return data ? JSON.parse(data.textContent) : null;
  }

  function game() {
    const view = whole();
    return view && view.game && view.game.phase ? view.game : null;
  }

  function live() {
    // Only the live page draws (a replay shows the same panels without a socket).
    return Boolean(window.gemArena && document.getElementById("match-root"));
  }

  function canDraw() {
    const g = game();
    const view = whole();
    return live() && g !== null && g.you !== null && (g.actions || []).includes("path") &&
      view.match.status === "live";
  }

  function sameCells(a, b) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((cell, i) => cell === b[i]);
  }

  // --- drawing -------------------------------------------------------------------------------

  document.addEventListener("gem:cell", (event) => {
    const { grid, cell, drag } = event.detail;
    if (grid !== "board" || !canDraw()) return;
    const last = cells[cells.length - 1];
    if (drag) {
      if (cell === last) return; // the drag starts where the path ends: carry on from there
      if (cells.length >= 2 && cells[cells.length - 2] === cell) cells.pop(); // dragged back
      else cells.push(cell);
    } else if (cell === last) {
      cells.pop(); // a click on the last cell takes it back
    } else {
      cells.push(cell);
    }
    changed();
  });

  document.addEventListener("gem:cancel", (event) => {
    if (event.detail.grid !== "board" || !canDraw() || !cells.length) return;
    cells.pop();
    changed();
  });

  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-gp]");
    if (!button) return;
    const what = button.dataset.gp;
    if (what === "undo" && cells.length) { cells.pop(); changed(); }
    else if (what === "clear" && cells.length) { cells = []; changed(); }
    else if (what === "submit") submit();
    else if (what === "replay-last") replayLast();
  });

  function submit() {
    const g = game();
    if (!canDraw() || !cells.length) return;
    // The turn the page saw: a path sent for a race already won is refused (race_lost), never
    // made on the changed board.
    window.gemArena.send({ type: "path", cells: cells.slice(), turn: g.turn_number });
  }

  function changed() {
    render();
    clearTimeout(saveTimer);
    saveTimer = setTimeout(saveDraft, DRAFT_DELAY_MS);
  }

  function saveDraft() {
    saveTimer = null;
    if (live() && game() && game().you !== null) window.gemArena.saveDraft({ cells: cells.slice() });
  }

  // Leaving the page (a reload) sends a change still waiting for its delay.
  window.addEventListener("pagehide", () => { if (saveTimer) { clearTimeout(saveTimer); saveDraft(); } });

  document.addEventListener("gem:draft", (event) => {
    const draft = event.detail.draft;
    if (event.detail.seat !== undefined) { showHostDraft(event.detail.seat, draft); return; }
    if (draft && sameCells(draft.cells, cells)) { checked = draft; render(); }
    else if (!draft && !cells.length) { checked = null; render(); }
  });

  // The host sees each seat's path being drawn as it changes (draft frames carry the seat).
  function showHostDraft(seat, draft) {
    const item = document.querySelector(`#gp-draw .gp-host-drafts li[data-seat="${seat}"]`);
    if (!item) return;
    const name = item.textContent.split(":")[0];
    item.textContent = name + ": " + (draft && draft.cells.length ? draft.cells.join(" ") : "–");
    if (draft && draft.problem) {
      const small = document.createElement("small");
      small.className = "problem";
      small.textContent = " " + draft.problem;
      item.appendChild(small);
    }
  }

  // What the page shows of the path being drawn: the cells numbered on the board, the list,
  // and the server's verdict once it has checked this very path.
  function render() {
    const board = document.querySelector('#gp-board [data-grid="board"]');
    if (board) {
      for (const element of board.querySelectorAll(".gp-in-path")) {
        element.classList.remove("gp-in-path", "gp-path-end");
        delete element.dataset.step;
      }
      if (canDraw()) {
        cells.forEach((cell, i) => {
          const element = board.querySelector(`[data-cell="${cell}"]`);
          if (!element) return;
          element.classList.add("gp-in-path");
          element.classList.toggle("gp-path-end", i === cells.length - 1);
          element.dataset.step = element.dataset.step ? element.dataset.step + "," + (i + 1) : String(i + 1);
        });
      }
    }
    const drawing = document.querySelector("#gp-draw .gp-drawing");
    if (!drawing) return;
    drawing.querySelector(".gp-path-cells").textContent = cells.length ? cells.join(" → ") : "no cell yet";
    const problem = drawing.querySelector(".gp-problem");
    const fresh = checked && sameCells(checked.cells, cells);
    let text = "";
    let state = "";
    if (!cells.length) {
      text = "";
    } else if (!fresh) {
      text = "checking…";
      state = "pending";
    } else if (checked.problem) {
      text = "✗ " + checked.problem;
      state = "broken";
    } else if (checked.complete) {
      text = "✓ A legal path: submit it.";
      state = "complete";
    } else {
      text = "✓ No rule broken so far; a path has an odd number of cells, at least 3.";
      state = "so-far";
    }
    problem.textContent = text;
    problem.className = "gp-problem" + (state ? " " + state : "");
    for (const button of drawing.querySelectorAll("[data-gp=undo], [data-gp=clear]")) {
      button.disabled = !cells.length;
    }
    drawing.querySelector("[data-gp=submit]").disabled = !cells.length;
  }

  // --- updates from the server -----------------------------------------------------------------

  document.addEventListener("gem:swapped", (event) => {
    const id = event.detail && event.detail.id;
    if (id === "gp-board" || id === "gp-draw") render();
  });

  document.addEventListener("gem:update", (event) => {
    const frame = event.detail;
    const g = frame.view && frame.view.game;
    if (!g || !g.phase) return;
    const happened = frame.event || {};
    const mine = happened.seat !== null && happened.seat === g.you;
    if (g.round !== seen.round || (mine && MADE.has(happened.kind))) {
      cells = [];
      checked = null;
    } else if (cells.length && g.board !== seen.board) {
      saveDraft(); // the board changed under the path: ask again which rule it breaks now
      checked = null;
    } else if (cells.length && !(frame.view.draft && sameCells(frame.view.draft.cells, cells))) {
      saveDraft(); // an action of ours cleared the kept draft; keep drawing where we were
    }
    remember(g);
    render();
    const data = happened.data || {};
    if (MADE.has(happened.kind) && data.steps && !data.next_round) animateMove(data.steps);
  });

  function remember(g) {
    seen = { round: g ? g.round : null, board: g ? g.board : null };
  }

  // --- animations ------------------------------------------------------------------------------

  // Frames that draw a path cell by cell on ``grid`` (gems as they were), then, with
  // ``remove``, empty its cells. Each cell element's look is put back by ``restore``.
  function pathFrames(grid, pathCells, gems, remove) {
    const elements = pathCells.map((cell) => grid.querySelector(`[data-cell="${cell}"]`));
    const saved = elements.map((element) => element && {
      element: element,
      className: element.className,
      text: element.querySelector(".gem") ? element.querySelector(".gem").textContent : "",
    });
    function look(i, upto, removing) {
      const element = elements[i];
      if (!element || !element.isConnected) return;
      const gem = gems[i];
      const shown = i < upto;
      element.className = "cell " + (gem && gem !== "." ? "gp-gem gp-" + gem : "gp-empty") +
        (shown ? " gp-played" : "") + (removing ? " removing" : "");
      if (shown) element.dataset.played = String(i + 1); else delete element.dataset.played;
      const span = element.querySelector(".gem");
      if (span) span.textContent = gem && gem !== "." ? gem : "";
    }
    function restore() {
      for (const item of saved) {
        if (!item || !item.element.isConnected) continue;
        item.element.className = item.className;
        delete item.element.dataset.played;
        const span = item.element.querySelector(".gem");
        if (span) span.textContent = item.text;
      }
    }
    const frames = [];
    for (let upto = 1; upto <= pathCells.length; upto++) frames.push({ upto: upto, ms: 320 });
    if (remove) frames.push({ upto: pathCells.length, removing: true, ms: 600 });
    frames.push({ done: true, ms: 0 });
    const show = (frame) => {
      if (frame.done) { if (remove) restore(); return; }
      pathCells.forEach((_, i) => look(i, frame.upto, frame.removing));
    };
    return { frames: frames, show: show, restore: restore };
  }

  function animateMove(steps) {
    const grid = document.querySelector('#gp-board [data-grid="board"]');
    const path = steps.find((step) => step.kind === "path");
    if (!grid || !path || !window.gemSteps) return;
    const panel = document.getElementById("gp-board");
    panel.classList.add("animating");
    const { frames, show } = pathFrames(grid, path.cells, path.gems, true);
    window.gemSteps.play(frames, show, {
      done: () => {
        const current = document.getElementById("gp-board");
        if (current) current.classList.remove("animating");
        render();
      },
    });
  }

  function replayLast() {
    const g = game();
    if (g && g.last_move && g.last_move.steps && g.last_move.steps.length) animateMove(g.last_move.steps);
  }

  // The analysis: a turn's board rebuilt from the round's first board and the paths before it,
  // then the chosen path (best or played) drawn on it cell by cell.
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-gp-animate]");
    if (!button) return;
    const g = game();
    if (!g) return;
    const round = parseInt(button.dataset.round, 10);
    const turn = parseInt(button.dataset.turn, 10);
    const entry = (g.history || []).find((item) => item.round === round);
    if (!entry || !entry.analysis) return;
    const row = entry.analysis.find((item) => item.turn === turn);
    if (!row) return;
    const best = button.dataset.which === "best";
    const pathCells = best ? row.best_cells : row.played_cells;
    const container = button.closest(".gp-round-result");
    const grid = container && container.querySelector(`[data-grid="analysis-${round}"]`);
    if (!grid || !pathCells.length) return;
    const rows = boardBefore(entry, turn);
    paint(grid, rows);
    const gems = pathCells.map((cell) => gemAt(rows, cell));
    const caption = container.querySelector(".gp-analysis-caption");
    if (caption) {
      caption.textContent = `Turn ${turn}, ${row.name} (${row.player}): ` +
        (best ? `the best path, ${row.best_score} points` : `the path played, ${row.played_score} points`) +
        ` — ${pathCells.join(" ")}`;
    }
    for (const other of document.querySelectorAll("[data-gp-animate].current")) other.classList.remove("current");
    button.classList.add("current");
    const { frames, show } = pathFrames(grid, pathCells, gems, false);
    if (window.gemSteps) window.gemSteps.play(frames, show);
    else frames.forEach((frame) => show(frame));
  });

  function position(cell) {
    return { row: parseInt(cell.slice(1), 10) - 1, col: LETTERS.indexOf(cell[0]) };
  }

  function boardBefore(entry, turn) {
    const rows = entry.start_board.split("\n").map((line) => line.split(""));
    for (const move of entry.moves) {
      if (move.turn >= turn) break;
      for (const cell of move.cells) {
        const at = position(cell);
        if (rows[at.row]) rows[at.row][at.col] = ".";
      }
    }
    return rows;
  }

  function gemAt(rows, cell) {
    const at = position(cell);
    return rows[at.row] ? rows[at.row][at.col] : ".";
  }

  function paint(grid, rows) {
    rows.forEach((line, r) => line.forEach((gem, c) => {
      const element = grid.querySelector(`[data-cell="${LETTERS[c]}${r + 1}"]`);
      if (!element) return;
      element.className = "cell " + (gem === "." ? "gp-empty" : "gp-gem gp-" + gem);
      delete element.dataset.played;
      const name = `${LETTERS[c]}${r + 1}`;
      element.setAttribute("aria-label", gem === "." ? `${name}, empty` : `${name}, ${NAMES[gem]}`);
      const span = element.querySelector(".gem");
      if (span) span.textContent = gem === "." ? "" : gem;
    }));
  }

  // --- start -----------------------------------------------------------------------------------

  function init() {
    const view = whole();
    const g = game();
    remember(g);
    if (view && view.draft && Array.isArray(view.draft.cells)) {
      cells = view.draft.cells.slice();
      checked = view.draft;
    }
    render();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
