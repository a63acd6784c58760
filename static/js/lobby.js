// The lobby listens for "changed" pushes and re-fetches its lists (STYLE 7); a slow poll in the
// markup covers a lost socket, and a reconnect re-fetches at once. The socket is also the
// signed-in player's presence for quick pairing (games.services.pools): a player waits in a
// pool only while a lobby page of theirs is open.
(() => {
  function changed() { document.body.dispatchEvent(new Event("lobby-changed")); }

  // The quick-pairing grid is fetched by the player (a variant's tab, a cell, "Annulla") and
  // re-fetched on every push; the two used to cross, and a re-fetch of the variant shown
  // before the click could land after the click's answer (or the click's answer land in a box
  // already replaced), so the tab chosen was lost. Now one request of the grid is under way at
  // a time: the player's aborts a re-fetch (hx-sync "replace" on the box, which stays in the
  // page), and a push heard while a request is under way re-fetches once it has ended, for the
  // variant shown then — its answer may have been made before the change.
  let gridRequest = null;
  let gridStale = false;
  const isGrid = (event) => event.detail.target && event.detail.target.id === "quick-pairing";
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    if (isGrid(event)) gridRequest = event.detail.xhr;
  });
  document.body.addEventListener("htmx:afterRequest", (event) => {
    if (!isGrid(event) || event.detail.xhr !== gridRequest) return;
    gridRequest = null;
    if (gridStale) {
      gridStale = false;
      setTimeout(refreshGrid);  // after the request that may be replacing this one has begun
    }
  });
  // The "Amichevole" box as the player left it. A fetch of the grid (a push's re-fetch, a
  // variant's tab) replaces the box, and its answer may have been made before the player ticked
  // it: a tick given while a re-fetch was on its way was lost, and the next click joined the
  // rated pool. After such a swap the box is put back as it was just before, unless the answer
  // shows the player waiting (the box then says the pool they wait in).
  let casualBefore = null;
  document.body.addEventListener("htmx:beforeSwap", (event) => {
    casualBefore = null;
    const config = event.detail.requestConfig;
    if (!isGrid(event) || !config || config.verb !== "get") return;
    const box = event.detail.target.querySelector('input[name="casual"]');
    if (box) casualBefore = box.checked;
  });
  document.body.addEventListener("htmx:afterSwap", (event) => {
    if (!isGrid(event) || casualBefore === null) return;
    const grid = event.detail.target;
    const box = grid.querySelector('input[name="casual"]');
    if (box && !grid.querySelector(".pool-waiting")) box.checked = casualBefore;
    casualBefore = null;
  });
  function refreshGrid() {
    const grid = document.getElementById("quick-pairing");
    if (!grid) return;
    if (gridRequest) { gridStale = true; return; }
    const shown = grid.querySelector("[data-pool-variant]");
    const url = grid.dataset.refresh + "?pool_variant=" + encodeURIComponent(shown ? shown.dataset.poolVariant : "");
    htmx.ajax("GET", url, { source: grid, target: grid, swap: "innerHTML" }).catch(() => {});
  }
  document.body.addEventListener("lobby-changed", refreshGrid);
  document.body.addEventListener("pool-changed", refreshGrid);
  LiveSocket.open("/ws/lobby/", {
    open(again) { if (again) changed(); },
    message: changed,
  });
  // How long one has waited in a pool.
  setInterval(() => {
    for (const el of document.querySelectorAll("[data-waited-since]")) {
      const s = Math.max(0, Math.floor((Date.now() - Number(el.dataset.waitedSince)) / 1000));
      el.textContent = (s >= 60 ? Math.floor(s / 60) + " min " : "") + (s % 60) + " s";
    }
  }, 1000);
  // The custom minutes and increment only for "Personalizzato": shown for a preset, they would
  // be ignored.
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
