// RULES 15.2: tell the server when this page loses the focus (another tab, another window)
// during a live event game the viewer plays. The server keeps it only if it is the viewer's
// turn, once per turn; here at most one report every few seconds. Weak evidence, and said so
// in the organizer's report. Loaded by fairplay's {% focus_watch %} tag only on such pages.
const watch = document.getElementById("focus-watch");
const GAP_MS = 5000;
let last = 0;

function report() {
  const now = Date.now();
  if (now - last < GAP_MS) return;
  last = now;
  const csrf = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
  fetch(watch.dataset.url, {
    method: "POST",
    headers: { "X-CSRFToken": csrf || "", "X-Requested-With": "fetch" },
    credentials: "same-origin",
    keepalive: true,
  }).catch(() => {});
}

if (watch) {
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") report();
  });
  window.addEventListener("blur", report);
}
