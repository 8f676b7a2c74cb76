// The host console (templates/core/_host_console.html), on the match page and in the dashboard:
// before a form is sent, ask its question, naming the player and what follows ("Seat 2: Carol
// wins the match? Alice (EC) loses the match; it ends now."). The question is the form's
// data-confirm, or that of the option chosen in the select data-confirm-from names. In the
// dashboard, which loads no match script, the clocks count down here.
(function () {
  "use strict";

  function question(form) {
    const from = form.dataset.confirmFrom;
    if (from) {
      const select = form.querySelector(`select[name="${from}"]`);
      const chosen = select && select.selectedOptions[0];
      return chosen ? chosen.dataset.confirm || "" : "";
    }
    return form.dataset.confirm || "";
  }

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("host-op")) return;
    const asked = question(form);
    if (asked && !window.confirm(asked)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  function tick() {
    for (const clock of document.querySelectorAll(".host-clocks [data-deadline]")) {
      const seconds = Math.max(0, Math.ceil((Date.parse(clock.dataset.deadline) - Date.now()) / 1000));
      const minutes = Math.floor(seconds / 60);
      const text = minutes + ":" + String(seconds % 60).padStart(2, "0");
      const target = clock.querySelector(".left") || clock;
      if (target.textContent !== text) target.textContent = text;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    if (window.gemArena && window.gemArena.send) return; // the match page counts down itself
    tick();
    setInterval(tick, 1000);
  });
})();
