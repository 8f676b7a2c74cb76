// The first-visit walkthrough (templates/core/_walkthrough.html): shown the first time this
// browser opens a match of a game, dismissed for good with "Got it", shown again on request.
(function () {
  "use strict";
  const panel = document.getElementById("walkthrough");
  if (!panel) return;
  const key = "gemArena.walkthrough." + panel.dataset.walkthrough;

  function seen() {
    try { return window.localStorage.getItem(key) === "seen"; } catch (error) { return false; }
  }

  function remember() {
    try { window.localStorage.setItem(key, "seen"); } catch (error) { /* private mode: show again next time */ }
  }

  if (!seen()) panel.hidden = false;

  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-walkthrough-close]")) {
      panel.hidden = true;
      remember();
    } else if (event.target.closest("[data-walkthrough-open]")) {
      panel.hidden = false;
      panel.querySelector("button").focus();
    }
  });
})();
