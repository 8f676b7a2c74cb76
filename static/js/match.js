// Live match client: one websocket per page. Applies the server's out-of-band fragments in
// version order, asks for a resync when it sees a gap, reconnects with its last version, keeps
// countdowns on the server's clock and sends the actions of [data-action] forms.
(function () {
  "use strict";
  let clockOffset = 0; // server time minus local time, in ms
  const root = document.getElementById("match-root");
  if (!root) { startCountdowns(); return; }

  let version = parseInt(root.dataset.version, 10) || 0;
  let socket = null;
  let retry = 0;
  const pending = new Map();
  window.gemArena = { get version() { return version; }, send: sendAction, applyHtml: applyHtml };

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + root.dataset.wsUrl + "?since=" + version);
    socket.onopen = () => { retry = 0; setConnection("live", "connected"); };
    socket.onmessage = (message) => handle(JSON.parse(message.data));
    socket.onclose = (closed) => {
      setConnection("down", "reconnecting…");
      if (closed.code === 4404) { setConnection("down", "no such match"); return; }
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 250 * 2 ** retry);
    };
  }

  function setConnection(state, text) {
    const badge = document.getElementById("connection");
    if (badge) { badge.textContent = text; badge.dataset.state = state; }
  }

  function handle(frame) {
    if (frame.server_time) clockOffset = frame.server_time - Date.now();
    // A page opened before the start has no game panels (nor their scripts) to swap: load it anew.
    const status = frame.view && frame.view.match && frame.view.match.status;
    if (status && status !== "open" && root.querySelector("[data-status='open']")) {
      location.reload();
      return;
    }
    if (frame.type === "full") {
      applyHtml(frame.html);
      version = frame.version;
    } else if (frame.type === "update") {
      if (frame.version <= version) return; // already have it
      if (frame.version !== version + 1) {
        socket.send(JSON.stringify({ type: "resync", since: version }));
        return;
      }
      applyHtml(frame.html);
      version = frame.version;
      document.dispatchEvent(new CustomEvent("gem:update", { detail: frame }));
    } else if (frame.type === "error") {
      showError(frame.message, frame.code);
      if (frame.id) pending.delete(frame.id);
    } else if (frame.type === "ack") {
      pending.delete(frame.id);
      showError("");
    }
    root.dataset.version = String(version);
  }

  function applyHtml(html) {
    if (!html) return;
    const template = document.createElement("template");
    template.innerHTML = html;
    for (const fresh of Array.from(template.content.children)) {
      const old = fresh.id && document.getElementById(fresh.id);
      if (!old) continue;
      fresh.removeAttribute("hx-swap-oob");
      old.replaceWith(fresh);
      if (window.htmx) window.htmx.process(fresh);
      document.dispatchEvent(new CustomEvent("gem:swapped", { detail: fresh }));
    }
  }

  function showError(message, code) {
    const box = document.getElementById("match-error");
    if (!box) return;
    box.textContent = message || "";
    box.dataset.code = code || "";
    box.classList.toggle("shown", Boolean(message));
  }

  function sendAction(action) {
    const id = (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      showError("Not connected; reconnecting, try again in a moment.", "offline");
      return null;
    }
    pending.set(id, action);
    socket.send(JSON.stringify({ type: "action", id: id, version: version, action: action }));
    return id;
  }

  document.addEventListener("submit", (submitted) => {
    const form = submitted.target.closest("form[data-action]");
    if (!form) return;
    submitted.preventDefault();
    const action = { type: form.dataset.action };
    for (const [key, value] of new FormData(form).entries()) {
      action[key] = form.querySelector(`[name="${key}"]`)?.dataset.int !== undefined
        ? parseInt(value, 10) : value;
    }
    sendAction(action);
  });

  startCountdowns();
  connect();

  function startCountdowns() {
    setInterval(tickCountdowns, 250);
    tickCountdowns();
  }

  function tickCountdowns() {
    const now = Date.now() + clockOffset;
    for (const clock of document.querySelectorAll("[data-deadline]")) {
      const left = Math.max(0, Date.parse(clock.dataset.deadline) - now);
      const seconds = Math.ceil(left / 1000);
      const text = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
      const target = clock.querySelector(".left") || clock;
      if (target.textContent !== text) target.textContent = text;
      clock.classList.toggle("urgent", seconds <= 10);
    }
  }
})();
