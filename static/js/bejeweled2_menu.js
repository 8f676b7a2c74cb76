// The Bejeweled 2 play page's secret, as the original hid its Original mode: open to everyone
// from the start but not on the menu until the player goes round the four menu modes (Classic,
// Action, Endless, Puzzle, in turn) eight times, by pointer or keyboard focus. Then its form
// shows (the server starts it for anyone; this only finds it).
(function () {
  "use strict";
  const ROUND = ["classic", "action", "endless", "puzzle"];
  const ROUNDS = 8;
  let next = 0; // how many cards in a row were visited in turn

  function visit(mode) {
    if (mode === ROUND[next % ROUND.length]) next += 1;
    else next = mode === ROUND[0] ? 1 : 0;
    if (next < ROUND.length * ROUNDS) return;
    next = 0;
    for (const form of document.querySelectorAll(".bj2-modes form[data-secret][hidden]")) {
      form.hidden = false;
      form.classList.add("found");
      const button = form.querySelector("button");
      if (button) button.focus();
    }
    if (window.gemSound) window.gemSound.play("level");
  }

  function cardOf(event) {
    const card = event.target.closest && event.target.closest(".bj2-modes form.bj2-mode");
    const mode = card && card.querySelector("input[name=mode]");
    return mode ? mode.value : null;
  }

  document.addEventListener("pointerover", (event) => {
    const mode = cardOf(event);
    const from = event.relatedTarget && event.relatedTarget.closest && event.relatedTarget.closest(".bj2-modes form.bj2-mode");
    if (mode && from !== event.target.closest(".bj2-modes form.bj2-mode")) visit(mode);
  });
  document.addEventListener("focusin", (event) => {
    const mode = cardOf(event);
    const from = event.relatedTarget && event.relatedTarget.closest && event.relatedTarget.closest(".bj2-modes form.bj2-mode");
    if (mode && from !== event.target.closest(".bj2-modes form.bj2-mode")) visit(mode);
  });
})();
