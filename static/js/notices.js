// What changed for me, shown wherever I am on the site: the site socket (/ws/me/,
// docs/protocol.md) says what changed and the fragment re-fetches itself (STYLE 7). The
// fragments' slow polls cover a lost socket; a reconnect re-fetches them at once.
(() => {
  function changed(what, detail) {
    document.body.dispatchEvent(new CustomEvent(`${what}-changed`, { detail: detail || {} }));
  }
  LiveSocket.open("/ws/me/", {
    open(again) {
      // Whether the server hears this page now (tests wait for it before a push to the page).
      document.documentElement.dataset.siteSocket = "open";
      if (again) { changed("challenges"); changed("mytournament"); }
    },
    close() { document.documentElement.dataset.siteSocket = "closed"; },
    message(message) {
      if (message.type === "changed" && /^[a-z]+$/.test(message.what)) changed(message.what, message);
    },
  });
})();
