// The match chat (templates/core/_chat.html): sends posts and the host's mutes over the match's
// websocket and shows the chat frames it receives. Text is only ever set with textContent.
// Who may read or write what is decided by the server (games/core/match/chat.py); this only shows it.
(function () {
  "use strict";
  const panel = document.getElementById("chat");
  const root = document.getElementById("match-root");
  if (!panel || !root) return;

  const MAX_LINES = 200;
  const myId = parseInt(panel.dataset.userId, 10) || null;
  const isHost = panel.dataset.host === "true";
  const pending = new Map(); // chat message id -> the form that sent it (or null)
  let mutes = { users: [], channels: [] };

  // The chat rides on the page's one websocket (static/js/match.js): on every (re)connect it
  // asks for the history, which heals anything missed while away.
  document.addEventListener("gem:open", () => send({ op: "history" }));
  document.addEventListener("gem:frame", (event) => {
    const frame = event.detail;
    if (frame.type === "chat") receive(frame);
    else if (frame.type === "error" && frame.id && pending.has(frame.id)) refused(frame);
  });

  function send(message, form) {
    const id = "chat-" + (crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
    const arena = window.gemArena;
    if (!arena || !arena.sendMessage || !arena.sendMessage(Object.assign({ type: "chat", id: id }, message))) {
      if (form) showError(form, "Not connected; reconnecting, try again in a moment.");
      return false;
    }
    pending.set(id, form || null);
    return true;
  }

  function receive(frame) {
    if (frame.history) {
      for (const [channel, messages] of Object.entries(frame.history)) {
        const log = logOf(channel);
        if (!log) continue;
        log.replaceChildren(...messages.map(line));
        log.scrollTop = log.scrollHeight;
      }
    }
    if (frame.mutes) applyMutes(frame.mutes);
    if (frame.message) append(frame.message);
    if (frame.id && pending.has(frame.id)) {
      const form = pending.get(frame.id);
      pending.delete(frame.id);
      if (form && frame.ok) {
        form.elements.text.value = "";
        setBusy(form, false);
        showError(form, "");
      }
    }
  }

  function refused(frame) {
    const form = pending.get(frame.id);
    pending.delete(frame.id);
    const target = form || panel.querySelector(".chat-form");
    if (form) setBusy(form, false);
    if (target) showError(target, frame.message);
  }

  function logOf(channel) {
    return panel.querySelector(`.chat-channel[data-channel="${channel}"] .chat-log`);
  }

  function append(message) {
    const log = logOf(message.channel);
    if (!log || log.querySelector(`[data-id="${message.id}"]`)) return;
    const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    log.appendChild(line(message));
    while (log.children.length > MAX_LINES) log.firstElementChild.remove();
    if (atBottom) log.scrollTop = log.scrollHeight;
  }

  // One line, the same markup the template renders.
  function line(message) {
    const item = document.createElement("li");
    item.className = "chat-line";
    item.dataset.id = String(message.id);
    item.dataset.authorId = String(message.author_id);
    item.append(span("chat-author", message.author));
    if (message.badge) item.append(" ", span("chat-badge", message.badge));
    item.append(" ", span("chat-text", message.text));
    if (isHost && message.badge !== "Host") {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link chat-mute";
      item.append(" ", button);
      setMuteButton(button, message.author_id, isMuted(message.author_id));
    }
    return item;
  }

  function span(className, text) {
    const element = document.createElement("span");
    element.className = className;
    element.textContent = text;
    return element;
  }

  function isMuted(userId) {
    return mutes.users.some((user) => user.id === userId);
  }

  function setMuteButton(button, userId, muted) {
    delete button.dataset.muteUser;
    delete button.dataset.unmuteUser;
    button.dataset[muted ? "unmuteUser" : "muteUser"] = String(userId);
    button.textContent = muted ? "Unmute" : "Mute";
  }

  function applyMutes(next) {
    mutes = next;
    for (const button of panel.querySelectorAll(".chat-line .chat-mute")) {
      const userId = parseInt(button.closest(".chat-line").dataset.authorId, 10);
      setMuteButton(button, userId, isMuted(userId));
    }
    for (const section of panel.querySelectorAll(".chat-channel")) {
      const muted = mutes.channels.includes(section.dataset.channel);
      section.dataset.muted = String(muted);
      const toggle = section.querySelector(".chat-mute-channel");
      if (toggle) toggle.textContent = muted ? "Unmute channel" : "Mute channel";
      const form = section.querySelector(".chat-form");
      if (form && !isHost) {
        const note = isMuted(myId) ? "The host muted you in this match's chat."
          : muted ? "The host muted this channel." : "";
        form.elements.text.disabled = Boolean(note);
        form.querySelector("button").disabled = Boolean(note);
        showError(form, note);
      }
    }
    const list = panel.querySelector("[data-muted-users]");
    if (list) {
      list.replaceChildren("Muted: ");
      if (!mutes.users.length) list.append(span("chat-none", "nobody"));
      for (const user of mutes.users) {
        const entry = span("chat-muted-user", user.name + " ");
        const button = document.createElement("button");
        button.type = "button";
        button.className = "link";
        button.dataset.unmuteUser = String(user.id);
        button.textContent = "Unmute";
        entry.append(button);
        list.append(entry, " ");
      }
    }
  }

  function setBusy(form, busy) {
    form.querySelector("button").disabled = busy;
  }

  function showError(form, text) {
    const box = form.querySelector(".chat-error");
    if (box) box.textContent = text || "";
  }

  panel.addEventListener("submit", (submitted) => {
    const form = submitted.target.closest(".chat-form");
    if (!form) return;
    submitted.preventDefault();
    const text = form.elements.text.value.trim();
    if (!text) { showError(form, "Type a message first."); return; }
    if (send({ op: "post", channel: form.dataset.channel, text: text }, form)) setBusy(form, true);
  });

  panel.addEventListener("click", (clicked) => {
    const button = clicked.target.closest("button[data-mute-user], button[data-unmute-user], button[data-mute-channel]");
    if (!button) return;
    if (button.dataset.muteChannel) {
      const muted = button.closest(".chat-channel").dataset.muted === "true";
      send({ op: muted ? "unmute" : "mute", channel: button.dataset.muteChannel });
    } else if (button.dataset.muteUser) {
      send({ op: "mute", user: parseInt(button.dataset.muteUser, 10) });
    } else {
      send({ op: "unmute", user: parseInt(button.dataset.unmuteUser, 10) });
    }
  });
})();
