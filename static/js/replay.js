// The replay page: keys, autoplay and round jumps over the server-rendered steps. Each step is a
// link with hx-get (templates/core/_replay_body.html); this script only clicks those links, so
// the page works without it (plain links and a form) and every step comes from the server.
(function () {
  "use strict";
  let playing = false;
  let timer = null;
  let roundOpen = false;

  // The game scripts read the step's view as they read the live page's (gemArena.view()): here
  // it is the step's #match-view, swapped in with each step.
  window.gemArena = window.gemArena || {};
  window.gemArena.view = function () {
    const data = document.getElementById("match-view");
    return data ? JSON.parse(data.textContent) : null;
  };

  function link(which) {
    return document.querySelector(`#replay-body a[data-step="${which}"]:not(.off)`);
  }

  function go(which) {
    const target = link(which);
    if (target) target.click();
    return Boolean(target);
  }

  function delay() {
    const speed = document.getElementById("replay-speed");
    return speed ? parseInt(speed.value, 10) || 1000 : 1000;
  }

  function setPlaying(on) {
    playing = on;
    clearTimeout(timer);
    const button = document.getElementById("replay-play");
    if (button) {
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.dataset.playing = on ? "1" : "0";
      button.innerHTML = on ? "&#10074;&#10074; Pause" : "&#9654; Play";
    }
    if (on) schedule();
  }

  function schedule() {
    clearTimeout(timer);
    if (!playing) return;
    if (!link("next")) { setPlaying(false); return; }
    timer = setTimeout(() => { if (playing && !go("next")) setPlaying(false); }, delay());
  }

  function typing(target) {
    if (!target || !target.closest) return false;
    return Boolean(target.closest("input, select, textarea, [contenteditable], [data-grid]"));
  }

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    const moves = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
    const which = moves[event.key];
    if (!which) return;
    event.preventDefault();
    if (which !== "next") setPlaying(false);
    go(which);
  });

  document.addEventListener("click", (event) => {
    if (event.target.closest("#replay-play")) setPlaying(!playing);
  });

  document.addEventListener("change", (event) => {
    if (event.target.id === "replay-speed" && playing) schedule();
  });

  document.addEventListener("toggle", (event) => {
    if (event.target.classList && event.target.classList.contains("replay-round")) roundOpen = event.target.open;
  }, true);

  document.addEventListener("htmx:afterSwap", (event) => {
    if (!event.detail || !event.detail.target || event.detail.target.id !== "replay-body") return;
    const round = document.querySelector("#replay-body .replay-round");
    if (round && roundOpen) round.open = true;
    if (playing) schedule();
  });
})();
