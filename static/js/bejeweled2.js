// Bejeweled 2 page: choosing a swap on the shared grid (click a gem then a neighbour, or drag),
// the refusal of an illegal swap, the cascade of each move played step by step from its event's
// steps (each carries the board after it: the engine's, drawn as it is), the idle hint (asked of
// the server when the page has been idle) and the Action bar. It never decides a rule: the
// server's view (gemArena.view()), its events and its refusals do.
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

  // Cascade words, by depth (the third cascade and on).
  const WORDS = { 3: "Good!", 4: "Excellent!", 5: "Awesome!", 6: "Spectacular!", 7: "Incredible!" };
  const SOUND_OF = { line: "match", blast: "power", hypercube: "hypercube", bomb: "power" };

  // Points float over the cells that scored them; a step that scores nothing (a plain line in
  // Finity, where only blasts count) floats none.
  function floated(cells, points) {
    return points ? [{ cells: cells, text: `+${points}` }] : [];
  }

  // The frames of a move from its event's engine steps (each carries the board after it): the
  // swap slides, matched gems burst with their points, gems fall while new ones drop in (one
  // frame), blasts sound; about a second for a move of four cascades at normal speed.
  function framesOf(played) {
    const frames = [];
    const steps = played.steps || [];
    let depth = 1, colour = null;
    for (let i = 0; i < steps.length; i += 1) {
      const step = steps[i];
      const frame = { board: step.board, step: step, score: step.score, marks: {}, ms: 150 };
      switch (step.kind) {
        case "swap": {
          const [a, b] = step.cells;
          Object.assign(frame, { text: `Swap ${a} and ${b}`, moves: [[a, b], [b, a]], sound: "swap", ms: 140 });
          break;
        }
        case "line":
          depth = step.depth; colour = COLOURS[step.colour] || step.colour;
          continue; // told by the removal it causes
        case "special": {
          const made = step.made === "hypercube" ? "A hypercube" : "A power gem";
          Object.assign(frame, { text: `${made} at ${step.cell}${step.points ? ` (+${step.points})` : ""}`,
            marks: allMarked([step.cell], "made"), floats: floated([step.cell], step.points), ms: 160 });
          break;
        }
        case "remove": {
          const source = step.source ? ` from ${step.source}` : "";
          const what = step.cause === "line" && colour ? `A line of ${colour}` : `${step.cells.length} removed by ${CAUSES[step.cause] || step.cause}${source}`;
          const cascade = depth > 1 ? ` (cascade x${depth})` : "";
          Object.assign(frame, { text: `${what}${cascade}${step.points ? `: +${step.points}` : ""}`, bursts: step.cells,
            depth: depth, floats: floated(step.cells, step.points), sound: SOUND_OF[step.cause] || "match", ms: 130 });
          if (WORDS[Math.min(depth, 7)] && step.cause === "line" && !frames.some((f) => f.word && f.depth === depth)) {
            frame.word = WORDS[Math.min(depth, 7)];
          }
          break;
        }
        case "fall": {
          Object.assign(frame, { text: "Gems fall", moves: step.moves, ms: 150 });
          const next = steps[i + 1];
          if (next && next.kind === "new") { // the new gems drop in as the others fall
            Object.assign(frame, { board: next.board, step: next, score: next.score, drops: Object.keys(next.cells) });
            i += 1;
          }
          break;
        }
        case "new":
          Object.assign(frame, { text: `${Object.keys(step.cells).length} new gems`, drops: Object.keys(step.cells) });
          break;
        case "hypercube":
          Object.assign(frame, { text: `The hypercube at ${step.cell} goes off`, sound: "hypercube", ms: 220 });
          break;
        case "countdown":
          Object.assign(frame, { text: "Bombs count down", marks: allMarked(Object.keys(step.bombs), "bomb-tick"), ms: 200 });
          break;
        default:
          frame.text = "";
      }
      frames.push(frame);
    }
    if (played.reshuffled) {
      frames.push({ board: played.reshuffled, marks: {}, score: played.score, ms: 500,
        text: "No move left: the board is reshuffled" });
    }
    return frames;
  }

  // The score counts up to ``value`` over ``ms`` (at once when the page has no time to show it).
  let counting = null;
  function countScore(value, ms) {
    const score = document.querySelector("#bj2-status .bj2-score-value");
    if (!score) return;
    cancelAnimationFrame(counting);
    const from = parseInt(score.textContent.replace(/\D/g, ""), 10) || 0;
    if (!ms || value <= from) { score.textContent = String(value); return; }
    const start = performance.now();
    const step = (now) => {
      const part = Math.min(1, (now - start) / ms);
      score.textContent = String(Math.round(from + (value - from) * part));
      if (part < 1) counting = requestAnimationFrame(step);
    };
    counting = requestAnimationFrame(step);
  }

  // A level reached: a word over the board and a fanfare, and said in the step line (which stays
  // when motion is reduced).
  function levelUp(level) {
    setStepText(`Level ${level}! ` + (document.querySelector("#bj2-board .bj2-step-text") || {}).textContent);
    if (window.gemSound) window.gemSound.play("level");
    if (!moving()) return;
    bannerOver(`Level ${level}!`);
    // The level's moment, as in the original: the gems drop away and the board falls in again
    // (the same board: the server's; only the picture moves). A move played meanwhile ends it.
    const moment = moves;
    dropAway(board(), 420).then((grid) => { if (moment === moves) dropIn(grid, 420); });
  }

  // --- the moments of the original: a level completed, no more moves, a swap refused -----------

  // Motion follows the speed setting: none at "instant" or with reduced motion (the step line
  // still says what happened).
  function moving() {
    return Boolean(window.gemSteps) && window.gemSteps.speedName !== "instant"
      && !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  function motionMs(ms) {
    return ms / (window.gemSteps ? window.gemSteps.speed : 1);
  }

  function bannerOver(text, cssClass) {
    const grid = board();
    if (!grid) return;
    const banner = document.createElement("p");
    banner.className = "level-up" + (cssClass ? " " + cssClass : "");
    banner.setAttribute("aria-hidden", "true");
    banner.textContent = text;
    grid.parentElement.appendChild(banner);
    setTimeout(() => banner.remove(), 1800);
  }

  function gemsOf(grid) {
    return grid ? Array.from(grid.querySelectorAll("[data-cell] .gem")) : [];
  }

  // Every gem falls out of the board, the bottom row first; resolves with the grid once gone
  // (the gems stay hidden until dropIn or settle).
  function dropAway(grid, ms) {
    const gems = gemsOf(grid);
    if (!gems.length) return Promise.resolve(grid);
    const length = motionMs(ms);
    const fall = grid.getBoundingClientRect().height * 0.6;
    const motions = gems.map((gem) => {
      const row = parseInt(gem.closest("[data-cell]").dataset.cell.slice(1), 10) || 1;
      return gem.animate([{ transform: "none", opacity: 1 }, { transform: `translateY(${fall}px)`, opacity: 0 }],
        { duration: length, delay: (8 - row) * length / 16, easing: "ease-in", fill: "forwards" });
    });
    return Promise.all(motions.map((m) => m.finished.catch(() => null))).then(() => grid);
  }

  // The board's gems drop in from above, the bottom row first; the gems' motions are then done.
  function dropIn(grid, ms) {
    const gems = gemsOf(grid);
    const length = motionMs(ms);
    const height = grid ? grid.getBoundingClientRect().height : 300;
    const motions = gems.map((gem) => {
      for (const old of gem.getAnimations()) old.cancel();
      const row = parseInt(gem.closest("[data-cell]").dataset.cell.slice(1), 10) || 1;
      return gem.animate([{ transform: `translateY(${-height * 0.6}px)`, opacity: 0 }, { transform: "none", opacity: 1 }],
        { duration: length, delay: (8 - row) * length / 16, easing: "cubic-bezier(.5, 0, .75, 1.2)", fill: "backwards" });
    });
    return Promise.all(motions.map((m) => m.finished.catch(() => null)));
  }

  // The game is over with no legal move left: "No More Moves", the board drops away, and after
  // a moment the final board comes back to be looked at.
  function noMoreMoves() {
    setStepText("No more moves! " + (document.querySelector("#bj2-board .bj2-step-text") || {}).textContent);
    if (!moving()) return;
    bannerOver("No More Moves", "no-moves");
    dropAway(board(), 700).then((grid) => setTimeout(() => {
      if (!grid.isConnected) return;
      for (const gem of gemsOf(grid)) {
        for (const old of gem.getAnimations()) old.cancel();
        gem.animate([{ opacity: 0 }, { opacity: 1 }], { duration: motionMs(400) });
      }
    }, motionMs(900)));
  }

  // A refused swap: the two gems slide toward each other's place and back.
  function slideBack(a, b) {
    const ca = button(a), cb = button(b);
    const ga = ca && ca.querySelector(".gem"), gb = cb && cb.querySelector(".gem");
    if (!ga || !gb) return false;
    const ra = ca.getBoundingClientRect(), rb = cb.getBoundingClientRect();
    const dx = rb.left - ra.left, dy = rb.top - ra.top;
    const there = (x, y) => [{ transform: "none" }, { transform: `translate(${x}px, ${y}px)`, offset: 0.45 },
      { transform: `translate(${x}px, ${y}px)`, offset: 0.55 }, { transform: "none" }];
    const timing = { duration: motionMs(380), easing: "ease-in-out" };
    ga.animate(there(dx, dy), timing);
    gb.animate(there(-dx, -dy), timing);
    return true;
  }

  // The numbers beside the score (the level, its bar, the Action bar) change with the move the
  // server already counted; while the move plays they stay as they were before it, and change
  // when the score has finished counting (the panel the frame brought is put back).
  const HELD = [".bj2-level", ".bj2-level-bar", ".bj2-action-bar"];
  let statusNow = null; // the status panel as last drawn
  let statusBefore = null; // and as it was before that
  let statusFresh = false; // drawn by the update being handled

  document.addEventListener("gem:swapped", (event) => {
    if (!event.detail || event.detail.id !== "bj2-status") return;
    statusBefore = statusNow;
    statusNow = event.detail.cloneNode(true);
    statusFresh = true;
  });

  // A frame that animates nothing (a resync's full view) leaves no stale "before" behind.
  document.addEventListener("gem:frame", () => { statusFresh = false; });

  function holdNumbers(before) {
    const live = document.getElementById("bj2-status");
    const held = [];
    if (!live || !before) return held;
    for (const selector of HELD) {
      const now = live.querySelector(selector), then = before.querySelector(selector);
      if (!now || !then || now.outerHTML === then.outerHTML) continue;
      const stand = then.cloneNode(true);
      now.replaceWith(stand);
      held.push([stand, now]);
    }
    return held;
  }

  function release(held) {
    for (const [stand, now] of held) if (stand.isConnected) stand.replaceWith(now);
  }

  // Runs ``then`` once the big words over the board ("Excellent!") have faded, so that the level
  // banner does not lie over one.
  function afterWords(then) {
    const words = Array.from(document.querySelectorAll(".steps-float.steps-word"));
    const fading = words.flatMap((word) => (word.getAnimations ? word.getAnimations() : []));
    if (!fading.length) { then(); return; }
    Promise.all(fading.map((motion) => motion.finished.catch(() => null))).then(() => {
      for (const word of words) word.remove(); // faded out: gone before the banner comes
      then();
    });
  }

  let moves = 0; // moves animated so far: a moment of the one before stops when one comes

  function animate(view, played, beforeStatus) {
    moves += 1;
    const held = holdNumbers(beforeStatus);
    const before = played.total - played.score;
    const finalText = document.querySelector("#bj2-board .bj2-step-text");
    const summary = finalText ? finalText.textContent : "";
    const table = board();
    if (table) table.classList.add("animating");
    setScore(before);
    window.gemSteps.play(framesOf(played), (frame) => {
      paint(frame.board, frame.marks, view.pieces);
      countScore(before + (frame.score || 0), window.gemSteps.playing ? frame.ms / window.gemSteps.speed : 0);
      setStepText(frame.text + (frame.score ? ` · this move +${frame.score}` : ""));
    }, {
      done: () => {
        const now = game();
        if (now) paint(now.board, {}, now.pieces);
        if (now) countScore(now.score, 0);
        setStepText(summary);
        release(held);
        if (played.level_up) afterWords(() => levelUp(played.level_up));
        if (played.result && played.result.reason === "no_moves") afterWords(noMoreMoves);
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
    // Side by side: the gems slide over and back (the cells keep the red mark, not the shake);
    // without motion, or for a pair not side by side, the cells shake (or, reduced, only mark).
    const slid = moving() && neighbours(sent[0], sent[1]) && slideBack(sent[0], sent[1]);
    for (const name of sent) {
      const cell = button(name);
      if (!cell) continue;
      cell.classList.remove("shake", "slid");
      void cell.offsetWidth; // restart the animation
      cell.classList.add("shake");
      if (slid) cell.classList.add("slid");
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

  // The version the page asked its idle hint at (-1: none asked since the last move).
  let hintAsked = -1;

  function restartIdle() {
    clearTimeout(idleTimer);
    clearHint();
    hintAsked = -1;
    if (!canSwap(game())) return;
    idleTimer = setTimeout(() => {
      if (window.gemSteps.playing) { restartIdle(); return; }
      if (!canSwap(game())) return;
      // The server searches the board for the hint only now that the page has been idle
      // (docs/protocol.md, "hint"); its answer names the version it was searched at.
      hintAsked = window.gemArena.version;
      window.gemArena.sendMessage({ type: "hint" });
    }, IDLE_MS);
  }

  function showHint(frame) {
    // The answer to this page's own ask, at the version the page still shows, and only while
    // the player can swap: a move made meanwhile started the idle wait again.
    if (hintAsked < 0 || frame.version !== hintAsked || frame.version !== window.gemArena.version) return;
    if (!frame.move || !canSwap(game()) || window.gemSteps.playing) return;
    for (const name of frame.move) {
      const cell = button(name);
      if (cell) cell.classList.add("idle-hint", "hint");
    }
  }

  document.addEventListener("gem:frame", (event) => {
    if (event.detail.type === "hint") showHint(event.detail);
  });

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
    const statusBeforeMove = statusFresh ? statusBefore : null;
    statusFresh = false;
    // A race seats many players, each on a board of their own (view.seat): another seat's move
    // changes nothing on this one, so the gem being chosen stays chosen.
    if (view && typeof view.seat === "number" && happened && typeof happened.seat === "number"
      && happened.seat !== view.seat) return;
    selected = null;
    if (view && played && played.steps && played.steps.length) {
      sent = null;
      animate(view, played, statusBeforeMove);
      return;
    }
    restartIdle();
  });

  document.addEventListener("DOMContentLoaded", () => {
    const status = document.getElementById("bj2-status");
    if (status) statusNow = status.cloneNode(true);
    restartIdle();
    setInterval(tickBar, 250);
  });
})();
