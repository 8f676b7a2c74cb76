// A deadline counted down live: every <span data-countdown="ISO time"> says what is left
// ("2 h 05 min left", "4 min 10 s left" in its last ten minutes) and, once it is past, that
// the clock ran out. The server writes the same words at the page's load (and without scripts).
(function () {
  "use strict";

  function left(ms) {
    if (ms <= 0) return "the clock has run out";
    const seconds = Math.ceil(ms / 1000);
    if (seconds < 600) {
      return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s left`;
    }
    const minutes = Math.ceil(seconds / 60); // as the server says it (games/seasons/rules.py)
    const days = Math.floor(minutes / 1440);
    const hours = Math.floor((minutes % 1440) / 60);
    if (days) return `${days} d ${hours} h left`;
    if (hours) return `${hours} h ${String(minutes % 60).padStart(2, "0")} min left`;
    return `${minutes} min left`;
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
