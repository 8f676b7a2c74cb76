// Kept for a failing browser test's message: each key, focus, change, click, htmx request and
// history step the page saw, in order, in window.whatThePageDid.
(function () {
  window.whatThePageDid = [];
  const said = (element) => {
    if (!element) return "none";
    const step = element.dataset && element.dataset.step ? `[${element.dataset.step}]` : "";
    return `${element.tagName}#${element.id}${step}`;
  };
  const keep = (line) => window.whatThePageDid.push(`${Math.round(performance.now())} ${line}`);
  const on = (target, name, line) => target.addEventListener(name, (e) => keep(line(e)), true);
  on(document, "keydown", (e) => `key ${e.key} on ${said(e.target)}`);
  on(document, "focusin", (e) => `focus ${said(e.target)}`);
  on(document, "change", (e) => `change ${said(e.target)} to ${e.target.value}`);
  on(document, "click", (e) => `click ${said(e.target)}${e.isTrusted ? "" : " (by script)"}`);
  on(document, "htmx:beforeRequest", (e) => `request ${e.detail.pathInfo.requestPath} by ${said(e.detail.elt)}`);
  on(window, "popstate", () => `history back or forward to ${location.search}`);
})();
