// Seven Gem Swap's page: the sealed bid, the sequence composer (pick a gem on the grid, add moves
// with the arrow keys, the buttons or a click on the cell beside the path's end), the draft kept
// by the server for your seat, the before/after grid of the last round, and for the host the
// round played step by step. It decides no rules: the server judges every submission, and with
// each draft it keeps answers what the sequence would do if no one else moved (the draft's
// "preview": the path, where it ends, the cells beside the end, the grid after it, the group it
// makes, in words). The script draws that answer, plays each round's resolution with the shared
// step player (static/js/steps.js: the host sees its steps, everyone else the public grids before
// and after; then the groups that scored burst with their points) and collects input.
(function () {
  "use strict";
  const KEYS = { ArrowUp: "U", ArrowDown: "D", ArrowLeft: "L", ArrowRight: "R" };
  const NOT_A_MOVE = /[^UDLR]/g; // the letters a sequence is typed in
  const SEND_GAP_MS = 120; // drafts at most this often: the socket allows 10 messages a second
  const ANSWER_WAIT_MS = 3000; // a draft unanswered this long no longer holds the next one back

  let compose = null; // {round, gem, moves, card, premove} while a round is being composed
  let answer = null; // the draft as the server last kept it, with its preview
  let drawn = null; // {round, gem, preview}: the preview on the grid now
  let sentAt = 0; // when the last draft was sent
  let waiting = false; // a draft is on its way and unanswered
  let dirty = false; // the composer changed since the draft on its way
  let sendTimer = null;
  let held = []; // grid clicks waiting for the preview that says where the path ends
  let showingBefore = false;

  function currentView() {
    if (window.gemArena) return window.gemArena.view();
    const data = document.getElementById("match-view");
    return data ? JSON.parse(data.textContent) : null;
  }
  function game() { const v = currentView(); return v ? v.game : null; }

  // --- drawing a grid ---------------------------------------------------------------------------

  function gridButtons() {
    return Array.from(document.querySelectorAll('[data-grid="sgs"] [data-cell]'));
  }

  // Draw ``board`` (the text of a grid) on the page's grid with the looks the server gave the
  // grid; ``marksOf(cell)`` gives a cell's extra classes.
  function paint(board, marksOf) {
    const looks = game().grid.looks;
    const contents = board.replace(/\n/g, "");
    gridButtons().forEach((button, index) => {
      const look = looks[contents[index]];
      const marks = marksOf(button.dataset.cell);
      button.className = "cell " + look.css + (marks ? " " + marks : "");
      button.querySelector(".gem").textContent = look.text;
      button.setAttribute("aria-label", button.dataset.cell + ", " + look.name);
      delete button.dataset.step;
    });
  }

  // The marks of the grid now: the player's own gems and the cells the last round changed.
  // Only the board travels in frames (the panel's HTML holds the cells, not what is in them).
  function gridMarks(g) {
    const marks = {};
    const add = (cell, mark) => { marks[cell] = marks[cell] ? marks[cell] + " " + mark : mark; };
    for (const cell of ownGems(g)) add(cell, "sgs-own");
    if (g.last_round && g.phase !== "bidding") g.last_round.changed.forEach((cell) => add(cell, "sgs-changed"));
    return marks;
  }

  // The cells of the player's own gems on the grid now (none for a spectator or the host).
  function ownGems(g) {
    const own = g.me && g.me.colour;
    if (!own) return [];
    const cells = [];
    g.board.replace(/\n/g, "").split("").forEach((gem, index) => { if (gem === own) cells.push(cellName(index)); });
    return cells;
  }

  const COLUMNS = "ABCDEFGHIJ";
  function cellName(index) { return COLUMNS[index % 10] + String(Math.floor(index / 10) + 1); }
  function cellIndex(cell) { return (parseInt(cell.slice(1), 10) - 1) * 10 + COLUMNS.indexOf(cell[0]); }

  function paintNow(g) {
    const marks = gridMarks(g);
    paint(g.board, (cell) => marks[cell]);
  }

  // The grid's caption as the server drew it last (the script shows others over it while a
  // preview, a step or the grid before is on the grid): read whenever the panel is drawn.
  let captionNow = "";
  function readCaption() {
    const element = document.querySelector('[data-grid="sgs"] caption');
    if (element) captionNow = element.textContent;
  }

  function caption(text) {
    const element = document.querySelector('[data-grid="sgs"] caption');
    if (element) element.textContent = text;
  }

  function markCell(cell, ...classes) {
    const button = document.querySelector(`[data-grid="sgs"] [data-cell="${cell}"]`);
    if (button) button.classList.add(...classes);
    return button;
  }

  // --- the composer's state ---------------------------------------------------------------------

  function sameSequence(a, b) {
    return a.gem === b.gem && (a.moves || "") === (b.moves || "") && (a.card || "") === (b.card || "");
  }

  // The server's preview of what the composer holds now, or null while it is on its way.
  function previewNow() {
    if (!compose || !compose.gem) return null;
    if (answer && answer.preview && answer.round === compose.round && sameSequence(answer, compose)) {
      return answer.preview;
    }
    const me = game().me;
    if (me.submission && me.preview && sameSequence(me.submission, compose)) return me.preview;
    return null;
  }

  function syncCompose() {
    const v = currentView();
    const g = v && v.game;
    if (!g || !g.me || g.phase !== "round" || (v.match && v.match.status !== "live")) {
      compose = null;
      return;
    }
    if (compose && compose.round === g.round) return;
    const draft = v.draft && (v.draft.round === undefined || v.draft.round === g.round) ? v.draft : null;
    const base = draft || g.me.submission || {};
    compose = {
      round: g.round,
      gem: base.gem || "",
      moves: base.moves || "",
      card: base.card || "",
      premove: Boolean(base.premove),
    };
    answer = draft ? Object.assign({ round: g.round }, draft) : null;
    drawn = null;
    held = [];
    // A draft kept before drafts carried their preview: ask for it.
    if (compose.gem && !previewNow()) askPreview();
  }

  // Send the composer as the seat's draft: one on its way at a time, and not more often than
  // SEND_GAP_MS; a change made meanwhile goes with the next one.
  function askPreview() {
    if (!compose) return;
    if (waiting && Date.now() - sentAt < ANSWER_WAIT_MS) { dirty = true; return; }
    clearTimeout(sendTimer);
    sendTimer = setTimeout(sendDraft, Math.max(0, sentAt + SEND_GAP_MS - Date.now()));
  }

  function sendDraft() {
    if (!compose || !window.gemArena) return;
    const draft = { round: compose.round, gem: compose.gem, moves: compose.moves, premove: compose.premove };
    if (compose.card) draft.card = compose.card;
    if (!window.gemArena.saveDraft(draft)) { dirty = true; waiting = false; return; } // offline
    sentAt = Date.now();
    waiting = true;
    dirty = false;
  }

  function change(update) {
    if (!compose) return;
    Object.assign(compose, update);
    const state = document.querySelector("#sgs-play .sgs-draft-state");
    if (state) state.textContent = "Not submitted yet: submit to make it count.";
    const refusal = document.querySelector("#sgs-play .sgs-compose .sgs-refusal");
    if (refusal && state) { refusal.remove(); state.hidden = false; }
    render();
    askPreview();
  }

  function addMove(move) {
    if (!compose || !compose.gem) { tell("Pick your gem on the grid first."); return; }
    const most = game().max_moves;
    if (compose.moves.length >= most) { tell(`A sequence has at most ${most} moves.`); return; }
    change({ moves: compose.moves + move });
  }

  function tell(text, updating) {
    const line = document.querySelector("#sgs-play .sgs-preview-text");
    if (!line) return;
    line.textContent = text;
    line.classList.toggle("sgs-updating", Boolean(updating));
    line.setAttribute("aria-busy", updating ? "true" : "false");
  }

  // --- drawing the composer ---------------------------------------------------------------------

  function render() {
    const g = game();
    if (!g || showingBefore || (window.gemSteps && window.gemSteps.playing)) return;
    const form = document.querySelector("#sgs-play .sgs-compose");
    if (!compose || !form) return;
    form.querySelector(".sgs-gem-name").textContent = compose.gem || "none yet";
    form.querySelector(".sgs-moves").textContent = compose.moves ? compose.moves.split("").join(" ") : "(none)";
    form.querySelector(".sgs-count").textContent = compose.moves.length + "/" + g.max_moves;
    const typed = form.querySelector('input[name="moves"]');
    if (document.activeElement !== typed) typed.value = compose.moves;
    for (const radio of form.querySelectorAll('input[name="card"]')) radio.checked = radio.value === compose.card;
    const premove = form.querySelector('input[name="premove"]');
    if (premove) premove.checked = compose.premove;
    form.querySelector(".sgs-submit").disabled = !compose.gem;
    if (!compose.gem) {
      drawn = null;
      paintNow(g);
      caption(captionNow);
      tell("Click one of your " + (g.me.colour_name || "") + " gems on the grid.");
      return;
    }
    const fresh = previewNow();
    if (fresh) drawn = { round: compose.round, gem: compose.gem, preview: fresh };
    // Until the server answers, the preview of the same gem drawn before stays, marked updating.
    const preview = fresh || (drawn && drawn.round === compose.round && drawn.gem === compose.gem ? drawn.preview : null);
    if (!preview) {
      paintNow(g);
      caption(captionNow);
      markCell(compose.gem, "sgs-picked");
      tell("Working out your path…", true);
      return;
    }
    const marks = gridMarks(g);
    paint(preview.board, (cell) => marks[cell]);
    caption(preview.caption);
    preview.path.forEach((cell, index) => {
      const button = markCell(cell, index === 0 ? "sgs-picked" : "sgs-path");
      if (button && index > 0) button.dataset.step = String(index);
      if (index === preview.path.length - 1) markCell(cell, "sgs-path-end");
    });
    if (preview.failed && preview.failed.cell) markCell(preview.failed.cell, "sgs-fail");
    tell(preview.text, !fresh);
  }

  // --- input --------------------------------------------------------------------------------------

  // A cell chosen on the grid: beside the path's end, it adds the move going there; one of your
  // gems, it becomes the gem you control. Where the end is comes with the preview: a click made
  // while the preview is on its way waits for it.
  function chooseCell(cell, drag) {
    const g = game();
    if (compose.gem) {
      const preview = previewNow();
      if (!preview) { held.push({ cell: cell, drag: drag }); return; }
      if (preview.next[cell]) { addMove(preview.next[cell]); return; }
      if (cell === preview.end) return;
    }
    if (ownGems(g).indexOf(cell) === -1) {
      if (!drag) tell(`${cell} is not one of your ${g.me.colour_name} gems; click one of yours, or a cell next to your path's end.`);
      return;
    }
    if (cell === compose.gem) return;
    change({ gem: cell, moves: "" });
    const pad = document.querySelector("#sgs-play .sgs-pad");
    if (pad && !drag) pad.focus();
  }

  function chooseHeld() {
    while (held.length && compose && previewNow()) {
      const next = held.shift();
      chooseCell(next.cell, next.drag);
    }
  }

  document.addEventListener("gem:cell", (event) => {
    if (event.detail.grid !== "sgs" || !compose) return;
    chooseCell(event.detail.cell, event.detail.drag);
  });

  // The server's answer to a draft: the draft as kept, with its preview (the host gets every
  // seat's drafts, with the seat's number; the host composes nothing).
  document.addEventListener("gem:draft", (event) => {
    if ("seat" in event.detail || !compose) return;
    answer = event.detail.draft;
    waiting = false;
    if (dirty) askPreview();
    render();
    chooseHeld();
  });

  // A refused bid or submission (the match paused, the round closed...) is said in its form,
  // where the player pressed the button, not in the banner.
  // In the sequence's form the refusal takes the place of the draft's state line (the same room,
  // kept for either): nothing under it moves; the player's next change brings the state back.
  function notSent(form, message) {
    const state = form.querySelector(".sgs-draft-state");
    let line = form.querySelector(".sgs-refusal");
    if (!line) {
      line = document.createElement("p");
      line.className = "sgs-refusal action-error";
      line.setAttribute("role", "alert");
      if (state) state.after(line);
      else form.appendChild(line);
    }
    line.textContent = "Not sent: " + message + ".";
    if (state) {
      state.textContent = "Not submitted yet: submit to make it count.";
      state.hidden = true;
    }
  }

  document.addEventListener("gem:refused", (event) => {
    const action = event.detail.action;
    if (!action || (action.type !== "submit" && action.type !== "bid")) return;
    const form = document.querySelector(action.type === "bid" ? ".sgs-bid-form" : "#sgs-play .sgs-compose");
    // Nothing was played, unless a later submission is on its way (a refusal of an earlier
    // one can arrive after the player fixed it and sent it again).
    if (action === lastSubmit) played = null;
    if (!form) return;
    event.preventDefault();
    notSent(form, event.detail.message);
  });

  document.addEventListener("gem:refused", (event) => {
    if (event.detail.action || !waiting) return; // an action's refusal, not the draft's
    waiting = false;
    held = [];
    render();
  });

  document.addEventListener("gem:open", () => {
    if (compose && (dirty || waiting)) { waiting = false; askPreview(); }
  });

  document.addEventListener("keydown", (event) => {
    const pad = event.target.closest && event.target.closest(".sgs-pad");
    if (!pad || !compose) return;
    if (KEYS[event.key]) { event.preventDefault(); addMove(KEYS[event.key]); }
    else if (event.key === "Backspace") { event.preventDefault(); change({ moves: compose.moves.slice(0, -1) }); }
    else if (/^[udlrUDLR]$/.test(event.key)) { event.preventDefault(); addMove(event.key.toUpperCase()); }
  });

  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-move]");
    if (button && compose) {
      const move = button.dataset.move;
      if (move === "undo") change({ moves: compose.moves.slice(0, -1) });
      else if (move === "clear") change({ moves: "" });
      else addMove(move);
      return;
    }
    if (event.target.closest && event.target.closest(".sgs-toggle-before")) toggleBefore();
    if (event.target.closest && event.target.closest(".sgs-host-play")) playHostRound();
  });

  document.addEventListener("input", (event) => {
    if (!compose || !event.target.closest("#sgs-play .sgs-compose")) return;
    if (event.target.name === "moves") {
      const clean = event.target.value.toUpperCase().replace(NOT_A_MOVE, "").slice(0, game().max_moves);
      if (clean !== event.target.value) event.target.value = clean;
      change({ moves: clean });
    }
  });

  document.addEventListener("change", (event) => {
    if (!compose || !event.target.closest("#sgs-play .sgs-compose")) return;
    if (event.target.name === "card") change({ card: event.target.value });
    if (event.target.name === "premove") change({ premove: event.target.checked });
  });

  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (form.matches(".sgs-compose")) {
      event.preventDefault();
      if (!compose) {
        // The composer stops while the match is not live (paused): say so where it was pressed.
        const v = currentView();
        const status = v && v.match ? v.match.status : "";
        if (status === "paused") notSent(form, "the host has paused the match; submit when it resumes");
        return;
      }
      clearTimeout(sendTimer); // the submission replaces the draft
      dirty = false;
      played = compose.gem;
      lastSubmit = {
        type: "submit", round: compose.round, gem: compose.gem, moves: compose.moves,
        card: compose.card || null, premove: compose.premove,
      };
      window.gemArena.send(lastSubmit);
      const state = form.querySelector(".sgs-draft-state");
      if (state) state.textContent = "Sending…";
    } else if (form.matches(".sgs-bid-form")) {
      event.preventDefault();
      const data = new FormData(form);
      window.gemArena.send({
        type: "bid", bid: parseInt(data.get("bid"), 10),
        colours: String(data.get("colour1")) + data.get("colour2") + data.get("colour3"),
      });
    }
  });

  document.addEventListener("gem:swapped", (event) => {
    const id = event.detail.id;
    if (id === "sgs-board") {
      // A frame's board panel holds the cells empty: what is in them is painted from the view.
      showingBefore = false;
      readCaption();
      const g = game();
      if (g && g.board && !(window.gemSteps && window.gemSteps.playing)) paintNow(g);
    }
    if (id === "sgs-play" || id === "sgs-board") { syncCompose(); render(); }
    // A resync's full frame brings the sent submission without an update event.
    const me = game() && game().me;
    if (id === "sgs-play" && played && me && me.submission && me.submission.gem === played) {
      focusPlayed();
    }
  });

  const RESOLVED = ["round_resolved", "round_time_up"];
  let played = null; // the gem cell of the sequence this page submitted, to focus once it is in
  let lastSubmit = null; // the last submission this page sent

  document.addEventListener("gem:update", (event) => {
    const happened = event.detail && event.detail.event;
    syncCompose();
    render();
    if (happened && RESOLVED.includes(happened.kind) && happened.data) resolved(happened.data);
    const mine = happened && (happened.kind === "submitted" || RESOLVED.includes(happened.kind));
    if (mine && played) focusPlayed();
  });

  // After a submission the composer is drawn again: the keyboard's focus goes back to the gem
  // played on the grid (not to the top of the page).
  function focusPlayed() {
    const cell = played;
    played = null;
    const active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) return;
    const button = document.querySelector(`[data-grid="sgs"] [data-cell="${cell}"]`);
    if (!button) return;
    for (const other of document.querySelectorAll('[data-grid="sgs"] [tabindex="0"]')) other.tabIndex = -1;
    button.tabIndex = 0;
    button.focus({ preventScroll: true });
  }

  // --- the last round's grid before, for everyone -----------------------------------------------

  function toggleBefore() {
    const g = game();
    const last = g && g.last_round;
    if (!last) return;
    showingBefore = !showingBefore;
    const changed = new Set(last.changed);
    if (showingBefore) {
      paint(last.board_before, (cell) => (changed.has(cell) ? "sgs-changed" : ""));
      caption(`The grid before round ${last.round} (changed cells outlined)`);
    } else {
      paintNow(g);
      caption(captionNow);
    }
    const button = document.querySelector(".sgs-toggle-before");
    if (button) {
      button.setAttribute("aria-pressed", String(showingBefore));
      button.textContent = showingBefore ? "Show the grid now" : `Show the grid before round ${last.round}`;
    }
    if (!showingBefore) render();
  }

  // --- the host: a round step by step -----------------------------------------------------------

  // The players' names by seat ("0", "1", ...), from the view's seats.
  function namesBySeat(g) {
    const names = {};
    for (const seat of (g && g.seats) || []) names[String(seat.index)] = seat.name;
    return names;
  }

  // The host's round as frames: the grid before any move, each step, the grid after. A step
  // comes as the grid the engine left after it and its moves: [seat, from, to, direction] for
  // a move that swapped its gem with the neighbour that way and locked ``from``, the cell it
  // left; [seat, from, to (null off the grid), direction, reason] for one that failed, worded
  // by the host's step_words. Each step's frame says the cells a gem moved into, the cells of a
  // failed move, the cells it newly locks, its swaps ([from, to]: the gem in ``to`` went the
  // other way) and a sentence.
  function hostSteps(g, number) {
    const names = namesBySeat(g);
    const words = g.host.step_words;
    const steps = g.host.last_round.steps.map((step, index) => {
      const moved = [], failed = [], swaps = [], locks = [], parts = [];
      for (const [seat, from, to, direction, reason] of step.moves) {
        const who = names[seat] || "seat " + seat;
        if (reason === undefined) {
          moved.push(to);
          swaps.push([from, to]);
          locks.push(from);
          parts.push(`${who} ${from}→${to}`);
        } else {
          failed.push(from, ...(to ? [to] : []));
          parts.push(`${who} ${from} ${words.moves[direction]} failed (${words.failures[reason] || reason})`);
        }
      }
      return { board: step.board, moved: moved, swaps: swaps, failed: failed, locks: locks, text: `Step ${index + 1}: ${parts.join("; ")}` };
    });
    return [{ text: `Round ${number}: the grid before any move` }, ...steps, { text: `Round ${number}: the grid after` }];
  }

  // A frame's marks: the cells a gem moved into, a failed move's cells, every cell locked so far
  // (each frame names the cells it newly locks); the grids before and after carry none.
  function hostMarks(frames, index) {
    const marks = {};
    const add = (cell, mark) => { marks[cell] = marks[cell] ? marks[cell] + " " + mark : mark; };
    const frame = frames[index];
    if (!frame.locks) return marks;
    frame.moved.forEach((cell) => add(cell, "sgs-moved"));
    frame.failed.forEach((cell) => add(cell, "sgs-fail"));
    frames.slice(0, index + 1).forEach((f) => (f.locks || []).forEach((cell) => add(cell, "locked")));
    return marks;
  }

  // The host's frames of round ``number``, as the step player plays them: each step's swaps
  // slide (the gem that moved and the one it swapped with), a failed move sounds refused. Each
  // step shows the grid the server played it to; the first the grid before the round.
  function hostFrames(g, number, before) {
    const frames = hostSteps(g, number);
    let board = before;
    return frames.map((frame, index) => Object.assign({ ms: 900, marks: hostMarks(frames, index) }, frame, {
      board: (board = (frame.board || board).replace(/\n/g, "")),
      grid: "sgs",
      ms: index === 0 ? 450 : 380,
      moves: [].concat(...(frame.swaps || []).map(([a, b]) => [[a, b], [b, a]])),
      sound: (frame.failed || []).length ? "refused" : (frame.swaps || []).length ? "swap" : null,
    }));
  }

  function playHostRound() {
    const g = game();
    const last = g && g.host && g.host.last_round && g.last_round;
    if (!last || !window.gemSteps) return;
    // The host's button sits below the grid: bring the grid into view to watch it play.
    const board = document.getElementById("sgs-board");
    if (board) board.scrollIntoView({ block: "nearest" });
    playRound(hostFrames(g, last.round, last.board_before), last, `Round ${last.round} step by step`);
  }

  // --- a round's resolution, for everyone ---------------------------------------------------------

  // Where each gem of the grid after a round came from, as far as the two public grids tell:
  // each changed cell's gem slides in from the nearest changed cell that held a gem of its colour
  // before (gems of one colour look alike; no sequence is told, only the grids).
  function slidesOf(before, after, changed) {
    const flat = (text) => text.replace(/\n/g, "");
    const was = flat(before), now = flat(after);
    const index = cellIndex;
    const free = new Set(changed);
    const moves = [];
    for (const cell of changed) {
      const gem = now[index(cell)];
      let best = null, far = Infinity;
      for (const from of free) {
        if (from === cell || was[index(from)] !== gem) continue;
        const d = Math.abs(index(from) % 10 - index(cell) % 10) + Math.abs(Math.floor(index(from) / 10) - Math.floor(index(cell) / 10));
        if (d < far) { far = d; best = from; }
      }
      if (best) { free.delete(best); moves.push([best, cell]); }
    }
    return moves;
  }

  // The frames everyone sees: the grid before (the cells about to change outlined), the gems
  // sliding to where the round left them, then each player's scoring group bursting with its
  // points (the most first), a step higher each.
  function publicFrames(happened) {
    const changed = happened.changed || [];
    const before = {};
    for (const cell of changed) before[cell] = "sgs-changed";
    return [
      { grid: "sgs", board: happened.board_before, marks: before, ms: 450, text: `Round ${happened.round}: the grid before` },
      {
        grid: "sgs", board: happened.board_after, marks: {}, ms: 650, moves: slidesOf(happened.board_before, happened.board_after, changed),
        sound: changed.length ? "swap" : null,
        text: `Round ${happened.round}: ${changed.length} cell${changed.length === 1 ? "" : "s"} changed`,
      },
    ];
  }

  // The groups that scored, as the round's event names them (cells by seat), the most points
  // first, each with the player's name and points.
  function scoringGroups(happened) {
    const names = namesBySeat(game());
    const points = happened.points || {};
    return Object.entries(happened.groups || {})
      .map(([seat, cells]) => ({ name: names[seat] || "seat " + seat, cells: cells, points: (points[seat] || {}).points || 0 }))
      .sort((a, b) => b.points - a.points);
  }

  function groupFrames(happened) {
    return scoringGroups(happened).map((group, i) => {
      const marks = {};
      for (const cell of group.cells) marks[cell] = "sgs-group";
      const points = group.points >= 0 ? `+${group.points}` : String(group.points);
      return {
        grid: "sgs", board: happened.board_after, marks: marks, ms: 520, bursts: group.cells, depth: i + 1,
        floats: [{ cells: group.cells, text: `${group.name} ${points}` }], sound: "match",
        text: `${group.name}: a group of ${group.cells.length}, ${points}`,
      };
    });
  }

  function playRound(frames, last, title) {
    const line = document.querySelector("#sgs-board .sgs-step-text");
    document.documentElement.classList.add("sgs-resolving");
    window.gemSteps.play(frames, (frame) => {
      paint(frame.board, (cell) => (frame.marks || {})[cell]);
      caption(title);
      if (line) line.textContent = frame.text || "";
    }, {
      done: () => {
        document.documentElement.classList.remove("sgs-resolving");
        const now = game(); // the step line keeps the last frame's words
        if (now) { paintNow(now); caption(captionNow); }
        render();
      },
    });
  }

  // A round resolved: the host sees its steps, everyone else the public grids; then the groups
  // that scored. The results (scores, the round's lines) show when it ends.
  function resolved(happened) {
    const g = game();
    if (!g || !window.gemSteps || !happened.board_before || !happened.board_after) return;
    // The host's view holds the steps of the round its last round is (this one, once patched).
    const host = g.host && g.host.last_round && g.last_round && g.last_round.round === happened.round;
    const steps = host ? hostFrames(g, happened.round, happened.board_before) : publicFrames(happened);
    playRound(steps.concat(groupFrames(happened)), g.last_round, `Round ${happened.round}`);
  }

  function start() { readCaption(); syncCompose(); render(); }
  // After match.js (deferred below this script) has set up window.gemArena.
  if (document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
