// Glittering Paths page: the path being drawn, the paths made and the analysis animations.
// It holds no rule. Cells chosen on the board (grid.js's gem:cell events) are shown at once and
// kept as the seat's draft (gemArena.saveDraft); the server checks the draft and answers, to this
// seat only, with the sentence to show under it (the draft's "verdict": the rule the path breaks
// so far, or that it may be submitted) and the turn whose board it checked. A submitted path is
// judged by the server alone. Animations play the engine's steps, each with the board after it,
// and each analysed turn comes with the board it was played on (the shared step player, steps.js):
// a path is lit cell by cell, each cell a note higher (static/js/sound.js "step"), then its gems
// burst with the points rising from them. A cell added while drawing sounds its note; a draft
// the server finds broken, or a path it refuses, sounds "refused" and is told under the path
// (never in the banner above the board: the board does not move). After this seat's path is
// made, the keyboard's focus goes to its last cell on the board (the Submit button is gone).
(function () {
  "use strict";

  const MADE = new Set(["race_won", "path_made"]);
  // A draft goes out at once, then at most once per gap while cells keep coming (a drag).
  const DRAFT_GAP_MS = 150;

  let cells = []; // the path this seat is drawing
  let checked = null; // the draft as the server last checked it
  let saveTimer = null;
  let lastSave = 0;
  let unsent = false; // a draft not sent for want of a connection: sent once the page is back
  let shownRound = null;
  let submitted = null; // the last cell of the path this seat sent, till it is made or refused
  let brokenHeard = null; // the draft whose broken verdict was last sounded

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
    if (cells[cells.length - 1] === cell && cells.length && window.gemSound) {
      window.gemSound.play("step", { depth: cells.length });
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
    submitted = cells[cells.length - 1];
  }

  // A refused path is told where the path is (the banner above the board would push it down).
  let refusal = null; // {cells, message} of the path the server last refused
  document.addEventListener("gem:refused", (event) => {
    const action = event.detail.action;
    if (!action || action.type !== "path") return;
    event.preventDefault();
    refusal = { cells: (action.cells || []).slice(), message: event.detail.message };
    submitted = null;
    render();
  });

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
    if (event.detail.elsewhere && draft && Array.isArray(draft.cells) && canDraw() &&
      !sameCells(draft.cells, cells)) {
      // Drawn in another tab of this seat: the seat's path is that one, here too.
      clearTimeout(saveTimer);
      saveTimer = null;
      unsent = false;
      cells = draft.cells.slice();
      refusal = null;
    }
    if (draft && sameCells(draft.cells, cells)) {
      checked = draft;
      const key = draft.cells.join(" ") + "@" + draft.turn;
      if (draft.problem && fresh(draft) && brokenHeard !== key && window.gemSound) {
        brokenHeard = key;
        window.gemSound.play("refused");
      }
      render();
    }
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
    } else if (refusal && sameCells(refusal.cells, cells)) {
      text = "✗ Refused: " + refusal.message;
      state = "broken";
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

  // The last path's cells, as the board panel names them (data-last-path), marked on its board:
  // the server's HTML leaves them unmarked, so that a move's frame changes only the cells it
  // emptied, not also the cells of the path before.
  function markLastPath() {
    const panel = document.getElementById("gp-board");
    const grid = mainGrid();
    if (!panel || !grid) return;
    for (const cell of (panel.dataset.lastPath || "").split(" ").filter(Boolean)) {
      const element = grid.querySelector(`[data-cell="${cell}"]`);
      if (element) element.classList.add("gp-last-path");
    }
  }

  // A replay's step comes in by htmx with its board.
  document.addEventListener("htmx:afterSwap", markLastPath);

  document.addEventListener("gem:swapped", (event) => {
    const id = event.detail && event.detail.id;
    if (id === "gp-board") markLastPath();
    if (id === "gp-board" && restoreBoard) {
      // A board swapped in while a path plays: it is the server's board to put back, and the
      // path being drawn keeps out of the way until the animation ends.
      event.detail.classList.add("animating");
      restoreBoard = snapshot(mainGrid());
    }
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
    if (MADE.has(happened.kind) && data.steps && !data.next_round) animateMove(data.steps, data.score, happened.seat);
    if (mine && MADE.has(happened.kind)) focusPlayed(data.cells);
    render();
  });

  // This seat's path made: its Submit button went with the drawing panel, so the keyboard's
  // focus goes to the path's last cell on the board (the next Tab and arrow act from there).
  function focusPlayed(path) {
    const last = submitted || (path && path[path.length - 1]);
    submitted = null;
    const active = document.activeElement;
    if (!last || (active && active !== document.body && active.isConnected)) return;
    const board = document.querySelector('#gp-board [data-grid="board"]');
    const cell = board && board.querySelector(`[data-cell="${last}"]`);
    if (!cell) return;
    for (const other of board.querySelectorAll("[data-cell][tabindex='0']")) other.tabIndex = -1;
    cell.tabIndex = 0;
    cell.focus({ preventScroll: true });
  }

  // --- animations ------------------------------------------------------------------------------

  // Each board character's look (css, text, name) as the server drew the grid
  // (games/glittering_paths/page.py LOOKS, carried by the grid's data-looks).
  function looksOf(grid) {
    const table = grid.matches("[data-looks]") ? grid : grid.querySelector("[data-looks]");
    return table ? JSON.parse(table.dataset.looks) : {};
  }

  // Paint a board text onto a grid: row by row, cell by cell, as the grid lists its cells.
  function paint(grid, board) {
    const looks = looksOf(grid);
    const rows = grid.querySelectorAll("tbody tr");
    board.split("\n").forEach((line, r) => {
      const row = rows[r];
      if (!row) return;
      const elements = row.querySelectorAll("[data-cell]");
      Array.from(line).forEach((gem, c) => {
        const element = elements[c];
        if (!element) return;
        const look = looks[gem] || { css: "", text: gem, name: gem };
        element.className = "cell " + look.css;
        delete element.dataset.played;
        delete element.dataset.step;
        element.setAttribute("aria-label", `${element.dataset.cell}, ${look.name}`);
        const span = element.querySelector(".gem");
        if (span) span.textContent = look.text;
      });
    });
  }

  // A frame: ``board`` painted, the first ``upto`` cells of ``path`` numbered, the newest one lit.
  function showFrame(grid, frame) {
    if (!grid) return;
    paint(grid, frame.board);
    (frame.path || []).slice(0, frame.upto).forEach((cell, i) => {
      const element = grid.querySelector(`[data-cell="${cell}"]`);
      if (!element) return;
      element.classList.add("gp-played");
      if (i === frame.upto - 1 && !frame.whole) element.classList.add("gp-step-now");
      element.dataset.played = String(i + 1);
    });
  }

  const CELL_MS = 220; // each cell of a path lit in turn, at normal speed

  // A path lit cell by cell on ``board`` (each cell a note higher), on the grid named ``name``.
  function drawingFrames(name, board, path) {
    return path.map((_, i) => ({ grid: name, board: board, path: path, upto: i + 1, ms: CELL_MS,
      sound: "step", depth: i + 1 }));
  }

  function mainGrid() {
    return document.querySelector('#gp-board [data-grid="board"]');
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

  let restoreBoard = null; // while a path made plays on the board: puts the server's board back

  // The engine's steps of a path made: lit cell by cell on the board as it stood, then its gems
  // burst with the points scored rising from them.
  // The mover's new total waits for the burst that scores it (hidden in the css while <html> has
  // data-score-held); Skip, instant, reduced motion and the run's end show it at once.
  function holdScore(seat) {
    if (seat === null || seat === undefined) delete document.documentElement.dataset.scoreHeld;
    else document.documentElement.dataset.scoreHeld = seat;
  }

  function animateMove(steps, score, seat) {
    const grid = mainGrid();
    const drawn = steps.find((step) => step.kind === "path");
    const emptied = steps.find((step) => step.kind === "remove");
    if (!grid || !drawn || !drawn.board || !window.gemSteps) return;
    window.gemSteps.stop(); // a run still playing ends first (its board and scores shown)
    document.getElementById("gp-board").classList.add("animating");
    const frames = drawingFrames("board", drawn.board, drawn.cells);
    frames.push({ board: drawn.board, path: drawn.cells, upto: drawn.cells.length, whole: true, ms: 260 });
    if (emptied && emptied.board) {
      frames.push({ board: emptied.board, bursts: drawn.cells, sound: "match", depth: 1, ms: 520,
        floats: score ? [{ cells: drawn.cells, text: `+${score}` }] : [] });
    }
    frames.push({ done: true, ms: 0 });
    restoreBoard = snapshot(grid);
    holdScore(seat);
    window.gemSteps.play(frames, (frame) => {
      if (frame.done) return restoreBoard && restoreBoard();
      if (frame.bursts) holdScore(null);
      return showFrame(mainGrid(), frame);
    }, {
      done: () => {
        holdScore(null);
        restoreBoard = null;
        const current = document.getElementById("gp-board");
        if (current) current.classList.remove("animating");
        render();
      },
    });
  }

  function replayLast() {
    const g = game();
    if (!g || !g.last_move || !g.last_move.steps || !g.last_move.steps.length) return;
    const grid = mainGrid();
    if (grid) grid.scrollIntoView({ block: "nearest" }); // the path plays where it can be seen
    animateMove(g.last_move.steps, g.last_move.score);
  }

  // The analysis: a finished round is drawn when its player opens it (the server sends it on
  // request, never in frames: the panel's htmx attributes). The chosen path (best or played) is
  // drawn cell by cell on the board its turn was played on (the turn's row carries it).
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-gp-animate]");
    if (!button) return;
    const row = button.closest("tr[data-board]");
    const container = button.closest(".gp-analysis");
    if (!row || !container) return;
    const round = button.dataset.round;
    const turn = button.dataset.turn;
    const best = button.dataset.which === "best";
    const path = (button.dataset.cells || "").split(" ").filter(Boolean);
    const board = row.dataset.board;
    const grid = container.querySelector(`[data-grid="analysis-${round}"]`);
    if (!grid || !path.length) return;
    const caption = container.querySelector(".gp-analysis-caption");
    if (caption) {
      caption.textContent = `Turn ${turn}, ${row.dataset.name} (${row.dataset.player}): ` +
        (best ? "the best path" : "the path played") + `, ${button.dataset.score} points — ${path.join(" ")}`;
    }
    for (const other of document.querySelectorAll("[data-gp-animate].current")) other.classList.remove("current");
    button.classList.add("current");
    const frames = drawingFrames(`analysis-${round}`, board, path);
    frames.push({ grid: `analysis-${round}`, board: board, path: path, upto: path.length, whole: true, ms: 0 });
    const show = (frame) => showFrame(container.querySelector(`[data-grid="analysis-${round}"]`), frame);
    if (window.gemSteps) window.gemSteps.play(frames, show);
    else show(frames[frames.length - 1]);
  });

  // The rounds this page has open: a new round's end or the match's end draws the history panel
  // again (closed), so those rounds are opened again, and asked for again.
  const openRounds = new Set();
  document.addEventListener("toggle", (event) => {
    const details = event.target;
    if (!details.matches || !details.matches("#gp-history .gp-round-result")) return;
    if (details.open) openRounds.add(details.dataset.round);
    else openRounds.delete(details.dataset.round);
  }, true);

  document.addEventListener("gem:swapped", (event) => {
    if (!event.detail || event.detail.id !== "gp-history") return;
    for (const details of event.detail.querySelectorAll(".gp-round-result")) {
      if (openRounds.has(details.dataset.round)) details.open = true;
    }
  });

  // A round's analysis recorded while its round is open here: asked for again.
  document.addEventListener("gem:update", (event) => {
    const happened = event.detail && event.detail.event;
    if (!happened || happened.kind !== "analysis" || !window.htmx) return;
    const round = (happened.data || {}).round;
    const details = document.querySelector(`#gp-history .gp-round-result[data-round="${round}"]`);
    if (details && details.open) window.htmx.trigger(details, "gp-refresh");
  });

  // --- start -----------------------------------------------------------------------------------

  function init() {
    markLastPath();
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
