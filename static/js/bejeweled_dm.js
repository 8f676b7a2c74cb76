// Bejeweled death match page: the proof builder on the grid, the picks kept as a draft, and the
// resolution animation (played by the shared static/js/steps.js). Loaded once in the page head
// (the game's declared scripts). It never decides anything: the server's view (the JSON in
// #match-view) says what this viewer may do, and match.js sends the actions.
// What a player is composing lives here, not in the panels, so no update ever wipes it: the
// typed claim, the proof being built or typed, the second starter's cells and the ticked picks
// (the picks also as the seat's draft on the server, restored on reload and sealed at the end of
// the picking time; a whole pick's draft goes with its receipt). Keyboard: the board's cells
// are buttons (static/js/grid.js): arrow keys move, Enter chooses, Escape takes the last choice
// back.
(function () {
  "use strict";

  const LETTERS = "ABCDEFGH";
  // Each board character's look (css, name) as the server gives it (the board's data-looks:
  // games/bejeweled_dm/page.py LOOKS).
  function looks() {
    const table = grid();
    return table && table.dataset.looks ? JSON.parse(table.dataset.looks) : {};
  }
  function nameOf(gem) {
    const look = looks()[gem];
    return look ? look.name : gem;
  }
  const CAUSES = { match: "3 in a row", bend: "Bend", pick: "Pick", chain: "Chain", column: "Column", plus: "Plus" };
  const STARTER_CELLS = { Swap: 2, Rotate: 1, Pick: 2 };
  const FALLBACK_MS = { start: 500, place: 600, starter: 600, remove: 800, activate: 650, recolor: 700, fall: 500, refresh: 800 };

  let whole = null; // the whole view (game view, match facts, this seat's draft)
  let view = null; // the game's view
  let builder = null; // the proof being built, kept across panel swaps
  let second = null; // the second starter's cells after Refresh
  let typed = {}; // text typed into the claim and counterclaim boxes, by input id and round
  let pickChoice = null; // {round, pick: {type: name}}: ticked, maybe not sent
  let lastFocus = null; // what had the focus, to give it back after a panel swap
  let playing = false;

  // --- loading ------------------------------------------------------------------------------

  function readView() {
    const data = document.getElementById("match-view");
    whole = data ? JSON.parse(data.textContent) : null;
    view = whole && whole.game && whole.game.phase ? whole.game : null;
    return view;
  }

  function can(action) {
    return Boolean(view && view.actions && view.actions.indexOf(action) !== -1);
  }

  function stepMs(kind) {
    const table = (view && view.step_ms) || FALLBACK_MS;
    return table[kind] !== undefined ? table[kind] : 900;
  }

  // --- painting the grid --------------------------------------------------------------------

  function grid() {
    return document.querySelector("#bjdm-board .bjdm-grid");
  }

  function cellName(row, col) {
    return LETTERS[col] + (row + 1);
  }

  // The server draws the same empty cells for every board (bare buttons, the first one the
  // board's tab stop); the board's gems, each cell's class, label and tab order are painted here
  // from the view's text (view.board.text), after every swap of the board panel.
  // Paint a 7-line board text; ``marks`` maps a cell to extra classes; ``active`` is the cell
  // holding the active powerup (``kind`` its name).
  function paint(text, marks, active, kind) {
    const table = grid();
    if (!table || !text) return;
    const shown = looks();
    text.trim().split("\n").forEach((line, row) => {
      line.trim().split("").forEach((gem, col) => {
        const name = cellName(row, col);
        const button = table.querySelector(`[data-cell="${name}"]`);
        if (!button) return;
        let classes = "cell " + ((shown[gem] || {}).css || "hole");
        if (marks && marks[name]) classes += " " + marks[name];
        if (active === name) classes += " has-active active-" + String(kind || "").toLowerCase();
        if (button.className !== classes) button.className = classes;
        if (!button.hasAttribute("tabindex")) button.tabIndex = -1; // one tab stop: the server's 0
        if (!button.hasAttribute("type")) button.type = "button";
        button.dataset.gem = gem;
        let label = name + ", " + ((shown[gem] || {}).name || gem) + (active === name ? ", " + kind : "");
        if (marks && marks[name] && marks[name].indexOf("sel-") !== -1) label += ", chosen";
        button.setAttribute("aria-label", label);
        let span = button.querySelector(".gem");
        if (!span) {
          span = document.createElement("span");
          span.className = "gem";
          span.setAttribute("aria-hidden", "true");
          button.appendChild(span);
        }
        span.textContent = gem === "#" || gem === "." ? "" : gem;
      });
    });
  }

  function setCounter(value) {
    const counter = document.querySelector("#bjdm-board .bjdm-counter .count");
    if (counter) counter.textContent = String(value);
  }

  let shown = null; // {count, text} of the frame on the board while an animation plays

  function setStepText(text) {
    const line = document.querySelector("#bjdm-board .bjdm-step-text");
    if (line) line.textContent = text || "";
  }

  // A panel swapped in during an animation (an analysis arriving) shows the frame playing.
  function keepFrameText() {
    if (!playing || !shown) return;
    setCounter(shown.count);
    setStepText(shown.text);
  }

  function showControls() {
    const replay = document.querySelector("#bjdm-board .bjdm-replay");
    const skip = document.querySelector("#bjdm-board .bjdm-skip");
    if (replay) replay.hidden = playing;
    if (skip) skip.hidden = !playing;
    const panel = document.getElementById("bjdm-board");
    if (panel) panel.classList.toggle("animating", playing);
  }

  // The board as the server shows it now, with the builder's selections on top.
  function paintCurrent() {
    if (!view || !view.board) return;
    paint(view.board.text, selectionMarks(), null, null);
  }

  // --- the animation (frames for the shared step player) ------------------------------------

  function describeRemoval(cells) {
    const byCause = {};
    for (const cause of Object.values(cells)) byCause[cause] = (byCause[cause] || 0) + 1;
    return Object.entries(byCause)
      .map(([cause, n]) => `${n} by ${CAUSES[cause] || cause}`)
      .join(", ");
  }

  // The 2x2 square Rotate turns, clockwise from its top-left cell.
  function squareOf(topLeft) {
    const col = LETTERS.indexOf(topLeft[0]);
    const row = parseInt(topLeft.slice(1), 10);
    return [topLeft, LETTERS[col + 1] + row, LETTERS[col + 1] + (row + 1), LETTERS[col] + (row + 1)];
  }

  // How the starter moves the gems (a gem now in ``to`` came from ``from``): Swap exchanges two,
  // Rotate turns a square clockwise; Pick moves nothing (its gems burst next).
  function starterMoves(step) {
    if (step.starter === "Swap" && step.cells.length === 2) {
      const [a, b] = step.cells;
      return [[a, b], [b, a]];
    }
    if (step.starter === "Rotate" && step.cells.length) {
      const square = squareOf(step.cells[0]);
      return square.map((cell, i) => [square[(i + 3) % 4], cell]);
    }
    return [];
  }

  // Removal words, by how many removals the turn has made so far (the third and on).
  const WORDS = { 3: "Good!", 4: "Excellent!", 5: "Awesome!", 6: "Spectacular!", 7: "Incredible!" };
  const BLASTS = { column: true, plus: true };
  const ACTIVE_SOUND = { Column: "power", Plus: "power", Refresh: "level" };

  // The frames of a turn from its steps (each carries the board after it), for the shared step
  // player: the starter's gems slide, removed gems burst with their count rising from them (each
  // removal a step higher in pitch), an active powerup blasts the cells it takes, gems fall and
  // rocks drop in at the top. Each step's share of the time is the server's (flow.STEP_MS, read
  // from the view); the pick clock starts after the whole animation at normal speed.
  // The board after a step, drawn from the board before it and the step (flow.step_board):
  // the same board, the removed cells emptied, the recoloured cells' new colour, the fallen gems
  // moved and the rocks put in. A Swap's or Rotate's step always carries its board.
  function stepBoard(before, step) {
    const rows = before.split("\n").map((line) => line.split(""));
    const at = (cell) => [parseInt(cell.slice(1), 10) - 1, LETTERS.indexOf(cell[0])];
    const put = (cell, gem) => { const [r, c] = at(cell); rows[r][c] = gem; };
    const was = (cell) => { const [r, c] = at(cell); return before.split("\n")[r][c]; };
    if (step.kind === "remove") for (const cell of Object.keys(step.cells)) put(cell, ".");
    else if (step.kind === "recolor") for (const cell of step.cells) put(cell, step.to);
    else if (step.kind === "fall") {
      for (const [from, to] of step.moves) put(to, was(from));
      for (const cell of step.rocks) put(cell, "#");
    }
    return rows.map((row) => row.join("")).join("\n");
  }

  // The steps as they travel (flow.compact_steps) made whole again: cells unpacked from their
  // texts ("A4B4C4", a fall's moves as from-to pairs, a removal's runs of one cause), and each
  // step's board, active cell and count where the step left them out.
  const cellsIn = (text) => text.match(/../g) || [];
  function unpacked(step) {
    const whole = Object.assign({}, step);
    if (step.kind === "remove" && Array.isArray(step.cells)) {
      whole.cells = {};
      for (const [cause, text] of step.cells) for (const cell of cellsIn(text)) whole.cells[cell] = cause;
    } else if (typeof step.cells === "string") {
      whole.cells = cellsIn(step.cells);
    }
    if (typeof step.rocks === "string") whole.rocks = cellsIn(step.rocks);
    if (typeof step.moves === "string") whole.moves = (step.moves.match(/..../g) || []).map((pair) => [pair.slice(0, 2), pair.slice(2)]);
    return whole;
  }

  function fullSteps(startBoard, steps) {
    let board = startBoard;
    let active = null;
    let count = 0;
    return steps.map((short) => {
      const step = unpacked(short);
      if (step.kind === "remove") count += Object.keys(step.cells).length;
      const full = Object.assign({ active_cell: active, count }, step);
      if (full.board === undefined) full.board = stepBoard(board, full);
      board = full.board;
      active = full.active_cell;
      count = full.count;
      return full;
    });
  }

  function framesFor(startBoard, shortSteps) {
    const steps = fullSteps(startBoard, shortSteps);
    const frames = [{ grid: "bjdm", board: startBoard, marks: {}, count: 0, text: "The board before the turn.", ms: stepMs("start") }];
    let previous = startBoard;
    let kind = null;
    let depth = 0;
    steps.forEach((step, i) => {
      const marks = {};
      const active = step.active_cell;
      const ms = stepMs(step.kind);
      const frame = { grid: "bjdm", board: step.board, marks, active, kind, count: step.count, ms };
      if (step.kind === "place") {
        kind = step.active;
        marks[step.cell] = "placed";
        Object.assign(frame, { kind, text: `${step.active} placed on ${step.cell}.`, sound: "swap",
          floats: [{ cells: [step.cell], text: step.active }] });
      } else if (step.kind === "starter") {
        for (const cell of step.cells) marks[cell] = "starter";
        const moves = starterMoves(step);
        Object.assign(frame, { text: `${step.starter} ${step.cells.join(" ")}.`, moves, sound: "swap" });
      } else if (step.kind === "remove") {
        depth += 1;
        const cells = Object.keys(step.cells);
        const causes = Object.values(step.cells);
        // First the gems about to go, outlined by what removes them; then they burst.
        const outlined = {};
        for (const [cell, cause] of Object.entries(step.cells)) outlined[cell] = "going going-" + cause;
        const text = `${cells.length} removed: ${describeRemoval(step.cells)}.`;
        const first = Math.round(ms * 0.4);
        frames.push({ grid: "bjdm", board: previous, marks: outlined, active: null, kind, count: step.count - cells.length, text, ms: first });
        const blast = causes.some((cause) => BLASTS[cause]);
        Object.assign(frame, { text, ms: ms - first, bursts: cells, depth, sound: blast ? "power" : "match",
          floats: [{ cells, text: `+${cells.length}` }] });
        if (WORDS[Math.min(depth, 7)] && !frames.some((f) => f.word === WORDS[Math.min(depth, 7)])) frame.word = WORDS[Math.min(depth, 7)];
      } else if (step.kind === "activate") {
        marks[step.cell] = "activate activate-" + step.active.toLowerCase();
        const next = steps[i + 1];
        const cause = step.active.toLowerCase();
        if (next && next.kind === "remove") {
          for (const [cell, why] of Object.entries(next.cells)) if (why === cause) marks[cell] = (marks[cell] ? marks[cell] + " " : "") + "blast blast-" + cause;
        }
        Object.assign(frame, { active: null, text: `${step.active} goes off at ${step.cell}.`, sound: ACTIVE_SOUND[step.active] || "power",
          floats: [{ cells: [step.cell], text: `${step.active}!` }] });
      } else if (step.kind === "recolor") {
        for (const cell of step.cells) marks[cell] = "recolored";
        Object.assign(frame, { text: `Recolor: every ${nameOf(step.from)} gem becomes ${nameOf(step.to)}.`, sound: "hypercube" });
      } else if (step.kind === "fall") {
        Object.assign(frame, { text: "Gravity: gems fall; rocks fill the top.", moves: step.moves, drops: step.rocks });
      } else if (step.kind === "refresh") {
        const text = step.used ? `Refresh: a second ${step.starter}.` : `Refresh went off: one more ${step.starter} may follow.`;
        frame.text = text;
      } else {
        return;
      }
      frames.push(frame);
      previous = step.board;
    });
    const last = steps.length ? steps[steps.length - 1] : null;
    const total = last ? last.count : 0;
    frames.push({ grid: "bjdm", board: previous, marks: {}, active: last ? last.active_cell : null, kind, count: total, text: `${total} gems removed in all.`, ms: 0, last: true });
    return frames;
  }

  let painted = null; // the animation frame on the board, to paint again on a fresh board panel

  function showFrame(frame) {
    painted = frame;
    if (frame.last) {
      // The animation is over: the board as the server shows it now, the count and the summary.
      paintCurrent();
    } else {
      paint(frame.board, frame.marks, frame.active, frame.kind);
    }
    setCounter(frame.count);
    setStepText(frame.text);
    shown = { count: frame.count, text: frame.text };
  }

  function play(startBoard, steps) {
    if (!startBoard || !steps || !steps.length || !window.gemSteps) return;
    playing = true;
    showControls();
    window.gemSteps.play(framesFor(startBoard, steps), showFrame, {
      done: () => { playing = false; showControls(); },
    });
  }

  // The steps on show (the turn so far after Refresh, or the last round's proof), from the view.
  function replay() {
    if (view && view.steps && view.steps.length) play(view.steps_from, view.steps);
  }

  // --- the proof builder --------------------------------------------------------------------

  function builderKey() {
    return view ? view.round + ":" + view.phase : "";
  }

  // Nothing is chosen and the proof box is empty until the player chooses something.
  function freshBuilder() {
    return { key: builderKey(), active: null, passive: null, starter: null, cell: null, cells: [], colourA: "", colourB: "", target: "active", touched: false, edited: false, typed: "", history: [] };
  }

  function selectionMarks() {
    const marks = {};
    if (can("proof") && builder) {
      if (builder.cell) marks[builder.cell] = "sel-active";
      for (const cell of builder.cells) marks[cell] = (marks[cell] ? marks[cell] + " " : "") + "sel-starter";
    } else if (can("second_starter") && second && second.key === builderKey()) {
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
    if (!root) return;
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
      const secondColour = root.querySelector(".b-colour-b");
      if (secondColour) secondColour.hidden = builder.passive !== "Recolor";
    }
    const cellText = root.querySelector(".b-active-cell");
    if (cellText) cellText.textContent = builder.cell || "(choose a gem on the board)";
    const cellsText = root.querySelector(".b-starter-cells");
    if (cellsText) cellsText.textContent = builder.cells.length ? builder.cells.join(" ") : "(choose on the board)";
    const input = document.getElementById("bjdm-proof");
    if (input) {
      const text = builder.edited ? builder.typed : (builder.touched ? composeProof() : "");
      if (input.value !== text) input.value = text;
    }
  }

  // The proof as far as the player has chosen it; a part not chosen yet is left out.
  function composeProof() {
    const parts = [];
    if (builder.active && builder.cell) parts.push(`${builder.active} ${builder.cell}`);
    if (builder.passive === "Recolor") {
      if (builder.colourA && builder.colourB) parts.push(`Recolor ${builder.colourA} ${builder.colourB}`);
    } else if (builder.passive === "Chain") {
      if (builder.colourA) parts.push(`Chain ${builder.colourA}`);
    } else if (builder.passive) {
      parts.push(builder.passive);
    }
    if (builder.starter && builder.cells.length) parts.push(`${builder.starter} ${builder.cells.join(" ")}`);
    return parts.join("; ");
  }

  function setUpBuilder() {
    const root = document.querySelector("#bjdm-actions .bjdm-builder");
    // The builder waits hidden in the page until its player comes to prove: set up only then.
    if (!root || root.closest("[hidden]")) return;
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

  function rememberBuilder() {
    builder.history.push(JSON.stringify({ cell: builder.cell, cells: builder.cells, target: builder.target }));
  }

  function chooseCell(cell) {
    if (playing && window.gemSteps) window.gemSteps.stop();
    const button = grid() && grid().querySelector(`[data-cell="${cell}"]`);
    const gem = button ? button.dataset.gem : "";
    if (can("proof") && builder) {
      if (gem === "#") {
        setStepTextOrHint(`${cell} is a rock: powerups take gems only.`);
        return;
      }
      rememberBuilder();
      if (builder.target === "active") {
        builder.cell = builder.cell === cell ? null : cell;
        if (builder.cell) builder.target = "starter";
      } else {
        toggle(builder.cells, cell, STARTER_CELLS[builder.starter] || 2);
      }
      builder.touched = true;
      builder.edited = false; // choosing on the board replaces typed text, never glues onto it
      writeBuilder(document.querySelector("#bjdm-actions .bjdm-builder"));
    } else if (can("second_starter")) {
      const form = document.querySelector(".bjdm-second-form");
      const starter = form ? form.dataset.starter : "";
      if (!second || second.key !== builderKey()) second = { key: builderKey(), cells: [], history: [] };
      if (gem === "#") {
        setStepTextOrHint(`${cell} is a rock: ${starter} takes gems only.`);
        return;
      }
      second.history.push(second.cells.slice());
      toggle(second.cells, cell, STARTER_CELLS[starter] || 2);
      delete second.typed; // choosing on the board replaces typed text
      writeSecond();
    }
    paintCurrent();
  }

  // Escape: take the last choice on the board back.
  function cancelChoice() {
    if (can("proof") && builder && builder.history.length) {
      const before = JSON.parse(builder.history.pop());
      builder.cell = before.cell;
      builder.cells = before.cells;
      builder.target = before.target;
      builder.edited = false;
      writeBuilder(document.querySelector("#bjdm-actions .bjdm-builder"));
    } else if (can("second_starter") && second && second.history.length) {
      second.cells = second.history.pop();
      delete second.typed;
      writeSecond();
    }
    paintCurrent();
  }

  function writeSecond() {
    const input = document.getElementById("bjdm-second");
    const form = document.querySelector(".bjdm-second-form");
    if (!input || !form || !second || second.key !== builderKey()) return;
    if (second.typed !== undefined) { input.value = second.typed; return; }
    input.value = second.cells.length ? `${form.dataset.starter} ${second.cells.join(" ")}` : "";
  }

  function setStepTextOrHint(text) {
    const hint = document.querySelector("#bjdm-actions .b-target .hint");
    if (hint) hint.textContent = text;
  }

  // --- what the player typed or ticked survives every update ---------------------------------

  function restoreTyped() {
    for (const id of ["bjdm-claim-count", "bjdm-counter-count"]) {
      const input = document.getElementById(id);
      const kept = typed[id];
      if (input && kept && kept.round === (view && view.round) && input.value !== kept.value) input.value = kept.value;
    }
  }

  function pickForm() {
    return document.querySelector("#bjdm-actions .bjdm-pick-form");
  }

  function restorePicks() {
    const form = pickForm();
    if (!form || !view) return;
    let kept = pickChoice && pickChoice.round === view.round ? pickChoice.pick : null;
    if (!kept && whole && whole.draft && whole.draft.round === view.round) kept = whole.draft.pick;
    if (!kept) return;
    for (const [kind, name] of Object.entries(kept)) {
      const input = form.querySelector(`input[name="${kind}"][value="${name}"]:not(:disabled)`);
      if (input) input.checked = true;
    }
  }

  // A whole pick ticked before this seat has picked is what the end of the picking time would
  // seal: the draft goes with the receipt of that pick (static/js/fairness.js), shown to everyone
  // at once and checked when the clock reveals it.
  function pickDraft(form, pick) {
    const draft = { pick: pick };
    const types = new Set(Array.from(form.querySelectorAll("input[type=radio]"), (input) => input.name));
    const whole = Array.from(types).every((type) => pick[type]);
    const picked = view.picks && view.picks.mine;
    if (!whole || picked || !window.gemSealDraft) return draft;
    return window.gemSealDraft(draft, Object.assign({ type: "pick" }, pick));
  }

  function readPicks(form) {
    const pick = {};
    for (const input of form.querySelectorAll("input[type=radio]:checked")) pick[input.name] = input.value;
    return pick;
  }

  // --- focus survives panel swaps -------------------------------------------------------------

  function describeFocus(element) {
    if (!element || element === document.body) return null;
    const panel = element.closest("section[id^='bjdm-']");
    if (!panel) return null;
    if (element.dataset && element.dataset.cell) return { panel: panel.id, selector: `[data-cell="${element.dataset.cell}"]` };
    if (element.id) return { panel: panel.id, selector: "#" + element.id };
    if (element.name && element.type === "radio") return { panel: panel.id, selector: `input[name="${element.name}"][value="${element.value}"]` };
    const form = element.closest("form[data-action]");
    if (form) return { panel: panel.id, selector: `form[data-action="${form.dataset.action}"] ${element.tagName.toLowerCase()}` };
    for (const name of ["bjdm-replay", "bjdm-skip", "bjdm-show-optimum"]) {
      if (element.classList.contains(name)) return { panel: panel.id, selector: "." + name };
    }
    return null;
  }

  function usable(element) {
    return Boolean(element && !element.disabled && !element.closest("[hidden]"));
  }

  // The control the player was on, in the panel that replaced it; when it is gone (a claim or a
  // pass sent, the phase moved on), the panel's first control, else its prompt: the keyboard
  // goes on from the panel the player was in, never from the top of the page.
  function giveFocusBack(panel) {
    if (!lastFocus || lastFocus.panel !== panel.id) return;
    const active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) return;
    let target = panel.querySelector(lastFocus.selector);
    if (!usable(target)) {
      target = [...panel.querySelectorAll("input:not([type=hidden]), select, textarea, button")].find(usable)
        || panel.querySelector(".bjdm-prompt");
      if (!target) return;
      if (!target.matches("input, select, textarea, button")) target.tabIndex = -1;
    }
    if (target.dataset && target.dataset.cell) {
      for (const other of panel.querySelectorAll("[data-cell][tabindex='0']")) other.tabIndex = -1;
      target.tabIndex = 0;
    }
    target.focus({ preventScroll: true });
  }

  // --- wiring -------------------------------------------------------------------------------

  function refresh() {
    readView();
    setUpBuilder();
    writeSecond();
    restoreTyped();
    restorePicks();
    if (!playing) paintCurrent();
    else if (painted && !painted.last) paint(painted.board, painted.marks, painted.active, painted.kind);
    keepFrameText();
    showControls();
  }

  document.addEventListener("focusin", (event) => {
    const described = describeFocus(event.target);
    if (described) lastFocus = described;
  });

  document.addEventListener("click", (event) => {
    if (event.target.closest("#bjdm-board .bjdm-replay")) {
      replay();
      return;
    }
    if (event.target.closest("#bjdm-board .bjdm-show-optimum")) {
      if (view && view.optimum_steps && view.optimum_steps.length) play(view.steps_from, view.optimum_steps);
      return;
    }
    if (event.target.closest("#bjdm-actions .b-clear")) {
      if (builder) {
        rememberBuilder();
        builder.cells = [];
        builder.edited = false;
      }
      writeBuilder(document.querySelector("#bjdm-actions .bjdm-builder"));
      paintCurrent();
    }
  });

  document.addEventListener("gem:cell", (event) => {
    if (event.detail.grid !== "bjdm") return;
    if (can("proof") || can("second_starter")) chooseCell(event.detail.cell);
  });

  document.addEventListener("gem:cancel", (event) => {
    if (event.detail.grid === "bjdm") cancelChoice();
  });

  // Picks ticked in another tab of this seat are the seat's picks: ticked here too.
  document.addEventListener("gem:draft", (event) => {
    const draft = event.detail.draft;
    if (!event.detail.elsewhere || !draft || !draft.pick || !view) return;
    readView();
    pickChoice = { round: draft.round !== undefined ? draft.round : view.round, pick: draft.pick };
    const form = pickForm();
    if (!form || pickChoice.round !== view.round) return;
    for (const input of form.querySelectorAll("input[type=radio]")) {
      input.checked = !input.disabled && draft.pick[input.name] === input.value;
    }
  });

  document.addEventListener("change", (event) => {
    const form = event.target.closest("#bjdm-actions .bjdm-pick-form");
    if (form && view) {
      pickChoice = { round: view.round, pick: readPicks(form) };
      if (window.gemArena && window.gemArena.saveDraft) window.gemArena.saveDraft(pickDraft(form, pickChoice.pick));
      return;
    }
    const root = event.target.closest("#bjdm-actions .bjdm-builder");
    if (!root || !builder) return;
    readBuilder(root);
    builder.touched = true;
    builder.edited = false;
    writeBuilder(root);
    paintCurrent();
  });

  document.addEventListener("input", (event) => {
    const id = event.target.id;
    if (id === "bjdm-proof" && builder) {
      builder.edited = true;
      builder.typed = event.target.value;
    } else if (id === "bjdm-second") {
      if (!second || second.key !== builderKey()) second = { key: builderKey(), cells: [], history: [] };
      second.typed = event.target.value;
    } else if ((id === "bjdm-claim-count" || id === "bjdm-counter-count") && view) {
      typed[id] = { round: view.round, value: event.target.value };
    }
  });

  document.addEventListener("gem:swapped", (event) => {
    const panel = event.detail;
    if (!panel || !panel.id || panel.id.indexOf("bjdm-") !== 0) return;
    refresh();
    giveFocusBack(panel);
  });

  // The replay page swaps whole panels with htmx rather than through match.js.
  document.addEventListener("htmx:afterSwap", () => {
    if (playing && window.gemSteps) window.gemSteps.stop();
    refresh();
  });

  document.addEventListener("gem:update", (event) => {
    readView();
    // A proof's steps come with its event (round_over, refresh_activated): played from there.
    const happened = event.detail && event.detail.event;
    const kind = happened && happened.kind;
    const steps = happened && happened.data && happened.data.steps;
    if ((kind === "round_over" || kind === "refresh_activated") && view && steps && steps.length) {
      play(view.steps_from, steps);
    } else if (playing && view && view.phase === "claim" && window.gemSteps) {
      window.gemSteps.stop(); // a new round: its board, not last round's animation
    }
  });

  function init() {
    refresh();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
  window.bejeweledDm = { play, replay, view: () => view };
})();
