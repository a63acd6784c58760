// The round sheet (RULES 13.8): a result typed and Enter saves the board's row (htmx swaps it
// in place) and moves to the next board; a refused result keeps the focus where it was.
// The arbiter types faster than the answers come: each request keeps its own row and next row
// (a second Enter must not overwrite what the first will need), and a row that comes back late
// moves the focus only if the arbiter is still on that row. Once they have gone on to another
// board (to type a result there, perhaps one refused with its message now on screen), a late
// answer for the row before leaves their cursor, and what they type, where they are.
(function () {
  "use strict";
  const sent = new WeakMap(); // the request (its XMLHttpRequest) → {current, next, stayed}
  function row(el) { return el && el.closest && el.closest("tr[data-board]"); }
  document.addEventListener("htmx:beforeRequest", function (event) {
    const elt = event.detail.elt;
    const input = elt && elt.querySelector && elt.querySelector("[data-result-input]");
    if (!input || !event.detail.xhr) return;
    const inputs = Array.from(document.querySelectorAll("[data-result-input]"));
    const i = inputs.indexOf(input);
    sent.set(event.detail.xhr, {
      current: input.id,
      next: i >= 0 && i + 1 < inputs.length ? inputs[i + 1].id : null,
      stayed: false,
    });
  });
  // Just before the row is replaced: is the focus still in it (or nowhere)?
  document.addEventListener("htmx:beforeSwap", function (event) {
    const mine = event.detail.xhr && sent.get(event.detail.xhr);
    if (!mine) return;
    const active = document.activeElement;
    const target = event.detail.target;
    mine.stayed = !active || active === document.body || (!!target && target.contains(active));
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    const xhr = event.detail.xhr;
    const mine = xhr && sent.get(xhr);
    if (!mine) return;
    sent.delete(xhr);
    if (!mine.stayed) return; // the arbiter is elsewhere now: leave the focus there
    const input = document.getElementById(mine.current);
    const refused = input && row(input) && row(input).querySelector(".error");
    const target = refused ? input : (mine.next && document.getElementById(mine.next)) || input;
    if (target) { target.focus(); target.select(); }
  });
})();
