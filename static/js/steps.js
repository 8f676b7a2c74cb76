// Shared step player for every game's animations (cascades, paths, movement sequences).
//   gemSteps.play(frames, show, {done, onStop}) shows frames[0], then each next frame after the
//   previous frame's ms (default 700 ms), scaled by the viewer's speed setting; done() runs after
//   the last. Only one animation plays at a time; play() stops the one before.
//   gemSteps.stop() jumps to the last frame at once (a skip); gemSteps.playing tells if one runs.
//   gemSteps.speed / gemSteps.setSpeed(x): 0.5 (slow) to 4 (fast), kept in localStorage.
//   gemSteps.framesFrom(steps, describe): frames from an engine's steps, each of which carries
//   the board after it (step.board): describe(step) gives the frame's text, marks and ms (or
//   null to leave the step out); each frame keeps its step's board and the step itself.
// With prefers-reduced-motion the last frame is shown at once. Elements with [data-steps-skip]
// skip the animation when clicked; [data-steps-speed] selects set the speed.
(function () {
  "use strict";
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  let current = null; // {frames, index, show, done, timer}
  let speed = parseFloat(localStorage.getItem("gemArena.speed") || "1") || 1;

  function finish() {
    if (!current) return;
    const playing = current;
    current = null;
    clearTimeout(playing.timer);
    playing.show(playing.frames[playing.frames.length - 1], playing.frames.length - 1);
    document.documentElement.classList.remove("gem-animating");
    if (playing.done) playing.done();
  }

  function advance() {
    if (!current) return;
    if (current.index >= current.frames.length - 1) { finish(); return; }
    current.index += 1;
    current.show(current.frames[current.index], current.index);
    schedule();
  }

  function schedule() {
    const frame = current.frames[current.index];
    const ms = (frame && frame.ms !== undefined ? frame.ms : 700) / speed;
    current.timer = setTimeout(advance, ms);
  }

  function play(frames, show, options) {
    stop();
    if (!frames || !frames.length) return;
    current = { frames: frames, index: 0, show: show, done: options && options.done, timer: null };
    document.documentElement.classList.add("gem-animating");
    if (reduced) { finish(); return; }
    show(frames[0], 0);
    schedule();
  }

  function stop() { finish(); }

  function framesFrom(steps, describe) {
    const frames = [];
    for (const step of steps || []) {
      const frame = describe(step);
      if (frame) frames.push(Object.assign({ board: step.board, step: step }, frame));
    }
    return frames;
  }

  function setSpeed(value) {
    speed = Math.min(4, Math.max(0.5, parseFloat(value) || 1));
    localStorage.setItem("gemArena.speed", String(speed));
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest("[data-steps-skip]")) stop();
  });
  document.addEventListener("change", (event) => {
    if (event.target.matches && event.target.matches("[data-steps-speed]")) setSpeed(event.target.value);
  });

  window.gemSteps = {
    play: play,
    stop: stop,
    setSpeed: setSpeed,
    framesFrom: framesFrom,
    get speed() { return speed; },
    get playing() { return Boolean(current); },
  };
})();
