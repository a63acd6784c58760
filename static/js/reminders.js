// Reminders before my events (events/reminders.py): the site socket says "reminder", the
// notices re-fetch themselves (hx-trigger), and each new one is also a browser notification
// when I chose them and this browser allows them (asked on the account page, on a click).
// Every tab gets the notices; the notification's tag makes the browser show one per reminder,
// and each tab remembers (localStorage) which it has shown.
(() => {
  const SEEN = "circolo.reminded";
  function seen() {
    try { return JSON.parse(localStorage.getItem(SEEN) || "[]"); } catch (e) { return []; }
  }
  function notify(root) {
    const shown = seen();
    for (const item of root.querySelectorAll("[data-reminder]")) {
      const id = item.dataset.reminder;
      if (shown.includes(id) || item.dataset.notify !== "1") continue;
      shown.push(id);
      if (!("Notification" in window) || Notification.permission !== "granted") continue;
      try {
        const note = new Notification(item.dataset.title, { body: item.dataset.body, tag: "circolo-reminder-" + id });
        note.onclick = () => { window.focus(); location.href = item.dataset.url; };
        const html = document.documentElement;
        html.dataset.notifications = String(Number(html.dataset.notifications || 0) + 1);
      } catch (e) { /* a browser that allows them only from a service worker: the notice stays */ }
    }
    localStorage.setItem(SEEN, JSON.stringify(shown.slice(-50)));
  }
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (event.detail.target && event.detail.target.id === "reminder-notices") notify(event.detail.target);
  });
})();
