// What changed for me, shown wherever I am on the site: the site socket (/ws/me/,
// docs/protocol.md) says what changed and the fragment re-fetches itself (STYLE 7). The
// fragments' slow polls cover a lost socket; a reconnect re-fetches them at once.
(() => {
  function changed(what, detail) {
    document.body.dispatchEvent(new CustomEvent(`${what}-changed`, { detail: detail || {} }));
  }
  LiveSocket.open("/ws/me/", {
    // Reconnected: every fragment of news re-fetches ("me-reopened", in their hx-trigger), as a
    // change said while the socket was down was lost; the fragments are the apps' own.
    open(again) { if (again) document.body.dispatchEvent(new CustomEvent("me-reopened")); },
    message(message) {
      if (message.type === "changed" && /^[a-z]+$/.test(message.what)) changed(message.what, message);
    },
  });
})();
