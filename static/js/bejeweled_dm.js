// Bejeweled death match page: the proof builder on the grid and the resolution animation.
// Loaded from a swapped panel, so it guards against running twice. It never decides anything:
// the server's view (the JSON in #bjdm-data) and match.js's actions do that.
(function () {
  "use strict";
  if (window.bejeweledDmLoaded) return;
  window.bejeweledDmLoaded = true;

  const LETTERS = "ABCDEFGH";
  const CLASSES = { R: "red", B: "blue", G: "green", Y: "yellow", P: "purple", "#": "rock", ".": "hole" };
  const NAMES = { R: "red", B: "blue", G: "green", Y: "yellow", P: "purple", "#": "rock", ".": "empty" };
  const CAUSES = { match: "3 in a row", bend: "Bend", pick: "Pick", chain: "Chain", column: "Column", plus: "Plus" };
  const STARTER_CELLS = { Swap: 2, Rotate: 1, Pick: 2 };

  let view = null;
  let builder = null; // the proof being built, kept across panel swaps
  let second = null; // the second starter's cells after Refresh
  let anim = null; // the animation playing: {frames, index, timer}

  // --- loading ------------------------------------------------------------------------------

  function loadCss() {
    const script = document.querySelector("script[data-css]");
    if (!script || document.head.querySelector("link[data-bjdm]")) return;
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = script.dataset.css;
    link.dataset.bjdm = "1";
    document.head.appendChild(link);
  }

  function readView() {
    const data = document.getElementById("bjdm-data");
    view = data ? JSON.parse(data.textContent) : null;
    return view;
  }

  function can(action) {
    return Boolean(view && view.actions && view.actions.indexOf(action) !== -1);
  }

  // --- painting the grid --------------------------------------------------------------------

  function grid() {
    return document.querySelector("#bjdm-board .bjdm-grid");
  }

  function cellName(row, col) {
    return LETTERS[col] + (row + 1);
  }

  // Paint a 7-line board text; ``marks`` maps a cell to extra classes; ``active`` is the cell
  // holding the active powerup (``kind`` its name).
  function paint(text, marks, active, kind) {
    const table = grid();
    if (!table || !text) return;
    const rows = text.trim().split("\n");
    rows.forEach((line, row) => {
      line.trim().split("").forEach((gem, col) => {
        const name = cellName(row, col);
        const td = table.querySelector(`td[data-cell="${name}"]`);
        if (!td) return;
        let classes = "cell " + (CLASSES[gem] || "hole");
        if (marks && marks[name]) classes += " " + marks[name];
        if (active === name) classes += " has-active active-" + String(kind || "").toLowerCase();
        td.className = classes;
        td.dataset.gem = gem;
        td.title = name + ": " + (NAMES[gem] || gem) + (active === name ? " (" + kind + ")" : "");
        const span = td.querySelector(".gem");
        if (span) span.textContent = gem === "#" || gem === "." ? "" : gem;
      });
    });
  }

  function setCounter(value) {
    const counter = document.querySelector("#bjdm-board .bjdm-counter .count");
    if (counter) counter.textContent = String(value);
  }

  function setStepText(text) {
    const line = document.querySelector("#bjdm-board .bjdm-step-text");
    if (line) line.textContent = text || "";
  }

  function setReplayLabel(playing) {
    const button = document.querySelector("#bjdm-board .bjdm-replay");
    if (button) button.textContent = playing ? "Skip the animation" : "Replay the animation";
  }

  // The board as the server shows it now, with the builder's selections on top.
  function paintCurrent() {
    if (!view || !view.board) return;
    paint(view.board.text, selectionMarks(), null, null);
  }

  // --- the animation ------------------------------------------------------------------------

  function describeRemoval(cells) {
    const byCause = {};
    for (const cause of Object.values(cells)) byCause[cause] = (byCause[cause] || 0) + 1;
    return Object.entries(byCause)
      .map(([cause, n]) => `${n} by ${CAUSES[cause] || cause}`)
      .join(", ");
  }

  function framesFor(startBoard, steps) {
    const frames = [{ board: startBoard, marks: {}, count: 0, text: "The board before the turn.", ms: 900 }];
    let previous = startBoard;
    let kind = null;
    for (const step of steps) {
      const marks = {};
      const active = step.active_cell;
      if (step.kind === "place") {
        kind = step.active;
        marks[step.cell] = "placed";
        frames.push({ board: step.board, marks, active, kind, count: step.count, text: `${step.active} placed on ${step.cell}.`, ms: 1000 });
      } else if (step.kind === "starter") {
        for (const cell of step.cells) marks[cell] = "starter";
        frames.push({ board: step.board, marks, active, kind, count: step.count, text: `${step.starter} ${step.cells.join(" ")}.`, ms: 1000 });
      } else if (step.kind === "remove") {
        for (const [cell, cause] of Object.entries(step.cells)) marks[cell] = "flash flash-" + cause;
        const gone = Object.keys(step.cells).length;
        frames.push({ board: previous, marks, active: null, kind, count: step.count, text: `${gone} removed: ${describeRemoval(step.cells)}.`, ms: 1000 });
        frames.push({ board: step.board, marks: {}, active, kind, count: step.count, text: "", ms: 350 });
      } else if (step.kind === "activate") {
        marks[step.cell] = "activate activate-" + step.active.toLowerCase();
        frames.push({ board: step.board, marks, active: null, kind, count: step.count, text: `${step.active} goes off at ${step.cell}.`, ms: 1000 });
      } else if (step.kind === "recolor") {
        for (const cell of step.cells) marks[cell] = "recolored";
        frames.push({ board: step.board, marks, active, kind, count: step.count, text: `Recolor: every ${NAMES[step.from]} gem becomes ${NAMES[step.to]}.`, ms: 1000 });
      } else if (step.kind === "fall") {
        for (const [, to] of step.moves) marks[to] = "fell";
        for (const cell of step.rocks) marks[cell] = (marks[cell] ? marks[cell] + " " : "") + "new-rock";
        frames.push({ board: step.board, marks, active, kind, count: step.count, text: "Gravity: gems fall; rocks fill the top.", ms: 900 });
      } else if (step.kind === "refresh") {
        const text = step.used ? `Refresh: a second ${step.starter}.` : `Refresh went off: one more ${step.starter} may follow.`;
        frames.push({ board: step.board, marks, active, kind, count: step.count, text, ms: 1100 });
      }
      previous = step.board;
    }
    const last = steps.length ? steps[steps.length - 1] : null;
    const total = last ? last.count : 0;
    frames.push({ board: previous, marks: {}, active: last ? last.active_cell : null, kind, count: total, text: `${total} gems removed in all.`, ms: 0, last: true });
    return frames;
  }

  function showFrame() {
    if (!anim) return;
    const frame = anim.frames[anim.index];
    paint(frame.board, frame.marks, frame.active, frame.kind);
    setCounter(frame.count);
    setStepText(frame.text);
    const panel = document.getElementById("bjdm-board");
    if (panel) panel.classList.add("animating");
  }

  function advance() {
    if (!anim) return;
    const frame = anim.frames[anim.index];
    if (frame.last) {
      stop(frame.text);
      return;
    }
    anim.index += 1;
    showFrame();
    anim.timer = setTimeout(advance, anim.frames[anim.index].ms || 800);
  }

  function play(startBoard, steps) {
    stop();
    if (!startBoard || !steps || !steps.length) return;
    anim = { frames: framesFor(startBoard, steps), index: 0, timer: null };
    setReplayLabel(true);
    showFrame();
    anim.timer = setTimeout(advance, anim.frames[0].ms);
  }

  function stop(finalText) {
    if (anim && anim.timer) clearTimeout(anim.timer);
    const finalCount = anim ? anim.frames[anim.frames.length - 1].count : null;
    anim = null;
    const panel = document.getElementById("bjdm-board");
    if (panel) panel.classList.remove("animating");
    setReplayLabel(false);
    paintCurrent();
    if (finalCount !== null) setCounter(finalCount);
    setStepText(finalText || "");
  }

  function replay() {
    if (anim) {
      stop();
      return;
    }
    if (!view) return;
    if (view.phase === "second_starter" && view.pending) {
      play(view.pending.start_board, view.pending.steps);
    } else if (view.last_round && view.last_round.steps.length) {
      play(view.last_round.start_board, view.last_round.steps);
    }
  }

  // --- the proof builder --------------------------------------------------------------------

  function builderKey() {
    return view ? view.round + ":" + view.phase : "";
  }

  function freshBuilder() {
    return { key: builderKey(), active: null, passive: null, starter: null, cell: null, cells: [], colourA: "R", colourB: "B", target: "active", edited: false, typed: "" };
  }

  function selectionMarks() {
    const marks = {};
    if (can("proof") && builder) {
      if (builder.cell) marks[builder.cell] = "sel-active";
      for (const cell of builder.cells) marks[cell] = (marks[cell] ? marks[cell] + " " : "") + "sel-starter";
    } else if (can("second_starter") && second) {
      for (const cell of second.cells) marks[cell] = "sel-starter";
    }
    return marks;
  }

  function checkedValue(root, name) {
    const input = root.querySelector(`input[name="${name}"]:checked`);
    return input ? input.value : null;
  }

  function readBuilder(root) {
    builder.active = checkedValue(root, "b-active");
    builder.passive = checkedValue(root, "b-passive");
    const starter = checkedValue(root, "b-starter");
    if (starter !== builder.starter) builder.cells = builder.cells.slice(0, STARTER_CELLS[starter] || 2);
    builder.starter = starter;
    builder.target = checkedValue(root, "b-target") || "active";
    const a = root.querySelector('select[name="b-colour-a"]');
    const b = root.querySelector('select[name="b-colour-b"]');
    if (a) builder.colourA = a.value;
    if (b) builder.colourB = b.value;
  }

  function writeBuilder(root) {
    for (const [name, value] of [["b-active", builder.active], ["b-passive", builder.passive], ["b-starter", builder.starter], ["b-target", builder.target]]) {
      const input = value && root.querySelector(`input[name="${name}"][value="${value}"]`);
      if (input) input.checked = true;
    }
    const a = root.querySelector('select[name="b-colour-a"]');
    const b = root.querySelector('select[name="b-colour-b"]');
    if (a) a.value = builder.colourA;
    if (b) b.value = builder.colourB;
    const colours = root.querySelector(".b-colours");
    if (colours) {
      colours.hidden = builder.passive !== "Recolor" && builder.passive !== "Chain";
      const second = root.querySelector(".b-colour-b");
      if (second) second.hidden = builder.passive !== "Recolor";
    }
    const cellText = root.querySelector(".b-active-cell");
    if (cellText) cellText.textContent = builder.cell || "(click a gem)";
    const cellsText = root.querySelector(".b-starter-cells");
    if (cellsText) cellsText.textContent = builder.cells.length ? builder.cells.join(" ") : "(click on the board)";
    const input = document.getElementById("bjdm-proof");
    if (input) input.value = builder.edited ? builder.typed : composeProof();
  }

  function composeProof() {
    const parts = [];
    if (builder.active && builder.cell) parts.push(`${builder.active} ${builder.cell}`);
    if (builder.passive === "Recolor") parts.push(`Recolor ${builder.colourA} ${builder.colourB}`);
    else if (builder.passive === "Chain") parts.push(`Chain ${builder.colourA}`);
    else if (builder.passive) parts.push(builder.passive);
    if (builder.starter && builder.cells.length) parts.push(`${builder.starter} ${builder.cells.join(" ")}`);
    return parts.join("; ");
  }

  function setUpBuilder() {
    const root = document.querySelector("#bjdm-actions .bjdm-builder");
    if (!root) return;
    if (!builder || builder.key !== builderKey()) {
      builder = freshBuilder();
      readBuilder(root);
    }
    writeBuilder(root);
  }

  function toggle(list, cell, limit) {
    const at = list.indexOf(cell);
    if (at !== -1) {
      list.splice(at, 1);
      return;
    }
    list.push(cell);
    while (list.length > limit) list.shift();
  }

  function boardClick(cell) {
    if (anim) stop();
    const gem = grid().querySelector(`td[data-cell="${cell}"]`).dataset.gem;
    if (can("proof") && builder) {
      if (gem === "#") {
        setStepText(`${cell} is a rock: powerups take gems only.`);
        return;
      }
      if (builder.target === "active") {
        builder.cell = builder.cell === cell ? null : cell;
        if (builder.cell) builder.target = "starter";
      } else {
        toggle(builder.cells, cell, STARTER_CELLS[builder.starter] || 2);
      }
      builder.edited = false;
      writeBuilder(document.querySelector("#bjdm-actions .bjdm-builder"));
    } else if (can("second_starter")) {
      const form = document.querySelector(".bjdm-second-form");
      const starter = form ? form.dataset.starter : "";
      if (!second || second.key !== builderKey()) second = { key: builderKey(), cells: [] };
      if (gem === "#") {
        setStepText(`${cell} is a rock: ${starter} takes gems only.`);
        return;
      }
      toggle(second.cells, cell, STARTER_CELLS[starter] || 2);
      const input = document.getElementById("bjdm-second");
      if (input) input.value = second.cells.length ? `${starter} ${second.cells.join(" ")}` : "";
    }
    paintCurrent();
  }

  // --- wiring -------------------------------------------------------------------------------

  function refresh() {
    readView();
    setUpBuilder();
    if (anim) showFrame();
    else paintCurrent();
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest("#bjdm-board .bjdm-replay")) {
      replay();
      return;
    }
    if (event.target.closest("#bjdm-board .bjdm-show-optimum")) {
      const last = view && view.last_round;
      if (last && last.optimum) play(last.start_board, last.optimum.steps);
      return;
    }
    if (event.target.closest("#bjdm-actions .b-clear")) {
      if (builder) builder.cells = [];
      writeBuilder(document.querySelector("#bjdm-actions .bjdm-builder"));
      paintCurrent();
      return;
    }
    const td = event.target.closest("#bjdm-board .bjdm-grid td[data-cell]");
    if (td && (can("proof") || can("second_starter"))) boardClick(td.dataset.cell);
  });

  document.addEventListener("change", (event) => {
    const root = event.target.closest("#bjdm-actions .bjdm-builder");
    if (!root || !builder) return;
    readBuilder(root);
    builder.edited = false;
    writeBuilder(root);
    paintCurrent();
  });

  document.addEventListener("input", (event) => {
    if (event.target.id === "bjdm-proof" && builder) {
      builder.edited = true;
      builder.typed = event.target.value;
    }
  });

  document.addEventListener("gem:swapped", (event) => {
    const id = event.detail && event.detail.id;
    if (id && id.indexOf("bjdm-") === 0) refresh();
  });

  // The replay page swaps whole panels with htmx rather than through match.js.
  document.addEventListener("htmx:afterSwap", () => {
    stop();
    refresh();
  });

  document.addEventListener("gem:update", (event) => {
    readView();
    const kind = event.detail && event.detail.event && event.detail.event.kind;
    if ((kind === "round_over" || kind === "adjudicated") && view && view.last_round && view.last_round.steps.length) {
      play(view.last_round.start_board, view.last_round.steps);
    } else if (kind === "refresh_activated" && view && view.pending) {
      play(view.pending.start_board, view.pending.steps);
    }
  });

  function init() {
    loadCss();
    refresh();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
  window.bejeweledDm = { play, replay, view: () => view };
})();
