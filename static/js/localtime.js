// A deadline or a date the server wrote in UTC, read in the viewer's own time: every
// <time data-local datetime="..."> gets its text in the browser's time zone; the UTC text it
// had stays as its title (and is what a page without scripts shows).
(function () {
  "use strict";

  const FORMAT = { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short" };

  function localize(root) {
    for (const time of root.querySelectorAll("time[data-local][datetime]")) {
      if (time.dataset.localized === time.dateTime) continue;
      const when = new Date(time.dateTime);
      if (Number.isNaN(when.getTime())) continue;
      if (!time.title) time.title = time.textContent.trim();
      time.textContent = when.toLocaleString(undefined, FORMAT);
      time.dataset.localized = time.dateTime;
    }
  }

  document.addEventListener("DOMContentLoaded", () => localize(document));
  document.addEventListener("htmx:afterSwap", (event) => localize(event.target));
  window.gemLocalTime = localize;
})();
