// What changed for me, shown wherever I am on the site: the site socket (/ws/me/,
// docs/protocol.md) says what changed and the fragment re-fetches itself (STYLE 7). The
// fragments' slow polls cover a lost socket; a reconnect re-fetches them at once.
(() => {
  function changed(what, detail) {
    document.body.dispatchEvent(new CustomEvent(`${what}-changed`, { detail: detail || {} }));
  }
  LiveSocket.open("/ws/me/", {
    open(again) { if (again) { changed("challenges"); changed("mytournament"); changed("reminder"); } },
    message(message) {
      if (message.type === "changed" && /^[a-z]+$/.test(message.what)) changed(message.what, message);
    },
  });
})();
