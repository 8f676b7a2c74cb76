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

  // A control the server took (an empty answer) is done: its form goes back to its defaults and
  // its box folds, whether or not the frame with the new console came first (the page keeps what
  // the host is typing across frames: match.js, data-keep-input). When that frame replaced the
  // form while it was being sent, htmx answers to the form it sent, no longer on the page: the
  // answer is heard on that form, and a refusal is shown in the console the page now has.
  function answered(sent, detail) {
    const answer = detail.xhr ? detail.xhr.responseText.trim() : "";
    const action = sent.getAttribute("action");
    if (!sent.isConnected && detail.xhr && detail.xhr.status === 200) {
      const shown = document.getElementById("host-error");
      if (shown) shown.innerHTML = answer; // the server escaped it, as htmx would swap it
    }
    if (!detail.successful || answer !== "") return;
    for (const form of document.querySelectorAll("form.host-op")) {
      if (form !== sent && form.getAttribute("action") !== action) continue;
      form.reset();
      const box = form.closest("details");
      if (box) box.open = false;
    }
  }
  document.addEventListener("htmx:beforeRequest", (event) => {
    const sent = event.detail && event.detail.elt;
    if (!(sent instanceof HTMLFormElement) || !sent.classList.contains("host-op")) return;
    sent.addEventListener("htmx:afterRequest", (done) => answered(sent, done.detail), { once: true });
  });

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
