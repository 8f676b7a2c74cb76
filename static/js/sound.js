// The site's sounds, synthesized in the page with Web Audio (nothing is fetched): short tones and
// noise bursts shaped by gain envelopes. The match banner's "Sound on" switch (static/js/match.js,
// localStorage gemArena.muted) silences them all.
//   gemSound.play(name, {depth}) with name one of: swap, match (a cascade's depth raises its
//   pitch), power, hypercube, level, refused, warning, turn, scout (a sonar ping: a look that
//   found nothing to fear), mine (a low thud: a look or a claim that met mines), step (a light
//   tick for each cell of a path: its depth, 1 and up, climbs a pentatonic scale).
//   gemSound.played lists the names asked for lately (the newest last, at most 50), muted or
//   not: what a test or a curious player can read. Every sound asked for is also told as a
//   document event "gem:sound" {name, depth, muted}, so a page or a test can follow each one.
// Played by the step player (a frame's sound; at "instant" speed or with reduced motion the
// move's strongest sound once, gemSound.playSummary(frames)), by the games' scripts, and here on
// their own: a refused move (match.js's gem:refused) and a clock turning urgent (.clock.urgent;
// a warning or a turn chime asked for twice at once plays once). The "your turn" chime is
// match.js's own.
(function () {
  "use strict";
  const MUTE_KEY = "gemArena.muted";
  let audio = null;

  function context() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
    if (audio && audio.state === "suspended") audio.resume();
    return audio;
  }
  // Browsers let a page play sound only after the player has touched it.
  document.addEventListener("pointerdown", context, { once: true });
  document.addEventListener("keydown", context, { once: true });

  // One note: ``type`` wave from ``from`` Hz gliding to ``to`` Hz, ``at`` s from now, for ``length`` s.
  function tone(out, at, length, from, to, type, loud) {
    const start = out.currentTime + at;
    const osc = out.createOscillator();
    const gain = out.createGain();
    osc.type = type || "sine";
    osc.frequency.setValueAtTime(from, start);
    osc.frequency.exponentialRampToValueAtTime(to || from, start + length);
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(loud || 0.12, start + 0.012);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
    osc.connect(gain).connect(out.destination);
    osc.start(start);
    osc.stop(start + length + 0.02);
  }

  // A burst of filtered noise (a blast, a crackle).
  function noise(out, at, length, pitch, loud) {
    const frames = Math.ceil(out.sampleRate * length);
    const buffer = out.createBuffer(1, frames, out.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < frames; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / frames);
    const source = out.createBufferSource();
    const filter = out.createBiquadFilter();
    const gain = out.createGain();
    source.buffer = buffer;
    filter.type = "bandpass";
    filter.frequency.value = pitch;
    gain.gain.value = loud || 0.3;
    source.connect(filter).connect(gain).connect(out.destination);
    source.start(out.currentTime + at);
  }

  const SOUNDS = {
    swap: (out) => tone(out, 0, 0.09, 520, 700, "triangle", 0.08),
    match: (out, options) => {
      // each cascade a step higher on a major scale
      const steps = [0, 2, 4, 5, 7, 9, 11, 12, 14, 16];
      const depth = Math.max(1, Math.min(steps.length, (options && options.depth) || 1));
      const base = 523.25 * Math.pow(2, steps[depth - 1] / 12);
      tone(out, 0, 0.16, base, base * 1.01, "sine", 0.14);
      tone(out, 0.03, 0.14, base * 2, base * 2, "triangle", 0.04);
    },
    power: (out) => { noise(out, 0, 0.35, 300, 0.5); tone(out, 0, 0.3, 180, 60, "sawtooth", 0.08); },
    hypercube: (out) => {
      for (let i = 0; i < 6; i += 1) tone(out, i * 0.05, 0.12, 600 + i * 180, 900 + i * 180, "square", 0.04);
      noise(out, 0.05, 0.4, 2400, 0.2);
    },
    level: (out) => [523.25, 659.25, 783.99, 1046.5].forEach((f, i) => tone(out, i * 0.11, 0.22, f, f, "triangle", 0.12)),
    refused: (out) => { tone(out, 0, 0.12, 220, 180, "square", 0.05); tone(out, 0.13, 0.16, 180, 140, "square", 0.05); },
    warning: (out) => tone(out, 0, 0.08, 1200, 1200, "square", 0.04),
    step: (out, options) => {
      const scale = [0, 2, 4, 7, 9];
      const depth = Math.max(1, Math.min(12, (options && options.depth) || 1)) - 1;
      const f = 659.25 * Math.pow(2, (12 * Math.floor(depth / 5) + scale[depth % 5]) / 12);
      tone(out, 0, 0.1, f, f, "triangle", 0.09);
    },
    turn: (out) => { tone(out, 0, 0.12, 660, 660, "sine", 0.1); tone(out, 0.14, 0.16, 880, 880, "sine", 0.1); },
    scout: (out) => { tone(out, 0, 0.22, 1320, 990, "sine", 0.08); tone(out, 0.12, 0.3, 1320, 1320, "sine", 0.03); },
    mine: (out) => { tone(out, 0, 0.3, 140, 70, "sawtooth", 0.1); noise(out, 0, 0.25, 160, 0.4); },
  };
  const played = [];
  // A sound that says one thing once: asked for again within this many ms (two clocks turning
  // urgent together, a panel and the banner) it is not played twice over itself.
  const ONCE_MS = { warning: 1500, turn: 1000 };
  const lastAt = {};

  function play(name, options) {
    const muted = localStorage.getItem(MUTE_KEY) === "1";
    if (ONCE_MS[name]) {
      const now = performance.now();
      if (lastAt[name] !== undefined && now - lastAt[name] < ONCE_MS[name]) return;
      lastAt[name] = now;
    }
    if (SOUNDS[name]) { played.push(name); if (played.length > 50) played.shift(); }
    document.dispatchEvent(new CustomEvent("gem:sound", {
      detail: { name: name, depth: (options && options.depth) || null, muted: muted },
    }));
    if (muted || !SOUNDS[name]) return;
    const out = context();
    if (!out || out.state !== "running") return;
    SOUNDS[name](out, options || {});
  }

  // Sounds the page asks for without a script: a refusal, an urgent clock.
  function watch() {
    new MutationObserver((records) => {
      for (const record of records) {
        const element = record.target;
        if (record.type === "attributes" && element.classList && element.classList.contains("urgent")
          && element.classList.contains("clock") && !/(^|\s)urgent(\s|$)/.test(record.oldValue || "")) {
          play("warning");
        }
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["class"], attributeOldValue: true });
  }
  // A move shown at once ("instant" speed, reduced motion) still sounds: its strongest sound
  // once (a hypercube over a blast over a line, the deepest cascade's pitch), not one per step.
  const RANK = { hypercube: 4, power: 3, match: 2, step: 2, scout: 2, mine: 2, swap: 1 };
  function playSummary(frames) {
    let best = null;
    for (const frame of frames || []) {
      const rank = RANK[frame.sound] || 0;
      if (!rank) continue;
      const better = !best || rank > RANK[best.sound] || (rank === RANK[best.sound] && (frame.depth || 0) > (best.depth || 0));
      if (better) best = frame;
    }
    if (best) play(best.sound, best);
  }

  document.addEventListener("gem:refused", () => play("refused"));
  if (document.body) watch();
  else document.addEventListener("DOMContentLoaded", watch);

  window.gemSound = { play: play, playSummary: playSummary, names: Object.keys(SOUNDS), played: played };
})();
