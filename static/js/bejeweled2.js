// Bejeweled 2 page: choosing a swap on the shared grid (click a gem then a neighbour, or drag),
// the refusal of an illegal swap, the cascade of each move played step by step from its event's
// steps (each carries the board after it: the engine's, drawn as it is), the idle hint and the
// Action bar. It never decides a rule: the server's view (gemArena.view()), its events and
// its refusals do.
(function () {
  "use strict";

  const LETTERS = "ABCDEFGH";
  const IDLE_MS = 6000;
  const PLAYED = ["swapped", "game_over", "puzzle_solved", "puzzle_failed"];
  let selected = null; // the first cell of a swap being chosen
  let sent = null; // the swap last sent: [a, b]
  let pressed = null; // the cell a press began on (grid.js reports a drag's first gem from it)
  let idleTimer = null;

  function game() {
    const whole = window.gemArena && window.gemArena.view();
    return whole && whole.game && whole.game.phase ? whole.game : null;
  }

  function board() {
    return document.querySelector('#bj2-board [data-grid="board"]');
  }

  function button(name) {
    const table = board();
    return table ? table.querySelector(`[data-cell="${name}"]`) : null;
  }

  function canSwap(view) {
    return Boolean(view && view.you && view.actions.indexOf("swap") !== -1);
  }

  function neighbours(a, b) {
    const ca = LETTERS.indexOf(a[0]), cb = LETTERS.indexOf(b[0]);
    const ra = parseInt(a.slice(1), 10), rb = parseInt(b.slice(1), 10);
    return Math.abs(ca - cb) + Math.abs(ra - rb) === 1;
  }

  // --- painting -------------------------------------------------------------------------------

  function paint(text, marks, pieces) {
    const rows = text.split("\n");
    rows.forEach((line, r) => {
      line.split("").forEach((piece, c) => {
        const name = LETTERS[c] + (r + 1);
        const cell = button(name);
        if (!cell) return;
        let css = "cell " + (pieces[piece] || "empty");
        if (marks && marks[name]) css += " " + marks[name];
        cell.className = css;
        const gem = cell.querySelector(".gem");
        if (gem) gem.textContent = /[0-9]/.test(piece) ? piece : "";
      });
    });
  }

  function setScore(value) {
    const score = document.querySelector("#bj2-status .bj2-score-value");
    if (score) score.textContent = String(value);
  }

  function setStepText(text) {
    const line = document.querySelector("#bj2-board .bj2-step-text");
    if (line) line.textContent = text;
  }

  function select(name) {
    if (selected) { const old = button(selected); if (old) old.classList.remove("selected"); }
    selected = name;
    if (name) { const cell = button(name); if (cell) cell.classList.add("selected"); }
  }

  // --- the last move, step by step --------------------------------------------------------------

  const COLOURS = { P: "purple", R: "red", Y: "yellow", G: "green", B: "blue", O: "orange", W: "white" };
  const CAUSES = { line: "lines", blast: "power gem blast", hypercube: "hypercube", bomb: "bomb" };

  function allMarked(cells, mark) {
    const marks = {};
    for (const cell of cells) marks[cell] = mark;
    return marks;
  }

  // What the page says and marks for each engine step (the board is the step's own).
  function describe(step) {
    switch (step.kind) {
      case "swap": {
        const [a, b] = step.cells;
        return { text: `Swap ${a} and ${b}`, marks: allMarked(step.cells, "swapping"), ms: 450 };
      }
      case "line": {
        const cells = [...new Set(step.lines.flat())];
        const cascade = step.depth > 1 ? ` (cascade x${step.depth})` : "";
        const name = COLOURS[step.colour] || step.colour;
        return { text: `A line of ${name}${cascade}`, marks: allMarked(cells, "matched"), ms: 350 };
      }
      case "special": {
        const made = step.made === "hypercube" ? "A hypercube" : "A power gem";
        return { text: `${made} at ${step.cell} (+${step.points})`, marks: allMarked([step.cell], "made"), ms: 450 };
      }
      case "remove": {
        const source = step.source ? ` from ${step.source}` : "";
        const text = `${step.cells.length} removed by ${CAUSES[step.cause] || step.cause}${source}: +${step.points}`;
        return { text, marks: allMarked(step.cells, "removing"), ms: 450 };
      }
      case "fall":
        return { text: "Gems fall", marks: allMarked(step.moves.map((move) => move[1]), "fallen"), ms: 450 };
      case "new": {
        const cells = Object.keys(step.cells);
        return { text: `${cells.length} new gems`, marks: allMarked(cells, "new"), ms: 450 };
      }
      case "hypercube":
        return { text: `The hypercube at ${step.cell} goes off`, marks: {}, ms: 450 };
      case "countdown":
        return { text: "Bombs count down", marks: allMarked(Object.keys(step.bombs), "bomb-tick"), ms: 450 };
      default:
        return { text: "", marks: {}, ms: 450 };
    }
  }

  // The frames of a move from its event: one per engine step, then the reshuffle if one came.
  function framesOf(played) {
    const frames = window.gemSteps.framesFrom(played.steps, describe);
    for (const frame of frames) frame.score = frame.step.score;
    if (played.reshuffled) {
      frames.push({ board: played.reshuffled, marks: {}, score: played.score, ms: 700,
        text: "No move left: the board is reshuffled" });
    }
    return frames;
  }

  function animate(view, played) {
    const before = played.total - played.score;
    const finalText = document.querySelector("#bj2-board .bj2-step-text");
    const summary = finalText ? finalText.textContent : "";
    const table = board();
    if (table) table.classList.add("animating");
    window.gemSteps.play(framesOf(played), (frame) => {
      paint(frame.board, frame.marks, view.pieces);
      setScore(before + frame.score);
      setStepText(frame.text + (frame.score ? ` · this move +${frame.score}` : ""));
    }, {
      done: () => {
        const now = game();
        if (now) paint(now.board, {}, now.pieces);
        if (now) setScore(now.score);
        setStepText(summary);
        const grid = board();
        if (grid) grid.classList.remove("animating");
        restartIdle();
      },
    });
  }

  // --- the refusal of an illegal swap -------------------------------------------------------------

  function refuse(message) {
    const line = document.querySelector("#bj2-board .bj2-refusal");
    if (line) line.textContent = message;
    if (!sent) return;
    for (const name of sent) {
      const cell = button(name);
      if (!cell) continue;
      cell.classList.remove("shake");
      void cell.offsetWidth; // restart the animation
      cell.classList.add("shake");
    }
    sent = null;
  }

  // A refused swap is told once, under the board (the banner above it would push it down).
  document.addEventListener("gem:refused", (event) => {
    const action = event.detail.action;
    if (!action || action.type !== "swap") return;
    event.preventDefault();
    refuse(event.detail.message);
  });

  // --- the idle hint --------------------------------------------------------------------------

  function clearHint() {
    for (const cell of document.querySelectorAll("#bj2-board .cell.idle-hint")) {
      cell.classList.remove("idle-hint", "hint");
    }
  }

  function restartIdle() {
    clearTimeout(idleTimer);
    clearHint();
    const view = game();
    if (!canSwap(view) || !view.idle_hint) return;
    idleTimer = setTimeout(() => {
      if (window.gemSteps.playing) { restartIdle(); return; }
      const current = game();
      if (!canSwap(current) || !current.idle_hint) return;
      for (const name of current.idle_hint) {
        const cell = button(name);
        if (cell) cell.classList.add("idle-hint", "hint");
      }
    }, IDLE_MS);
  }

  // --- the Action bar --------------------------------------------------------------------------

  // The server keeps the bar (its points at a time and its drain); the page only draws it
  // draining between moves.
  function tickBar() {
    const bar = document.querySelector("#bj2-status .bj2-action-bar[data-running]");
    if (!bar) return;
    const fill = bar.querySelector(".fill");
    const elapsed = Math.max(0, Date.now() - Date.parse(bar.dataset.at)) / 1000;
    const left = parseFloat(bar.dataset.points) - elapsed * parseFloat(bar.dataset.drain);
    const percent = Math.max(0, Math.min(100, (100 * left) / parseFloat(bar.dataset.size)));
    if (fill) fill.style.width = percent.toFixed(1) + "%";
    bar.setAttribute("aria-valuenow", String(Math.max(0, Math.round(left))));
    bar.classList.toggle("low", percent < 15);
  }

  // --- events ---------------------------------------------------------------------------------

  document.addEventListener("gem:cell", (event) => {
    const detail = event.detail;
    if (detail.grid !== "board") return;
    const view = game();
    if (!canSwap(view)) return;
    if (window.gemSteps.playing) window.gemSteps.stop();
    restartIdle();
    const line = document.querySelector("#bj2-board .bj2-refusal");
    if (line) line.textContent = "";
    if (detail.drag && detail.cell === pressed) {
      // A drag starts afresh from the gem it began on, whatever was picked before.
      select(detail.cell);
      return;
    }
    if (!selected || selected === detail.cell && !detail.drag) {
      select(selected === detail.cell ? null : detail.cell);
      return;
    }
    if (selected === detail.cell) return;
    if (!neighbours(selected, detail.cell)) {
      if (!detail.drag) select(detail.cell); // a drag passing a corner keeps its first gem
      return;
    }
    sent = [selected, detail.cell];
    window.gemArena.send({ type: "swap", a: selected, b: detail.cell });
    select(null);
  });

  document.addEventListener("gem:cancel", () => select(null));

  document.addEventListener("pointerdown", (event) => {
    const cell = event.target.closest && event.target.closest('[data-grid="board"] [data-cell]');
    pressed = cell ? cell.dataset.cell : null;
  });

  document.addEventListener("gem:update", (event) => {
    const happened = event.detail && event.detail.event;
    const played = happened && PLAYED.indexOf(happened.kind) !== -1 ? happened.data : null;
    const view = game();
    selected = null;
    if (view && played && played.steps && played.steps.length) {
      sent = null;
      animate(view, played);
      return;
    }
    restartIdle();
  });

  document.addEventListener("DOMContentLoaded", () => {
    restartIdle();
    setInterval(tickBar, 250);
  });
})();
