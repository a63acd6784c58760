// The lobby listens for "changed" pushes and re-fetches its lists (STYLE 7); a slow poll in the
// markup covers a lost socket, and a reconnect re-fetches at once. The socket is also the
// signed-in player's presence for quick pairing (games.services.pools): a player waits in a
// pool only while a lobby page of theirs is open.
(() => {
  function changed() { document.body.dispatchEvent(new Event("lobby-changed")); }
  LiveSocket.open("/ws/lobby/", {
    open(again) { if (again) changed(); },
    message: changed,
  });
  // Paired from a pool (or a challenge accepted): the site socket says where the game is.
  document.body.addEventListener("mygame-changed", (event) => {
    const game = event.detail && event.detail.game;
    if (game && /^\d+$/.test(String(game))) location.href = "/games/" + game + "/";
  });
  // How long one has waited in a pool.
  setInterval(() => {
    for (const el of document.querySelectorAll("[data-waited-since]")) {
      const s = Math.max(0, Math.floor((Date.now() - Number(el.dataset.waitedSince)) / 1000));
      el.textContent = (s >= 60 ? Math.floor(s / 60) + " min " : "") + (s % 60) + " s";
    }
  }, 1000);
  // The custom minutes and increment only for "Personalizzato" (issue 16: they were shown for
  // every preset and ignored).
  function showWhen() {
    const form = document.getElementById("lobby-challenge-form");
    if (!form) return;
    for (const box of form.querySelectorAll("[data-show-when]")) {
      const [name, wanted] = box.dataset.showWhen.split("=");
      box.hidden = form.elements[name].value !== wanted && !box.querySelector(".error");
    }
  }
  document.addEventListener("change", showWhen);
  document.addEventListener("DOMContentLoaded", showWhen);
})();
