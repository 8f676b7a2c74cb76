// Glittering Paths page: the path being drawn, the paths made and the analysis animations.
// It holds no rule. Cells chosen on the board (grid.js's gem:cell events) are shown at once and
// kept as the seat's draft (gemArena.saveDraft); the server checks the draft and answers, to this
// seat only, with the sentence to show under it (the draft's "verdict": the rule the path breaks
// so far, or that it may be submitted) and the turn whose board it checked. A submitted path is
// judged by the server alone. Animations play the engine's steps, each with the board after it,
// and each analysed turn comes with the board it was played on (the shared step player, steps.js).
(function () {
  "use strict";

  const MADE = new Set(["race_won", "path_made"]);
  // A draft goes out at once, then at most once per gap while cells keep coming (a drag).
  const DRAFT_GAP_MS = 150;
  const NAMES = {
    R: "ruby (red)", G: "garnet (red)", J: "jasper (red)",
    S: "sapphire (blue)", L: "lapis (blue)", A: "aquamarine (blue)",
  };
  // Each gem's picture in the site's gem set (games/glittering_paths/game.py GEM_CSS).
  const PICTURES = { R: "gem-red", G: "gem-garnet", J: "gem-orange", S: "gem-blue", L: "gem-indigo", A: "gem-aqua" };

  let cells = []; // the path this seat is drawing
  let checked = null; // the draft as the server last checked it
  let saveTimer = null;
  let lastSave = 0;
  let unsent = false; // a draft not sent for want of a connection: sent once the page is back
  let shownRound = null;

  // --- reading the view ----------------------------------------------------------------------

  // The view, parsed once each time #match-view changes (a click reads it several times).
  let viewText = null;
  let viewData = null;
  function whole() {
    const data = document.getElementById("match-view");
    if (!data) return null;
    const text = data.textContent;
    if (text !== viewText) {
      viewText = text;
      viewData = JSON.parse(text);
    }
    return viewData;
  }

  function game() {
    const view = whole();
    return view && view.game && view.game.phase ? view.game : null;
  }

  function live() {
    // Only the live page draws (a replay shows the same panels without a socket).
    return Boolean(window.gemArena && window.gemArena.saveDraft && document.getElementById("match-root"));
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

  // The server's check speaks for the path shown only if it checked these very cells on the
  // board shown (the board changes when a path is made).
  function fresh(draft) {
    const g = game();
    return Boolean(draft && g && sameCells(draft.cells, cells) &&
      draft.round === g.round && draft.turn === g.turn_number);
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

  // The click shows at once; the server's check follows when it arrives.
  function changed() {
    render();
    askSoon();
  }

  function askSoon() {
    if (saveTimer) return; // a save is on its way and sends the cells as they are then
    const wait = lastSave + DRAFT_GAP_MS - Date.now();
    if (wait <= 0) saveDraft();
    else saveTimer = setTimeout(saveDraft, wait);
  }

  function saveDraft() {
    clearTimeout(saveTimer);
    saveTimer = null;
    lastSave = Date.now();
    if (!live() || !game() || game().you === null) return;
    unsent = !window.gemArena.saveDraft({ cells: cells.slice() });
  }

  // Leaving the page (a reload) sends a change still waiting for its turn.
  window.addEventListener("pagehide", () => { if (saveTimer) saveDraft(); });

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
  // and the server's verdict once it has checked this very path on this board.
  function render() {
    const board = document.querySelector('#gp-board [data-grid="board"]');
    if (board && !document.getElementById("gp-board").classList.contains("animating")) {
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
    showVerdict(drawing.querySelector(".gp-problem"));
    for (const button of drawing.querySelectorAll("[data-gp=undo], [data-gp=clear]")) {
      button.disabled = !cells.length;
    }
    drawing.querySelector("[data-gp=submit]").disabled = !cells.length;
  }

  function showVerdict(line) {
    let text = "";
    let state = "";
    if (!cells.length) {
      text = "";
    } else if (!fresh(checked)) {
      text = "checking…";
      state = "pending";
    } else if (checked.problem) {
      text = "✗ " + checked.verdict;
      state = "broken";
    } else {
      text = "✓ " + checked.verdict;
      state = checked.complete ? "complete" : "so-far";
    }
    line.textContent = text;
    line.className = "gp-problem" + (state ? " " + state : "");
  }

  // --- updates from the server -----------------------------------------------------------------

  document.addEventListener("gem:swapped", (event) => {
    const id = event.detail && event.detail.id;
    if (id === "gp-board" || id === "gp-draw") render();
  });

  // Connected (again): a draft that could not be sent goes now.
  document.addEventListener("gem:open", () => {
    if (unsent && cells.length) saveDraft();
    render();
  });

  document.addEventListener("gem:update", (event) => {
    const frame = event.detail;
    const g = frame.view && frame.view.game;
    if (!g || !g.phase) return;
    const happened = frame.event || {};
    const mine = happened.seat !== null && happened.seat === g.you;
    if (g.round !== shownRound || (mine && MADE.has(happened.kind))) {
      cells = [];
      checked = null;
    } else if (cells.length && !fresh(frame.view.draft)) {
      // The board changed under the path (a path was made), or an action of ours cleared the
      // kept draft: ask the server again, and keep drawing where we were.
      askSoon();
    }
    shownRound = g.round;
    const data = happened.data || {};
    if (MADE.has(happened.kind) && data.steps && !data.next_round) animateMove(data.steps);
    render();
  });

  // --- animations ------------------------------------------------------------------------------

  // Paint a board text onto a grid: row by row, cell by cell, as the grid lists its cells.
  function paint(grid, board) {
    const rows = grid.querySelectorAll("tbody tr");
    board.split("\n").forEach((line, r) => {
      const row = rows[r];
      if (!row) return;
      const elements = row.querySelectorAll("[data-cell]");
      Array.from(line).forEach((gem, c) => {
        const element = elements[c];
        if (!element) return;
        const empty = gem === ".";
        element.className = "cell " + (empty ? "gp-empty" : `gp-gem gp-${gem} ${PICTURES[gem]}`);
        delete element.dataset.played;
        delete element.dataset.step;
        const name = element.dataset.cell;
        element.setAttribute("aria-label", empty ? `${name}, empty` : `${name}, ${NAMES[gem] || gem}`);
        const span = element.querySelector(".gem");
        if (span) span.textContent = empty ? "" : gem;
      });
    });
  }

  // A frame: ``board`` painted, the first ``upto`` cells of ``path`` numbered (``removing``:
  // on their way out).
  function showFrame(grid, frame) {
    paint(grid, frame.board);
    (frame.path || []).slice(0, frame.upto).forEach((cell, i) => {
      const element = grid.querySelector(`[data-cell="${cell}"]`);
      if (!element) return;
      element.classList.add("gp-played");
      if (frame.removing) element.classList.add("removing");
      element.dataset.played = String(i + 1);
    });
  }

  // A path drawn cell by cell on ``board``.
  function drawingFrames(board, path) {
    return path.map((_, i) => ({ board: board, path: path, upto: i + 1, ms: 320 }));
  }

  // The grid as the server drew it, to put back once an animation is over.
  function snapshot(grid) {
    const looks = Array.from(grid.querySelectorAll("[data-cell]")).map((element) => ({
      element: element,
      className: element.className,
      label: element.getAttribute("aria-label"),
      text: element.querySelector(".gem") ? element.querySelector(".gem").textContent : "",
    }));
    return () => {
      for (const look of looks) {
        look.element.className = look.className;
        look.element.setAttribute("aria-label", look.label);
        delete look.element.dataset.played;
        const span = look.element.querySelector(".gem");
        if (span) span.textContent = look.text;
      }
    };
  }

  // The engine's steps of a path made: drawn on the board as it stood, then its cells emptied.
  function animateMove(steps) {
    const grid = document.querySelector('#gp-board [data-grid="board"]');
    const drawn = steps.find((step) => step.kind === "path");
    const emptied = steps.find((step) => step.kind === "remove");
    if (!grid || !drawn || !drawn.board || !window.gemSteps) return;
    const panel = document.getElementById("gp-board");
    panel.classList.add("animating");
    const frames = drawingFrames(drawn.board, drawn.cells);
    frames.push({ board: drawn.board, path: drawn.cells, upto: drawn.cells.length, removing: true, ms: 600 });
    if (emptied && emptied.board) frames.push({ board: emptied.board, ms: 300 });
    frames.push({ done: true, ms: 0 });
    const restore = snapshot(grid);
    window.gemSteps.play(frames, (frame) => (frame.done ? restore() : showFrame(grid, frame)), {
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

  // The analysis: the chosen path (best or played) drawn cell by cell on the board its turn
  // was played on (the view's analysis row carries it).
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-gp-animate]");
    if (!button) return;
    const g = game();
    if (!g) return;
    const round = parseInt(button.dataset.round, 10);
    const turn = parseInt(button.dataset.turn, 10);
    const entry = (g.history || []).find((item) => item.round === round);
    const row = entry && entry.analysis && entry.analysis.find((item) => item.turn === turn);
    if (!row || !row.board) return;
    const best = button.dataset.which === "best";
    const path = best ? row.best_cells : row.played_cells;
    const container = button.closest(".gp-round-result");
    const grid = container && container.querySelector(`[data-grid="analysis-${round}"]`);
    if (!grid || !path.length) return;
    const caption = container.querySelector(".gp-analysis-caption");
    if (caption) {
      caption.textContent = `Turn ${turn}, ${row.name} (${row.player}): ` +
        (best ? `the best path, ${row.best_score} points` : `the path played, ${row.played_score} points`) +
        ` — ${path.join(" ")}`;
    }
    for (const other of document.querySelectorAll("[data-gp-animate].current")) other.classList.remove("current");
    button.classList.add("current");
    const frames = drawingFrames(row.board, path);
    const show = (frame) => showFrame(grid, frame);
    if (window.gemSteps) window.gemSteps.play(frames, show);
    else show(frames[frames.length - 1]);
  });

  // --- start -----------------------------------------------------------------------------------

  function init() {
    const view = whole();
    const g = game();
    shownRound = g ? g.round : null;
    if (view && view.draft && Array.isArray(view.draft.cells)) {
      cells = view.draft.cells.slice();
      checked = view.draft;
      unsent = cells.length > 0 && !fresh(checked); // checked on an older board: ask again
    }
    render();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
