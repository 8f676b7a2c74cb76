// Shared step player for every game's animations (cascades, paths, movement sequences).
//   gemSteps.play(frames, show, {done}) shows frames[0], then each next frame after the previous
//   frame's ms (default 700 ms) divided by the viewer's speed; done() runs after the last. Time
//   is the page's own animation clock (requestAnimationFrame), so a frame never outlasts its
//   share. Only one animation plays at a time; play() stops the one before.
//   gemSteps.stop() jumps to the last frame at once (Skip); gemSteps.playing tells if one runs;
//   gemSteps.last is the last finished run: {ticks (animation frames), ms, frames, skipped}.
//   gemSteps.speed / gemSteps.speedName / gemSteps.setSpeed(x): slow (0.5), normal (1), fast
//   (2) or instant (the last frame at once), by name or number, kept in localStorage.
//   gemSteps.framesFrom(steps, describe): frames from an engine's steps, each carrying the board
//   after it (step.board): describe(step) gives the frame's text, marks and ms (or null to leave
//   the step out); each frame keeps its step's board and the step itself.
// A frame may also say how its board moves on the page (frame.grid names the grid; the game's
// show() has painted the frame's board when these run):
//   frame.moves  [[from, to], ...]  the gem now in ``to`` slides in from ``from`` (swap, fall)
//   frame.drops  [cell, ...]        new gems drop in from above the board
//   frame.bursts [cell, ...]        gems burst (grow, flash and fade) where they stand
//   frame.floats [{cells, text}]    words that rise from the middle of those cells ("+30")
//   frame.word   "Excellent!"       one big word over the board
//   frame.sound  "match" ...        a sound of static/js/sound.js (frame.depth raises its pitch)
// With prefers-reduced-motion (or at "instant") the last frame is shown at once; a game shows
// what a motion told (a hint, a level) in a way that does not move. Elements with
// [data-steps-skip] skip the animation; [data-steps-speed] selects set the speed. While a run
// plays, <html> has the class gem-animating. A click on a board while a run plays is an input
// (static/js/grid.js): the run ends at once on its last frame, then the click acts.
(function () {
  "use strict";
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const SPEEDS = { slow: 0.5, normal: 1, fast: 2, instant: Infinity };
  const KEY = "gemArena.speed";
  let current = null; // {frames, index, show, done, shownAt, started, ticks, request}
  let speedName = nameOf(localStorage.getItem(KEY));
  let last = null;

  function nameOf(value) {
    if (value in SPEEDS) return value;
    const number = parseFloat(value);
    if (!number) return "normal";
    if (number >= 4) return "instant";
    if (number >= 2) return "fast";
    return number < 1 ? "slow" : "normal";
  }

  // --- the motions of a frame ---------------------------------------------------------------

  function gridOf(frame) {
    const name = frame.grid || "board";
    return document.querySelector(`[data-grid="${name}"]`);
  }

  function cellIn(grid, name) {
    return grid.querySelector(`[data-cell="${name}"]`);
  }

  function gemIn(grid, name) {
    const cell = cellIn(grid, name);
    return cell ? cell.querySelector(".gem") || cell : null;
  }

  function settle(grid) {
    for (const element of grid.querySelectorAll(".gem")) {
      for (const running of element.getAnimations ? element.getAnimations() : []) running.cancel();
    }
    for (const ghost of document.querySelectorAll(".steps-ghost")) ghost.remove();
  }

  function move(frame, grid, ms) {
    const easing = "cubic-bezier(.5, 0, .75, 1.2)"; // gravity, a little bounce at the end
    for (const [from, to] of frame.moves || []) {
      const gem = gemIn(grid, to), start = cellIn(grid, from), end = cellIn(grid, to);
      if (!gem || !start || !end) continue;
      const a = start.getBoundingClientRect(), b = end.getBoundingClientRect();
      gem.animate([{ transform: `translate(${a.left - b.left}px, ${a.top - b.top}px)` }, { transform: "none" }],
        { duration: ms, easing: easing });
    }
    const height = grid.querySelector("[data-cell]") ? grid.querySelector("[data-cell]").getBoundingClientRect().height : 40;
    const perColumn = {};
    for (const name of frame.drops || []) {
      const column = name.replace(/\d+$/, "");
      perColumn[column] = (perColumn[column] || 0) + 1;
    }
    for (const name of frame.drops || []) {
      const gem = gemIn(grid, name);
      if (!gem) continue;
      const above = perColumn[name.replace(/\d+$/, "")] * (height + 2);
      gem.animate([{ transform: `translateY(${-above}px)`, opacity: 0 }, { opacity: 1, offset: 0.3 }, { transform: "none", opacity: 1 }],
        { duration: ms, easing: easing });
    }
    for (const gem of frame.ghosts || []) {
      gem.animate([
        { transform: "scale(1)", opacity: 1, filter: "brightness(1)" },
        { transform: "scale(1.35)", opacity: 1, filter: "brightness(2.2)", offset: 0.35 },
        { transform: "scale(.2)", opacity: 0, filter: "brightness(3)" },
      ], { duration: ms, easing: "ease-in", fill: "forwards" }).onfinish = () => gem.remove();
    }
  }

  // Copies of the gems about to burst, laid over their cells: the frame's board (without them)
  // is painted underneath while they burst.
  function ghostsOf(grid, cells) {
    const ghosts = [];
    for (const name of cells || []) {
      const cell = cellIn(grid, name);
      if (!cell) continue;
      const box = cell.getBoundingClientRect();
      const ghost = cell.cloneNode(true);
      ghost.removeAttribute("data-cell");
      ghost.removeAttribute("id");
      ghost.setAttribute("aria-hidden", "true");
      ghost.tabIndex = -1;
      ghost.classList.add("steps-ghost");
      Object.assign(ghost.style, { position: "fixed", left: `${box.left}px`, top: `${box.top}px`,
        width: `${box.width}px`, height: `${box.height}px`, margin: "0", pointerEvents: "none", zIndex: "5" });
      document.body.appendChild(ghost);
      ghosts.push(ghost);
    }
    return ghosts;
  }

  function float(frame, grid, ms) {
    const box = grid.getBoundingClientRect();
    const layer = grid.parentElement;
    if (!layer) return;
    if (getComputedStyle(layer).position === "static") layer.style.position = "relative";
    const origin = layer.getBoundingClientRect();
    const words = (frame.floats || []).map((item) => ({ ...item, kind: "points" }));
    if (frame.word) words.push({ text: frame.word, kind: "word" });
    for (const item of words) {
      let x = box.left + box.width / 2, y = box.top + box.height / 2;
      const cells = (item.cells || []).map((name) => cellIn(grid, name)).filter(Boolean);
      if (cells.length) {
        const rects = cells.map((cell) => cell.getBoundingClientRect());
        x = rects.reduce((sum, r) => sum + r.left + r.width / 2, 0) / rects.length;
        y = rects.reduce((sum, r) => sum + r.top + r.height / 2, 0) / rects.length;
      }
      const word = document.createElement("span");
      word.className = `steps-float steps-${item.kind}`;
      word.setAttribute("aria-hidden", "true");
      word.textContent = item.text;
      word.style.left = `${x - origin.left}px`;
      word.style.top = `${y - origin.top}px`;
      layer.appendChild(word);
      const lasts = Math.max(ms, item.kind === "word" ? 900 : 600);
      word.animate([
        { transform: "translate(-50%, -50%) scale(.7)", opacity: 0 },
        { transform: "translate(-50%, -80%) scale(1.1)", opacity: 1, offset: 0.25 },
        { transform: "translate(-50%, -160%) scale(1)", opacity: 0 },
      ], { duration: lasts, easing: "ease-out", fill: "forwards" }).onfinish = () => word.remove();
    }
  }

  function present(frame, index) {
    const grid = gridOf(frame);
    if (grid) settle(grid);
    const ghosts = grid ? ghostsOf(grid, frame.bursts) : [];
    current.show(frame, index);
    const ms = msOf(frame);
    if (grid) {
      move(Object.assign({}, frame, { ghosts: ghosts }), grid, ms);
      float(frame, grid, ms);
    }
    if (frame.sound && window.gemSound) window.gemSound.play(frame.sound, frame);
  }

  // --- the clock ----------------------------------------------------------------------------

  function msOf(frame) {
    return (frame && frame.ms !== undefined ? frame.ms : 700) / SPEEDS[speedName];
  }

  function tick(now) {
    if (!current) return;
    current.ticks += 1;
    if (current.shownAt === null) current.shownAt = now;
    while (current && now - current.shownAt >= msOf(current.frames[current.index])) {
      if (current.index >= current.frames.length - 1) { finish(false, now); return; }
      current.shownAt += msOf(current.frames[current.index]);
      current.index += 1;
      present(current.frames[current.index], current.index);
    }
    if (current) current.request = requestAnimationFrame(tick);
  }

  function finish(skipped, now) {
    if (!current) return;
    const playing = current;
    current = null;
    cancelAnimationFrame(playing.request);
    const final = playing.frames[playing.frames.length - 1];
    const grid = gridOf(final);
    playing.show(final, playing.frames.length - 1);
    if (grid) settle(grid);
    document.documentElement.classList.remove("gem-animating");
    last = {
      ticks: playing.ticks,
      ms: Math.round((now || performance.now()) - playing.started),
      frames: playing.frames.length,
      skipped: skipped,
      speed: speedName,
    };
    document.dispatchEvent(new CustomEvent("gem:steps-done", { detail: last }));
    if (playing.done) playing.done();
  }

  function play(frames, show, options) {
    stop();
    if (!frames || !frames.length) return;
    current = { frames: frames, index: 0, show: show, done: options && options.done, shownAt: null,
      started: performance.now(), ticks: 0, request: null };
    document.documentElement.classList.add("gem-animating");
    if (reduced || speedName === "instant") {
      if (window.gemSound) window.gemSound.playSummary(frames); // shown at once, still heard
      finish(false);
      return;
    }
    present(frames[0], 0);
    current.request = requestAnimationFrame(tick);
  }

  function stop() { finish(true); }

  function framesFrom(steps, describe) {
    const frames = [];
    for (const step of steps || []) {
      const frame = describe(step);
      if (frame) frames.push(Object.assign({ board: step.board, step: step }, frame));
    }
    return frames;
  }

  function setSpeed(value) {
    speedName = nameOf(value);
    localStorage.setItem(KEY, speedName);
    for (const select of document.querySelectorAll("[data-steps-speed]")) showSpeed(select);
  }

  function showSpeed(select) {
    const option = Array.from(select.options).find((o) => nameOf(o.value) === speedName);
    if (option) select.value = option.value;
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest("[data-steps-skip]")) stop();
  });
  document.addEventListener("change", (event) => {
    if (event.target.matches && event.target.matches("[data-steps-speed]")) setSpeed(event.target.value);
  });
  // A speed control drawn later (a panel swapped in) shows the remembered speed.
  function showAllSpeeds() { for (const select of document.querySelectorAll("[data-steps-speed]")) showSpeed(select); }
  document.addEventListener("DOMContentLoaded", showAllSpeeds);
  document.addEventListener("gem:swapped", showAllSpeeds);

  window.gemSteps = {
    play: play,
    stop: stop,
    setSpeed: setSpeed,
    framesFrom: framesFrom,
    get speed() { return SPEEDS[speedName]; },
    get speedName() { return speedName; },
    get playing() { return Boolean(current); },
    get last() { return last; },
  };
})();
