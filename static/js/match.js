// Live match client: one websocket per page. Applies the server's out-of-band fragments in
// version order, asks for a resync when it sees a gap, reconnects with its last version, keeps
// countdowns on the server's clock and sends the actions of [data-action] forms.
//
// What the page tells the player, all from the newest view (#match-view):
// - the banner (#match-banner, always on screen): connection, the paused notice, "Your turn";
// - a refusal beside the form that sent the action (.action-error), else in #match-error unless
//   a game script cancels the "gem:refused" event {code, message, action, form} (it shows the
//   refusal beside its board); either goes when the player changes the input that caused it;
// - a form with data-confirm asks its question before its action is sent;
// - [data-action] forms are disabled while the match is paused, while their action waits for
//   its answer, and when view.game.actions (the viewer's open action types) lacks their type;
// - the turn signal: tab title, favicon, an optional sound (muted in localStorage), and the
//   live region #match-announce (turns, refusals, clocks at 60 and 10 seconds).
(function () {
  "use strict";
  let clockOffset = 0; // server time minus local time, in ms
  const serverNow = () => Date.now() + clockOffset;
  const lastSeen = new Map(); // clock deadline -> seconds left at the last tick
  const root = document.getElementById("match-root");
  if (!root) { window.gemArena = { serverNow: serverNow }; startCountdowns(); return; }

  let version = parseInt(root.dataset.version, 10) || 0;
  let socket = null;
  let retry = 0;
  const pending = new Map(); // action id -> {action, form}
  const baseTitle = document.title;
  let yourTurn = false;
  window.gemArena = {
    get version() { return version; },
    send: (action) => sendAction(action, null),
    saveDraft: saveDraft,
    applyHtml: applyHtml,
    view: readView,
    serverNow: serverNow,
    now: serverNow,
    refreshControls: refreshControls,
    announce: announce,
    sendMessage: sendMessage,
  };

  // --- the connection -------------------------------------------------------------------------

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    // together=1: several frames may come in one message, as an array (docs/protocol.md).
    socket = new WebSocket(scheme + location.host + root.dataset.wsUrl + "?together=1&since=" + version);
    socket.onopen = () => {
      setConnection("live", "connected");
      document.dispatchEvent(new CustomEvent("gem:open"));
    };
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      // Frames that came together (an array) are taken one by one, in their order.
      for (const frame of Array.isArray(data) ? data : [data]) {
        // Served: the next drop reconnects quickly again. A socket refused at once (4503: the
        // server cannot reach Redis or its database) sends no frame, or only its error, so
        // reconnects keep backing off through an outage instead of coming every half second.
        if (frame.type !== "error") retry = 0;
        handle(frame);
        // Other page parts that ride on this socket (the chat) read every frame from here.
        document.dispatchEvent(new CustomEvent("gem:frame", { detail: frame }));
      }
    };
    socket.onclose = (closed) => {
      // An action still waiting for its answer may or may not have been applied; the resync
      // after the reconnect shows which. Its form is usable again.
      for (const entry of pending.values()) if (entry.form) entry.form.removeAttribute("data-pending");
      pending.clear();
      ownDrafts.clear();
      refreshControls();
      if (closed.code === 4404) { setConnection("down", "no such match"); return; }
      setConnection("down", navigator.onLine === false ? "offline" : "reconnecting…");
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 250 * 2 ** retry);
    };
  }

  // Send any protocol message on the page's socket (the chat uses it); false when offline.
  function sendMessage(message) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(message));
    return true;
  }

  function setConnection(state, text) {
    const badge = document.getElementById("connection");
    if (badge) { badge.textContent = text; badge.dataset.state = state; }
    const banner = document.getElementById("match-banner");
    if (banner) banner.dataset.connection = state;
    if (state === "down") announce("Connection lost: " + text);
  }

  // The browser's word on the network: when it comes back, a socket that outlived the drop (its
  // frames kept coming) is live again; one that did not is reconnecting.
  const isOpen = () => Boolean(socket && socket.readyState === WebSocket.OPEN);
  window.addEventListener("offline", () => setConnection("down", "offline"));
  window.addEventListener("online", () => {
    if (isOpen()) setConnection("live", "connected");
    else setConnection("down", "reconnecting…");
  });

  // --- frames ---------------------------------------------------------------------------------

  function handle(frame) {
    if (frame.server_time) clockOffset = frame.server_time - Date.now();
    if (frame.type === "full") {
      writeView(frame.view);
      panelText.clear();
      applyHtml(frame.html, null);
      dropPanels(frame.panel_ids);
      version = frame.version;
      afterView();
    } else if (frame.type === "update") {
      if (frame.version <= version) return; // already have it
      if (frame.version !== version + 1) {
        socket.send(JSON.stringify({ type: "resync", since: version }));
        return;
      }
      // An update carries a patch of the view, never the whole view: applied to the view of
      // the version before, or, if it does not fit, the whole view is asked for again.
      const view = patched(readView(), frame.patch || [], frame.event);
      const html = view === null ? null : patchedPanels(frame.html, frame.html_patch);
      if (view === null || html === null) {
        socket.send(JSON.stringify({ type: "resync", since: 0 }));
        return;
      }
      writeView(view);
      const beside = applyHtml(null, html);
      dropPanels(frame.panel_ids);
      version = frame.version;
      if (frame.event) noteEvent(frame.event);
      afterView();
      // Game scripts read the frame's view as before: the patched one.
      const detail = Object.assign({}, frame, { view: view });
      document.dispatchEvent(new CustomEvent("gem:update", { detail: detail }));
      holdWhileAnimating(beside);
    } else if (frame.type === "draft") {
      // One seat, one draft, in every tab: a draft this page sent comes back with its id; one
      // it did not send was made in another tab of the seat, and is the seat's draft now unless
      // a draft of this page is still on its way (the server then keeps that one). Game scripts
      // show a draft made elsewhere (detail.elsewhere) in place of their own.
      const mine = Boolean(frame.id) && ownDrafts.delete(frame.id);
      frame.elsewhere = !mine && !("seat" in frame) && ownDrafts.size === 0;
      const view = readView();
      if (view && "seat" in frame && view.drafts) {
        view.drafts[String(frame.seat)] = frame.draft;
        writeView(view);
      } else if (view && "draft" in view) {
        view.draft = frame.draft;
        writeView(view);
      }
      document.dispatchEvent(new CustomEvent("gem:draft", { detail: frame }));
    } else if (frame.type === "error" && !(frame.id || "").startsWith("chat-")) {
      if (frame.id) ownDrafts.delete(frame.id); // a refused draft is on its way no more
      refused(frame); // chat errors are shown beside the chat box by chat.js
    } else if (frame.type === "pong") {
      // A frame the server sent may have been lost on the way: catch up from what we hold.
      if (frame.version > version) askBehind();
    } else if (frame.type === "ack") {
      // Its update normally follows at once; if it has not come within ACK_GRACE_MS (its worker
      // died right after the ack), the ack is the only sign: ask. Asking at once would double a
      // fast player's messages (and meet the rate limit) for frames already on their way.
      if (frame.version > version) {
        const acked = frame.version;
        setTimeout(() => { if (version < acked) askBehind(); }, ACK_GRACE_MS);
      }
      const entry = pending.get(frame.id);
      pending.delete(frame.id);
      if (entry && entry.form) {
        entry.form.removeAttribute("data-pending");
        formError(entry.form, "");
      }
      showError("");
      refreshControls();
    }
    root.dataset.version = String(version);
  }

  // A frame named a version newer than the page holds, and the page dropped nothing (else it
  // asks for a plain resync): the server sends only what this connection has not sent yet.
  const ACK_GRACE_MS = 1000;
  function askBehind() {
    sendMessage({ type: "resync", since: version, behind: true });
  }

  // Apply a patch (games/core/render/jsondiff.py: ["s", path, value] set, ["d", path] delete,
  // ["a", path, items] append, ["e", path, from] set from the event; frames carry no "t") to
  // a copy of the view; null when an operation does not fit it.
  function patched(view, ops, event) {
    if (!view) return null;
    const at = (value, path) => {
      for (const key of path) {
        if (value === null || typeof value !== "object" || !(key in value)) throw new Error(String(key));
        value = value[key];
      }
      return value;
    };
    try {
      for (const op of ops) {
        const kind = op[0], path = op[1];
        const value = kind === "e" ? at(event, op[2]) : op[2];
        if (!path.length) {
          if (kind !== "s" && kind !== "e") throw new Error(kind);
          view = value;
          continue;
        }
        const parent = at(view, path.slice(0, -1)), key = path[path.length - 1];
        if (parent === null || typeof parent !== "object") throw new Error(String(key));
        if (kind === "s" || kind === "e") {
          if (Array.isArray(parent) && !(key >= 0 && key < parent.length)) throw new Error(String(key));
          parent[key] = value;
        } else if (kind === "d") {
          if (!(key in parent)) throw new Error(String(key));
          delete parent[key];
        } else if (kind === "a") {
          if (!Array.isArray(parent[key])) throw new Error(String(key));
          parent[key].push(...value);
        } else throw new Error(kind);
      }
    } catch (misfit) {
      return null;
    }
    return view;
  }

  // The view of the newest frame lives once in the page, in #match-view; game scripts read it.
  function readView() {
    const data = document.getElementById("match-view");
    return data ? JSON.parse(data.textContent) : null;
  }

  function writeView(view) {
    const data = document.getElementById("match-view");
    if (data && view) data.textContent = JSON.stringify(view);
  }

  // Each panel's HTML as the server sent it (with its hx-swap-oob), the base of the next
  // frame's patches of it.
  const panelText = new Map();
  const PANEL_SEPARATOR = "<!--panel-->";

  // HTML cut as games/core/render/htmlpatch.py cuts it: tokens each ending at a ">" or a '"'.
  function htmlTokens(text) {
    return text.match(/[^>"]*[>"]|[^>"]+$/g) || [];
  }

  // The frame's panels as HTML texts: those sent whole, then those sent as a patch of the
  // panel's HTML the page holds ([id, [[start, count, text], ...]], applied from the last
  // operation to the first); null when a patch does not fit what the page holds.
  function patchedPanels(html, patches) {
    const texts = html ? html.split(PANEL_SEPARATOR) : [];
    for (const [id, ops] of patches || []) {
      const base = panelText.get(id);
      if (base === undefined) return null;
      const parts = htmlTokens(base);
      for (let i = ops.length - 1; i >= 0; i--) {
        const [start, count, text] = ops[i];
        if (start < 0 || count < 0 || start + count > parts.length) return null;
        parts.splice(start, count, text);
      }
      texts.push(parts.join(""));
    }
    return texts;
  }

  // A frame carries only the panels that changed. A panel the page lacks yet (the game's
  // panels appear at the start) goes after the panel before it in the frame, in its region:
  // the match's own panels (data-region="core") in #match-core, the game's in #match-root.
  function applyHtml(html, texts) {
    const beside = []; // the panels put beside the board (see below)
    if (html) texts = html.split(PANEL_SEPARATOR);
    if (!texts || !texts.length) return beside;
    const previous = { core: null, game: null };
    const panels = [];
    for (const text of texts) {
      const template = document.createElement("template");
      template.innerHTML = text;
      const first = template.content.firstElementChild;
      if (first && first.id) panelText.set(first.id, text);
      panels.push(...template.content.children);
    }
    for (const fresh of panels) {
      if (!fresh.id) continue;
      fresh.removeAttribute("hx-swap-oob");
      const region = fresh.dataset.region === "core" ? "core" : "game";
      const box = region === "core" ? (document.getElementById("match-core") || root) : root;
      const old = document.getElementById(fresh.id);
      const board = old ? null : boardBeside(fresh);
      if (old && old.hasAttribute("data-keep-input")) carryInput(old, fresh);
      if (old && old.classList.contains("match-side")) fresh.classList.add("match-side"); // stays beside
      if (old) old.replaceWith(fresh);
      else if (board) { fresh.classList.add("match-side"); board.after(fresh); beside.push(fresh); }
      else if (previous[region]) previous[region].after(fresh);
      else box.appendChild(fresh);
      if (!board) previous[region] = fresh;
      if (window.htmx) window.htmx.process(fresh);
      document.dispatchEvent(new CustomEvent("gem:swapped", { detail: fresh }));
    }
    return beside;
  }

  // The match's result, arriving while the player looks at a board (the match ended on this
  // page), goes beside the board (in the side column on a wide screen; on a phone under the
  // board and the controls right under it, such as what to play next), never above it: nothing
  // moves under the player's finger. On a page loaded after the end it stays on top, where the
  // server drew it. Returns the panel it goes after.
  const ARRIVES_BESIDE_THE_BOARD = ["match-result"];
  function boardBeside(panel) {
    if (!ARRIVES_BESIDE_THE_BOARD.includes(panel.id)) return null;
    let after = root.querySelector(':scope > [id$="-board"], :scope > .match-board');
    while (after && after.nextElementSibling && after.nextElementSibling.matches('[id$="-actions"], [id$="-moves"]')) {
      after = after.nextElementSibling;
    }
    return after;
  }

  // A panel that arrived with the move now animated (the game's end with its last cascade)
  // waits, hidden, for the animation to end.
  function holdWhileAnimating(panels) {
    if (!panels.length || !(window.gemSteps && window.gemSteps.playing)) return;
    for (const panel of panels) panel.hidden = true;
    document.addEventListener("gem:steps-done", () => {
      for (const panel of panels) panel.hidden = false;
    }, { once: true });
  }

  // In a panel marked data-keep-input (the host console), what the viewer was doing goes on in
  // the panel a frame puts in its place: the boxes they opened or closed, what they chose or
  // typed and the field they were in. A form is known by its action, a field by its name in it.
  function fieldKey(field) {
    const form = field.closest("form");
    return (form ? form.getAttribute("action") || "" : "") + " " + field.name;
  }
  function edited(field) {
    if (field.tagName === "SELECT") return [...field.options].some((o) => o.selected !== o.defaultSelected);
    if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
    return field.value !== field.defaultValue;
  }
  function carryInput(old, fresh) {
    const boxes = new Map();
    for (const box of old.querySelectorAll("details")) {
      const form = box.querySelector("form[action]");
      if (form) boxes.set(form.getAttribute("action"), box.open);
    }
    for (const box of fresh.querySelectorAll("details")) {
      const form = box.querySelector("form[action]");
      if (form && boxes.has(form.getAttribute("action"))) box.open = boxes.get(form.getAttribute("action"));
    }
    const twins = new Map();
    for (const field of fresh.querySelectorAll("input[name], select[name], textarea[name]")) {
      twins.set(fieldKey(field), field);
    }
    const active = document.activeElement;
    for (const field of old.querySelectorAll("input[name], select[name], textarea[name]")) {
      if (field.type === "hidden") continue;
      const twin = twins.get(fieldKey(field));
      if (!twin || twin.tagName !== field.tagName) continue;
      if (edited(field)) {
        if (field.type === "checkbox" || field.type === "radio") twin.checked = field.checked;
        else if (field.tagName !== "SELECT" || [...twin.options].some((o) => o.value === field.value)) {
          twin.value = field.value;
        }
      }
      if (field === active) {
        let start = null, end = null;
        try { start = field.selectionStart; end = field.selectionEnd; } catch (_) { /* not a text field */ }
        queueMicrotask(() => {
          if (!twin.isConnected) return;
          twin.focus({ preventScroll: true });
          if (typeof start === "number") twin.setSelectionRange(start, end);
        });
      }
    }
  }

  let shownStatus = null; // the match status the page last showed
  // A frame names every panel the page should hold; one the page got before and the frame no
  // longer names is gone from the view (a form that closed, a notice that ended).
  let panelIds = null;
  function dropPanels(ids) {
    if (!ids) return;
    if (panelIds) {
      for (const id of panelIds) {
        if (ids.indexOf(id) !== -1) continue;
        const gone = document.getElementById(id);
        if (gone && (root.contains(gone) || gone.closest("#match-core"))) gone.remove();
      }
    }
    panelIds = ids.slice();
  }

  // Seats taken while the page is open: the seat strip and the invite list follow.
  // A bot the host seats in place of a player: the strip names it at once.
  function noteEvent(event) {
    if (!event.data) return;
    const taker = event.kind === "seat_taken" ? event.data.name
      : event.kind === "seat_replaced" && event.data.by !== "invite" ? event.data.by : null;
    if (!taker) return;
    const index = String(event.data.seat);
    const name = document.querySelector(`.seat-strip [data-seat="${index}"] .name`);
    if (name) name.textContent = taker;
    const invite = document.querySelector(`.invites [data-seat="${index}"]`);
    if (invite) invite.remove();
  }

  // --- the banner, the controls and the turn signal -------------------------------------------

  function afterView() {
    const view = readView();
    if (!view) return;
    const status = view.match && view.match.status;
    const banner = document.getElementById("match-banner");
    if (banner && banner.dataset.status !== status) {
      if (status === "paused") announce("The host paused the match.");
      else if (banner.dataset.status === "paused" && status === "live") announce("The match goes on.");
      else if (status === "finished" || status === "aborted") announce("The match is over.");
      banner.dataset.status = status;
    }
    const paused = document.getElementById("banner-status");
    if (paused) paused.hidden = status !== "paused";
    if (status !== "open") {
      for (const box of document.querySelectorAll(".invites:not(.substitutes)")) box.remove();
      // The host's invite box folds once, when the match starts (the host may open it again).
      if (shownStatus === "open") for (const share of document.querySelectorAll(".share-box")) share.open = false;
    }
    shownStatus = status;
    setTurn(isYourTurn(view));
    refreshControls();
  }

  // The viewer's seat is to move: view.game.to_move (a list of seats), else view.game.actions
  // (the open action types), else view.game.turn (a seat). Only in a live match of 2+ seats.
  function isYourTurn(view) {
    const seat = view.viewer && view.viewer.seat;
    const game = view.game || {};
    if (seat === null || seat === undefined || !view.match || view.match.status !== "live") return false;
    if ((parseInt(root.dataset.seats, 10) || 0) < 2) return false;
    if (Array.isArray(game.to_move)) return game.to_move.includes(seat);
    if (Array.isArray(game.actions)) return game.actions.length > 0;
    if (typeof game.turn === "number") return game.turn === seat;
    return false;
  }

  function setTurn(now) {
    const tag = document.getElementById("banner-turn");
    if (tag) tag.hidden = !now;
    if (now === yourTurn) return;
    yourTurn = now;
    document.title = now ? "(Your turn) " + baseTitle : baseTitle;
    drawFavicon(now);
    if (now) { announce("Your turn."); beep(); }
  }

  function refreshControls() {
    const view = readView();
    const status = view && view.match ? view.match.status : "live";
    const open = view && view.game && Array.isArray(view.game.actions) ? view.game.actions : null;
    for (const form of document.querySelectorAll("form[data-action]")) {
      let reason = "";
      if (status === "paused") reason = "The match is paused";
      else if (status === "finished" || status === "aborted") reason = "The match is over";
      else if (form.hasAttribute("data-pending")) reason = "Sent; waiting for the answer";
      else if (open && !open.includes(form.dataset.action)) reason = "Not your move now";
      if (reason) form.dataset.blocked = reason;
      else form.removeAttribute("data-blocked");
      for (const control of form.querySelectorAll(
        "button:not([type=button]):not([type=reset]), input[type=submit]"
      )) {
        if (reason && !control.disabled) {
          control.disabled = true;
          control.dataset.arenaDisabled = "";
          control.title = reason;
        } else if (!reason && control.dataset.arenaDisabled !== undefined) {
          control.disabled = false;
          delete control.dataset.arenaDisabled;
          control.removeAttribute("title");
        } else if (reason && control.dataset.arenaDisabled !== undefined) {
          control.title = reason;
        }
      }
    }
  }

  // --- refusals -------------------------------------------------------------------------------

  function refused(frame) {
    const entry = frame.id ? pending.get(frame.id) : null;
    if (frame.id) pending.delete(frame.id);
    let form = entry ? entry.form : null;
    if (form) form.removeAttribute("data-pending");
    if (form && !form.isConnected && entry.action) {
      // The panel was replaced while the action was on its way: the same form, if still offered.
      form = document.querySelector(`form[data-action="${CSS.escape(entry.action.type)}"]`);
    }
    // A game script that shows the refusal beside its board cancels the event: the banner then
    // stays as it was (a message there would push the board down under the player's finger).
    const shownByGame = !document.dispatchEvent(new CustomEvent("gem:refused", {
      cancelable: true,
      detail: { code: frame.code, message: frame.message, action: entry ? entry.action : null, form: form },
    }));
    if (form) formError(form, frame.message);
    else if (!shownByGame) showError(frame.message, frame.code);
    announce(frame.message);
    refreshControls();
  }

  // A refusal answers the input that caused it: it goes as soon as the player changes that
  // input (another field of the form, another cell of a board).
  function clearRefusals(form) {
    if (form) formError(form, "");
    showError("");
  }
  for (const type of ["input", "change"]) {
    document.addEventListener(type, (changed) => {
      const form = changed.target.closest && changed.target.closest("form[data-action]");
      if (form) clearRefusals(form);
    });
  }
  document.addEventListener("gem:cell", () => clearRefusals(null));

  // The error slot of a form sits beside its submit button; it goes when the form's next action
  // is accepted, or with the form when its panel is replaced.
  function formError(form, message) {
    let slot = form.querySelector(".action-error");
    if (!slot) {
      if (!message) return;
      slot = document.createElement("span");
      slot.className = "action-error";
      slot.setAttribute("role", "alert");
      const submit = form.querySelector("button:not([type=button]), input[type=submit]");
      if (submit) submit.after(slot); else form.appendChild(slot);
    }
    slot.textContent = message || "";
    slot.hidden = !message;
  }

  function showError(message, code) {
    const box = document.getElementById("match-error");
    if (!box) return;
    box.textContent = message || "";
    box.dataset.code = code || "";
    box.classList.toggle("shown", Boolean(message));
  }

  // --- sending --------------------------------------------------------------------------------

  function sendAction(action, form) {
    if (window.gemSeal) action = window.gemSeal(action); // a sealed move's receipt (fairness.js)
    const id = (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      const message = "Not connected; reconnecting, try again in a moment.";
      if (form) formError(form, message); else showError(message, "offline");
      return null;
    }
    pending.set(id, { action: action, form: form });
    if (form) { form.setAttribute("data-pending", ""); refreshControls(); }
    socket.send(JSON.stringify({ type: "action", id: id, version: version, action: action }));
    return id;
  }

  // What the player is composing, kept by the server for this seat only (restored on reload,
  // shown in the seat's other tabs).
  const ownDrafts = new Set(); // ids of the drafts this page sent, not yet told back
  function saveDraft(draft) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return false;
    const id = "draft-" + (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
    ownDrafts.add(id);
    socket.send(JSON.stringify({ type: "draft", id: id, draft: draft }));
    return true;
  }

  // A form's fields become the action: data-int fields are sent as numbers, data-bool fields as
  // true or false (an unticked box too).
  function formAction(form) {
    const action = { type: form.dataset.action };
    for (const [key, value] of new FormData(form).entries()) {
      const field = form.querySelector(`[name="${CSS.escape(key)}"]`);
      if (field && field.dataset.bool !== undefined) continue;
      action[key] = field && field.dataset.int !== undefined ? parseInt(value, 10) : value;
    }
    for (const field of form.querySelectorAll("[data-bool][name]")) {
      if (field.disabled) continue;
      action[field.name] = field.type === "checkbox" || field.type === "radio"
        ? field.checked : field.value === "true";
    }
    return action;
  }

  document.addEventListener("submit", (submitted) => {
    const form = submitted.target.closest("form[data-action]");
    if (!form) return;
    submitted.preventDefault();
    if (form.dataset.blocked) return; // paused, already sent, or not this player's move
    // An action that cannot be taken back asks first (data-confirm holds the question).
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
    sendAction(formAction(form), form);
  });

  // --- turn signal: favicon, sound, live region -----------------------------------------------

  function drawFavicon(turn) {
    const link = document.getElementById("favicon");
    const canvas = document.createElement("canvas");
    if (!link || !canvas.getContext) return;
    canvas.width = canvas.height = 32;
    const pen = canvas.getContext("2d");
    pen.fillStyle = turn ? "#f5c542" : "#a35be0";
    pen.beginPath();
    for (const [x, y] of [[16, 1], [31, 12], [16, 31], [1, 12]]) pen.lineTo(x, y);
    pen.closePath();
    pen.fill();
    if (turn) {
      pen.fillStyle = "#1a1400";
      pen.font = "bold 20px sans-serif";
      pen.textAlign = "center";
      pen.fillText("!", 16, 22);
    }
    link.href = canvas.toDataURL("image/png");
  }

  const MUTE_KEY = "gemArena.muted";
  let audio = null;
  const muted = () => localStorage.getItem(MUTE_KEY) === "1";

  function showSound() {
    const toggle = document.getElementById("sound-toggle");
    if (!toggle) return;
    toggle.textContent = muted() ? "Sound off" : "Sound on";
    toggle.setAttribute("aria-pressed", muted() ? "false" : "true");
  }

  document.addEventListener("click", (clicked) => {
    if (clicked.target.closest("#sound-toggle")) {
      localStorage.setItem(MUTE_KEY, muted() ? "0" : "1");
      showSound();
    }
  });

  // Browsers let a page play sound only after the player has touched it.
  function unlockAudio() {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
    if (audio && audio.state === "suspended") audio.resume();
  }
  document.addEventListener("pointerdown", unlockAudio, { once: true });
  document.addEventListener("keydown", unlockAudio, { once: true });

  function beep() {
    if (!audio || muted()) return;
    const start = audio.currentTime + 0.01;
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.type = "sine";
    tone.frequency.setValueAtTime(660, start);
    tone.frequency.setValueAtTime(880, start + 0.09);
    volume.gain.setValueAtTime(0.0001, start);
    volume.gain.exponentialRampToValueAtTime(0.12, start + 0.02);
    volume.gain.exponentialRampToValueAtTime(0.0001, start + 0.25);
    tone.connect(volume).connect(audio.destination);
    tone.start(start);
    tone.stop(start + 0.26);
  }

  function announce(text) {
    const region = document.getElementById("match-announce");
    if (!region || !text) return;
    region.textContent = "";
    setTimeout(() => { region.textContent = text; }, 50);
  }

  // --- copy buttons ---------------------------------------------------------------------------

  document.addEventListener("click", (clicked) => {
    const button = clicked.target.closest("button[data-copy]");
    if (!button) return;
    const source = document.querySelector(button.dataset.copy);
    if (!source) return;
    const text = (source.value !== undefined ? source.value : source.textContent).trim();
    const done = () => {
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    };
    const fallback = () => {
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      if (document.execCommand("copy")) done();
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else {
      fallback();
    }
  });

  showSound();
  afterView();
  drawFavicon(yourTurn);
  startCountdowns();
  connect();
  setInterval(() => {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
  }, 10000);

  // --- countdowns -----------------------------------------------------------------------------

  function startCountdowns() {
    setInterval(tickCountdowns, 250);
    tickCountdowns();
  }

  function tickCountdowns() {
    const now = serverNow();
    for (const clock of document.querySelectorAll("[data-deadline]")) {
      const left = Math.max(0, Date.parse(clock.dataset.deadline) - now);
      const seconds = Math.ceil(left / 1000);
      const text = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
      const target = clock.querySelector(".left") || clock;
      if (target.textContent !== text) target.textContent = text;
      clock.classList.toggle("warning", seconds <= 30 && seconds > 10);
      clock.classList.toggle("urgent", seconds <= 10);
      milestone(clock, seconds);
    }
  }

  // A clock crossing 60 or 10 seconds is announced once (per deadline, across panel swaps).
  function milestone(clock, seconds) {
    if (!document.getElementById("match-announce")) return;
    const key = clock.dataset.deadline;
    const before = lastSeen.get(key);
    lastSeen.set(key, seconds);
    if (before === undefined) return;
    for (const mark of [60, 10]) {
      if (before > mark && seconds <= mark && seconds > 0) {
        const label = clock.querySelector(".left")
          ? clock.textContent.split(":")[0].trim() : "Clock";
        announce(`${label}: ${mark === 60 ? "1 minute" : "10 seconds"} left`);
      }
    }
  }
})();
