// Event pages (tournaments and arenas): live refresh over the socket, countdowns, the
// browser's time zone in the form, and the thematic opening search. The socket only says
// "changed"; htmx re-fetches the fragments listening for "<kind>-changed".
(function () {
  "use strict";

  // A push reaches every open page of the event at once, so each page waits a random part of
  // the event's spread (data-refresh-spread, events/views.py) before it re-fetches, and fetches
  // at most once per spread: the server gets a steady flow, not a wall, however fast the pushes
  // come (a Swiss's games ending one after another). Pushes that come while a fetch waits are
  // answered by it.
  // A push that comes while the fragment is being fetched must not be lost (the fetch may
  // predate it, and htmx ignores a trigger while its element's request is under way): it
  // fetches once more when the fragment is in and listening again.
  const SETTLE_MS = 100, GIVE_UP_MS = 10000;
  let eventName = "tournament-changed";
  let spread = 0, timer = null, fetching = 0, pending = false, last = -Infinity;
  function fire() {
    timer = null;
    pending = false;
    const started = fetching = last = Date.now();
    document.body.dispatchEvent(new Event(eventName));
    // No answer (no request made, the page offline): stop waiting for it.
    setTimeout(function () { if (fetching === started) done(); }, GIVE_UP_MS);
  }
  function schedule(least) {
    if (timer !== null) return;
    const wait = Math.max(least, Math.floor(Math.random() * spread), last + spread - Date.now());
    timer = setTimeout(fire, wait);
  }
  function changed() {
    if (fetching) pending = true;
    else schedule(0);
  }
  function done() {
    fetching = 0;
    if (pending) schedule(SETTLE_MS);
  }
  // The fragment's own request (any page's fragment listening for the push), not a form's.
  function refetch(event) {
    const elt = event.detail && event.detail.elt;
    const trigger = elt && elt.getAttribute && elt.getAttribute("hx-trigger");
    return !!trigger && trigger.indexOf(eventName) !== -1;
  }
  // Say that this fetch answers a push: the server may then share the part it rendered for
  // that push with every page asking for it (events/shared_part.py).
  document.addEventListener("htmx:configRequest", function (event) {
    if (refetch(event)) event.detail.headers["X-Event-Refresh"] = "push";
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (fetching && refetch(event)) done();
  });

  function connect(root) {
    eventName = root.dataset.eventKind + "-changed"; // the kind's page group says so
    spread = parseInt(root.dataset.refreshSpread, 10) || 0;
    // Whatever was missed while away: a reconnect fetches the fragment once.
    LiveSocket.open(root.dataset.eventSocket, {
      open(again) { if (again) changed(); },
      // The page's one socket also answers (a `pong`, an error): only "changed" is news.
      message(message) { if (message.type === "changed") changed(); },
    });
  }

  // Countdowns in words with their units (events/templatetags/events_tags.py writes the first
  // text the same way): "2 g 3 h", "1 h 05 min", "23 min 08 s"; lists to the minute.
  const LANG = (document.documentElement.lang || "it").slice(0, 2);
  const UNITS = LANG === "en" ? { d: "d", h: "h", m: "min", s: "s" } : { d: "g", h: "h", m: "min", s: "s" };
  function pad(n) { return String(n).padStart(2, "0"); }
  function words(left, coarse) {
    const d = Math.floor(left / 86400), h = Math.floor(left % 86400 / 3600);
    const m = Math.floor(left % 3600 / 60), s = left % 60;
    if (d) return d + " " + UNITS.d + " " + h + " " + UNITS.h;
    if (h) return h + " " + UNITS.h + " " + pad(m) + " " + UNITS.m;
    if (coarse) return Math.max(1, m + (s > 0 ? 1 : 0)) + " " + UNITS.m;
    if (m) return m + " " + UNITS.m + " " + pad(s) + " " + UNITS.s;
    return s + " " + UNITS.s;
  }

  function tick() {
    const now = Date.now();
    for (const el of document.querySelectorAll("[data-countdown-to]")) {
      const left = Math.max(0, Math.floor((Date.parse(el.dataset.countdownTo) - now) / 1000));
      // At zero the server is about to move on (the start, the end): say so, not "0 s".
      el.textContent = left === 0 && el.dataset.zero ? el.dataset.zero : words(left, false);
    }
    for (const el of document.querySelectorAll("time[data-countdown]")) {
      const left = Math.floor((Date.parse(el.getAttribute("datetime")) - now) / 1000);
      if (left > 0 && left < 86400) el.textContent = (el.dataset.soon || "%s").replace("%s", words(left, true));
    }
  }

  function localTimes() {
    for (const el of document.querySelectorAll("time[data-local-time]")) {
      const date = new Date(el.getAttribute("datetime"));
      el.textContent = date.toLocaleString(document.documentElement.lang, {
        dateStyle: "full", timeStyle: "short",
      });
    }
  }

  function zoneField() {
    const field = document.querySelector("#event-form input[name=timezone]");
    if (!field || field.dataset.set) return;
    try {
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      if (zone && !field.form.dataset.bound) {
        field.value = zone;
        const note = document.querySelector("[data-zone-name]");
        if (note) note.textContent = zone;
      }
    } catch (e) { /* keep the server's default */ }
    field.dataset.set = "1";
  }

  function applyFilter(search) {
    const select = document.getElementById(search.dataset.filters);
    if (!select) return;
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    for (const option of select.options) {
      const text = option.textContent.toLowerCase();
      option.hidden = option.value !== "" && !words.every(function (w) { return text.includes(w); });
    }
  }
  document.addEventListener("input", function (event) {
    const search = event.target.closest("[data-filters]");
    if (search) applyFilter(search);
  });
  // The live hint may bring a fresh picker (another variant): keep the search applied.
  document.addEventListener("htmx:afterSettle", function () {
    for (const search of document.querySelectorAll("[data-filters]")) applyFilter(search);
  });

  // A search among a form's choices (the clubs of a battle, arena/form.html): Enter there
  // searches at once instead of sending the form; Enter in any other field of a form that has
  // such a search sends it with its own button, not with the search's (the first submit
  // button of the form, which a browser presses on Enter). Without JavaScript Enter searches.
  document.addEventListener("keydown", function (event) {
    const field = event.target;
    if (event.key !== "Enter" || event.isComposing || field.tagName !== "INPUT") return;
    const form = field.form;
    if (!form || !form.querySelector("[data-search-here]")) return;
    event.preventDefault();
    if (field.hasAttribute("data-search-here")) {
      if (window.htmx) htmx.trigger(field, "search");
      return;
    }
    const send = form.querySelectorAll("button[type=submit]:not([name])");
    if (send.length) form.requestSubmit(send[send.length - 1]);
  });

  // A club ticked among those found joins the chosen ones at once (the server would put it
  // there with the next search), keeping the focus.
  document.addEventListener("change", function (event) {
    const box = event.target;
    const found = box.checked && box.closest ? box.closest("#battle-found, #league-found") : null;
    if (!found) return;
    const chosen = document.getElementById(found.id === "league-found" ? "league-chosen" : "battle-chosen");
    const item = box.closest("li");
    if (!chosen || !item) return;
    const none = chosen.querySelector("li.muted");
    if (none) none.remove();
    chosen.append(item);
    box.focus();
  });

  // Fields that only matter for some choices (custom time, thematic, floor, password) are
  // hidden otherwise; they stay in the form, so nothing typed is lost.
  function showWhen() {
    const form = document.getElementById("event-form");
    if (!form) return;
    for (const box of form.querySelectorAll("[data-show-when]")) {
      const [name, wanted] = box.dataset.showWhen.split("=");
      const input = form.elements[name];
      if (!input) continue;
      const value = input.type === "checkbox" ? (input.checked ? "on" : "") : input.value;
      box.hidden = value !== wanted && !box.querySelector(".error");
    }
    // RULES 7.3: openings that make the event casual take "rated" and the floor off the form
    // (the hint says why); their values stay, so double games can make it rated again.
    const casual = !!form.querySelector("#rated-hint[data-casual]");
    for (const box of form.querySelectorAll('[data-field="rated"], [data-field="floor"]')) {
      if (casual) box.hidden = true;
      else if (box.dataset.field === "rated") box.hidden = false;
    }
  }
  document.addEventListener("change", showWhen);
  document.addEventListener("htmx:afterSettle", showWhen);

  // The form's live hint is asked on "change", and leaving a field for the submit button is
  // a change: a hint still on its way when the page goes would be aborted (an error in the
  // console). So a submit waits for the hint on its way, and none starts once submitting.
  (function () {
    const form = document.getElementById("event-form");
    if (!form) return;
    let asking = false, submitting = false, waiting = null;
    form.addEventListener("submit", function (event) {
      if (asking) {
        event.preventDefault();
        waiting = { submitter: event.submitter || null };
        return;
      }
      submitting = true;
    });
    form.addEventListener("htmx:beforeRequest", function (event) {
      if (submitting) event.preventDefault();
      else asking = true;
    });
    form.addEventListener("htmx:afterRequest", function () {
      asking = false;
      if (waiting) {
        const submitter = waiting.submitter;
        waiting = null;
        if (submitter) form.requestSubmit(submitter);
        else form.requestSubmit();
      }
    });
  })();
  // A fragment swapped in is ticked at once (its countdown never shows stale text).
  document.addEventListener("htmx:afterSettle", function () { tick(); localTimes(); });

  // Typing in the opening search is not a choice: keep its "change" from the live form hint.
  document.addEventListener("change", function (event) {
    if (event.target.closest("[data-filters]")) event.stopPropagation();
  }, true);

  document.addEventListener("DOMContentLoaded", function () {
    const root = document.querySelector("[data-event-socket]");
    if (root) connect(root);
    localTimes();
    zoneField();
    showWhen();
    tick();
    setInterval(tick, 1000);
  });
})();
