// A deadline counted down live: every <span data-countdown="ISO time"> says what is left
// ("2 h 05 min left", "4 min 10 s left" in its last ten minutes) and, once it is past, that
// the clock ran out. The server writes the same words at the page's load (and without scripts).
(function () {
  "use strict";

  function left(ms) {
    if (ms <= 0) return "the clock has run out";
    const seconds = Math.ceil(ms / 1000);
    const days = Math.floor(seconds / 86400);
    const hours = Math.floor((seconds % 86400) / 3600);
    const minutes = Math.floor((seconds % 3600) / 60);
    if (days) return `${days} d ${hours} h left`;
    if (hours) return `${hours} h ${String(minutes).padStart(2, "0")} min left`;
    if (seconds < 600) return `${minutes} min ${String(seconds % 60).padStart(2, "0")} s left`;
    return `${Math.ceil(seconds / 60)} min left`;
  }

  function tick() {
    const now = Date.now();
    for (const span of document.querySelectorAll("[data-countdown]")) {
      const due = Date.parse(span.dataset.countdown);
      if (Number.isNaN(due)) continue;
      const text = left(due - now);
      if (span.textContent !== text) span.textContent = text;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    tick();
    window.setInterval(tick, 1000);
  });
})();
