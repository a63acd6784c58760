// The lobby listens for "changed" pushes and re-fetches its list (STYLE 7); a slow poll in the
// markup covers a lost socket, and a reconnect re-fetches at once.
(() => {
  function changed() { document.body.dispatchEvent(new Event("lobby-changed")); }
  LiveSocket.open("/ws/lobby/", {
    open(again) { if (again) changed(); },
    message: changed,
  });
})();
