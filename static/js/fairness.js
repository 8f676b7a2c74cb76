// Fair play (docs/fairness.md): this page's own seed for the match's draws, a receipt for every
// sealed move it sends, and a check of every revealed move against its receipt.
// SHA-256 is computed here, synchronously (not crypto.subtle, which is asynchronous and missing
// on a page served without https): a sealed move is sent at once, as any other action.
(function () {
  "use strict";
  const K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ];

  function sha256(text) {
    const bytes = new TextEncoder().encode(text);
    const length = bytes.length;
    const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
    padded.set(bytes);
    padded[length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
    view.setUint32(padded.length - 4, (length << 3) >>> 0);
    const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    const w = new Uint32Array(64);
    const rotr = (x, n) => (x >>> n) | (x << (32 - n));
    for (let offset = 0; offset < padded.length; offset += 64) {
      for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
      for (let i = 16; i < 64; i++) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      let [a, b, c, d, e, f, g, k] = h;
      for (let i = 0; i < 64; i++) {
        const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
        k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      [a, b, c, d, e, f, g, k].forEach((v, i) => { h[i] = (h[i] + v) >>> 0; });
    }
    return h.map((v) => v.toString(16).padStart(8, "0")).join("");
  }

  // A move as its receipt reads it: JSON with its keys sorted, no spaces (games/core/game/fairness.py).
  function canonical(value) {
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    if (value && typeof value === "object") {
      return "{" + Object.keys(value).sort().map((key) => JSON.stringify(key) + ":" + canonical(value[key])).join(",") + "}";
    }
    return JSON.stringify(value);
  }

  function randomHex(bytes) {
    const values = crypto.getRandomValues(new Uint8Array(bytes));
    return Array.from(values, (v) => v.toString(16).padStart(2, "0")).join("");
  }

  const receiptOf = (moveText, nonce) => sha256("gem-arena/v1/receipt|" + moveText + "|" + nonce);

  // The join form: this page's seed, mixed into every draw of the match.
  document.querySelectorAll("input[name=player_seed]").forEach((input) => { input.value = randomHex(16); });

  // static/js/match.js seals every action it sends through here.
  window.gemSeal = function (action) {
    const panel = document.getElementById("match-fairness");
    const sealed = panel ? (panel.dataset.sealed || "").split(" ") : [];
    if (!action || !sealed.includes(action.type) || action.receipt) return action;
    const move = Object.assign({}, action);
    const nonce = randomHex(16);
    const receipt = receiptOf(canonical(move), nonce);
    try {
      const mine = JSON.parse(sessionStorage.getItem("gem-receipts") || "[]");
      mine.push(receipt);
      sessionStorage.setItem("gem-receipts", JSON.stringify(mine.slice(-200)));
    } catch (error) { /* private browsing: the check of revealed moves still runs */ }
    return Object.assign(move, { nonce: nonce, receipt: receipt });
  };

  // A draft that a clock may seal as this seat's move (the death match's ticked picks) goes with
  // the receipt of that move: the draft is kept, the move sealed, as a sent move is.
  window.gemSealDraft = function (draft, move) {
    const sealed = window.gemSeal(move);
    if (!sealed || !sealed.receipt) return draft;
    return Object.assign({}, draft, { nonce: sealed.nonce, receipt: sealed.receipt });
  };

  // The whole list of receipts: the panel lists the latest, fairness.json all of them (asked
  // again only when the panel shows more receipts or more revealed ones).
  let fetched = { key: "", receipts: null };
  function listed(panel) {
    return Array.from(panel.querySelectorAll("li[data-receipt]"), (li) => ({
      receipt: li.dataset.receipt, state: li.dataset.state, nonce: li.dataset.nonce, move: li.dataset.move,
    }));
  }
  function allReceipts(panel) {
    const key = panel.dataset.receipts + "/" + panel.dataset.revealed;
    if (fetched.key === key && fetched.receipts) return Promise.resolve(fetched.receipts);
    if (!panel.dataset.factsUrl || panel.dataset.revealed === "0") return Promise.resolve(listed(panel));
    return fetch(panel.dataset.factsUrl, { credentials: "same-origin" })
      .then((response) => response.json())
      .then((facts) => {
        const receipts = (facts.receipts || []).map((r) => ({
          receipt: r.receipt, state: r.state, nonce: r.nonce, move: r.move ? canonical(r.move) : "",
        }));
        fetched = { key: key, receipts: receipts };
        return receipts;
      })
      .catch(() => listed(panel));
  }

  // Every revealed move against its receipt, and this page's own receipts against the list:
  // the line beside "Fair play" says what was found.
  function check() {
    const panel = document.getElementById("match-fairness");
    if (!panel) return Promise.resolve();
    let mine = [];
    try { mine = JSON.parse(sessionStorage.getItem("gem-receipts") || "[]"); } catch (error) { mine = []; }
    return allReceipts(panel).then((receipts) => {
      const current = document.getElementById("match-fairness");
      if (!current) return;
      const line = current.querySelector("[data-fairness-check]");
      const own = receipts.filter((r) => mine.includes(r.receipt));
      const revealed = receipts.filter((r) => r.state === "revealed");
      const wrong = revealed.filter((r) => receiptOf(r.move, r.nonce) !== r.receipt);
      const bad = new Set(wrong.map((r) => r.receipt));
      current.querySelectorAll("li[data-receipt]").forEach((li) => {
        li.classList.toggle("fairness-own", mine.includes(li.dataset.receipt));
        li.classList.toggle("fairness-wrong", bad.has(li.dataset.receipt));
      });
      let words = "";
      if (wrong.length) words = wrong.length + " of " + revealed.length + " receipts do NOT match their moves";
      else if (revealed.length) words = revealed.length === 1 ? "the receipt matches" : "all " + revealed.length + " receipts match";
      if (own.length) words += (words ? " · " : "") + "your " + own.length + " listed as sent";
      if (line) line.textContent = words ? "· " + words : "";
      current.dataset.checked = String(revealed.length);
      current.dataset.wrong = String(wrong.length);
    });
  }

  // A seat taken without this page (a season's host seated its player): before the start,
  // give the seed now. Once given, a seed stands; the match never waits for one.
  function giveSeed() {
    const panel = document.getElementById("match-fairness");
    const root = document.getElementById("match-root");
    if (!panel || !panel.dataset.seedUrl || !root || root.dataset.you === undefined) return;
    if ((panel.dataset.seeded || "").split(" ").includes(root.dataset.you)) return;
    let headers = {};
    try { headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}"); } catch (error) { headers = {}; }
    const body = new URLSearchParams({ player_seed: randomHex(16) });
    fetch(panel.dataset.seedUrl, { method: "POST", headers: headers, body: body, credentials: "same-origin" }).catch(() => {});
    delete panel.dataset.seedUrl; // once per page
  }

  document.addEventListener("DOMContentLoaded", () => { check(); giveSeed(); });
  document.addEventListener("gem:swapped", (event) => { if (event.detail && event.detail.id === "match-fairness") check(); });
  window.gemFairness = { sha256: sha256, canonical: canonical, check: check };
})();
