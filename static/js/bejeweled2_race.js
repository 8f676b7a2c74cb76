// The Bejeweled 2 race: a seat's own board is played by Bejeweled 2's script (bejeweled2.js);
// here the small boards' Action bars drain between moves, as the server keeps them (points at a
// time and the drain). It decides nothing.
(function () {
  "use strict";

  function tickBars() {
    for (const bar of document.querySelectorAll(".race-mini .race-bar[data-running]")) {
      const fill = bar.querySelector(".fill");
      const elapsed = Math.max(0, Date.now() - Date.parse(bar.dataset.at)) / 1000;
      const left = parseFloat(bar.dataset.points) - elapsed * parseFloat(bar.dataset.drain);
      const percent = Math.max(0, Math.min(100, (100 * left) / parseFloat(bar.dataset.size)));
      if (fill) fill.style.width = percent.toFixed(1) + "%";
      bar.classList.toggle("low", percent < 15);
    }
  }

  document.addEventListener("DOMContentLoaded", () => setInterval(tickBars, 500));
})();
